import { execFileSync } from "node:child_process"
import * as net from "node:net"
import * as path from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { CertificateNotFound } from "@gatehouse-edge/contract/domain"
import { Effect, Exit } from "effect"
import { TestClock } from "effect/testing"
import { requireTool } from "../../../../test/support/e2e.js"
import { stuckDisk } from "../../../../test/support/StuckDisk.js"
import { tempDir } from "../../../../test/support/TempDir.js"
import { waitFor } from "../../../../test/support/WaitFor.js"
import { readCertificateFile } from "../../src/certs/CertificateFileRead.js"
import * as CertificatesLive from "../../src/certs/CertificatesLive.js"
import { Events } from "../../src/events/Events.js"
import { busIn } from "../events/TestBus.js"
import { makeCert } from "./CertFixtures.js"

// Certificate files that are not regular files, or that do not answer: a start (or a reload) never waits on them
// for ever. A named pipe nothing writes to is refused without opening it; a stuck disk (every `fs` call of this
// process held in the kernel, see StuckDisk) is given up after the bound, on the TestClock.

const openssl = requireTool("openssl")

describe.skipIf(openssl.skip)("reading certificate files", () => {
  it.effect(
    "a key path that is a named pipe: the start goes on, the certificate unavailable, saying why",
    () =>
      Effect.gen(function* () {
        const dir = yield* tempDir("gatehouse-certfile-fifo-")
        const { cert } = makeCert(dir, "main")
        const fifo = path.join(dir, "key.fifo")
        execFileSync("mkfifo", [fifo])
        const { bus } = yield* busIn(dir)
        const certificates = yield* CertificatesLive.make({
          certificates: [{ name: "main", cert, key: fifo }],
          acme: undefined,
          dataDir: path.join(dir, "data")
        }).pipe(Effect.provideService(Events, bus))

        const reason = `cannot read ${fifo}: is a named pipe (FIFO), not a file`
        const [failed] = yield* bus.history({ category: "cert" })
        assert.deepInclude(failed!.data, { name: "main", key: fifo, error: reason })
        const missing = yield* Effect.flip(certificates.info)
        assert.instanceOf(missing, CertificateNotFound)
        assert.deepStrictEqual(missing.unavailable, [{ name: "main", provider: "file", problem: reason }])
      }).pipe(Effect.scoped),
    // A start that opened the pipe would wait for a writer for ever.
    10_000
  )

  it.effect("a directory, a socket: refused by what they are", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-certfile-kinds-")
      const socketPath = path.join(dir, "key.sock")
      const server = net.createServer()
      yield* Effect.acquireRelease(
        Effect.callback<void>((resume) => void server.listen(socketPath, () => resume(Effect.void))),
        () => Effect.sync(() => server.close())
      )
      const reasonOf = (file: string) => Effect.map(Effect.flip(readCertificateFile(file)), (e) => e.message)
      assert.strictEqual(yield* reasonOf(dir), `cannot read ${dir}: is a directory, not a file`)
      assert.strictEqual(yield* reasonOf(socketPath), `cannot read ${socketPath}: is a socket, not a file`)
      assert.strictEqual(
        yield* reasonOf(path.join(dir, "nope.pem")),
        `cannot read ${path.join(dir, "nope.pem")}: no such file`
      )
    }).pipe(Effect.scoped)
  )

  it.effect("a disk that does not answer: given up after 10 s naming the file, read once it answers", () =>
    Effect.gen(function* () {
      const dir = yield* tempDir("gatehouse-certfile-stuck-")
      const { cert, certPem } = makeCert(dir, "main")
      const disk = yield* stuckDisk(dir)
      disk.stick()
      // Its first step, the stat, waits on the disk.
      const read = yield* Effect.forkChild(Effect.flip(readCertificateFile(cert)), { startImmediately: true })
      yield* TestClock.adjust("9 seconds")
      assert.isUndefined(read.pollUnsafe(), "still waiting within the bound")
      yield* TestClock.adjust("1 second")
      const exit = yield* waitFor(
        Effect.sync(() => read.pollUnsafe()),
        (outcome) => outcome !== undefined,
        "the read given up",
        5000
      )
      assert.isTrue(exit !== undefined && Exit.isSuccess(exit))
      assert.strictEqual(
        exit !== undefined && Exit.isSuccess(exit) ? exit.value.message : "",
        `cannot read ${cert}: no answer within 10s (a hung disk or network mount?)`
      )
      yield* disk.release
      assert.strictEqual(yield* readCertificateFile(cert), certPem)
    }).pipe(Effect.scoped)
  )
})
