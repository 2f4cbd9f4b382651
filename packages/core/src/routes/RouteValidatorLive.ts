import { Effect, Layer } from "effect"
import { validateRouteSources } from "./RouteSources.js"
import { validateRoutesYaml } from "./RoutesYaml.js"
import { RouteValidator } from "./RouteValidator.js"

/** {@link RouteValidator} running the validation in this process. */
export const make = RouteValidator.of({
  validateYaml: Effect.fn("RouteValidator.validateYaml")((text: string, options?: { readonly file?: string }) =>
    Effect.sync(() => validateRoutesYaml(text, options?.file === undefined ? {} : { file: options.file }))
  ),
  validateSources: Effect.fn("RouteValidator.validateSources")((sources) =>
    Effect.sync(() => validateRouteSources(sources))
  ),
  validate: Effect.fn("RouteValidator.validate")(function* (text: string) {
    const report = validateRoutesYaml(text)
    const error = RouteValidator.errorOf(report)
    if (error !== undefined) return yield* error
    return RouteValidator.routesOf(report)
  }),
  frames: Effect.fn("RouteValidator.frames")((text: string) =>
    Effect.sync(() => RouteValidator.framesOf(validateRoutesYaml(text)))
  )
})

/** The route validator. */
export const layer: Layer.Layer<RouteValidator> = Layer.succeed(RouteValidator)(make)
