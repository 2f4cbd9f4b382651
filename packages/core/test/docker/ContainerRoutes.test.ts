import { describe, expect, it } from "vitest"
import { containerRoutes, inferTarget } from "../../src/docker/ContainerRoutes.js"

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
