import type { Principal } from "@gatehouse-edge/contract/domain"
import { Layer } from "effect"
import type { SqlClient } from "effect/sql"
import type { AuthRequestsConfig } from "../../src/config/ConfigSections.js"
import { AuthRequestsLive, EventBus, EventRepository, type Events, StoreLive } from "../../src/index.js"

/** An operator's key: creates without an allowance (it may decide anyway). */
export const operator: Principal = {
  method: "api_key",
  subject: "api-key:operator",
  roles: [],
  scopes: ["auth_requests:write"]
}

/** The SSH gate's key: creates `ssh_check` requests and reads, never decides; its creates have an allowance. */
export const gateKey: Principal = {
  method: "api_key",
  subject: "api-key:ssh-gate",
  roles: [],
  scopes: ["auth_requests:create"]
}

/** The live auth-request service on a store (in memory unless a store layer is given), with the event bus. */
export const authRequestsOn = (
  store: Layer.Layer<SqlClient.SqlClient, unknown> = StoreLive.layerMemory,
  config: Partial<AuthRequestsConfig> = {},
  options: { readonly historyCap?: number; readonly limits?: Partial<AuthRequestsLive.AuthRequestsLimits> } = {}
) =>
  AuthRequestsLive.layer({ ...AuthRequestsLive.defaultConfig, ...config }, options.limits).pipe(
    Layer.provideMerge(
      EventBus.layer({ historyCap: options.historyCap ?? 10_000 }) as Layer.Layer<Events, never, EventRepository>
    ),
    Layer.provide(EventRepository.layer),
    Layer.provideMerge(store)
  )
