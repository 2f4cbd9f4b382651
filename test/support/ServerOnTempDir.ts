import * as fs from "node:fs"
import * as path from "node:path"
import { loadConfig } from "@gatehouse-edge/core"
import { formatIssue } from "@gatehouse-edge/core/domain"
import { layerGatehouseServer } from "@gatehouse-edge/server"
import { Effect, Layer, Logger } from "effect"
import { tempDir } from "./TempDir.js"

// Test output stays readable.
const withoutLogs = <A, E, R>(layer: Layer.Layer<A, E, R>) => layer.pipe(Layer.provide(Logger.layer([])))

/**
 * What a test server is made of, not built yet: a temp directory (removed with the scope) holding the route files
 * and the config file given, the config loaded as `serve` loads it (with the routes and data directories inside,
 * and the `http`/`grpc` flags given), and the real server composition on it (`layerGatehouseServer`), logs silenced.
 */
export const serverOnTempDir = (
  prefix: string,
  options: {
    readonly configYaml?: string | undefined
    /** Route files: file name → YAML. */
    readonly routeFiles?: Readonly<Record<string, string>> | undefined
    readonly env?: Readonly<Record<string, string>> | undefined
    readonly flags: { readonly http: string; readonly grpc: string }
  }
) =>
  Effect.gen(function* () {
    const dir = yield* tempDir(prefix)
    const routesDir = path.join(dir, "routes")
    fs.mkdirSync(routesDir)
    for (const [name, text] of Object.entries(options.routeFiles ?? {}))
      fs.writeFileSync(path.join(routesDir, name), text)
    let configFile: string | undefined
    if (options.configYaml !== undefined) {
      configFile = path.join(dir, "gatehouse.yml")
      fs.writeFileSync(configFile, options.configYaml)
    }
    const { flags } = options
    const result = loadConfig({
      file: configFile === undefined ? undefined : { path: configFile, text: options.configYaml! },
      env: { GATEHOUSE_ROUTES_DIR: routesDir, GATEHOUSE_DATA_DIR: path.join(dir, "data"), ...options.env },
      flags,
      cwd: dir
    })
    if (result._tag === "Invalid") return yield* Effect.die(new Error(result.issues.map(formatIssue).join("\n")))
    const config = result.config
    const layer = withoutLogs(
      layerGatehouseServer({
        config,
        sources: { env: {}, flags, cwd: dir },
        version: { version: "0.0.0-test", commit: "test" }
      })
    )
    return { dir, routesDir, configFile, config, layer }
  })
