import { assert, describe, it } from "@effect/vitest"
import { formatIssue, HealthcheckDefaults } from "@gatehouse-edge/contract/domain"
import { described, issuesOf, messagesAt, validRoute, validRoutesOf } from "./helpers.js"

describe("validateRoutesYaml: healthcheck", () => {
  it("fills defaults and converts durations to milliseconds", () => {
    const route = validRoute(
      "app:\n  port: 80\n  healthcheck:\n    path: /health\n    interval: 1m30s\n    timeout: 3\n"
    )
    assert.deepStrictEqual(route.healthcheck, {
      disable: false,
      path: "/health",
      use_get: false,
      interval_ms: 90_000,
      timeout_ms: 3_000,
      retries: 3
    })
  })

  it("takes every field", () => {
    const route = validRoute(
      "app:\n  port: 80\n  healthcheck: {disable: true, use_get: true, retries: 0, interval: 1s, timeout: 1s}\n"
    )
    assert.deepStrictEqual(route.healthcheck, {
      disable: true,
      path: "/",
      use_get: true,
      interval_ms: 1_000,
      timeout_ms: 1_000,
      retries: 0
    })
  })

  it("enforces its rules", () => {
    const text = "app:\n  port: 80\n  healthcheck: {path: x, interval: 999ms, timeout: 0, retries: -1, use_get: yes}\n"
    assert.deepStrictEqual(described(issuesOf(text)), [
      "app.healthcheck.path: `x` must start with `/`",
      'app.healthcheck.use_get: expected boolean, got "yes"',
      "app.healthcheck.interval: must be at least 1s, got 999ms",
      "app.healthcheck.timeout: must be at least 1s, got 0s",
      "app.healthcheck.retries: expected a value greater than or equal to 0, got -1"
    ])
  })

  it("refuses a path an HTTP request cannot carry, saying how to write it; a percent-encoded one is taken", () => {
    const at = (path: string) =>
      described(issuesOf(`app:\n  port: 80\n  healthcheck: {path: ${JSON.stringify(path)}}\n`))
    assert.deepStrictEqual(at("/a b"), [
      "app.healthcheck.path: a space is not valid in an HTTP request path: percent-encode it (`/a%20b`)"
    ])
    assert.deepStrictEqual(at("/ok\t"), [
      "app.healthcheck.path: a whitespace character (U+0009) is not valid in an HTTP request path: percent-encode it (`/ok%09`)"
    ])
    assert.deepStrictEqual(at("/a\u0000"), [
      "app.healthcheck.path: a control character (U+0000) is not valid in an HTTP request path: percent-encode it (`/a%00`)"
    ])
    assert.deepStrictEqual(at("/café"), [
      "app.healthcheck.path: `é` (U+00E9) is not valid in an HTTP request path: percent-encode it (`/caf%C3%A9`)"
    ])
    assert.strictEqual(
      validRoute("app:\n  port: 80\n  healthcheck: {path: '/a%20b?x=1&y=%E2%86%92'}\n").healthcheck?.path,
      "/a%20b?x=1&y=%E2%86%92"
    )
  })

  it("allows `healthcheck: null` only on load-balancer routes, where it stays null", () => {
    const member = validRoute("app-1:\n  port: 80\n  healthcheck: null\n  load_balance: {link: app}\n")
    assert.isNull(member.healthcheck)
    assert.deepStrictEqual(messagesAt("app:\n  port: 80\n  healthcheck: null\n", "app.healthcheck"), [
      "`healthcheck: null` is only allowed on load-balancer routes (with `load_balance.link`); use `healthcheck: {disable: true}` to turn checks off"
    ])
  })

  it("fills defaults on load-balancer routes that do not set healthcheck", () => {
    assert.deepStrictEqual(
      validRoute("app-1:\n  port: 80\n  load_balance: {link: app}\n").healthcheck,
      HealthcheckDefaults
    )
  })
})

