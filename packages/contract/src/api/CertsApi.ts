import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import {
  AcmeChallengeFailed,
  AcmeFailed,
  AcmeNotConfigured,
  AcmeUnreachable,
  CertInfo,
  CertificateNotFound,
  RenewalInProgress,
  toWireError
} from "../domain/index.js"
import { requires } from "./Scopes.js"
import { Authorization } from "./Security.js"

/** Query of `GET /cert/renew`: the one certificate to renew (default: every ACME certificate). */
export const RenewQuery = {
  name: Schema.optionalKey(
    Schema.String.check(
      Schema.isPattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/, { message: "expected a certificate name" })
    ).annotate({ description: "A configured certificate's name" })
  )
}

/** The errors that can refuse or fail a renewal. */
export const renewErrors = [
  toWireError(CertificateNotFound),
  toWireError(AcmeNotConfigured),
  toWireError(RenewalInProgress),
  toWireError(AcmeUnreachable),
  toWireError(AcmeFailed),
  toWireError(AcmeChallengeFailed)
]

/** Certificates from files and ACME (SPEC §7). */
export class CertsApi extends HttpApiGroup.make("certs")
  .add(
    HttpApiEndpoint.get("info", "/cert/info", {
      success: Schema.Array(CertInfo),
      error: [toWireError(CertificateNotFound)]
    })
      .annotateMerge(requires("certs:read"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Certificates",
          description:
            "One CertInfo per available certificate (files first, then ACME), with `days_left`, `lifetime_days`, " +
            "`expiring_soon` and, for ACME, the renewal state (next attempt, last attempt, last error). 404 when none " +
            "is available."
        })
      ),
    HttpApiEndpoint.get("renew", "/cert/renew", {
      query: RenewQuery,
      success: Schema.Array(CertInfo),
      error: renewErrors
    })
      .annotateMerge(requires("certs:write"))
      .annotateMerge(
        OpenApi.annotations({
          summary: "Renew ACME certificates now",
          description:
            "Renews every ACME certificate (or `name`) and answers every certificate after it. One renewal runs at a " +
            "time (409). A failure is a 502 and the previous certificate stays in use. 503 when no ACME certificate " +
            "is configured (or `name` is a file certificate), 404 for a `name` that is not configured. WebSocket on " +
            "the same path: progress frames (order placed, challenge served, validated, issued, installed), then one " +
            "result frame `{ok, certs?, error?}`."
        })
      )
  )
  .middleware(Authorization) {}
