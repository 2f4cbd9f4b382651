/**
 * ssh-check-gate — an SSH server that holds policy-matched logins until an operator approves them in Gatehouse.
 *
 *   npx tsx --conditions=@gatehouse-edge/source examples/ssh-check-gate/main.ts --config gate.yml
 *
 * See README.md next to this file for the configuration and a walk-through.
 */
import * as crypto from "node:crypto"
import * as fs from "node:fs/promises"
import { parseArgs } from "node:util"
import { authServiceEffectClient, makeAuthServiceClient } from "@gatehouse-edge/transport-grpc/client"
import ssh2 from "ssh2"
import { type GateConfig, parseGateConfig } from "./GateConfig.js"
import { startSshGate } from "./SshGate.js"

const fail = (lines: ReadonlyArray<string>, status = 2): never => {
  for (const line of lines) process.stderr.write(`ssh-check-gate: ${line}\n`)
  process.exit(status)
}

/** The host key from its file, or a new ed25519 key written there (0600, plus `.pub`) when there is none. */
const loadHostKey = async (file: string): Promise<Buffer> => {
  const existing = await fs.readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined
    return fail([`cannot read the host key ${file}: ${error.code ?? error.message}`])
  })
  if (existing !== undefined) return existing
  // ssh2 1.17 cannot read back about 0.4% of the ed25519 keys it generates: draw again until it can.
  let pair = ssh2.utils.generateKeyPairSync("ed25519", { comment: "ssh-check-gate" })
  while (ssh2.utils.parseKey(pair.private) instanceof Error || ssh2.utils.parseKey(pair.public) instanceof Error) {
    pair = ssh2.utils.generateKeyPairSync("ed25519", { comment: "ssh-check-gate" })
  }
  await fs.writeFile(file, pair.private, { mode: 0o600, flag: "wx" })
  await fs.writeFile(`${file}.pub`, `${pair.public}\n`, { mode: 0o644 })
  return Buffer.from(pair.private)
}

/** `SHA256:…` as `ssh-keygen -lf` prints it, so users can check the key ssh shows them. */
const fingerprintOf = (hostKey: Buffer): string => {
  const parsed = ssh2.utils.parseKey(hostKey)
  if (parsed instanceof Error) return fail([`the host key is not a private key ssh2 can read: ${parsed.message}`])
  const digest = crypto.createHash("sha256").update(parsed.getPublicSSH()).digest("base64")
  return `SHA256:${digest.replace(/=+$/, "")}`
}

const connectGatehouse = async (config: GateConfig) => {
  if (config.gatehouse._tag === "UnixSocket")
    return makeAuthServiceClient({ address: `unix:${config.gatehouse.path}`, insecure: true })
  const { address, apiKeyFile, ca } = config.gatehouse
  const apiKey = (
    await fs
      .readFile(apiKeyFile, "utf8")
      .catch((error: NodeJS.ErrnoException) =>
        fail([`cannot read the API key file ${apiKeyFile}: ${error.code ?? error.message}`])
      )
  ).trim()
  const rootCerts =
    ca === undefined
      ? undefined
      : await fs
          .readFile(ca)
          .catch((error: NodeJS.ErrnoException) =>
            fail([`cannot read the CA certificate ${ca}: ${error.code ?? error.message}`])
          )
  return makeAuthServiceClient({
    address,
    apiKey,
    insecure: rootCerts === undefined,
    ...(rootCerts === undefined ? {} : { rootCerts })
  })
}

const main = async () => {
  const { values } = parseArgs({ options: { config: { type: "string", short: "c" }, help: { type: "boolean" } } })
  if (values.help === true || values.config === undefined) {
    process.stdout.write("usage: ssh-check-gate --config gate.yml\n")
    process.exit(values.help === true ? 0 : 2)
  }
  const file = values.config
  const text = await fs
    .readFile(file, "utf8")
    .catch((error: NodeJS.ErrnoException) => fail([`cannot read ${file}: ${error.code ?? error.message}`]))
  const config = parseGateConfig(text, file)
  if ("problems" in config) return fail(config.problems)
  const hostKey = await loadHostKey(config.hostKeyFile)
  const fingerprint = fingerprintOf(hostKey)
  const grpcClient = await connectGatehouse(config)
  const log = (line: string) => process.stdout.write(`ssh-check-gate: ${line}\n`)
  // Every unary call has a deadline: a server frozen mid-connection would otherwise hold checked logins for good.
  const client = authServiceEffectClient(grpcClient, { callTimeoutMs: config.gatehouse.callTimeoutMs })
  const gate = await startSshGate({ config, hostKey, client, log }).catch((error: NodeJS.ErrnoException) =>
    fail([`cannot listen on ${config.listen.host}:${config.listen.port}: ${error.code ?? error.message}`])
  )
  log(`listening on ${config.listen.host}:${gate.port} as destination ${config.destination} (host key ${fingerprint})`)
  const stop = () => {
    log("stopping")
    gate.close().then(() => {
      grpcClient.close()
      process.exit(0)
    })
  }
  process.once("SIGTERM", stop)
  process.once("SIGINT", stop)
}

main().catch((error: unknown) =>
  fail([`unexpected failure: ${error instanceof Error ? error.stack : String(error)}`], 1)
)
