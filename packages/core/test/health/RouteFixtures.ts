import type { Route, Scheme } from "@gatehouse-edge/contract/domain"
import { type Healthcheck, HealthcheckDefaults } from "@gatehouse-edge/contract/domain"
import type { RouteRecord } from "../../src/routes/Routes.js"

/** A normalized route to a loopback target. */
export const route = (
  alias: string,
  scheme: Scheme,
  target: number,
  healthcheck: Partial<Healthcheck> | null = {},
  extra: Partial<Route> = {}
): Route => ({
  alias,
  scheme,
  host: "127.0.0.1",
  port: { listening: 0, target },
  healthcheck: healthcheck === null ? null : { ...HealthcheckDefaults, ...healthcheck },
  ...extra
})

/** A route table record as `Routes` reports it. */
export const recordOf = (r: Route, excluded = false): RouteRecord => ({ route: r, provider: "file:test.yml", excluded })
