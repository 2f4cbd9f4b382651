/**
 * Route validation vs plain YAML parsing, on a generated 10,000-route file.
 *
 *   npx tsx --conditions=@gatehouse-edge/source bench/route-validation.ts [routes] [runs]
 *
 * Prints the median of several warm runs of `YAML.parse` (the baseline), of `parseYaml` (positions, limits,
 * alias audit, plain value) and of the full `validateRoutesYaml`, and the ratio validate / YAML.parse.
 */
import { parseYaml, validateRoutesYaml } from "@gatehouse-edge/core"
import YAML from "yaml"
import { generateRouteFile } from "../test/support/GeneratedRoutes.js"

const routeCount = Number(process.argv[2] ?? 10_000)
const runs = Number(process.argv[3] ?? 7)
const warmups = 2

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

// Rounds run every candidate once, in turn, so a burst of load on the machine hits all of them alike.
const measureInterleaved = (candidates: ReadonlyArray<() => unknown>): Array<number> => {
  for (let i = 0; i < warmups; i++) for (const run of candidates) run()
  const times = candidates.map((): Array<number> => [])
  for (let round = 0; round < runs; round++) {
    candidates.forEach((run, index) => {
      const started = performance.now()
      run()
      times[index]!.push(performance.now() - started)
    })
  }
  return times.map(median)
}

const text = generateRouteFile(routeCount)
const report = validateRoutesYaml(text)
if (!report.valid || report._tag !== "Parsed") {
  const issues =
    report._tag === "Parsed" ? [...report.issues, ...report.routes.flatMap((r) => r.issues)] : report.issues
  console.error("generated file is not valid:", JSON.stringify(issues.slice(0, 5), null, 1))
  process.exit(1)
}

const bytes = Buffer.byteLength(text)
console.log(`${report.routes.length} routes, ${(bytes / 1024 / 1024).toFixed(2)} MiB, ${text.split("\n").length} lines`)
console.log(`median of ${runs} warm runs (after ${warmups} warm-up runs), node ${process.version}`)

// yaml's default maxAliasCount (100) refuses this file (1,000 routes use `<<: *defaults`); raise it as we do.
const maxAliasCount = 100_000
const [yamlParse, yamlParseNoUnique, parseOnly, validate] = measureInterleaved([
  () => YAML.parse(text, { maxAliasCount }),
  () => YAML.parse(text, { maxAliasCount, uniqueKeys: false }),
  () => parseYaml(text),
  () => validateRoutesYaml(text)
]) as [number, number, number, number]

const row = (name: string, ms: number) => console.log(`${name.padEnd(44)} ${ms.toFixed(1).padStart(8)} ms`)
row("YAML.parse (defaults but maxAliasCount)", yamlParse)
row("YAML.parse (uniqueKeys: false)", yamlParseNoUnique)
row("parseYaml (positions, limits, audit, toJS)", parseOnly)
row("validateRoutesYaml (full validation)", validate)
console.log(`ratio validateRoutesYaml / YAML.parse:                   ${(validate / yamlParse).toFixed(2)}x`)
console.log(`ratio validateRoutesYaml / YAML.parse (uniqueKeys: false): ${(validate / yamlParseNoUnique).toFixed(2)}x`)
