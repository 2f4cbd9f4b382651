import * as Schema from "effect/Schema"
import { defineEvent } from "./EventKind.js"

const Trigger = Schema.Literals(["manual", "scheduled"])

/** `cert/renewed`: an ACME certificate was obtained or renewed and installed. */
export const CertRenewedEvent = defineEvent("cert", "renewed", {
  level: "info",
  identifier: "CertRenewedEvent",
  description: "an ACME certificate was obtained or renewed and installed",
  data: Schema.Struct({
    name: Schema.String,
    domains: Schema.Array(Schema.String),
    serial: Schema.String,
    not_after: Schema.String,
    trigger: Trigger
  })
})

/** `cert/renew_failed`: obtaining or renewing an ACME certificate failed; the previous one (if any) stays. */
export const CertRenewFailedEvent = defineEvent("cert", "renew_failed", {
  level: "error",
  identifier: "CertRenewFailedEvent",
  description: "obtaining or renewing an ACME certificate failed; the previous certificate stays in use",
  data: Schema.Struct({
    name: Schema.String,
    domains: Schema.Array(Schema.String),
    code: Schema.String,
    error: Schema.String,
    next_attempt_at: Schema.String,
    trigger: Trigger
  })
})

/** `cert/reloaded`: a certificate's files changed on disk and the new pair is in use. */
export const CertReloadedEvent = defineEvent("cert", "reloaded", {
  level: "info",
  identifier: "CertReloadedEvent",
  description: "a certificate's files changed and the new pair is in use",
  data: Schema.Struct({ name: Schema.String, serial: Schema.String, not_after: Schema.String })
})

/** `cert/load_failed`: a certificate's files are unreadable or do not form a pair; the previous pair stays. */
export const CertLoadFailedEvent = defineEvent("cert", "load_failed", {
  level: "error",
  identifier: "CertLoadFailedEvent",
  description: "a certificate's files are unreadable or not a matching pair; the previous pair stays in use",
  data: Schema.Struct({ name: Schema.String, cert: Schema.String, key: Schema.String, error: Schema.String })
})

/** Constructors of the `cert` events. */
export const CertEvents = {
  renewed: CertRenewedEvent.make,
  renewFailed: CertRenewFailedEvent.make,
  reloaded: CertReloadedEvent.make,
  loadFailed: CertLoadFailedEvent.make
} as const
