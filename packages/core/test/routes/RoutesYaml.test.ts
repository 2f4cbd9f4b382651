import { assert, describe, it } from "@effect/vitest"
import { formatIssue, HealthcheckDefaults } from "@gatehouse-edge/contract/domain"
import { validateRoutesYaml } from "../../src/routes/RoutesYaml.js"
import { described, issuesOf, messagesAt, validRoute, validRoutesOf } from "./helpers.js"

describe("validateRoutesYaml: documents", () => {
  it("normalizes a minimal route with every default", () => {
    assert.deepStrictEqual(validRoute("app:\n  port: 8080\n"), {
      alias: "app",
      scheme: "http",
      host: "localhost",
      port: { listening: 0, target: 8080 },
      healthcheck: HealthcheckDefaults
    })
  })

  it("accepts a single route with `alias` and puts the alias first in issue paths", () => {
    assert.strictEqual(validRoute("alias: App\nport: 80\n").alias, "app")
    const issues = issuesOf("alias: app\nport: 80\nprot: 1\n")
    assert.deepStrictEqual(issues, [
      { path: ["app", "prot"], message: "unknown key `prot` (did you mean `port`?)", line: 3, column: 1 }
    ])
  })

  it("accepts a map of alias → route, keeping document order", () => {
    const routes = validRoutesOf("b:\n  port: 1\na:\n  port: 2\n")
    assert.deepStrictEqual(
      routes.map((r) => r.alias),
      ["b", "a"]
    )
  })

  it("reads a route named `alias` in a map as a route, not as a single-route document", () => {
    assert.deepStrictEqual(
      validRoutesOf("alias:\n  port: 80\nweb:\n  port: 81\n").map((r) => r.alias),
      ["alias", "web"]
    )
  })

  it("lower-cases and trims aliases", () => {
    assert.strictEqual(validRoute('" My-App ":\n  port: 80\n').alias, "my-app")
  })

  it("accepts wildcard and dotted aliases", () => {
    const routes = validRoutesOf("'*.example.com':\n  port: 80\nsvc.lan:\n  port: 81\n")
    assert.deepStrictEqual(
      routes.map((r) => r.alias),
      ["*.example.com", "svc.lan"]
    )
  })

  it("rejects malformed aliases, at the key", () => {
    for (const alias of ["my_app", "-app", "app-", "a b", "*app", "*.", "ünï"]) {
      const issues = issuesOf(`'${alias}':\n  port: 80\n`)
      assert.match(issues[0]!.message, /invalid alias/, alias)
      assert.deepStrictEqual([issues[0]!.line, issues[0]!.column], [1, 1])
    }
    assert.match(issuesOf("alias: ''\nport: 80\n")[0]!.message, /must not be empty/)
  })

  it("allows `alias` inside a mapped route only when it matches the key", () => {
    assert.strictEqual(validRoute("app:\n  alias: APP\n  port: 80\n").alias, "app")
    assert.deepStrictEqual(messagesAt("app:\n  alias: web\n  port: 80\n", "app.alias"), [
      "`alias: web` does not match the route's key `app`"
    ])
  })

  it("treats an empty document as no routes", () => {
    const report = validateRoutesYaml("# nothing yet\n")
    assert.deepStrictEqual(report, { _tag: "Parsed", valid: true, routes: [], issues: [] })
  })

  it("reports a document that is not a mapping as a document-level issue", () => {
    const report = validateRoutesYaml("- app\n- web\n")
    assert.strictEqual(report._tag, "Parsed")
    assert.isFalse(report.valid)
    assert.match(report.issues[0]!.message, /expected a route .* or a mapping of alias → route/)
  })

  it("reports a route that is not a mapping", () => {
    assert.deepStrictEqual(messagesAt("app: 8080\n", "app"), ["a route must be a mapping of fields, got `8080`"])
  })

  it("quotes the beginning of a route that is a long text, not all of it (the message reaches answers and events)", () => {
    const [message] = messagesAt(`app: ${"x".repeat(1024 * 1024)}\n`, "app")
    assert.isBelow(message!.length, 200, message!.slice(0, 300))
    assert.match(message!, /^a route must be a mapping of fields, got `"x{70,80}…" \(1,048,576 characters\)`$/)
  })

  it("treats an empty route as a route without fields", () => {
    assert.deepStrictEqual(described(issuesOf("app:\n")), [
      "app.port: missing required key `port` (the target port, e.g. `port: 8080`)"
    ])
  })

  it("returns InvalidYaml (not a validation failure) for a syntax error, with line, column and file", () => {
    const report = validateRoutesYaml("app:\n  port: [80\n  host: x\n", { file: "apps.yml" })
    assert.strictEqual(report._tag, "InvalidYaml")
    assert.isFalse(report.valid)
    assert.isTrue(report.issues.every((i) => i.file === "apps.yml" && i.line !== undefined && i.column !== undefined))
  })

  it("returns per-route results: valid routes keep their route, invalid ones their issues", () => {
    const report = validateRoutesYaml("good:\n  port: 80\nbad:\n  port: abc\n")
    assert.strictEqual(report._tag, "Parsed")
    assert.isFalse(report.valid)
    const [good, bad] = report._tag === "Parsed" ? report.routes : []
    assert.strictEqual(good?.route?.alias, "good")
    assert.deepStrictEqual(good?.issues, [])
    assert.isUndefined(bad?.route)
    assert.deepStrictEqual(bad?.issues, [
      { path: ["bad", "port"], message: "target port `abc` is not a number", line: 4, column: 9 }
    ])
  })

  it("returns every problem of a document, not just the first", () => {
    const text = [
      "app:",
      "  sheme: http", //                          2
      "  port: 70000", //                           3
      "  healthcheck:",
      "    path: health", //                        5
      "    interval: 2", //                         6 (valid: integer seconds)
      "    timeout: 10x", //                        7
      "web:",
      "  port: 80",
      "  bind: 127.0.0.1" //                        10
    ].join("\n")
    assert.deepStrictEqual(issuesOf(text, { file: "r.yml" }).map(formatIssue), [
      "r.yml:2:3: app.sheme: unknown key `sheme` (did you mean `scheme`?)",
      "r.yml:3:9: app.port: port 70000 is out of range 0–65535",
      "r.yml:5:11: app.healthcheck.path: `health` must start with `/`",
      "r.yml:7:14: app.healthcheck.timeout: `10x` is not a duration: write a number with a unit (ns, us, ms, s, m, h) such as 5s, 1m30s or 500ms, or an integer number of seconds",
      "r.yml:10:3: web.bind: `bind` is only valid for tcp and udp routes, not http"
    ])
  })
})

