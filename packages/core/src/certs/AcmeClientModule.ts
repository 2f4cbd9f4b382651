import type * as Acme from "acme-client"
import type * as Effect from "effect/Effect"
import { lazyModule } from "../util/LazyModule.js"

/** acme-client's exports (`Client`, `crypto`, `axios`). */
export type AcmeModule = typeof Acme

/**
 * acme-client, loaded on first use: it and its dependencies (axios, node-forge, @peculiar/x509) take about 0.2 s to
 * load, which a server without ACME and every CLI command would otherwise pay at start.
 */
export const acmeModule: Effect.Effect<AcmeModule> = lazyModule(() =>
  // A CommonJS package: its exports object is the namespace's default.
  import("acme-client").then((module) => module.default as AcmeModule)
)
