import type { AuthRequest } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"

/**
 * Who is waiting on which request, in memory: one small queue per watcher, indexed by auth id, so a change
 * reaches only that request's watchers (10,000 waiters on 10,000 requests cost one lookup per change, not 10,000).
 * Waiting itself is not durable; the verdict is. A watcher that reconnects reads the stored state first.
 */
export interface AuthRequestWaiters {
  /** A queue of this request's changes, removed from the index when the scope closes. */
  readonly register: (authId: string) => Effect.Effect<Queue.Dequeue<AuthRequest>, never, Scope.Scope>
  readonly notify: (request: AuthRequest) => void
  readonly count: () => number
  /** The requests someone is waiting on. */
  readonly watched: () => ReadonlyArray<string>
}

export const makeAuthRequestWaiters = (): AuthRequestWaiters => {
  const byId = new Map<string, Set<Queue.Queue<AuthRequest>>>()
  let total = 0
  return {
    register: (authId) =>
      Effect.acquireRelease(
        Queue.unbounded<AuthRequest>().pipe(
          Effect.tap((queue) =>
            Effect.sync(() => {
              const set = byId.get(authId) ?? new Set()
              set.add(queue)
              byId.set(authId, set)
              total++
            })
          )
        ),
        (queue) =>
          Effect.sync(() => {
            const set = byId.get(authId)
            if (set?.delete(queue) === true) total--
            if (set?.size === 0) byId.delete(authId)
          }).pipe(Effect.andThen(Queue.shutdown(queue)))
      ),
    notify: (request) => {
      for (const queue of byId.get(request.auth_id) ?? []) Queue.offerUnsafe(queue, request)
    },
    count: () => total,
    watched: () => [...byId.keys()]
  }
}
