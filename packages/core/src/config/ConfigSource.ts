import type { ValidationIssue, ValidationUnavailable } from "@gatehouse-edge/contract/domain"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { GatehouseConfig } from "./GatehouseConfig.js"
import type { ConfigCheck } from "./LoadConfig.js"

/** What reloading the config file did. */
export type ConfigReloadOutcome =
  | {
      readonly _tag: "Reloaded"
      readonly changed: ReadonlyArray<string>
      readonly restartRequired: ReadonlyArray<string>
    }
  | { readonly _tag: "Rejected"; readonly issues: ReadonlyArray<ValidationIssue> }

/**
 * The server's configuration as read from its file, with the environment and flags it was started with.
 * `validate` checks a candidate text as a file first (its own values, `${NAME}` from the server's environment, no
 * variable or flag hiding a problem, every issue at file:line:column), then as a restart would see it (with the
 * variables and flags); a large text is checked on a validation worker thread, so `validate` may answer
 * {@link ValidationUnavailable}. `reload` re-reads the file and, on any problem, keeps the running configuration and
 * emits `config/error`. Settings are applied at start, so a valid
 * change is reported in `config/reload` as needing a restart (route files reload live, see `Routes`).
 * The real one is `ConfigSourceLive.layer`.
 */
export class ConfigSource extends Context.Service<
  ConfigSource,
  {
    readonly current: Effect.Effect<GatehouseConfig>
    readonly validate: (text: string) => Effect.Effect<ConfigCheck, ValidationUnavailable>
    readonly reload: Effect.Effect<ConfigReloadOutcome>
  }
>()("@gatehouse-edge/core/ConfigSource") {}
