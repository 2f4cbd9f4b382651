import type * as http from "node:http"
import * as zlib from "node:zlib"

/** An error a handler raises: PVE turns it into `HTTP/1.1 <status> <first line of message>`. */
export class PveError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly errors?: Readonly<Record<string, string>>
  ) {
    super(message)
  }
}

/** 400 `Parameter verification failed.` with the per-parameter `errors` map. */
export const paramError = (errors: Readonly<Record<string, string>>): PveError =>
  new PveError(400, "Parameter verification failed.", errors)

const JSON_TYPE = "application/json;charset=UTF-8"

// Node rejects control characters in a reason phrase; PVE uses the first line of the message.
const reasonPhrase = (message: string) => message.split("\n")[0]!.replace(/[^\t\x20-\x7e]/g, "?")

const baseHeaders = (): http.OutgoingHttpHeaders => ({
  Server: "pve-api-daemon/3.0",
  "Cache-Control": "max-age=0",
  Pragma: "no-cache",
  Expires: new Date().toUTCString()
})

const acceptsGzip = (req: http.IncomingMessage) => /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""))

/** Sends a body the way PVE's formatter does: gzip only if the client accepts it and the body exceeds 1024 bytes. */
export const sendBody = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  status: number,
  reason: string,
  body: string,
  contentType: string = JSON_TYPE
): void => {
  const headers = { ...baseHeaders(), "Content-Type": contentType }
  let payload = Buffer.from(body, "utf8")
  if (payload.length > 1024 && acceptsGzip(req)) {
    payload = zlib.gzipSync(payload)
    Object.assign(headers, { "Content-Encoding": "gzip" })
  }
  res.writeHead(status, reason, { ...headers, "Content-Length": payload.length })
  res.end(payload)
}

/** 200 `{"data": …}` (plus `total` for paged lists). */
export const sendData = (
  req: http.IncomingMessage,
  res: http.ServerResponse,
  data: unknown,
  extra?: Readonly<Record<string, unknown>>
): void => sendBody(req, res, 200, "OK", JSON.stringify({ data: data ?? null, ...extra }))

/** A handler error: reason phrase = message, body `{"data":null,"message":"<message>\n"[,"errors":{…}]}`. */
export const sendError = (req: http.IncomingMessage, res: http.ServerResponse, error: PveError): void => {
  const message = error.message.endsWith("\n") ? error.message : `${error.message}\n`
  const body: Record<string, unknown> = { data: null, message }
  if (error.errors !== undefined) body.errors = error.errors
  sendBody(req, res, error.status, reasonPhrase(error.message), JSON.stringify(body))
}

/** A pre-handler failure (`No ticket`, `Authentication failed!`, invalid CSRF): no body, no Content-Type. */
export const sendBare = (res: http.ServerResponse, status: number, reason: string): void => {
  res.writeHead(status, reasonPhrase(reason), { ...baseHeaders(), "Content-Length": 0 })
  res.end()
}

/** Parameter values: strings from the query or a form, any JSON value from a JSON body. */
export type RawParams = Record<string, unknown>

/** Reads the body: form or JSON; query parameters are merged in and override, as in PVE. */
export const parseParams = (
  contentType: string | undefined,
  body: string,
  query: URLSearchParams
): RawParams | PveError => {
  const params: RawParams = {}
  if (body.length > 0) {
    if ((contentType ?? "").startsWith("application/json")) {
      try {
        const parsed: unknown = JSON.parse(body)
        if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) Object.assign(params, parsed)
        else return new PveError(400, "JSON body must be an object")
      } catch (e) {
        return new PveError(400, `malformed JSON string: ${(e as Error).message}`)
      }
    } else {
      for (const [k, v] of new URLSearchParams(body)) params[k] = v
    }
  }
  for (const [k, v] of query) params[k] = v
  return params
}

/** One parameter of a route's schema (the subset of PVE's JSONSchema the simulated routes need). */
export interface ParamSpec {
  readonly type: "boolean" | "integer" | "string"
  readonly optional?: boolean
  readonly minimum?: number
  readonly maximum?: number
  readonly enum?: ReadonlyArray<string>
}

/** Checked parameters: booleans as 0/1 numbers, integers as numbers. */
export type Params = Readonly<Record<string, string | number | undefined>>

/** Validates like PVE's `validate_params`: unknown, missing and mistyped parameters are all reported at once. */
export const validateParams = (raw: RawParams, schema: Readonly<Record<string, ParamSpec>>): Params => {
  const errors: Record<string, string> = {}
  const out: Record<string, string | number> = {}
  for (const key of Object.keys(raw)) {
    if (schema[key] === undefined)
      errors[key] = "property is not defined in schema and the schema does not allow additional properties"
  }
  for (const [key, spec] of Object.entries(schema)) {
    const value = raw[key]
    if (value === undefined || value === "") {
      if (spec.optional !== true) errors[key] = "property is missing and it is not optional"
      continue
    }
    if (spec.type === "boolean") {
      // Form and query values must be exactly 0/1; a JSON body may also use true/false.
      if (value === true || value === false) out[key] = value ? 1 : 0
      else if (value === "0" || value === "1" || value === 0 || value === 1) out[key] = Number(value)
      else errors[key] = `type check ('boolean') failed - got '${String(value)}'`
    } else if (spec.type === "integer") {
      const text = String(value)
      if (!/^[+-]?\d+$/.test(text)) {
        errors[key] = `type check ('integer') failed - got '${text}'`
        continue
      }
      const n = Number.parseInt(text, 10)
      if (spec.minimum !== undefined && n < spec.minimum)
        errors[key] = `value must have a minimum value of ${spec.minimum}`
      else if (spec.maximum !== undefined && n > spec.maximum)
        errors[key] = `value may only be ${spec.maximum} or smaller`
      else out[key] = n
    } else {
      const text = String(value)
      if (spec.enum !== undefined && !spec.enum.includes(text))
        errors[key] = `value '${text}' does not have a value in the enumeration '${spec.enum.join(", ")}'`
      else out[key] = text
    }
  }
  if (Object.keys(errors).length > 0) throw paramError(errors)
  return out
}
