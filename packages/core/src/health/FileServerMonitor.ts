import * as fs from "node:fs"
import type { Healthcheck, Route } from "@gatehouse-edge/contract/domain"
import * as Effect from "effect/Effect"
import { type CheckResult, down, measure, misconfigured, type ProbeOutcome, up } from "./CheckResult.js"

const probe = (root: string): Effect.Effect<ProbeOutcome> =>
  Effect.callback<ProbeOutcome>((resume) => {
    fs.stat(root, (err, stats) =>
      resume(Effect.succeed(err ? down(err.message) : stats.isDirectory() ? up : down(`${root} is not a directory`)))
    )
  })

/** `stat(root)` must be an existing directory, for `fileserver` routes. */
export const checkFileServer = (route: Route, hc: Healthcheck): Effect.Effect<CheckResult> =>
  measure(
    route.root === undefined ? Effect.succeed(misconfigured("file server route has no root")) : probe(route.root),
    hc.timeout_ms
  )
