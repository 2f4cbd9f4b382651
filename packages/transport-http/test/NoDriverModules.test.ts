import * as fs from "node:fs"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { loadedModules } from "../../client/test/support/LoadedModules.js"
import { sqliteDriverPackage } from "../../core/src/store/SqliteDriver.js"

const repoRoot = path.resolve(import.meta.dirname, "../../..")

/** Drivers and integrations that belong to the core's live layers, never to a transport. */
const driverPackages = [
  "better-sqlite3",
  "better-sqlite3-v12",
  "chokidar",
  "yaml",
  "ssh2",
  "dockerode",
  "pg",
  "acme-client",
  "dns-packet"
] as const

const packageOf = (file: string) =>
  /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path.relative(repoRoot, file).split(path.sep).join("/"))?.[1]

/** The driver packages among `loaded`, and the core modules outside the ports and the domain. */
const driversIn = (loaded: ReadonlyArray<string>) =>
  loaded.flatMap((file) => {
    const relative = path.relative(repoRoot, file).split(path.sep).join("/")
    const pkg = packageOf(file)
    if (pkg !== undefined && (driverPackages as ReadonlyArray<string>).includes(pkg)) return [`${relative} (${pkg})`]
    if (relative.startsWith("packages/core/src/") && !isPortOrDomain(relative))
      return [`${relative} (core implementation)`]
    return []
  })

// The modules `@gatehouse-edge/core/services` re-exports (the ports), read from the entry itself.
const portModules = new Set(
  [
    ...fs.readFileSync(path.join(repoRoot, "packages/core/src/services.ts"), "utf8").matchAll(/from "\.\/(.+)\.js"/g)
  ].map((match) => `packages/core/src/${match[1]}.ts`)
)

// What a transport may load of the core: the domain, the services entry and the ports it re-exports.
const isPortOrDomain = (relative: string) =>
  relative.startsWith("packages/core/src/domain/") ||
  relative === "packages/core/src/services.ts" ||
  portModules.has(relative)

describe("importing @gatehouse-edge/transport-http", () => {
  it.live(
    "loads no driver (SQLite, YAML, file watching, SSH, Docker, PostgreSQL) and no core implementation",
    () =>
      Effect.gen(function* () {
        const loaded = yield* loadedModules("@gatehouse-edge/transport-http")
        // The recorder sees the whole package: its entry, its handlers and the core ports it uses.
        assert.isTrue(loaded.some((file) => file.endsWith("packages/transport-http/src/index.ts")))
        assert.isTrue(loaded.some((file) => file.endsWith("packages/transport-http/src/handlers/RoutesHandlers.ts")))
        assert.isTrue(loaded.some((file) => file.endsWith("packages/core/src/services.ts")))
        assert.deepStrictEqual(driversIn(loaded), [])
        for (const live of ["HealthLive.ts", "RoutesLive.ts", "FilesLive.ts", "EventBus.ts"]) {
          assert.isFalse(
            loaded.some((file) => file.endsWith(live)),
            `${live} loaded`
          )
        }
      }),
    60_000
  )

  it.live(
    "importing @gatehouse-edge/transport-grpc loads none either",
    () =>
      Effect.gen(function* () {
        const loaded = yield* loadedModules("@gatehouse-edge/transport-grpc")
        assert.isTrue(loaded.some((file) => file.endsWith("packages/transport-grpc/src/GrpcServer.ts")))
        assert.isTrue(loaded.some((file) => file.endsWith("packages/core/src/authrequests/AuthRequests.ts")))
        assert.deepStrictEqual(driversIn(loaded), [])
        assert.isFalse(loaded.some((file) => file.endsWith("AuthRequestsLive.ts")))
      }),
    60_000
  )

  it.live(
    "the check does catch drivers and implementations (the core's main entry loads them)",
    () =>
      Effect.gen(function* () {
        const found = driversIn(yield* loadedModules("@gatehouse-edge/core"))
        for (const pkg of [
          "(yaml)",
          `(${sqliteDriverPackage})`,
          "(chokidar)"
          // ssh2, dockerode, dns-packet, acme-client, argon2 and openid-client are loaded on first use
          // (util/LazyModule.ts), not with the entry.
        ]) {
          assert.isTrue(
            found.some((entry) => entry.endsWith(pkg)),
            `${pkg} not detected`
          )
        }
        assert.isTrue(found.some((entry) => entry.endsWith("HealthLive.ts (core implementation)")))
      }),
    60_000
  )
})
