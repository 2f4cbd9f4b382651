import type { PveSim } from "./PveSimulator.js"

/** SSH access to one node of the simulated cluster (a real sshd or an in-process fake standing in for it). */
export interface SimNodeSsh {
  readonly node: string
  readonly port: number
  /** The pinned host key line (`ssh-ed25519 AAAA…`). */
  readonly hostKey: string
  /** A file holding the client's private key. */
  readonly privateKeyFile: string
}

/**
 * The `hypervisor:` section of a `gatehouse.yml` for a simulator: token auth with its pinned fingerprint, and SSH
 * to a node when given. What `npm run pve-sim` prints, and what the tests and benchmarks run the server with.
 */
export const clusterYaml = (
  sim: Pick<PveSim, "url" | "token" | "fingerprint">,
  options: { readonly name?: string; readonly secret?: string; readonly ssh?: SimNodeSsh } = {}
): string =>
  [
    "hypervisor:",
    "  clusters:",
    `    - name: ${options.name ?? "sim"}`,
    `      url: ${sim.url}`,
    `      token_id: "${sim.token.tokenId}"`,
    `      secret: ${options.secret ?? sim.token.secret}`,
    `      tls: { fingerprint: "${sim.fingerprint}" }`,
    ...(options.ssh === undefined
      ? []
      : [
          "      ssh:",
          "        user: root",
          `        private_key: ${options.ssh.privateKeyFile}`,
          `        nodes: { ${options.ssh.node}: { host: 127.0.0.1, port: ${options.ssh.port}, host_key: "${options.ssh.hostKey}" } }`
        ]),
    ""
  ].join("\n")
