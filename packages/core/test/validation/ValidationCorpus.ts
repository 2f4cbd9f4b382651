import { generateRouteFile } from "../../../../test/support/GeneratedRoutes.js"

/**
 * Documents that exercise every kind of route validation result — valid maps and single routes, each kind of
 * field problem, duplicates, cross-route conflicts, merge keys, YAML syntax errors, limits, empty and odd
 * documents — for comparing validation inline and on a worker thread.
 */
export const routeDocuments: ReadonlyArray<string> = [
  "app:\n  host: 127.0.0.1\n  port: 8080\ndb:\n  scheme: tcp\n  port: '5433:5432'\n  bind: 127.0.0.1\n",
  "alias: Web\nport: 443\n",
  "alias: app\nport: 80\nprot: 1\n",
  "app:\n  port: 70000\n  bind: not-an-ip\n  helthcheck: {}\n",
  "app:\n  alias: web\n  port: 80\n",
  "good:\n  port: 80\nbad:\n  port: abc\n",
  "app:\n  scheme: htps\n  port: 80\n",
  "site:\n  scheme: fileserver\n  root: srv/www\n",
  "db:\n  port: '1:2'\n  bind: '[::1]'\n",
  "app:\n  port: 1\n  port: 2\nother:\n  port: 3\napp:\n  port: 4\n",
  "a:\n  port: '9000:80'\n  bind: 0.0.0.0\nb:\n  port: '9000:81'\n  bind: 0.0.0.0\n",
  "a:\n  port: 80\n  idlewatcher: {depends_on: [missing]}\n",
  "base: &b {host: backend, port: 80}\nx:\n  <<: *b\n  port: 81\n",
  "app:\n  port: [80\n  host: x\n",
  "a: 1\n---\nb: 2\n",
  "- app\n- web\n",
  "app: 8080\n",
  "app:\n",
  "# nothing yet\n",
  "",
  "'*.example.com':\n  port: 80\nsvc.lan:\n  port: 81\n",
  "ünïcödé:\n  port: 80\n  host: ' '\n",
  `${"[".repeat(100)}${"]".repeat(100)}\n`,
  "a: &a [1, *a]\n",
  generateRouteFile(300),
  // A large file with problems in it: a bad port, a duplicate alias, a dangling reference.
  `${generateRouteFile(200)}broken:\n  port: -1\napp-3:\n  port: 80\nlate:\n  port: 81\n  idlewatcher: {depends_on: [nowhere]}\n`
]

/** Route files validated together: conflicts across files are reported in the later one. */
export const routeSources: ReadonlyArray<{ readonly file: string; readonly text: string }> = [
  { file: "a.yml", text: "web:\n  port: '8443:443'\n  bind: 0.0.0.0\nshared:\n  port: 80\n" },
  { file: "b.yml", text: "other:\n  port: '8443:443'\n  bind: 0.0.0.0\nshared:\n  port: 81\n" },
  { file: "c.yml", text: "c: [\n" },
  { file: "big.yml", text: generateRouteFile(150) }
]

/** Config files: valid, with problems, not YAML. */
export const configDocuments: ReadonlyArray<string> = [
  "events: { history: 500 }\nhttp: { addr: '127.0.0.1:9000', max_body: 2MiB }\n",
  "evnts: {}\nhttp: { addr: '0.0.0.0:80' }\nlog: { level: loud }\n",
  "http: [\n",
  `events: { history: 10 }\n# ${"padding ".repeat(2000)}\n`
]
