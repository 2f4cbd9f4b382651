import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import type { AcmeConfig } from "../../src/config/ConfigSections.js"

/** A certificate and key written by `openssl` (node cannot sign X.509), with their PEM text. */
export interface CertFiles {
  readonly cert: string
  readonly key: string
  readonly certPem: string
  readonly keyPem: string
}

/** `openssl` with the given arguments; its output (stdout) as text. */
export const openssl = (args: ReadonlyArray<string>): string =>
  execFileSync("openssl", args, { stdio: ["ignore", "pipe", "pipe"] }).toString("utf8")

/**
 * A self-signed P-256 certificate in `dir` as `<name>.crt` / `<name>.key`: `subject` in openssl's `/C=../O=../CN=..`
 * form, `san` as openssl's `subjectAltName` value, valid for `days` from now.
 */
export const makeCert = (
  dir: string,
  name: string,
  options: { readonly subject?: string; readonly san?: string; readonly days?: number } = {}
): CertFiles => {
  const cert = path.join(dir, `${name}.crt`)
  const key = path.join(dir, `${name}.key`)
  openssl([
    ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"],
    ...["-days", String(options.days ?? 90), "-subj", options.subject ?? `/CN=${name}.test`],
    ...["-addext", `subjectAltName=${options.san ?? `DNS:${name}.test`}`, "-keyout", key, "-out", cert]
  ])
  return { cert, key, certPem: fs.readFileSync(cert, "utf8"), keyPem: fs.readFileSync(key, "utf8") }
}

/**
 * A self-signed certificate for `name.test` valid from `notBefore` to `notAfter` (any dates, past or future: `openssl
 * ca` sets both, where `openssl req` starts at once), in `dir` as `<name>.crt` / `<name>.key`. With `key` (the key file
 * of an earlier one), for that key: a deploy that replaces only the certificate file.
 */
export const makeCertValidBetween = (
  dir: string,
  name: string,
  validity: { readonly notBefore: number; readonly notAfter: number; readonly key?: string }
): CertFiles => {
  const work = fs.mkdtempSync(path.join(dir, `${name}-ca-`))
  const file = (f: string) => path.join(work, f)
  const key = validity.key ?? path.join(dir, `${name}.key`)
  const cert = path.join(dir, `${name}.crt`)
  fs.writeFileSync(file("index.txt"), "")
  fs.writeFileSync(file("serial"), `${randomBytes(8).toString("hex")}\n`)
  fs.writeFileSync(
    file("ca.cnf"),
    ["[ca]", "default_ca = d", "[d]", `database = ${file("index.txt")}`, `new_certs_dir = ${work}`]
      .concat([`serial = ${file("serial")}`, "default_md = sha256", "policy = p", "copy_extensions = copy"])
      .concat(["[p]", "commonName = supplied", ""])
      .join("\n")
  )
  openssl([
    ...["req", "-new", "-subj", `/CN=${name}.test`, "-addext", `subjectAltName=DNS:${name}.test`, "-out", file("csr")],
    ...(validity.key === undefined
      ? ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key]
      : ["-key", key])
  ])
  // openssl's time format, always in UTC: YYYYMMDDHHMMSSZ.
  const asn1 = (ms: number) => new Date(ms).toISOString().replace(/[-:T]|\.\d+/g, "")
  openssl([
    ...["ca", "-batch", "-notext", "-config", file("ca.cnf"), "-selfsign", "-keyfile", key, "-in", file("csr")],
    ...["-startdate", asn1(validity.notBefore), "-enddate", asn1(validity.notAfter), "-out", cert]
  ])
  return { cert, key, certPem: fs.readFileSync(cert, "utf8"), keyPem: fs.readFileSync(key, "utf8") }
}

/** What `openssl x509 -noout ...` prints about a certificate file, one field per key. */
export const opensslFields = (file: string) => {
  const text = openssl([
    ...["x509", "-in", file, "-noout", "-nameopt", "RFC2253", "-subject", "-issuer", "-dates", "-serial"],
    ...["-fingerprint", "-sha256", "-ext", "subjectAltName"]
  ])
  const field = (prefix: string) =>
    text
      .split("\n")
      .find((line) => line.startsWith(prefix))!
      .slice(prefix.length)
  const san = text.split("\n").at(text.split("\n").findIndex((line) => line.includes("Subject Alternative Name")) + 1)!
  return {
    subject: field("subject="),
    issuer: field("issuer="),
    notBefore: new Date(field("notBefore=")).toISOString(),
    notAfter: new Date(field("notAfter=")).toISOString(),
    serial: field("serial="),
    fingerprint: field("sha256 Fingerprint="),
    san: san.trim().split(", ")
  }
}

/**
 * Three key pairs made in `dir` and the live files a server is pointed at (`live/cert.pem`, `live/key.pem`), holding
 * the first pair; `replace` puts another pair there as a deploy does (key first).
 */
export const liveCertFiles = (dir: string) => {
  const live = path.join(dir, "live")
  fs.mkdirSync(live)
  const pairs = { one: makeCert(dir, "one"), two: makeCert(dir, "two"), three: makeCert(dir, "three") }
  const cert = path.join(live, "cert.pem")
  const key = path.join(live, "key.pem")
  const replace = (pair: CertFiles) => {
    fs.copyFileSync(pair.key, key)
    fs.copyFileSync(pair.cert, cert)
  }
  replace(pairs.one)
  return { ...pairs, cert, key, replace }
}

/**
 * A three-level PKI in `dir` made with `openssl`: a root CA, an intermediate CA it issued, and a leaf for `a.test`
 * the intermediate issued (with `leaf.key`), plus an unrelated root. Each certificate's PEM text by name.
 */
export const makeChain = (dir: string) => {
  const file = (name: string) => path.join(dir, name)
  const ca = ["-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"]
  const newKey = (name: string) => [
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-keyout",
    file(`${name}.key`)
  ]
  const selfSigned = (name: string, subject: string) =>
    openssl(["req", "-x509", ...newKey(name), "-days", "90", "-subj", subject, ...ca, "-out", file(`${name}.crt`)])
  const issued = (name: string, subject: string, issuer: string, extensions: ReadonlyArray<string>) =>
    openssl([
      ...["req", "-x509", ...newKey(name), "-days", "90", "-subj", subject, ...extensions],
      ...["-CA", file(`${issuer}.crt`), "-CAkey", file(`${issuer}.key`), "-out", file(`${name}.crt`)]
    ])
  selfSigned("root", "/CN=Test Root")
  selfSigned("other-root", "/CN=Other Root")
  issued("intermediate", "/CN=Test Intermediate", "root", ca)
  issued("leaf", "/CN=a.test", "intermediate", ["-addext", "subjectAltName=DNS:a.test"])
  const pem = (name: string) => fs.readFileSync(file(name), "utf8")
  return {
    root: pem("root.crt"),
    otherRoot: pem("other-root.crt"),
    intermediate: pem("intermediate.crt"),
    leaf: pem("leaf.crt"),
    leafKey: pem("leaf.key")
  }
}

/**
 * An `acme` section with one HTTP-01 certificate `web` for `a.test`, renewed 30 days before expiry, at `directory`
 * (by default one nothing answers: the tests that use it replace the ACME client).
 */
export const oneCertificateAcme = (directory = "https://127.0.0.1:9/dir"): AcmeConfig => ({
  directory,
  email: undefined,
  caFile: undefined,
  renewBeforeMs: 30 * 86_400_000,
  http01: undefined,
  dns01: undefined,
  certificates: [{ name: "web", domains: ["a.test"], challenge: "http-01" }]
})
