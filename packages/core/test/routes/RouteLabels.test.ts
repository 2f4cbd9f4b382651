import { assert, describe, it } from "@effect/vitest"
import { HealthcheckDefaults, Route } from "@gatehouse-edge/contract/domain"
import { Schema } from "effect"
import { readLabelValue } from "../../src/routes/LabelValue.js"
import { type RouteLabelsReport, validateRouteLabels } from "../../src/routes/RouteLabels.js"

const container = "/web"

const routesOf = (report: RouteLabelsReport) => {
  assert.isTrue(report.valid, JSON.stringify([report.issues, report.routes.flatMap((r) => r.issues)], null, 1))
  return report.routes.map((r) => {
    assert.isTrue(Schema.is(Route)(r.route))
    return r.route!
  })
}

const allIssues = (report: RouteLabelsReport) => [...report.issues, ...report.routes.flatMap((r) => r.issues)]

describe("validateRouteLabels", () => {
  it("builds a route from dotted labels, nesting by the dots", () => {
    const [route] = routesOf(
      validateRouteLabels(
        {
          "proxy.app.port": "8080",
          "proxy.app.healthcheck.path": "/health",
          "proxy.app.healthcheck.interval": "10s",
          "proxy.app.proxmox.node": "pve",
          "proxy.app.proxmox.vmid": "0"
        },
        { container }
      )
    )
    assert.deepStrictEqual(route, {
      alias: "app",
      scheme: "http",
      host: "localhost",
      port: { listening: 0, target: 8080 },
      healthcheck: { ...HealthcheckDefaults, path: "/health", interval_ms: 10_000 },
      proxmox: { node: "pve", vmid: 0 }
    })
  })

  it("reads inline YAML values", () => {
    const [route] = routesOf(
      validateRouteLabels(
        {
          "proxy.app.port": '"2222:22"',
          "proxy.app.healthcheck": "{path: /health, use_get: true}",
          "proxy.app.proxmox": "{node: pve, vmid: 101}",
          "proxy.app.proxmox.services": "[sshd, nginx]"
        },
        { container }
      )
    )
    assert.deepStrictEqual(route!.port, { listening: 2222, target: 22 })
    assert.strictEqual(route!.scheme, "tcp")
    assert.isTrue(route!.healthcheck?.use_get)
    assert.deepStrictEqual(route!.proxmox, { node: "pve", vmid: 101, services: ["sshd", "nginx"] })
  })

  it("uses the container name as the alias when no label names one", () => {
    const report = validateRouteLabels({ "proxy.*.port": "80" }, { container: "/Web" })
    assert.deepStrictEqual(
      routesOf(report).map((r) => r.alias),
      ["web"]
    )
  })

  it("takes the aliases from proxy.aliases and applies proxy.* to each, an alias's own label winning", () => {
    const report = validateRouteLabels(
      {
        "proxy.aliases": "app, API,app",
        "proxy.*.port": "80",
        "proxy.*.homepage.category": "tools",
        "proxy.api.port": "9000"
      },
      { container }
    )
    const routes = routesOf(report)
    assert.deepStrictEqual(
      routes.map((r) => [r.alias, r.port.target, r.homepage?.category]),
      [
        ["app", 80, "tools"],
        ["api", 9000, "tools"]
      ]
    )
  })

  it("matches dotted aliases listed in proxy.aliases", () => {
    const report = validateRouteLabels(
      { "proxy.aliases": "app.example.com", "proxy.app.example.com.port": "80" },
      { container }
    )
    assert.deepStrictEqual(
      routesOf(report).map((r) => [r.alias, r.port.target]),
      [["app.example.com", 80]]
    )
  })

  it("ignores labels outside proxy., and a container without proxy labels has no routes", () => {
    const report = validateRouteLabels({ "com.docker.compose.service": "web", "traefik.enable": "true" }, { container })
    assert.deepStrictEqual(report, { excluded: false, valid: true, routes: [], issues: [] })
  })

  it("reads proxy.exclude", () => {
    assert.isTrue(validateRouteLabels({ "proxy.exclude": "true", "proxy.*.port": "80" }, { container }).excluded)
    assert.isFalse(validateRouteLabels({ "proxy.exclude": "false", "proxy.*.port": "80" }, { container }).excluded)
    const bad = validateRouteLabels({ "proxy.exclude": "sometimes", "proxy.*.port": "80" }, { container })
    assert.deepStrictEqual(bad.issues, [
      { path: [], message: "`proxy.exclude` must be true or false", label: "proxy.exclude" }
    ])
    assert.isFalse(bad.valid)
  })

  it("names the label of every issue", () => {
    const report = validateRouteLabels(
      {
        "proxy.app.port": "8080",
        "proxy.app.prot": "1",
        "proxy.app.bind": "127.0.0.1",
        "proxy.app.healthcheck": "{path: health}",
        "proxy.app.proxmox.services": "[nginx, 'a;b']",
        "proxy.*.healthcheck.interval": "1ms"
      },
      { container }
    )
    assert.deepStrictEqual(
      allIssues(report).map((i) => [i.label, i.path.join("."), i.message]),
      [
        ["proxy.app.prot", "app.prot", "unknown key `prot` (did you mean `port`?)"],
        ["proxy.app.healthcheck", "app.healthcheck.path", "`health` must start with `/`"],
        ["proxy.*.healthcheck.interval", "app.healthcheck.interval", "must be at least 1s, got 1ms"],
        ["proxy.app.proxmox.services", "app.proxmox.node", "missing required key `node`"],
        ["proxy.app.proxmox.services", "app.proxmox.services.1", "must not contain `;`"],
        ["proxy.app.bind", "app.bind", "`bind` is only valid for tcp and udp routes, not http"]
      ]
    )
  })

  it("reports malformed inline YAML and conflicting labels", () => {
    const report = validateRouteLabels(
      {
        "proxy.app.port": "80",
        "proxy.app.healthcheck": "{path: /a",
        "proxy.app.homepage": "{name: A}",
        "proxy.app.homepage.name": "B"
      },
      { container }
    )
    assert.deepStrictEqual(
      allIssues(report).map((i) => [i.label, i.message]),
      [
        ["proxy.app.healthcheck", "invalid inline YAML: Flow map must end with a } (at column 10)"],
        ["proxy.app.homepage.name", "sets `homepage.name`, which label `proxy.app.homepage` already sets"]
      ]
    )
  })

  it("reports unknown proxy labels with a hint", () => {
    const report = validateRouteLabels({ "proxy.alias": "app", "proxy.app.port": "80" }, { container })
    assert.deepStrictEqual(report.issues, [
      {
        path: [],
        message: "unknown label `proxy.alias` (did you mean `aliases`?); route labels look like proxy.<alias>.<field>",
        label: "proxy.alias"
      }
    ])
  })

  it("reports invalid aliases, from proxy.aliases or from the container name", () => {
    const listed = validateRouteLabels({ "proxy.aliases": "my_app", "proxy.*.port": "80" }, { container })
    assert.deepStrictEqual(
      allIssues(listed).map((i) => i.label),
      ["proxy.aliases"]
    )
    const named = validateRouteLabels({ "proxy.*.port": "80" }, { container: "/my_app" })
    assert.match(allIssues(named)[0]!.message, /the container name is the default alias, set `proxy.aliases`/)
  })

  it("checks the container's routes against each other", () => {
    const report = validateRouteLabels(
      { "proxy.aliases": "a,b", "proxy.*.port": '"5432:5432"', "proxy.a.idlewatcher.depends_on": "[a]" },
      { container }
    )
    assert.deepStrictEqual(
      allIssues(report).map((i) => [i.path.join("."), i.label]),
      [
        ["a.idlewatcher.depends_on.0", "proxy.a.idlewatcher.depends_on"],
        ["b.port", "proxy.*.port"]
      ]
    )
  })

  it("checks that depends_on targets exist only when the other aliases are known", () => {
    const labels = { "proxy.app.port": "80", "proxy.app.idlewatcher.depends_on": "[db]" }
    assert.isTrue(validateRouteLabels(labels, { container }).valid)
    assert.isTrue(validateRouteLabels(labels, { container, knownAliases: ["db"] }).valid)
    assert.isFalse(validateRouteLabels(labels, { container, knownAliases: ["cache"] }).valid)
  })

  it("keeps `__proto__` in a label name a plain key", () => {
    const report = validateRouteLabels({ "proxy.app.port": "80", "proxy.app.__proto__.polluted": "1" }, { container })
    assert.match(allIssues(report)[0]!.message, /unknown key `__proto__`/)
    assert.isUndefined(({} as Record<string, unknown>).polluted)
  })
})

