import { execFileSync } from "node:child_process"
import { X509Certificate } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** A TLS certificate for the simulator (self-signed, or signed by a {@link SimCa}), with its PVE-style fingerprint. */
export interface SimCertificate {
  readonly keyPem: string
  readonly certPem: string
  /** SHA-256 of the DER certificate, upper-case hex with colons (the form of PVE's `ssl_fingerprint`). */
  readonly fingerprint: string
}

/** A certificate authority that signs simulator certificates, as a PVE cluster's `pve-root-ca.pem` signs its nodes'. */
export interface SimCa {
  readonly keyPem: string
  readonly certPem: string
}

/** Where a certificate is issued: its names, and the CA that signs it (default: none, self-signed). */
export interface CertificateOptions {
  /** `subjectAltName` entries (default `IP:127.0.0.1,DNS:localhost`). */
  readonly altNames?: string
  readonly issuer?: SimCa
}

// Runs openssl in a temp dir holding `files`; returns what it wrote to `outputs`.
const withOpenssl = (
  files: Readonly<Record<string, string>>,
  args: (file: (name: string) => string) => ReadonlyArray<string>,
  outputs: ReadonlyArray<string>
): Array<string> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "pve-sim-cert-"))
  try {
    const file = (name: string) => path.join(dir, name)
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(file(name), text, { mode: 0o600 })
    execFileSync("openssl", args(file), { stdio: ["ignore", "ignore", "pipe"] })
    return outputs.map((name) => fs.readFileSync(file(name), "utf8"))
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

const newP256Key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30"]

/** Generates a fresh P-256 CA (PVE's cluster CA is named `Proxmox Virtual Environment`). */
export const generateCa = (commonName = "Proxmox Virtual Environment"): SimCa => {
  const [keyPem, certPem] = withOpenssl(
    {},
    (file) => [
      "req",
      "-x509",
      ...newP256Key,
      "-subj",
      `/CN=${commonName}/O=PVE Cluster Manager CA`,
      "-addext",
      "basicConstraints=critical,CA:TRUE",
      "-addext",
      "keyUsage=critical,keyCertSign,cRLSign",
      "-keyout",
      file("key.pem"),
      "-out",
      file("cert.pem")
    ],
    ["key.pem", "cert.pem"]
  ) as [string, string]
  return { keyPem, certPem }
}

/**
 * Generates a fresh P-256 certificate with `openssl` (node cannot sign X.509 itself): for 127.0.0.1/localhost unless
 * other names are given, self-signed unless an issuer is.
 */
export const generateCertificate = (commonName = "pve-sim", options: CertificateOptions = {}): SimCertificate => {
  const issuer = options.issuer
  const [keyPem, certPem] = withOpenssl(
    issuer === undefined ? {} : { "ca-key.pem": issuer.keyPem, "ca-cert.pem": issuer.certPem },
    (file) => [
      "req",
      "-x509",
      ...newP256Key,
      "-subj",
      `/CN=${commonName}`,
      "-addext",
      `subjectAltName=${options.altNames ?? "IP:127.0.0.1,DNS:localhost"}`,
      ...(issuer === undefined
        ? []
        : ["-addext", "basicConstraints=critical,CA:FALSE", "-CA", file("ca-cert.pem"), "-CAkey", file("ca-key.pem")]),
      "-keyout",
      file("key.pem"),
      "-out",
      file("cert.pem")
    ],
    ["key.pem", "cert.pem"]
  ) as [string, string]
  // node already formats fingerprint256 as upper-case hex pairs joined by colons.
  const fingerprint = new X509Certificate(certPem).fingerprint256
  return { keyPem, certPem, fingerprint }
}
