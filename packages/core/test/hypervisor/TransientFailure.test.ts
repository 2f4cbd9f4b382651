import { assert, describe, it } from "@effect/vitest"
import {
  HypervisorNodeNotFound,
  ProxmoxAccessDenied,
  ProxmoxCertificateMismatch,
  ProxmoxCertificateUntrusted,
  ProxmoxFailed,
  ProxmoxTimedOut,
  ProxmoxUnreachable
} from "@gatehouse-edge/contract/domain"
import { isTransientFailure } from "../../src/hypervisor/TransientFailure.js"

const cluster = "pve"

describe("which failures of a Proxmox call may pass when it is repeated", () => {
  it("no answer, a node cut off, a timeout and a 5xx may pass", () => {
    for (const error of [
      new ProxmoxUnreachable({ cluster, detail: "connect ECONNREFUSED 127.0.0.1:8006" }),
      new ProxmoxUnreachable({ cluster, node: "pve2", detail: "offline or cut off (597: Broken pipe)" }),
      new ProxmoxTimedOut({ cluster, operation: "GET /nodes/pve1/status", timeout_ms: 10_000 }),
      new ProxmoxFailed({ cluster, status: 500, detail: "proxy loop detected" }),
      new ProxmoxFailed({ cluster, status: 503, detail: "service unavailable" })
    ]) {
      assert.isTrue(isTransientFailure(error), error.message)
    }
  })

  it("a 4xx, refused credentials, a certificate refused, a container or node gone will not", () => {
    for (const error of [
      new ProxmoxFailed({ cluster, status: 400, detail: "Parameter verification failed." }),
      new ProxmoxFailed({
        cluster,
        status: 500,
        detail: "Configuration file 'nodes/pve1/lxc/101.conf' does not exist"
      }),
      new ProxmoxAccessDenied({ cluster, kind: "permission_denied", detail: "Permission check failed" }),
      new ProxmoxCertificateMismatch({ cluster, expected: "AA", presented: "BB" }),
      new ProxmoxCertificateUntrusted({
        cluster,
        host: "pve.example.net",
        trusted_by: "ca_file",
        detail: "unable to verify the first certificate"
      }),
      new HypervisorNodeNotFound({ node: "pve9" })
    ]) {
      assert.isFalse(isTransientFailure(error), error.message)
    }
  })
})