describe("validateRoutesYaml: scheme", () => {
  const scheme = (text: string) => validRoute(text).scheme

  it("defaults to tcp when a listening port is given", () => {
    assert.strictEqual(scheme('app:\n  port: "2222:22"\n'), "tcp")
  })

  it("defaults to https when the target port is 443 or ends in 443", () => {
    assert.strictEqual(scheme("app:\n  port: 443\n"), "https")
    assert.strictEqual(scheme("app:\n  port: 8443\n"), "https")
    assert.strictEqual(scheme("app:\n  port: 4430\n"), "http")
  })

  it("defaults to http otherwise, and to fileserver for a root without a port", () => {
    assert.strictEqual(scheme('app:\n  port: ":8080"\n'), "http")
    assert.strictEqual(scheme("app:\n  root: /srv/www\n"), "fileserver")
  })

  it("keeps an explicit scheme, including h2c", () => {
    assert.strictEqual(scheme("app:\n  scheme: h2c\n  port: 8443\n"), "h2c")
    assert.strictEqual(scheme('app:\n  scheme: udp\n  port: "53:53"\n'), "udp")
  })

  it("rejects an unknown scheme with a hint", () => {
    assert.deepStrictEqual(messagesAt("app:\n  scheme: htps\n  port: 80\n", "app.scheme"), [
      "`htps` is not one of `http`, `https`, `h2c`, `tcp`, `udp`, `fileserver` (did you mean `https`?)"
    ])
  })
})

