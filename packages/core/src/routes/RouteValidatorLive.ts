import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { renderRoutes } from "../validation/ValidationJobs.js"
import { type RoutesBody, ValidationWorkers } from "../validation/ValidationWorkers.js"
import * as ValidationWorkersLive from "../validation/ValidationWorkersLive.js"
import { validateRouteSources } from "./RouteSources.js"
import { validateRoutesYaml } from "./RoutesYaml.js"
import { RouteValidator } from "./RouteValidator.js"

/**
 * {@link RouteValidator} running every validation in this thread, synchronously: for embedding the validator in a
 * script, and as the reference the worker-thread validator must agree with.
 */
export const inline = RouteValidator.of({
  validateYaml: Effect.fn("RouteValidator.validateYaml")((text: string, options?: { readonly file?: string }) =>
    Effect.sync(() => validateRoutesYaml(text, options?.file === undefined ? {} : { file: options.file }))
  ),
  validateSources: Effect.fn("RouteValidator.validateSources")((sources, options) =>
    Effect.sync(() =>
      validateRouteSources(sources, {
        knownAliases: options?.knownAliases,
        checkReferences: options?.checkReferences
      })
    )
  ),
  validate: Effect.fn("RouteValidator.validate")(function* (text: string) {
    const report = validateRoutesYaml(text)
    const error = RouteValidator.errorOf(report)
    if (error !== undefined) return yield* error
    return RouteValidator.routesOf(report)
  }),
  validateJson: Effect.fn("RouteValidator.validateJson")((text: string, body: RoutesBody) =>
    Effect.flatMap(
      Effect.sync(() => renderRoutes(text, body)),
      RouteValidator.jsonOf
    )
  ),
  frames: Effect.fn("RouteValidator.frames")((text: string) =>
    Effect.sync(() => RouteValidator.framesOf(validateRoutesYaml(text)))
  )
})

/**
 * {@link RouteValidator} on {@link ValidationWorkers}: a small document is validated in this thread, a large one on
 * a worker thread, so a megabyte of routes never holds the event loop; the reports are the same either way.
 */
export const make = Effect.fnUntraced(function* () {
  const workers = yield* ValidationWorkers
  const report = (text: string, file?: string) => workers.run({ kind: "routes", text, file })
  return RouteValidator.of({
    validateYaml: Effect.fn("RouteValidator.validateYaml")((text: string, options?: { readonly file?: string }) =>
      report(text, options?.file)
    ),
    validateSources: Effect.fn("RouteValidator.validateSources")((sources, options) =>
      workers.run({
        kind: "sources",
        sources,
        knownAliases: options?.knownAliases,
        checkReferences: options?.checkReferences
      })
    ),
    validate: Effect.fn("RouteValidator.validate")(function* (text: string) {
      const validated = yield* report(text)
      const error = RouteValidator.errorOf(validated)
      if (error !== undefined) return yield* error
      return RouteValidator.routesOf(validated)
    }),
    validateJson: Effect.fn("RouteValidator.validateJson")(function* (text: string, body: RoutesBody) {
      return yield* RouteValidator.jsonOf(yield* workers.run({ kind: "routesJson", text, body }))
    }),
    frames: Effect.fn("RouteValidator.frames")(function* (text: string) {
      return RouteValidator.framesOf(yield* report(text))
    })
  })
})

/** The route validator on the {@link ValidationWorkers} it is given. */
export const layerOnWorkers: Layer.Layer<RouteValidator, never, ValidationWorkers> = Layer.effect(
  RouteValidator,
  make()
)

/** The route validator with the server's shared validation workers (`ValidationWorkersLive.layer`). */
export const layer: Layer.Layer<RouteValidator> = layerOnWorkers.pipe(Layer.provide(ValidationWorkersLive.layer))
