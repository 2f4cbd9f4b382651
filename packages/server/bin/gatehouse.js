#!/usr/bin/env node
// The `gatehouse` command. It runs the built CLI, ../dist/bin.js. This launcher is committed (dist/ is not), so
// `npm ci` can link the bin before the first build; the published package ships dist/ with it.
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const cli = new URL("../dist/bin.js", import.meta.url)
if (!existsSync(cli)) {
  console.error(
    `gatehouse: the CLI is not built (${fileURLToPath(cli)} is missing).\n` +
      "In the Gatehouse repository, run `npm run build` first, or run it from source: `npm run gatehouse -- <command>`."
  )
  process.exit(1)
}
await import(cli.href)
