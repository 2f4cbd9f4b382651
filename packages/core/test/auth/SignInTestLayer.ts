import { Effect, Layer } from "effect"
import type { SqlClient } from "effect/sql"
import type { LoginOptions } from "../../src/auth/LoginLive.js"
import {
  EventBus,
  EventRepository,
  type Events,
  LoginLive,
  OidcLoginRepository,
  ServerSecrets,
  SessionRepository,
  Sessions,
  SessionsLive,
  StoreLive
} from "../../src/index.js"

/** Sessions, the event bus and the sign-in repositories on a store (in memory unless a store layer is given). */
export const sessionsOn = (
  store: Layer.Layer<SqlClient.SqlClient, unknown> = StoreLive.layerMemory,
  ttlMs = 3_600_000,
  options: Omit<SessionsLive.SessionsOptions, "ttlMs"> = {}
) =>
  SessionsLive.layer({ ...options, ttlMs }).pipe(
    Layer.provideMerge(EventBus.layer({ historyCap: 1000 }) as Layer.Layer<Events, never, EventRepository>),
    Layer.provideMerge(
      Layer.mergeAll(EventRepository.layer, SessionRepository.layer, ServerSecrets.layer, OidcLoginRepository.layer)
    ),
    Layer.provideMerge(store)
  )

/** The live sign-in service with the given options, over {@link sessionsOn}. */
export const loginOn = (
  options: LoginOptions,
  store: Layer.Layer<SqlClient.SqlClient, unknown> = StoreLive.layerMemory
) => LoginLive.layer(options).pipe(Layer.provideMerge(sessionsOn(store)))

/** Runs `f` with sessions on `store`, as a server started with `options` would have them (an hour's ttl). */
export const withSessions = <A, E>(
  store: Layer.Layer<SqlClient.SqlClient, unknown>,
  options: Omit<SessionsLive.SessionsOptions, "ttlMs">,
  f: (sessions: Sessions["Service"]) => Effect.Effect<A, E>
) =>
  Effect.scoped(
    Effect.flatMap(Layer.build(sessionsOn(store, 3_600_000, options)), (c) =>
      Sessions.pipe(Effect.flatMap(f), Effect.provideContext(c))
    )
  )