describe("validateRoutesYaml: port", () => {
  const port = (value: string) => validRoute(`app:\n  scheme: tcp\n  port: ${value}\n`).port

  it("takes an integer or a string, with an optional listening port", () => {
    assert.deepStrictEqual(validRoute("app:\n  port: 8080\n").port, { listening: 0, target: 8080 })
    assert.deepStrictEqual(port('"8080"'), { listening: 0, target: 8080 })
    assert.deepStrictEqual(port('"2222:22"'), { listening: 2222, target: 22 })
    assert.deepStrictEqual(port('":1234"'), { listening: 0, target: 1234 })
    assert.deepStrictEqual(port('"65535:0065"'), { listening: 65535, target: 65 })
  })

  it("rejects malformed ports, each with its reason", () => {
    const cases: Record<string, string> = {
      abc: "target port `abc` is not a number",
      "70000": "port 70000 is out of range 0–65535",
      '"70000:80"': "listening port 70000 is out of range 0–65535",
      '"1:2:3"': '`1:2:3` is not a port: expected "target" or "listening:target"',
      '"8080:"': "`8080:` has no target port after `:`",
      '""': "port must not be empty",
      "-1": "port -1 is out of range 0–65535",
      "80.5": "port 80.5 is not a whole number",
      "[80]": 'expected a port such as 8080, or "listening:target" such as "2222:22", got [80]'
    }
    for (const [value, message] of Object.entries(cases)) {
      assert.deepStrictEqual(messagesAt(`app:\n  port: ${value}\n`, "app.port"), [message], value)
    }
  })

  it("requires a target port except on file servers", () => {
    assert.deepStrictEqual(messagesAt("app:\n  host: backend\n", "app.port"), [
      "missing required key `port` (the target port, e.g. `port: 8080`)"
    ])
    assert.deepStrictEqual(messagesAt('app:\n  port: ":0"\n', "app.port"), ["the target port must not be 0"])
    assert.strictEqual(validRoute("app:\n  scheme: fileserver\n  root: /srv\n").port.target, 0)
  })

  it("allows a listening port only on tcp and udp routes", () => {
    assert.deepStrictEqual(messagesAt('app:\n  scheme: http\n  port: "8080:80"\n', "app.port"), [
      "a listening port is only valid for tcp and udp routes, not http"
    ])
  })

  it("points a missing port at the route's key", () => {
    const issue = issuesOf("\napp:\n  host: x\n")[0]!
    assert.deepStrictEqual([issue.line, issue.column], [2, 1])
  })
})

