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

const routeCount = Number(process.argv[2] ?? 10_000)
const runs = Number(process.argv[3] ?? 7)
const warmups = 2

// A small deterministic PRNG, so every run measures the same file.
const random = (() => {
  let state = 0x2545f491
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 0x1_0000_0000
  }
})()
const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!

/** One route of a realistic mix: web apps, TLS backends, TCP/UDP services, file servers, LXC guests, pools. */
const routeYaml = (i: number): Array<string> => {
  const alias = `${pick(["app", "svc", "api", "web", "ct", "db"])}-${i}`
  const host = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`
  switch (i % 10) {
    case 0:
    case 1:
      return [
        `${alias}:`,
        `  host: ${host}`,
        `  port: ${pick([80, 3000, 8080, 9000])}`,
        "  healthcheck:",
        `    path: ${pick(["/health", "/healthz", "/api/ping"])}`,
        `    interval: ${pick(["10s", "30s", "1m"])}`,
        "    timeout: 5s",
        "  homepage:",
        `    name: ${alias.toUpperCase()}`,
        `    category: ${pick(["Media", "Tools", "Infra"])}`,
        `    icon: ${alias}.svg`
      ]
    case 2:
      return [`${alias}:`, "  scheme: https", `  host: ${alias}.lan`, "  port: 8443", "  access_log: {format: json}"]
    case 3:
      return [`${alias}:`, `  host: ${host}`, `  port: "${20_000 + i}:22"`, "  bind: 127.0.0.1"]
    case 4:
      return [`${alias}:`, "  scheme: udp", `  host: ${host}`, `  port: "${20_000 + i}:53"`, '  bind: "::1"']
    case 5:
      return [`${alias}:`, "  scheme: fileserver", `  root: /srv/www/${alias}`]
    case 6:
      return [
        `${alias}:`,
        `  host: ${host}`,
        "  port: 80",
        "  proxmox:",
        `    node: pve${i % 5}`,
        `    vmid: ${100 + (i % 900)}`,
        "    services: [nginx, php8.2-fpm]",
        "    files: [/var/log/nginx/access.log, /var/log/nginx/error.log]"
      ]
    case 7:
      return [
        `${alias}:`,
        `  host: ${host}`,
        "  port: 8080",
        "  idlewatcher:",
        "    idle_timeout: 30m",
        "    stop_method: stop",
        `    depends_on: [${routeAlias(i - 1)}]`,
        `    docker: {container_name: ${alias}}`
      ]
    case 8:
      return [
        `${alias}:`,
        `  host: ${host}`,
        "  port: 80",
        `  load_balance: {link: pool-${i % 97}, mode: ${pick(["round_robin", "least_conn", "ip_hash"])}}`,
        "  healthcheck: null"
      ]
    default:
      return [
        `${alias}:`,
        "  <<: *defaults",
        `  port: ${4000 + (i % 1000)}`,
        "  middlewares: {ratelimit: {average: 100, burst: 200}}",
        "  rules: [{name: api, on: path /api, do: pass}]"
      ]
  }
}

// Route aliases are chosen when generated; remember them so `depends_on` can name an earlier route.
const aliases: Array<string> = []
const routeAlias = (i: number) => aliases[i]!

const generate = (count: number): string => {
  const body: Array<string> = []
  for (let i = 0; i < count; i++) {
    const route = routeYaml(i)
    aliases.push(route[0]!.slice(0, -1))
    body.push(...route)
  }
  // The anchor must come first; `defaults` is also a (valid) route of its own.
  return ["defaults: &defaults", "  host: backend.lan", "  port: 80", ...body, ""].join("\n")
}

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

const text = generate(routeCount)
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
