import { Layer } from "effect"
import type { SqlClient } from "effect/sql"
import type { AuthRequestsConfig } from "../../src/config/ConfigSections.js"
import { AuthRequestsLive, EventBus, EventRepository, type Events, StoreLive } from "../../src/index.js"

/** The live auth-request service on a store (in memory unless a store layer is given), with the event bus. */
export const authRequestsOn = (
  store: Layer.Layer<SqlClient.SqlClient, unknown> = StoreLive.layerMemory,
  config: Partial<AuthRequestsConfig> = {}
) =>
  AuthRequestsLive.layer({ ...AuthRequestsLive.defaultConfig, ...config }).pipe(
    Layer.provideMerge(EventBus.layer({ historyCap: 10_000 }) as Layer.Layer<Events, never, EventRepository>),
    Layer.provide(EventRepository.layer),
    Layer.provideMerge(store)
  )
