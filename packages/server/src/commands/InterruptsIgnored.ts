import * as Effect from "effect/Effect"

// The keyboard's signals: the terminal sends them to every process of its foreground group.
const interruptSignals = ["SIGINT", "SIGQUIT"] as const

/**
 * Runs `effect` with SIGINT and SIGQUIT ignored by this process, as git ignores them while its editor runs: the
 * terminal sends them to the editor too, which may take them as its own keys (Emacs' C-g) and go on editing, and
 * the CLI must then go on waiting for it rather than end the run and throw the edit away. The runtime's listeners
 * (which interrupt the program) are set aside meanwhile and put back after, in their order. SIGTERM still ends it.
 */
export const withInterruptsIgnored = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const ignore = () => {}
      return interruptSignals.map((signal) => {
        // The listener that ignores goes on first: a signal with no listener at all, even for an instant, would
        // take Node's default action and kill the process.
        process.on(signal, ignore)
        const setAside = process.rawListeners(signal).filter((listener) => listener !== ignore)
        for (const listener of setAside) process.removeListener(signal, listener as () => void)
        return { signal, ignore, setAside }
      })
    }),
    () => effect,
    (ignored) =>
      Effect.sync(() => {
        for (const { signal, ignore, setAside } of ignored) {
          for (const listener of setAside) process.on(signal, listener as () => void)
          process.removeListener(signal, ignore)
        }
      })
  )
