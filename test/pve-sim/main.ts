import { parseArgs } from "node:util"
import { clusterYaml } from "./ClusterYaml.js"
import { lxcBackend } from "./LxcBackend.js"
import { startPveSimulator } from "./PveSimulator.js"

// Dev tool: `npm run pve-sim -- [--port 8006] [--auth-delay-ms N] [--lxc-path DIR]` runs a simulator to point a
// local Gatehouse at, until SIGINT/SIGTERM.
const { values } = parseArgs({
  options: {
    port: { type: "string", default: "8006" },
    "auth-delay-ms": { type: "string", default: "3000" },
    "lxc-path": { type: "string" }
  }
})

const lxcPath = values["lxc-path"]
const sim = await startPveSimulator({
  port: Number(values.port),
  authFailureDelayMs: Number(values["auth-delay-ms"]),
  ...(lxcPath === undefined ? {} : { backend: lxcBackend({ lxcPath }) })
})

process.stdout.write(
  [
    `PVE simulator listening on ${sim.url}`,
    `fingerprint: ${sim.fingerprint}`,
    `token id:    ${sim.token.tokenId}`,
    `secret:      ${sim.token.secret}`,
    `user:        ${sim.user.userid} / ${sim.user.password}`,
    lxcPath === undefined ? "guests:      in memory" : `guests:      LXC containers under ${lxcPath}`,
    "",
    "Gatehouse config:",
    clusterYaml(sim)
  ].join("\n")
)

const shutdown = () => {
  sim.close().then(
    () => process.exit(0),
    () => process.exit(1)
  )
}
process.once("SIGINT", shutdown)
process.once("SIGTERM", shutdown)
