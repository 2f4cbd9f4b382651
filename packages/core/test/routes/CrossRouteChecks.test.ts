import { assert, describe, it } from "@effect/vitest"
import type { Listener } from "@gatehouse-edge/contract/domain"
import { formatIssue } from "@gatehouse-edge/contract/domain"
import { listenersOverlap } from "../../src/routes/CrossRouteChecks.js"
import { validateRouteSources } from "../../src/routes/RouteSources.js"
import { described, issuesOf, validRoutesOf } from "./helpers.js"

const stream = (alias: string, port: string, extra = "") => `${alias}:\n  port: "${port}"\n${extra}`

describe("duplicate aliases", () => {
  it("reports a key written twice, at the repeat, naming the first", () => {
    const issues = issuesOf("app:\n  port: 80\nweb:\n  port: 81\napp:\n  port: 82\n", { file: "r.yml" })
    assert.deepStrictEqual(issues.map(formatIssue), ["r.yml:5:1: app: duplicate alias `app` (first defined at line 1)"])
  })

  it("reports aliases that differ only in case or spacing", () => {
    const issues = issuesOf("app:\n  port: 80\nApp:\n  port: 81\n")
    assert.deepStrictEqual(issues.map(formatIssue), ["3:1: app: duplicate alias `app` (first defined at 1:1)"])
  })

  it("reports duplicate keys inside a route", () => {
    const issues = issuesOf("app:\n  port: 80\n  host: a\n  host: b\n")
    assert.deepStrictEqual(issues.map(formatIssue), ["4:3: app.host: duplicate key `host` (first defined at line 3)"])
  })
})

describe("listening port conflicts", () => {
  const conflicts = (text: string) => issuesOf(text).filter((i) => i.message.includes("conflicts with"))

  it("reports two TCP routes on the same port and address, on the later one", () => {
    const issues = conflicts(`${stream("a", "5432:5432")}${stream("b", "5432:5433")}`)
    assert.deepStrictEqual(described(issues), [
      "b.port: listening port 5432/tcp on 0.0.0.0 conflicts with route `a` (0.0.0.0, defined at 1:1)"
    ])
    assert.deepStrictEqual([issues[0]!.line, issues[0]!.column], [4, 9])
  })

  it("treats 0.0.0.0 as overlapping every IPv4 address, in either order", () => {
    assert.lengthOf(
      conflicts(`${stream("a", "53:53", "  bind: 0.0.0.0\n")}${stream("b", "53:53", "  bind: 10.0.0.1\n")}`),
      1
    )
    assert.lengthOf(conflicts(`${stream("a", "53:53", "  bind: 10.0.0.1\n")}${stream("b", "53:53")}`), 1)
  })

  it("treats :: as overlapping every IPv6 address, and compares IPv6 in canonical form", () => {
    assert.lengthOf(
      conflicts(`${stream("a", "22:22", "  bind: '::'\n")}${stream("b", "22:22", "  bind: 'fd00::1'\n")}`),
      1
    )
    assert.lengthOf(
      conflicts(`${stream("a", "22:22", "  bind: '0:0::0:1'\n")}${stream("b", "22:22", "  bind: '::1'\n")}`),
      1
    )
  })

  it("lets distinct addresses, families, protocols and ports share", () => {
    const text = [
      stream("a", "80:80", "  bind: 10.0.0.1\n"),
      stream("b", "80:80", "  bind: 10.0.0.2\n"), // another IPv4 address
      stream("c", "80:80", "  bind: '::'\n"), // IPv6 listeners are IPv6-only
      stream("d", "80:80", "  scheme: udp\n"), // udp, not tcp
      stream("e", "81:80"), // another port
      stream("f", ":80", "  scheme: tcp\n") // listening 0: the system picks a port
    ].join("")
    assert.strictEqual(validRoutesOf(text).length, 6)
  })

  it("defines overlap symmetrically on listeners", () => {
    const l = (network: Listener["network"], address: string, port: number): Listener => ({ network, address, port })
    assert.isTrue(listenersOverlap(l("tcp4", "0.0.0.0", 80), l("tcp4", "127.0.0.1", 80)))
    assert.isTrue(listenersOverlap(l("tcp4", "127.0.0.1", 80), l("tcp4", "0.0.0.0", 80)))
    assert.isFalse(listenersOverlap(l("tcp4", "0.0.0.0", 80), l("udp4", "0.0.0.0", 80)))
    assert.isFalse(listenersOverlap(l("tcp4", "0.0.0.0", 80), l("tcp6", "::", 80)))
    assert.isFalse(listenersOverlap(l("tcp4", "0.0.0.0", 0), l("tcp4", "0.0.0.0", 0)))
  })
})

