import { HypervisorEvents } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as FiberHandle from "effect/FiberHandle"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import type { Events } from "../events/Events.js"
import type { ClusterRuntime } from "./ClusterRuntime.js"
import { missingPrivileges } from "./PermissionCheck.js"
import { PvePermissions } from "./PveSchemas.js"
import { isTransientFailure } from "./TransientFailure.js"

/**
 * Checks one cluster's effective privileges; reports the missing ones as an event and a warning. A cluster that does
 * not answer is checked again once it answers a poll of its cache (logged at the first failure only: the cache logs
 * the outage itself); any other failure (credentials refused, a certificate not trusted) waits for a reload, which
 * is how the operator fixes it.
 */
const checkCluster = (cluster: ClusterRuntime, events: Events["Service"], failedBefore = false): Effect.Effect<void> =>
  cluster.client.get("/access/permissions", PvePermissions).pipe(
    Effect.flatMap((permissions) => {
      const missing = missingPrivileges(permissions)
      if (missing.length === 0) return Effect.void
      return Effect.andThen(
        Effect.logWarning(
          `Proxmox VE cluster "${cluster.name}": the credentials lack ${missing
            .map((m) => `${m.privilege} on ${m.path} (${m.neededFor})`)
            .join("; ")}`
        ),
        events.publish(
          HypervisorEvents.permissionsMissing({
            cluster: cluster.name,
            missing: missing.map((m) => ({ path: m.path, privilege: m.privilege, needed_for: m.neededFor }))
          })
        )
      )
    }),
    Effect.catch((error) => {
      const again = isTransientFailure(error)
      const logged = failedBefore
        ? Effect.void
        : Effect.logWarning(
            `Proxmox VE cluster "${cluster.name}": permission check failed: ${error.message}${
              again ? "; checked again when it answers" : ""
            }`
          )
      return again
        ? Effect.andThen(logged, Effect.andThen(cluster.cache.nextAnswer, checkCluster(cluster, events, true)))
        : logged
    })
  )

/**
 * Checks every cluster's privileges at start and again after each config reload, in the background: a token
 * with privilege separation and no ACL otherwise sees silently empty lists.
 */
export const watchPermissions = Effect.fnUntraced(function* (
  clusters: ReadonlyArray<ClusterRuntime>,
  events: Events["Service"]
) {
  if (clusters.length === 0) return
  // One check per cluster at a time, forked: a reload's check replaces one still waiting for its cluster to answer
  // (so the cluster is checked once when it does, not once per reload meanwhile), and a cluster that stays down
  // holds up no reload.
  const checks = yield* Effect.forEach(clusters, (cluster) =>
    Effect.map(FiberHandle.make<void, never>(), (handle) => FiberHandle.run(handle, checkCluster(cluster, events)))
  )
  const checkAll = Effect.forEach(checks, (check) => check, { discard: true })
  // The newest config event now, read before a check: every reload after it triggers a check, even one that happens
  // while the check runs, and no reload from before triggers a second one.
  const newest = Effect.map(events.history({ category: "config", limit: 1 }), (last) => last[0]?.id)
  const checkThenFollow = (since: string | undefined): Effect.Effect<void> =>
    Effect.andThen(checkAll, followReloads(since))
  const followReloads = (since: string | undefined): Effect.Effect<void> =>
    events.follow({ category: "config", ...(since === undefined ? {} : { since }) }).pipe(
      // The config file's reloads only: route files change often and say nothing about Proxmox credentials.
      Stream.filter((event) => event.action === "reload" && event.data.source === "config"),
      Stream.runForEach(() => checkAll),
      // A gap (the history dropped what was still to replay, or this watcher fell behind) may hide a reload: check
      // again and follow on from the newest event. Spaced, so a store that keeps failing is not asked in a loop.
      Effect.catch(() => Effect.flatMap(Effect.andThen(Effect.sleep("1 second"), newest), checkThenFollow))
    )
  yield* Effect.forkScoped(Effect.flatMap(newest, checkThenFollow))
}) as (clusters: ReadonlyArray<ClusterRuntime>, events: Events["Service"]) => Effect.Effect<void, never, Scope.Scope>
