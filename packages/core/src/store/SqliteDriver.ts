import { createRequire } from "node:module"
import type BetterSqlite3 from "better-sqlite3"

const require = createRequire(import.meta.url)

/** The Node major version the process runs on. */
const nodeMajor = Number(process.versions.node.split(".")[0])

/**
 * The better-sqlite3 package this Node runs: 13.x (Node-API, a prebuilt binary for every Node from 22 on) where it
 * runs, 12.x (built from source at install, under the alias `better-sqlite3-v12`) on Node 20.
 * Why two: on Node ≥ 24.19, 12.x aborts the whole process (`Assertion failed: (env) != nullptr` in
 * `RemoveEnvironmentCleanupHook`) whenever a closed database or statement is garbage collected — Node changed the
 * `ObjectWrap` 12.x is built on (nodejs/node#65446); 13.x moved to Node-API and is not affected. 13.x in turn
 * crashes on load in Node 20, which is still supported. Both expose the same API.
 */
export const sqliteDriverPackage = nodeMajor >= 22 ? "better-sqlite3" : "better-sqlite3-v12"

/** The better-sqlite3 `Database` class (see {@link sqliteDriverPackage}). */
export const Database: typeof BetterSqlite3 = require(sqliteDriverPackage)