describe("references", () => {
  it("requires depends_on to name existing routes, with a hint", () => {
    const text = "database:\n  port: 5432\napp:\n  port: 80\n  idlewatcher: {depends_on: [databse, cache]}\n"
    assert.deepStrictEqual(described(issuesOf(text)), [
      "app.idlewatcher.depends_on.0: depends on `databse`, which is not a route (did you mean `database`?)",
      "app.idlewatcher.depends_on.1: depends on `cache`, which is not a route"
    ])
  })

  it("rejects a route that depends on itself", () => {
    assert.deepStrictEqual(described(issuesOf("app:\n  port: 80\n  idlewatcher: {depends_on: [App]}\n")), [
      "app.idlewatcher.depends_on.0: a route cannot depend on itself"
    ])
  })

  it("accepts dependencies on load-balancer pools and on known aliases from elsewhere", () => {
    const text =
      "a1:\n  port: 80\n  load_balance: {link: pool}\napp:\n  port: 81\n  idlewatcher: {depends_on: [pool, redis]}\n"
    assert.strictEqual(validRoutesOf(text, { knownAliases: ["redis"] }).length, 2)
  })

  it("rejects a load-balancer link that names a route outside the pool", () => {
    const text = "app:\n  port: 80\napp-1:\n  port: 81\n  load_balance: {link: app}\n"
    assert.deepStrictEqual(described(issuesOf(text)), [
      "app-1.load_balance.link: load-balancer link `app` collides with route `app` (defined at 1:1), which is not in the pool"
    ])
  })

  it("accepts a pool member that carries the pool's name", () => {
    const text = "app:\n  port: 80\n  load_balance: {link: app}\napp-2:\n  port: 81\n  load_balance: {link: app}\n"
    assert.strictEqual(validRoutesOf(text).length, 2)
  })
})

describe("validateRouteSources (several files)", () => {
  it("runs the cross-route checks across files and names the file of each issue", () => {
    const report = validateRouteSources([
      { file: "a.yml", text: 'db:\n  port: "5432:5432"\napp:\n  port: 80\n' },
      {
        file: "b.yml",
        text: 'app:\n  port: 81\ndb2:\n  port: "5432:5432"\nweb:\n  port: 82\n  idlewatcher: {depends_on: [db]}\n'
      }
    ])
    assert.isFalse(report.valid)
    assert.deepStrictEqual(report.issues.map(formatIssue), [
      "b.yml:1:1: app: duplicate alias `app` (first defined at a.yml:3:1)",
      "b.yml:4:9: db2.port: listening port 5432/tcp on 0.0.0.0 conflicts with route `db` (0.0.0.0, defined at a.yml:1:1)"
    ])
    assert.deepStrictEqual(
      report.files.map((f) => [f.file, f.report.valid]),
      [
        ["a.yml", true],
        ["b.yml", false]
      ]
    )
  })

  it("keeps a syntax error in one file from hiding the others' problems", () => {
    const report = validateRouteSources([
      { file: "bad.yml", text: "app: [\n" },
      { file: "good.yml", text: "web:\n  port: nope\n" }
    ])
    assert.deepStrictEqual(
      report.files.map((f) => f.report._tag),
      ["InvalidYaml", "Parsed"]
    )
    assert.deepStrictEqual(
      report.issues.map((i) => i.file),
      ["bad.yml", "good.yml"]
    )
  })
})
