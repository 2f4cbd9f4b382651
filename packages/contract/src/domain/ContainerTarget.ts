/**
 * The container a route's target runs in, as its provider last saw it (Docker label routes): route health follows
 * its state and its HEALTHCHECK (SPEC §3), and the Docker API finds the container by the route's alias.
 */
export interface ContainerTarget {
  /** The configured engine's name. */
  readonly host: string
  readonly id: string
  readonly name: string
  /** `running`, `exited`, `paused`, ... as the engine says. */
  readonly state: string
  /** The engine's summary, e.g. `Exited (137) 3 seconds ago`: what an operator reads when the route is down. */
  readonly status: string
  /** When the engine created it, in Unix seconds (0 when the engine did not say): the older of two claiming one alias keeps it. */
  readonly created: number
  /** The verdict of the container's own HEALTHCHECK; absent when it has none. */
  readonly health?: "starting" | "healthy" | "unhealthy" | undefined
}
