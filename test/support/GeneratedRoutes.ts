/**
 * A deterministic route file with a realistic mix of routes: HTTP apps with health checks and homepage entries,
 * HTTPS backends, TCP and UDP services with their own listening ports and `bind` addresses, file servers, Proxmox
 * guests, idle-watched apps with `depends_on`, load-balancer members, and 10% of routes reusing `<<: *defaults`.
 * Shared by the route-validation and validation-latency benchmarks and the tests that need a large valid file.
 */

// A small deterministic PRNG, restarted for every file: the same count always gives the same file.
let state = 0x2545f491
const random = () => {
  state ^= state << 13
  state ^= state >>> 17
  state ^= state << 5
  return (state >>> 0) / 0x1_0000_0000
}
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

/** A valid route file of `count` routes (plus the `defaults` route that holds the anchor); ~125 bytes a route. */
export const generateRouteFile = (count: number): string => {
  state = 0x2545f491
  aliases.length = 0
  const body: Array<string> = []
  for (let i = 0; i < count; i++) {
    const route = routeYaml(i)
    aliases.push(route[0]!.slice(0, -1))
    body.push(...route)
  }
  // The anchor must come first; `defaults` is also a (valid) route of its own.
  return ["defaults: &defaults", "  host: backend.lan", "  port: 80", ...body, ""].join("\n")
}
