import { spawnSync } from "node:child_process"

/**
 * Whether the run must exercise every real component (`GATEHOUSE_E2E=1`, set by CI). In that mode a missing tool
 * or daemon is a failure, never a skip.
 */
export const e2e = process.env.GATEHOUSE_E2E === "1"

/** Whether an executable is on PATH. */
export const hasTool = (name: string): boolean => spawnSync("sh", ["-c", `command -v ${name}`]).status === 0

/**
 * Decides whether tests needing `tool` run: yes when it is installed; when it is missing, the tests are skipped
 * in a normal run (and reported as skipped) but the suite fails in an E2E run.
 */
export const requireTool = (tool: string): { readonly skip: boolean } => {
  if (hasTool(tool)) return { skip: false }
  if (e2e) throw new Error(`GATEHOUSE_E2E=1 but "${tool}" is not installed: .ci/run must install it`)
  return { skip: true }
}

/**
 * Decides whether tests needing a service named by environment variable `name` (e.g. `GATEHOUSE_TEST_PG_URL`,
 * exported by .ci/run once the service is up) run: yes when it is set; when it is not, they are skipped in a
 * normal run (and reported as skipped) but the suite fails in an E2E run.
 */
export const requireEnv = (
  name: string
): { readonly skip: true } | { readonly skip: false; readonly value: string } => {
  const value = process.env[name]
  if (value !== undefined && value !== "") return { skip: false, value }
  if (e2e) throw new Error(`GATEHOUSE_E2E=1 but ${name} is not set: .ci/run must start the service and export it`)
  return { skip: true }
}

/**
 * Decides whether tests needing Debian's Python gRPC (`/usr/bin/python3` with `grpc` and `google.protobuf`, packages
 * `python3-grpcio python3-protobuf`) run, as {@link requireTool} does for executables.
 */
export const requirePythonGrpc = (): { readonly skip: boolean } => {
  const found = spawnSync("/usr/bin/python3", ["-c", "import grpc, google.protobuf"]).status === 0
  if (found) return { skip: false }
  if (e2e) throw new Error("GATEHOUSE_E2E=1 but /usr/bin/python3 lacks grpc: .ci/run must install python3-grpcio")
  return { skip: true }
}
