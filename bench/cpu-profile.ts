/**
 * Summarizes a V8 `.cpuprofile` (from `node --cpu-prof`): self time by area (GC, Node internals, each npm package,
 * each Gatehouse package), the hottest functions by self time, and Gatehouse/builtin functions by inclusive time.
 *
 *   npx tsx bench/cpu-profile.ts <file.cpuprofile> [fromMs] [toMs]
 */
import * as fs from "node:fs"
import { fmt, printTable } from "./support.js"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}
interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
  readonly children?: ReadonlyArray<number>
}
interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

/** Where a frame's code lives: GC, Node internals, an npm package (effect by module), a Gatehouse package. */
const areaOf = ({ functionName, url }: CallFrame): string => {
  if (url === "") {
    if (functionName.startsWith("(")) return functionName // (garbage collector), (program), (idle)
    return "V8 builtins (JSON, RegExp, ...)"
  }
  if (url.startsWith("node:")) return `node: ${url.slice(5).split("/")[0]}`
  const gatehouse = /\/packages\/([^/]+)\//.exec(url)
  if (gatehouse !== null && !url.includes("/node_modules/")) return `@gatehouse-edge/${gatehouse[1]}`
  const pkg = /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\/(.*)$/.exec(url)
  if (pkg !== null) {
    if (pkg[1] === "effect") return `effect/${pkg[2]!.replace(/^dist\//, "").replace(/\.js$/, "")}`
    return pkg[1]!
  }
  return url
}

const shortUrl = (url: string) =>
  url
    .replace(/^file:\/\//, "")
    .replace(/.*\/node_modules\//, "")
    .replace(/.*\/packages\//, "packages/")

const frameKey = (f: CallFrame) => `${f.functionName || "(anonymous)"} ${shortUrl(f.url)}:${f.lineNumber + 1}`

/** Times in ms, within [fromMs, toMs] of the profile's start when given. */
export const summarizeProfile = (
  file: string,
  options: { readonly fromMs?: number; readonly toMs?: number; readonly print?: boolean } = {}
) => {
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as CpuProfile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

  const selfByArea = new Map<string, number>()
  const selfByFrame = new Map<string, number>()
  const inclusive = new Map<string, number>()
  const inclusiveByArea = new Map<string, number>()
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v)
  let t = 0
  let total = 0
  const from = (options.fromMs ?? 0) * 1000
  const to = (options.toMs ?? Number.POSITIVE_INFINITY) * 1000
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0
    if (t < from || t > to) continue
    // A sample's time is the delta to the next sample.
    const us = profile.timeDeltas[i + 1] ?? 0
    const leaf = byId.get(profile.samples[i]!)!
    if (leaf.callFrame.functionName === "(idle)") {
      add(selfByArea, "(idle)", us)
      continue
    }
    total += us
    add(selfByArea, areaOf(leaf.callFrame), us)
    add(selfByFrame, frameKey(leaf.callFrame), us)
    const seen = new Set<string>()
    const areas = new Set<string>()
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id)!.callFrame
      const area = areaOf(frame)
      if (!areas.has(area) && area !== "(root)") {
        areas.add(area)
        add(inclusiveByArea, area, us)
      }
      if (!area.startsWith("@gatehouse-edge/") && !area.startsWith("V8 builtins")) continue
      const key = frameKey(frame)
      if (!seen.has(key)) {
        seen.add(key)
        add(inclusive, key, us)
      }
    }
  }

  const top = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, ms: Math.round(us / 1000), percent: (us / total) * 100 }))
  const idleMs = Math.round((selfByArea.get("(idle)") ?? 0) / 1000)
  selfByArea.delete("(idle)")
  const result = {
    file,
    busyMs: Math.round(total / 1000),
    idleMs,
    selfByArea: top(selfByArea, 20),
    inclusiveByArea: top(inclusiveByArea, 20),
    selfByFunction: top(selfByFrame, 25),
    inclusiveGatehouseAndBuiltins: top(inclusive, 25)
  }
  if (options.print === true) {
    const rows = (list: typeof result.selfByArea) => list.map((r) => [r.name, fmt(r.ms), `${fmt(r.percent, 1)}%`])
    console.log(`busy ${fmt(result.busyMs)} ms, idle ${fmt(idleMs)} ms (percentages are of busy time)\n`)
    printTable(["self time by area", "ms", "share"], rows(result.selfByArea))
    console.log()
    printTable(["inclusive time by area (on the stack)", "ms", "share"], rows(result.inclusiveByArea))
    console.log()
    printTable(["self time by function", "ms", "share"], rows(result.selfByFunction))
    console.log()
    printTable(
      ["inclusive time (Gatehouse code and V8 builtins)", "ms", "share"],
      rows(result.inclusiveGatehouseAndBuiltins)
    )
  }
  return result
}

if (process.argv[1] !== undefined && import.meta.filename === fs.realpathSync(process.argv[1])) {
  const [file, fromMs, toMs] = process.argv.slice(2)
  if (file === undefined) throw new Error("usage: npx tsx bench/cpu-profile.ts <file.cpuprofile> [fromMs] [toMs]")
  summarizeProfile(file, {
    print: true,
    ...(fromMs === undefined ? {} : { fromMs: Number(fromMs) }),
    ...(toMs === undefined ? {} : { toMs: Number(toMs) })
  })
}