describe("validateRoutesYaml: load_balance", () => {
  it("fills mode and weight", () => {
    assert.deepStrictEqual(validRoute("a1:\n  port: 80\n  load_balance: {link: App}\n").load_balance, {
      link: "app",
      mode: "round_robin",
      weight: 1
    })
    assert.deepStrictEqual(
      validRoute("a1:\n  port: 80\n  load_balance: {link: app, mode: ip_hash, weight: 0}\n").load_balance,
      { link: "app", mode: "ip_hash", weight: 0 }
    )
  })

  it("requires a valid link and checks mode and weight", () => {
    const text =
      "a1:\n  port: 80\n  load_balance: {mode: least_con, weight: 1.5}\na2:\n  port: 80\n  load_balance: {link: 'bad link'}\n"
    assert.deepStrictEqual(described(issuesOf(text)), [
      "a1.load_balance.link: missing required key `link`",
      "a1.load_balance.mode: `least_con` is not one of `round_robin`, `least_conn`, `ip_hash` (did you mean `least_conn`?)",
      "a1.load_balance.weight: expected an integer, got 1.5",
      "a2.load_balance.link: invalid alias `bad link`: use lower-case letters, digits, `-` and `.`, starting and ending with a letter or digit (or a wildcard such as `*.example.com`)"
    ])
  })
})

describe("validateRoutesYaml: proxmox", () => {
  it("accepts a node alone: the node itself is the target, no container needed", () => {
    assert.deepStrictEqual(validRoute("pve:\n  port: 8006\n  proxmox: {node: pve1}\n").proxmox, { node: "pve1" })
  })

  it("accepts vmid 0 as the node itself", () => {
    assert.deepStrictEqual(validRoute("pve:\n  port: 8006\n  proxmox: {node: pve1, vmid: 0}\n").proxmox, {
      node: "pve1",
      vmid: 0
    })
  })

  it("accepts a container with services and log files", () => {
    const text =
      "ct:\n  port: 80\n  proxmox:\n    node: pve1\n    vmid: 105\n    service: nginx\n    services: [nginx, php8.2-fpm]\n    files: [/var/log/nginx/error.log]\n"
    assert.deepStrictEqual(validRoute(text).proxmox, {
      node: "pve1",
      vmid: 105,
      service: "nginx",
      services: ["nginx", "php8.2-fpm"],
      files: ["/var/log/nginx/error.log"]
    })
  })

  it("requires a non-empty node and a non-negative integer vmid", () => {
    assert.deepStrictEqual(
      described(issuesOf("ct:\n  port: 80\n  proxmox: {vmid: -1}\nct2:\n  port: 80\n  proxmox: {node: ''}\n")),
      [
        "ct.proxmox.node: missing required key `node`",
        "ct.proxmox.vmid: expected a value greater than or equal to 0, got -1",
        "ct2.proxmox.node: must not be empty"
      ]
    )
  })

  it("rejects dangerous characters in service, services and files", () => {
    const text =
      "ct:\n  port: 80\n  proxmox:\n    node: pve1\n    service: 'nginx;reboot'\n    services: [ok, '$(id)']\n    files: [/var/log/../../etc/shadow, relative.log]\n"
    assert.deepStrictEqual(described(issuesOf(text)), [
      "ct.proxmox.service: must not contain `;`",
      "ct.proxmox.services.1: must not contain `$`",
      "ct.proxmox.files.0: must not contain a `..` path segment",
      "ct.proxmox.files.1: `relative.log` is not an absolute path (it must start with `/`)"
    ])
  })
})