describe("validateRoutesYaml: fileserver and host", () => {
  it("requires an absolute root on file servers", () => {
    assert.deepStrictEqual(validRoute("site:\n  scheme: fileserver\n  root: /srv/www\n").root, "/srv/www")
    assert.deepStrictEqual(messagesAt("site:\n  scheme: fileserver\n", "site.root"), [
      "missing required key `root` (the directory a fileserver route serves)"
    ])
    assert.deepStrictEqual(messagesAt("site:\n  scheme: fileserver\n  root: srv/www\n", "site.root"), [
      "`srv/www` is not an absolute path (it must start with `/`)"
    ])
  })

  it("rejects root on other schemes", () => {
    assert.deepStrictEqual(messagesAt("app:\n  port: 80\n  root: /srv\n", "app.root"), [
      "`root` is only valid for fileserver routes, not http"
    ])
  })

  it("takes a hostname or IP, not a URL", () => {
    assert.strictEqual(validRoute("app:\n  host: 10.0.0.5\n  port: 80\n").host, "10.0.0.5")
    assert.strictEqual(validRoute("app:\n  host: '::1'\n  port: 80\n").host, "::1")
    assert.match(messagesAt("app:\n  host: http://backend\n  port: 80\n", "app.host")[0]!, /not a hostname or IP/)
    assert.deepStrictEqual(messagesAt("app:\n  host: ' '\n  port: 80\n", "app.host"), ["must not be empty"])
  })

  it("accepts only IP literals and RFC 1123 hostnames, and says where and why", () => {
    for (const good of [
      "backend",
      "app-1.internal.example",
      "a",
      "x".repeat(63),
      "10.0.0.5",
      "fe80::1",
      "::ffff:10.0.0.1"
    ]) {
      assert.strictEqual(validRoute(`app:\n  host: '${good}'\n  port: 80\n`).host, good)
    }
    const bad: Record<string, RegExp> = {
      "a(b": /labels take only letters, digits and `-`/,
      "a;b": /labels take only letters, digits and `-`/,
      my_app: /labels take only letters, digits and `-`/,
      "-a": /must not start or end with `-`/,
      "a-.b": /must not start or end with `-`/,
      "a..b": /empty label/,
      ".a": /empty label/,
      "999.1.1.1": /not a valid IPv4 address/,
      "1.2.3": /not a valid IPv4 address/,
      "[::1]": /without brackets \(::1\)/,
      [`${"y".repeat(64)}.example`]: /label `y{20}…` is over 63 characters/,
      [Array.from({ length: 5 }, () => "z".repeat(60)).join(".")]: /over the limit of 253/,
      "a\u0000b": /labels take only letters, digits and `-`/
    }
    for (const [host, expected] of Object.entries(bad)) {
      const issues = issuesOf(`app:\n  port: 80\n  host: ${JSON.stringify(host)}\n`)
      assert.strictEqual(issues.length, 1, host)
      assert.deepInclude(issues[0], { path: ["app", "host"], line: 3, column: 9 }, host)
      assert.match(issues[0]!.message, expected, host)
    }
  })
})

describe("validateRoutesYaml: bind and listener", () => {
  it("defaults TCP/UDP routes to 0.0.0.0 and derives the listener network from the family of bind", () => {
    const tcp = validRoute('db:\n  port: "5432:5432"\n')
    assert.strictEqual(tcp.bind, "0.0.0.0")
    assert.deepStrictEqual(tcp.listener, { network: "tcp4", address: "0.0.0.0", port: 5432 })
    const udp6 = validRoute('dns:\n  scheme: udp\n  port: "53:53"\n  bind: "::1"\n')
    assert.deepStrictEqual(udp6.listener, { network: "udp6", address: "::1", port: 53 })
    const tcp6 = validRoute('ssh:\n  port: "2222:22"\n  bind: "fe80::1"\n')
    assert.strictEqual(tcp6.listener?.network, "tcp6")
    const udp4 = validRoute('dns:\n  scheme: udp\n  port: "53:53"\n  bind: 127.0.0.1\n')
    assert.strictEqual(udp4.listener?.network, "udp4")
  })

  it("gives HTTP routes neither bind nor listener", () => {
    const route = validRoute("app:\n  port: 80\n")
    assert.isFalse("bind" in route || "listener" in route)
  })

  it("rejects a bind that is not an IP literal", () => {
    for (const bind of ["localhost", "256.0.0.1", "1.2.3", "0.0.0.0:80", "example.com"]) {
      const messages = messagesAt(`db:\n  port: "5432:5432"\n  bind: ${bind}\n`, "db.bind")
      assert.deepStrictEqual(messages.length, 1, bind)
      assert.match(messages[0]!, /is not an IP address/, bind)
    }
    assert.match(messagesAt('db:\n  port: "1:2"\n  bind: "[::1]"\n', "db.bind")[0]!, /without brackets \(`::1`\)/)
  })

  it("rejects bind on non-TCP/UDP routes, at the key", () => {
    const issues = issuesOf("app:\n  port: 80\n  bind: 127.0.0.1\n")
    assert.deepStrictEqual(issues, [
      {
        path: ["app", "bind"],
        message: "`bind` is only valid for tcp and udp routes, not http",
        line: 3,
        column: 3
      }
    ])
    assert.strictEqual(issuesOf("site:\n  root: /srv\n  bind: 0.0.0.0\n").length, 1)
  })
})
