import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import ssh2 from "ssh2"
import { parseableKeyPair } from "../../../../test/support/SshKeys.js"
import {
  describePin,
  fingerprintOf,
  hostKeyAlgorithmsFor,
  parseHostKeyPin,
  pinMatches
} from "../../src/hypervisor/HostKeyPin.js"

const publicKey = () => {
  const pair = parseableKeyPair("root@pve1")
  const parsed = ssh2.utils.parseKey(pair.public)
  if (parsed instanceof Error) throw parsed
  return { line: pair.public.trim(), blob: parsed.getPublicSSH() }
}

describe("HostKeyPin", () => {
  it("a key line pins the exact blob; the comment is ignored", () => {
    const key = publicKey()
    const other = publicKey()
    const pin = parseHostKeyPin(key.line)
    assert.isDefined(pin)
    assert.strictEqual(pin!._tag, "Key")
    assert.isTrue(pinMatches(pin!, key.blob))
    assert.isFalse(pinMatches(pin!, other.blob))
    assert.deepStrictEqual(hostKeyAlgorithmsFor(pin!), ["ssh-ed25519"])
  })

  it("a SHA256 fingerprint matches as ssh-keygen -lf prints it", () => {
    const key = publicKey()
    const dir = mkdtempSync(join(tmpdir(), "gatehouse-pin-"))
    try {
      writeFileSync(join(dir, "k.pub"), `${key.line}\n`)
      const printed = execFileSync("ssh-keygen", ["-lf", join(dir, "k.pub")], { encoding: "utf8" }).split(" ")[1]!
      assert.strictEqual(fingerprintOf(key.blob), printed)
      const pin = parseHostKeyPin(printed)
      assert.strictEqual(pin?._tag, "Fingerprint")
      assert.isTrue(pinMatches(pin!, key.blob))
      assert.isFalse(pinMatches(pin!, publicKey().blob))
      assert.strictEqual(describePin(pin!), printed)
      assert.strictEqual(describePin(parseHostKeyPin(key.line)!), printed)
      assert.isUndefined(hostKeyAlgorithmsFor(pin!))
      // Padding is tolerated.
      assert.isTrue(pinMatches(parseHostKeyPin(`${printed}=`)!, key.blob))
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("rejects what is neither", () => {
    const key = publicKey()
    assert.isUndefined(parseHostKeyPin(""))
    assert.isUndefined(parseHostKeyPin("SHA256:short"))
    assert.isUndefined(parseHostKeyPin("ssh-ed25519"))
    assert.isUndefined(parseHostKeyPin("ssh-ed25519 not*base64"))
    // The type word must be the type inside the blob.
    assert.isUndefined(parseHostKeyPin(key.line.replace("ssh-ed25519", "ssh-rsa")))
  })
})
