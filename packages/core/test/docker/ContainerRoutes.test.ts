import { describe, expect, it } from "vitest"
import { checkAcrossContainers, containerRoutes, inferTarget } from "../../src/docker/ContainerRoutes.js"
import type { ProvidedRoute } from "../../src/routes/RouteProviders.js"

const container = (patch: Record<string, unknown> = {}) => ({
  Id: "4f1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c",
  Names: ["/web"],
  State: "running",
  HostConfig: { NetworkMode: "bridge" },
  NetworkSettings: { Networks: { bridge: { IPAddress: "172.17.0.5" } } },
  Ports: [{ PrivatePort: 80, Type: "tcp" }],
  ...patch
})

describe("inferTarget", () => {
  it("prefers a published port, reached on loopback when published on every address", () => {
    expect(
      inferTarget(container({ Ports: [{ IP: "0.0.0.0", PrivatePort: 80, PublicPort: 8080, Type: "tcp" }] }))
    ).toEqual({
      host: "127.0.0.1",
      port: 8080
    })
    expect(
      inferTarget(container({ Ports: [{ IP: "10.0.0.2", PrivatePort: 80, PublicPort: 8080, Type: "tcp" }] }))
    ).toEqual({
      host: "10.0.0.2",
      port: 8080
    })
  })

  it("else the container's address and exposed port; host networking is this machine; UDP is not a target", () => {
    expect(inferTarget(container())).toEqual({ host: "172.17.0.5", port: 80 })
    expect(inferTarget(container({ HostConfig: { NetworkMode: "host" }, NetworkSettings: { Networks: {} } }))).toEqual({
      host: "127.0.0.1",
      port: 80
    })
    expect(inferTarget(container({ Ports: [{ PrivatePort: 53, Type: "udp" }], NetworkSettings: {} }))).toEqual({})
  })
})

describe("containerRoutes", () => {
  it("makes the routes of the labels, the target inferred where no label sets it", () => {
    const report = containerRoutes(
      "local",
      container({ Labels: { "proxy.aliases": "web,api", "proxy.api.port": "9000" } })
    )
    expect(report.issues).toEqual([])
    expect(report.aliases).toEqual(["web", "api"])
    expect(report.routes.map((r) => [r.route.alias, r.route.host, r.route.port.target, r.source])).toEqual([
      ["web", "172.17.0.5", 80, "docker:local"],
      ["api", "172.17.0.5", 9000, "docker:local"]
    ])
  })

  it("a bad label leaves out its route only, and the issue names the label and the container", () => {
    const report = containerRoutes(
      "local",
      container({ Labels: { "proxy.aliases": "web,api", "proxy.api.port": "99999", "proxy.web.scheme": "http" } })
    )
    expect(report.routes.map((r) => r.route.alias)).toEqual(["web"])
    expect(report.issues).toHaveLength(1)
    expect(report.issues[0]).toMatchObject({ label: "proxy.api.port", provider: "docker:local" })
    expect(report.issues[0]?.message).toMatch(/^container web: /)
  })

  it("no proxy labels: no routes; proxy.exclude: routes listed as excluded", () => {
    expect(containerRoutes("local", container({ Labels: { "com.example": "x" } }))).toEqual({
      routes: [],
      issues: [],
      aliases: []
    })
    const excluded = containerRoutes(
      "local",
      container({ Labels: { "proxy.exclude": "true", "proxy.web.port": "80" } })
    )
    expect(excluded.routes.map((r) => r.excluded)).toEqual([true])
  })
})

describe("checkAcrossContainers", () => {
  const claiming = (name: string, created: number) =>
    containerRoutes(
      "local",
      container({
        Id: `${name}`.padEnd(64, "0"),
        Names: [`/${name}`],
        Created: created,
        Labels: { "proxy.aliases": `shared,${name}`, "proxy.*.port": "80" }
      })
    ).routes
  const owners = (routes: ReadonlyArray<ProvidedRoute>) => routes.map((r) => `${r.route.alias}@${r.container?.name}`)

  it("two containers claiming one alias: the older keeps it in either list order; the issue names both", () => {
    const older = claiming("dup1", 1_700_000_000)
    const newer = claiming("dup2", 1_700_000_100)
    const issue = {
      path: ["shared"],
      message: "container dup2: duplicate alias `shared` (first defined at docker:local container dup1)",
      provider: "docker:local"
    }
    for (const routes of [
      [...newer, ...older],
      [...older, ...newer]
    ]) {
      const checked = checkAcrossContainers({ routes, issues: [] })
      expect(owners(checked.routes).sort()).toEqual(["dup1@dup1", "dup2@dup2", "shared@dup1"])
      expect(checked.issues).toEqual([issue])
    }
  })

  it("created in the same second: the engine's list (newest first) read backwards decides", () => {
    const first = claiming("first", 1_700_000_000)
    const second = claiming("second", 1_700_000_000)
    const checked = checkAcrossContainers({ routes: [...second, ...first], issues: [] })
    expect(owners(checked.routes)).toEqual(["second@second", "shared@first", "first@first"])
    expect(checked.issues.map((i) => i.message)).toEqual([
      "container second: duplicate alias `shared` (first defined at docker:local container first)"
    ])
  })

  it("routes that do not conflict, and the problems already found, pass unchanged", () => {
    const issues = [
      { path: ["proxy.x.port"], message: "container x: port 99999 is out of range", provider: "docker:local" }
    ]
    const state = { routes: claiming("one", 1).filter((r) => r.route.alias === "one"), issues }
    expect(checkAcrossContainers(state)).toBe(state)
  })
})
