import { execFileSync } from "node:child_process"
import { X509Certificate } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** A self-signed TLS certificate for the simulator, with its PVE-style SHA-256 fingerprint. */
export interface SimCertificate {
  readonly keyPem: string
  readonly certPem: string
  /** SHA-256 of the DER certificate, upper-case hex with colons (the form of PVE's `ssl_fingerprint`). */
  readonly fingerprint: string
}

/** Generates a fresh P-256 certificate for 127.0.0.1/localhost with `openssl` (node cannot sign X.509 itself). */
export const generateCertificate = (commonName = "pve-sim"): SimCertificate => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pve-sim-cert-"))
  try {
    const keyFile = path.join(dir, "key.pem")
    const certFile = path.join(dir, "cert.pem")
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:P-256",
        "-nodes",
        "-days",
        "30",
        "-subj",
        `/CN=${commonName}`,
        "-addext",
        "subjectAltName=IP:127.0.0.1,DNS:localhost",
        "-keyout",
        keyFile,
        "-out",
        certFile
      ],
      { stdio: ["ignore", "ignore", "pipe"] }
    )
    const keyPem = fs.readFileSync(keyFile, "utf8")
    const certPem = fs.readFileSync(certFile, "utf8")
    // node already formats fingerprint256 as upper-case hex pairs joined by colons.
    const fingerprint = new X509Certificate(certPem).fingerprint256
    return { keyPem, certPem, fingerprint }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}
