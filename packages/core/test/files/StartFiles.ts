import * as fs from "node:fs"
import * as path from "node:path"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { Context, Effect, Layer } from "effect"
import * as ConfigSourceLive from "../../src/config/ConfigSourceLive.js"
import { loadConfig } from "../../src/config/index.js"
import * as EventBus from "../../src/events/EventBus.js"
import { EventRepository } from "../../src/events/EventRepository.js"
import { Files } from "../../src/files/Files.js"
import * as FilesLive from "../../src/files/FilesLive.js"
import * as FileRoutes from "../../src/routes/FileRoutes.js"
import * as RoutesLive from "../../src/routes/RoutesLive.js"
import { RouteValidator } from "../../src/routes/RouteValidator.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"
import * as StoreLive from "../../src/store/StoreLive.js"

// Starts the files service on `configFile` and `routesDir`, which is when it clears what interrupted writes left;
// with the validator, the limits and the read seam (`afterReadChecks`) a test gives, else the real inline validator
// and the service's own limits.
export const startFiles = (
  configFile: string,
  routesDir: string,
  options: {
    readonly validator?: RouteValidator["Service"]
    readonly limits?: Pick<
      FilesLive.FilesOptions,
      "lockTimeout" | "operationTimeout" | "maxQueuedBytes" | "receiveTimeout"
    >
    readonly afterReadChecks?: FilesLive.FilesOptions["afterReadChecks"]
  } = {}
) =>
  Effect.gen(function* () {
    const sources = { env: {}, flags: {}, cwd: path.dirname(configFile) }
    const loaded = loadConfig({ ...sources, file: { path: configFile, text: fs.readFileSync(configFile, "utf8") } })
    if (loaded._tag === "Invalid") return yield* Effect.die(new Error(loaded.issues.map(formatIssue).join("\n")))
    const context = yield* Layer.build(
      FilesLive.layer({ configFile, routesDir, ...options.limits, afterReadChecks: options.afterReadChecks }).pipe(
        Layer.provide(FileRoutes.layer({ routesDir }).pipe(Layer.provideMerge(RoutesLive.layer))),
        Layer.provide(ConfigSourceLive.layer(loaded.config, sources)),
        Layer.provide(Layer.succeed(RouteValidator)(options.validator ?? RouteValidatorLive.inline)),
        Layer.provide(EventBus.layer().pipe(Layer.provide(EventRepository.layer), Layer.provide(StoreLive.layerMemory)))
      )
    )
    return Context.get(context, Files)
  })
