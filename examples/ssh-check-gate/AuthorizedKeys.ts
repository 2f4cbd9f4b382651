import * as crypto from "node:crypto"
import * as fs from "node:fs/promises"
import ssh2, { type ParsedKey } from "ssh2"

/**
 * The public keys of an OpenSSH `authorized_keys` file. A line with options before the key type
 * (`from="…",command="…" ssh-ed25519 …`, `restrict`, `cert-authority`) is skipped with its key: this gate cannot
 * apply options, and a key they restrict (to a source, a command) must not get a full shell here instead.
 * Comments, blank and unparsable lines are skipped too. Read at each login, so edits apply without a restart; a
 * missing file is no keys.
 */
export const readAuthorizedKeys = async (file: string): Promise<ReadonlyArray<ParsedKey>> => {
  const text = await fs.readFile(file, "utf8").catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return ""
    throw error
  })
  const keys: Array<ParsedKey> = []
  for (const line of text.split("\n")) {
    const trimmed = line.trim()
    if (trimmed === "" || trimmed.startsWith("#")) continue
    if (!/^(?:ssh-|ecdsa-|sk-)/.test(trimmed)) continue
    const parsed = ssh2.utils.parseKey(trimmed)
    if (!(parsed instanceof Error)) keys.push(parsed)
  }
  return keys
}

/**
 * The authorized key the client offered, if any. The public key blob names its own type, so comparing the bytes
 * is enough (an RSA key offered for `rsa-sha2-512` is still an `ssh-rsa` blob).
 */
export const findKey = (keys: ReadonlyArray<ParsedKey>, offered: Buffer): ParsedKey | undefined =>
  keys.find((key) => {
    const data = key.getPublicSSH()
    return data.length === offered.length && crypto.timingSafeEqual(data, offered)
  })
