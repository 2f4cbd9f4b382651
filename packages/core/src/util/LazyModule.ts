import * as Effect from "effect/Effect"

/**
 * A module loaded on first use, once: for drivers only some configurations need (OIDC, argon2, DNS updates), so a
 * server without them — and every CLI command — neither loads them nor keeps them in memory (each costs megabytes
 * of RSS and milliseconds at start).
 */
export const lazyModule = <A>(load: () => Promise<A>): Effect.Effect<A> => {
  let loaded: Promise<A> | undefined
  return Effect.promise(() => {
    loaded ??= load()
    return loaded
  })
}