describe("readLabelValue", () => {
  it("converts YAML numbers, booleans and null, and parses quoted strings and flow collections", () => {
    assert.deepStrictEqual(readLabelValue("8080"), { value: 8080 })
    assert.deepStrictEqual(readLabelValue(" true "), { value: true })
    assert.deepStrictEqual(readLabelValue("null"), { value: null })
    assert.deepStrictEqual(readLabelValue('"8080"'), { value: "8080" })
    assert.deepStrictEqual(readLabelValue("[a, b]"), { value: ["a", "b"] })
    assert.deepStrictEqual(readLabelValue("{path: /health}"), { value: { path: "/health" } })
  })

  it("takes any other text verbatim (no comments cut, no accidental mappings)", () => {
    assert.deepStrictEqual(readLabelValue("Notes: read # this"), { value: "Notes: read # this" })
    assert.deepStrictEqual(readLabelValue("8080:80"), { value: "8080:80" })
    assert.deepStrictEqual(readLabelValue("/health"), { value: "/health" })
    assert.deepStrictEqual(readLabelValue("5s"), { value: "5s" })
  })

  it("expands aliases in a label value, but refuses an alias bomb", () => {
    assert.deepStrictEqual(readLabelValue("[&a [1, 2], *a, *a]"), {
      value: [
        [1, 2],
        [1, 2],
        [1, 2]
      ]
    })
    const ten = (item: string) => `[${Array(10).fill(item).join(",")}]`
    const bomb = `[&a ${ten("1")}, &b ${ten("*a")}, &c ${ten("*b")}, ${ten("*c")}]`
    const read = readLabelValue(bomb)
    assert.isTrue("problem" in read && read.problem.includes("expands to more than 10000 nodes"), JSON.stringify(read))
  })
})
