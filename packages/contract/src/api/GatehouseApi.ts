import * as HttpApi from "effect/http-api/HttpApi"
import * as OpenApi from "effect/http-api/OpenApi"
import { AccessApi } from "./AccessApi.js"
import { AuthRequestsApi } from "./AuthRequestsApi.js"
import { CertsApi } from "./CertsApi.js"
import { DockerApi } from "./DockerApi.js"
import { EventsApi } from "./EventsApi.js"
import { FilesApi } from "./FilesApi.js"
import { HealthApi } from "./HealthApi.js"
import { HypervisorApi } from "./HypervisorApi.js"
import { LoginApi } from "./LoginApi.js"
import { MetricsApi } from "./MetricsApi.js"
import { RequestValidation } from "./RequestValidation.js"
import { RoutesApi } from "./RoutesApi.js"
import { SystemApi } from "./SystemApi.js"

/** The Gatehouse management API (`/api/v1`): the one contract the server, the client and the OpenAPI file derive from. */
export class GatehouseApi extends HttpApi.make("gatehouse")
  .add(SystemApi)
  .add(RoutesApi)
  .add(HealthApi)
  .add(EventsApi)
  .add(FilesApi)
  .add(AuthRequestsApi)
  .add(HypervisorApi)
  .add(DockerApi)
  .add(LoginApi)
  .add(AccessApi)
  .add(CertsApi)
  .add(MetricsApi)
  .prefix("/api/v1")
  .middleware(RequestValidation)
  .annotate(HttpApi.QueryParseOptions, { onExcessProperty: "error", errors: "all" })
  .annotate(HttpApi.ParseOptions, { errors: "all" })
  // A misspelt optional field of a body is refused, not dropped (the query string's are refused above).
  .annotate(HttpApi.PayloadParseOptions, { onExcessProperty: "error", errors: "all" })
  .annotateMerge(
    OpenApi.annotations({
      title: "Gatehouse management API",
      version: "1",
      description:
        "Routes, health, events and files of a Gatehouse edge, and its interactive auth requests. Errors share one body: " +
        '`{"error": {"code", "message", "details"?}}`. Endpoints marked WebSocket also accept an upgrade on the same path.'
    })
  ) {}
