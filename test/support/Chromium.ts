import { Effect, type Scope } from "effect"
import { type BrowserContext, chromium } from "playwright-core"
import { tempDir } from "./TempDir.js"

/** Debian's Chromium (package `chromium`); never a browser downloaded by Playwright. */
export const chromiumPath = "/usr/bin/chromium"

// The flags of reference/test-infra.md: headless, no sandbox (CI runs as root), nothing that talks to the network
// on its own.
const flags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/** A browser for one test: its context, and every request it made to somewhere other than loopback. */
export interface TestBrowser {
  readonly context: BrowserContext
  /** URLs of requests that left 127.0.0.1 (a test asserts there were none: tests target loopback only). */
  readonly offLoopback: ReadonlyArray<string>
}

/** Options of {@link launchChromiumWith}. */
export interface ChromiumOptions {
  /** `false`: pages run no script at all, as in a browser with JavaScript turned off (default `true`). */
  readonly javaScriptEnabled?: boolean
}

/**
 * Headless Chromium from Debian, driven by `playwright-core`, with a fresh profile (`--user-data-dir` in a temp
 * dir: no cookies or cache from another test). Closed, and its profile removed, when the scope closes. Launch it
 * after the servers it visits: the scope then closes the browser first, and no keep-alive connection of the
 * browser holds up a server's graceful shutdown.
 */
export const launchChromiumWith = (options: ChromiumOptions = {}): Effect.Effect<TestBrowser, never, Scope.Scope> =>
  Effect.gen(function* () {
    const profile = yield* tempDir("gatehouse-chromium-")
    const context = yield* Effect.acquireRelease(
      Effect.promise(() =>
        chromium.launchPersistentContext(profile, {
          executablePath: chromiumPath,
          headless: true,
          args: flags,
          timeout: 30_000,
          javaScriptEnabled: options.javaScriptEnabled ?? true
        })
      ),
      (context) => Effect.promise(() => context.close())
    )
    context.setDefaultTimeout(10_000)
    context.setDefaultNavigationTimeout(10_000)
    const offLoopback: Array<string> = []
    context.on("request", (request) => {
      const url = new URL(request.url())
      if (["http:", "https:", "ws:", "wss:"].includes(url.protocol) && url.hostname !== "127.0.0.1") {
        offLoopback.push(url.href)
      }
    })
    return { context, offLoopback }
  })

/** {@link launchChromiumWith} with JavaScript on, as a browser has it. */
export const launchChromium: Effect.Effect<TestBrowser, never, Scope.Scope> = launchChromiumWith()
