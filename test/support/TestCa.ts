import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

/** Files of a throwaway CA and two certificates it signed, for mutual TLS on loopback. */
export interface TestCa {
  readonly ca: string
  /** For 127.0.0.1 / localhost (server auth). */
  readonly serverCert: string
  readonly serverKey: string
  /** For a client that must present one (client auth). */
  readonly clientCert: string
  readonly clientKey: string
}

const openssl = (args: ReadonlyArray<string>) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] })

/** Signs a fresh P-256 key for `subject` with the CA in `dir`, with `extensions` (an openssl extension file). */
const issue = (dir: string, name: string, subject: string, extensions: string) => {
  const key = path.join(dir, `${name}-key.pem`)
  const request = path.join(dir, `${name}.csr`)
  const cert = path.join(dir, `${name}-cert.pem`)
  const ext = path.join(dir, `${name}.ext`)
  fs.writeFileSync(ext, extensions)
  openssl([
    ...["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj", subject],
    ...["-keyout", key, "-out", request]
  ])
  openssl([
    ...["x509", "-req", "-in", request, "-CA", path.join(dir, "ca.pem"), "-CAkey", path.join(dir, "ca-key.pem")],
    ...["-CAcreateserial", "-days", "30", "-extfile", ext, "-out", cert]
  ])
  return { cert, key }
}

/**
 * Makes a CA in `dir` (which must exist) and issues a server certificate for 127.0.0.1/localhost and a client
 * certificate with it, with `openssl` (node cannot sign X.509 itself).
 */
export const makeTestCa = (dir: string): TestCa => {
  const ca = path.join(dir, "ca.pem")
  openssl([
    ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "30"],
    ...["-subj", "/CN=gatehouse test CA", "-keyout", path.join(dir, "ca-key.pem"), "-out", ca]
  ])
  const server = issue(
    dir,
    "server",
    "/CN=localhost",
    "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"
  )
  const client = issue(dir, "client", "/CN=gatehouse", "extendedKeyUsage=clientAuth\n")
  return { ca, serverCert: server.cert, serverKey: server.key, clientCert: client.cert, clientKey: client.key }
}
