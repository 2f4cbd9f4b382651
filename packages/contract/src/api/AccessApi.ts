import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import {
  ApiKeyExists,
  ApiKeyInfo,
  ApiKeyName,
  ApiKeyNotFound,
  CreatedApiKey,
  NewApiKey,
  Principal,
  SessionInfo,
  SessionNotFound,
  toWireError
} from "../domain/index.js"
import { requires } from "./Scopes.js"
import { Authorization } from "./Security.js"

/** Who is calling, and the credentials of the server: API keys and browser sessions (admins only). */
export class AccessApi extends HttpApiGroup.make("access")
  .add(
    HttpApiEndpoint.get("whoami", "/whoami", { success: Principal })
      .annotateMerge(requires("authenticated"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Who is calling",
          description: "The caller's principal: how it authenticated, its subject, roles and scopes."
        })
      ),
    HttpApiEndpoint.get("listApiKeys", "/apikeys", { success: Schema.Array(ApiKeyInfo) })
      .annotateMerge(requires("admin"))
      .annotateMerge(OpenApi.annotations({ summary: "List API keys", description: "Never the keys themselves." })),
    HttpApiEndpoint.post("createApiKey", "/apikeys", {
      payload: NewApiKey,
      success: CreatedApiKey.annotate({ httpApiStatus: 201 }),
      error: toWireError(ApiKeyExists)
    })
      .annotateMerge(requires("admin"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Create an API key",
          description: "With `scopes` and an optional expiry (`expires_in_s`). The key is in this answer only."
        })
      ),
    HttpApiEndpoint.delete("revokeApiKey", "/apikeys/:name", {
      params: { name: ApiKeyName },
      success: ApiKeyInfo,
      error: toWireError(ApiKeyNotFound)
    })
      .annotateMerge(requires("admin"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Revoke an API key",
          description: "Refused from the next request on, over HTTP and gRPC."
        })
      ),
    HttpApiEndpoint.get("listSessions", "/sessions", { success: Schema.Array(SessionInfo) })
      .annotateMerge(requires("admin"))
      .annotateMerge(OpenApi.annotations({ summary: "List active browser sessions" })),
    HttpApiEndpoint.delete("revokeSession", "/sessions/:id", {
      params: { id: Schema.String.check(Schema.isMaxLength(64)) },
      success: SessionInfo,
      error: toWireError(SessionNotFound)
    })
      .annotateMerge(requires("admin"))
      .annotateMerge(
        OpenApi.annotations({ summary: "Revoke a session", description: "Its cookie stops working at once." })
      )
  )
  .middleware(Authorization) {}