describe("validateRoutesYaml: idlewatcher", () => {
  it("fills defaults", () => {
    assert.deepStrictEqual(validRoute("app:\n  port: 80\n  idlewatcher: {}\n").idlewatcher, {
      idle_timeout_ms: 900_000,
      wake_timeout_ms: 30_000,
      stop_timeout_ms: 30_000,
      stop_method: "stop",
      depends_on: []
    })
  })

  it("takes durations, a stop method, dependencies and the container to control", () => {
    const text = [
      "db:",
      "  port: 5432",
      "app:",
      "  port: 80",
      "  idlewatcher:",
      "    idle_timeout: 1h",
      "    wake_timeout: 45s",
      "    stop_timeout: 0",
      "    stop_method: pause",
      "    depends_on: [DB]",
      "    docker: {docker_host: local, container_name: app}",
      "    proxmox: {node: pve1, vmid: 101}"
    ].join("\n")
    assert.deepStrictEqual(validRoutesOf(text)[1]!.idlewatcher, {
      idle_timeout_ms: 3_600_000,
      wake_timeout_ms: 45_000,
      stop_timeout_ms: 0,
      stop_method: "pause",
      depends_on: ["db"],
      docker: { docker_host: "local", container_name: "app" },
      proxmox: { node: "pve1", vmid: 101 }
    })
  })

  it("checks its fields", () => {
    const text =
      "app:\n  port: 80\n  idlewatcher: {idle_timeout: 1ms, stop_method: halt, docker: {container: x}, proxmox: {services: ['a b']}}\n"
    assert.deepStrictEqual(described(issuesOf(text)), [
      "app.idlewatcher.idle_timeout: must be at least 1s, got 1ms",
      "app.idlewatcher.stop_method: `halt` is not one of `pause`, `stop`, `kill`",
      "app.idlewatcher.docker.container: unknown key `container` (did you mean `container_id`?)",
      "app.idlewatcher.proxmox.node: missing required key `node`",
      "app.idlewatcher.proxmox.services.0: must not contain whitespace"
    ])
  })
})

describe("validateRoutesYaml: homepage, middlewares, rules, access_log", () => {
  it("accepts them, with homepage.show defaulting to true", () => {
    const text = [
      "app:",
      "  port: 80",
      "  homepage: {name: App, icon: app.svg, category: Tools, description: An app, url: https://app.lan}",
      "  middlewares: {ratelimit: {average: 10, burst: 20}}",
      "  rules: [{name: api, on: path /api, do: pass}]",
      "  access_log: {path: /var/log/app.log, format: json, buffer_size: 100}"
    ].join("\n")
    const route = validRoute(text)
    assert.deepStrictEqual(route.homepage, {
      show: true,
      name: "App",
      icon: "app.svg",
      category: "Tools",
      description: "An app",
      url: "https://app.lan"
    })
    assert.deepStrictEqual(route.middlewares, { ratelimit: { average: 10, burst: 20 } })
    assert.deepStrictEqual(route.rules, [{ name: "api", on: "path /api", do: "pass" }])
    assert.deepStrictEqual(route.access_log, { path: "/var/log/app.log", format: "json", buffer_size: 100 })
  })

  it("type-checks them", () => {
    const text = [
      "app:",
      "  port: 80",
      "  homepage: {show: maybe, nme: x}",
      "  middlewares: {ratelimit: 5}",
      "  rules: [{on: x}]",
      "  access_log: {format: xml}"
    ].join("\n")
    assert.deepStrictEqual(described(issuesOf(text)), [
      "app.homepage.nme: unknown key `nme` (did you mean `name`?)",
      'app.homepage.show: expected boolean, got "maybe"',
      "app.middlewares.ratelimit: expected object, got 5",
      "app.rules.0.do: missing required key `do`",
      "app.access_log.format: `xml` is not one of `common`, `combined`, `json`"
    ])
  })
})

describe("validateRoutesYaml: unknown keys", () => {
  it("are errors at every level, located at the key, with a hint when one is close", () => {
    const text =
      "app:\n  port: 80\n  helthcheck: {}\n  healthcheck:\n    intervall: 5s\n  proxmox: {node: a, vmidd: 1}\n  whatever: 1\n"
    assert.deepStrictEqual(issuesOf(text).map(formatIssue), [
      "3:3: app.helthcheck: unknown key `helthcheck` (did you mean `healthcheck`?)",
      "7:3: app.whatever: unknown key `whatever`",
      "5:5: app.healthcheck.intervall: unknown key `intervall` (did you mean `interval`?)",
      "6:22: app.proxmox.vmidd: unknown key `vmidd` (did you mean `vmid`?)"
    ])
  })
})
