import * as Schema from "effect/Schema"
import { defineEvent } from "./EventKind.js"
import { ValidationIssue } from "./ValidationIssue.js"

const Names = Schema.Array(Schema.String)

/** `config/reload`: a change was applied; for the config file, the settings that wait for a restart. */
export const ConfigReloadEvent = defineEvent("config", "reload", {
  level: "info",
  identifier: "ConfigReloadEvent",
  description: "a valid change to the config file or the route table was taken in",
  data: Schema.Union([
    Schema.Struct({
      source: Schema.Literal("config"),
      file: Schema.String,
      changed: Names,
      restart_required: Names
    }),
    Schema.Struct({ source: Schema.Literal("routes"), added: Names, removed: Names, changed: Names })
  ])
})

/** `config/error`: a change was refused, with every problem; what was running stays active. */
export const ConfigErrorEvent = defineEvent("config", "error", {
  level: "error",
  identifier: "ConfigErrorEvent",
  description: "an invalid change was refused; the running configuration stays",
  data: Schema.Union([
    Schema.Struct({ source: Schema.Literal("config"), file: Schema.String, issues: Schema.Array(ValidationIssue) }),
    Schema.Struct({ source: Schema.Literal("routes"), issues: Schema.Array(ValidationIssue) })
  ])
})

/** Constructors of the `config` events. */
export const ConfigEvents = {
  reloaded: ConfigReloadEvent.make,
  rejected: ConfigErrorEvent.make
} as const
