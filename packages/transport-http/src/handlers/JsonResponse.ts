import * as HttpServerResponse from "effect/http/HttpServerResponse"

/**
 * A 200 with a JSON body rendered elsewhere (by the core, with the endpoint's own success schema), sent as is: what
 * HttpApi would send for the typed value, without encoding it again on the event loop.
 */
export const jsonResponse = (json: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(json, { contentType: "application/json" })
