import type * as Acme from "acme-client"
import { Effect } from "effect"

/** acme-client's exports (`Client`, `crypto`, `axios`). */
export type AcmeModule = typeof Acme

let loaded: Promise<AcmeModule> | undefined

const load = (): Promise<AcmeModule> => {
  // A CommonJS package: its exports object is the namespace's default.
  loaded ??= import("acme-client").then((module) => module.default as AcmeModule)
  return loaded
}

/**
 * acme-client, loaded on first use: it and its dependencies (axios, node-forge, @peculiar/x509) take about 0.2 s to
 * load, which a server without ACME and every CLI command would otherwise pay at start.
 */
export const acmeModule: Effect.Effect<AcmeModule> = Effect.promise(load)
