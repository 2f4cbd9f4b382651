import { execFileSync, spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as https from "node:https"
import * as os from "node:os"
import * as path from "node:path"
import * as zlib from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { requireTool } from "../support/e2e.js"
import { lxcBackend } from "./LxcBackend.js"
import { type PveSim, type PveSimOptions, startPveSimulator } from "./PveSimulator.js"
import { generateCa, generateCertificate } from "./SimCertificate.js"
import { UPID_REGEX } from "./SimTasks.js"

interface Reply {
  readonly status: number
  readonly statusMessage: string
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly raw: Buffer
  readonly text: string
  readonly json: any
}

interface Call {
  readonly method?: string
  readonly headers?: Record<string, string>
  readonly body?: string
}

/** One HTTPS request trusting only the simulator's certificate; a fresh connection each time (no agent). */
const call = (sim: PveSim, urlPath: string, opts: Call = {}): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const req = https.request(
      `${sim.url}${urlPath}`,
      { method: opts.method ?? "GET", headers: opts.headers ?? {}, ca: sim.certPem, agent: false },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => {
          const raw = Buffer.concat(chunks)
          const text = res.headers["content-encoding"] === "gzip" ? zlib.gunzipSync(raw).toString() : raw.toString()
          let json: any
          try {
            json = JSON.parse(text)
          } catch {
            json = undefined
          }
          resolve({ status: res.statusCode!, statusMessage: res.statusMessage!, headers: res.headers, raw, text, json })
        })
      }
    )
    req.on("error", reject)
    req.end(opts.body)
  })

const tokenHeader = (sim: PveSim) => ({ Authorization: `PVEAPIToken=${sim.token.tokenId}=${sim.token.secret}` })
const api = (sim: PveSim, p: string, opts: Call = {}) =>
  call(sim, `/api2/json${p}`, { ...opts, headers: { ...tokenHeader(sim), ...(opts.headers ?? {}) } })
const form = { "Content-Type": "application/x-www-form-urlencoded" }

/** Polls a task until it stops (or fails after `ms`). */
const waitTask = async (sim: PveSim, node: string, upid: string, ms = 20_000) => {
  const deadline = Date.now() + ms
  for (;;) {
    const r = await api(sim, `/nodes/${node}/tasks/${encodeURIComponent(upid)}/status`)
    if (r.json?.data?.status === "stopped") return r.json.data
    if (Date.now() > deadline) throw new Error(`task ${upid} still running: ${r.text}`)
    await new Promise((resolve) => setImmediate(resolve))
  }
}

const fast: PveSimOptions = { authFailureDelayMs: 20, taskDurationMs: 50 }

describe("PVE simulator: transport, envelope and errors", () => {
  let sim: PveSim
  beforeAll(async () => {
    sim = await startPveSimulator(fast)
  })
  afterAll(() => sim.close())

  it("answers with the PVE envelope and headers", async () => {
    const r = await api(sim, "/version")
    expect(r.status).toBe(200)
    expect(r.headers["content-type"]).toBe("application/json;charset=UTF-8")
    expect(r.headers.server).toBe("pve-api-daemon/3.0")
    expect(r.json).toEqual({ data: { version: "8.2.4", release: "8.2", repoid: "faa83925c9641325" } })
  })

  it("uses the reason phrase as the error text, with message + newline in the body", async () => {
    const r = await api(sim, "/nodes/pve1/lxc/101/status/start", { method: "POST" })
    expect(r.status).toBe(500)
    expect(r.statusMessage).toBe("CT 101 already running")
    expect(r.json).toEqual({ data: null, message: "CT 101 already running\n" })
  })

  it("reports unknown CTs, unknown nodes and unknown methods as PVE does", async () => {
    const ct = await api(sim, "/nodes/pve1/lxc/999/status/current")
    expect([ct.status, ct.statusMessage]).toEqual([500, "Configuration file 'nodes/pve1/lxc/999.conf' does not exist"])
    const node = await api(sim, "/nodes/foo/status")
    expect(node.status).toBe(500)
    expect(node.statusMessage).toMatch(/^hostname lookup 'foo' failed - /)
    const missing = await api(sim, "/nodes/pve1/foo")
    expect([missing.status, missing.statusMessage]).toEqual([501, "Method 'GET /nodes/pve1/foo' not implemented"])
    expect(missing.json.message).toBe("Method 'GET /nodes/pve1/foo' not implemented\n")
  })

  it("rejects form booleans other than 0/1 and bad vmids with 400 and an errors map", async () => {
    const r = await api(sim, "/nodes/pve1/lxc/102/status/start", { method: "POST", headers: form, body: "debug=true" })
    expect([r.status, r.statusMessage]).toEqual([400, "Parameter verification failed."])
    expect(r.json).toEqual({
      data: null,
      message: "Parameter verification failed.\n",
      errors: { debug: "type check ('boolean') failed - got 'true'" }
    })
    const vmid = await api(sim, "/nodes/pve1/lxc/abc/status/current")
    expect(vmid.status).toBe(400)
    expect(vmid.json.errors).toEqual({ vmid: "type check ('integer') failed - got 'abc'" })
    const type = await api(sim, "/cluster/resources?type=bogus")
    expect(type.status).toBe(400)
    expect(Object.keys(type.json.errors)).toEqual(["type"])
  })

  it("answers a bad or unknown UPID with 400 errors.upid", async () => {
    const bad = await api(sim, `/nodes/pve1/tasks/${encodeURIComponent("UPID:nope")}/status`)
    expect(bad.status).toBe(400)
    expect(bad.json.errors).toEqual({ upid: "unable to parse worker upid" })
    const unknown = await api(
      sim,
      `/nodes/pve1/tasks/${encodeURIComponent("UPID:pve1:0002A9D4:00F1B2C3:6740B1A2:vzstart:101:root@pam:")}/status`
    )
    expect(unknown.status).toBe(400)
    expect(unknown.json.errors).toEqual({ upid: "no such task" })
  })

  it("encodes loadavg and cpuinfo.mhz as strings and derives memory.used and rootfs.free", async () => {
    const { data } = (await api(sim, "/nodes/pve1/status")).json
    expect(data.loadavg).toHaveLength(3)
    for (const l of data.loadavg) expect(typeof l).toBe("string")
    expect(typeof data.cpuinfo.mhz).toBe("string")
    expect(data.cpuinfo.hvm).toBe("1")
    expect(data.memory.used).toBe(data.memory.total - data.memory.available)
    expect(data.rootfs.free).toBe(data.rootfs.total - data.rootfs.used)
    expect(data.pveversion).toBe("pve-manager/8.2.4/faa83925c9641325")
    expect(data.idle).toBe(0)
  })

  it("gzips only with Accept-Encoding: gzip and only bodies over 1024 bytes", async () => {
    const big = await api(sim, "/cluster/resources", { headers: { "Accept-Encoding": "gzip" } })
    expect(big.headers["content-encoding"]).toBe("gzip")
    expect(big.text.length).toBeGreaterThan(1024)
    expect(big.json.data.length).toBeGreaterThan(0)
    const plain = await api(sim, "/cluster/resources")
    expect(plain.headers["content-encoding"]).toBeUndefined()
    expect(plain.raw.toString()).toBe(plain.text)
    const small = await api(sim, "/version", { headers: { "Accept-Encoding": "gzip" } })
    expect(small.headers["content-encoding"]).toBeUndefined()
  })

  it("lists guests, nodes and storage in /cluster/resources and filters by type", async () => {
    const all = (await api(sim, "/cluster/resources")).json.data
    const web = all.find((e: any) => e.id === "lxc/101")
    expect(web).toMatchObject({ vmid: 101, node: "pve1", type: "lxc", status: "running", name: "web", template: 0 })
    expect(web.cpu).toBeGreaterThan(0)
    expect(all.find((e: any) => e.id === "lxc/102")).toMatchObject({ status: "stopped", cpu: 0, mem: 0, uptime: 0 })
    expect(all.find((e: any) => e.id === "node/pve1")).toMatchObject({ type: "node", status: "online" })
    expect(all.find((e: any) => e.id === "storage/pve1/local")).toMatchObject({ type: "storage", plugintype: "dir" })
    const vms = (await api(sim, "/cluster/resources?type=vm")).json.data
    expect(vms.map((e: any) => e.id).sort()).toEqual(["lxc/101", "lxc/102"])
  })

  it("returns interfaces for a running guest and null for a stopped one", async () => {
    const up = (await api(sim, "/nodes/pve1/lxc/101/interfaces")).json.data
    expect(up.map((i: any) => i.name)).toEqual(["lo", "eth0"])
    const eth0 = up[1]
    expect(eth0.inet).toBe("10.0.0.101/24")
    expect(eth0.hwaddr).toBe(eth0["hardware-address"])
    expect(eth0["ip-addresses"]).toContainEqual({ "ip-address-type": "inet", "ip-address": "10.0.0.101", prefix: 24 })
    const down = await api(sim, "/nodes/pve1/lxc/102/interfaces")
    expect(down.json).toEqual({ data: null })
  })

  it("lists nodes with the certificate fingerprint, which matches openssl's", async () => {
    const nodes = (await api(sim, "/nodes")).json.data
    expect(nodes[0]).toMatchObject({ id: "node/pve1", node: "pve1", type: "node", status: "online" })
    expect(nodes[0].ssl_fingerprint).toBe(sim.fingerprint)
    const out = execFileSync("openssl", ["x509", "-noout", "-fingerprint", "-sha256"], { input: sim.certPem })
    // openssl 3 prints "sha256 Fingerprint=AB:…", 1.1 "SHA256 Fingerprint=AB:…": compare the value only.
    expect(out.toString().trim().split("=")[1]).toBe(sim.fingerprint)
    expect(sim.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/)
  })

  it("serves the node journal gzip'ed regardless of Accept-Encoding, framed by cursors", async () => {
    const r = await api(sim, "/nodes/pve1/journal?lastentries=500")
    expect(r.headers["content-encoding"]).toBe("gzip")
    const lines: Array<string> = r.json.data
    expect(lines[0]).toMatch(/^s=.*;i=[0-9a-f]+;/)
    expect(lines.at(-1)).toMatch(/^s=/)
    expect(lines[1]).toMatch(/^[A-Z][a-z]{2} \d{2} \d{2}:\d{2}:\d{2} pve1 \S+\[\d+\]: /)
    const next = await api(sim, `/nodes/pve1/journal?startcursor=${encodeURIComponent(lines.at(-1)!)}`)
    expect(next.json.data).toEqual([])
  })
})

describe("PVE simulator: guest stats over time", () => {
  let clock = Date.now()
  let sim: PveSim
  beforeAll(async () => {
    sim = await startPveSimulator({ ...fast, now: () => clock })
  })
  afterAll(() => sim.close())

  it("reports running guests with pid and counters growing with the clock, stopped ones with zeros", async () => {
    const first = (await api(sim, "/nodes/pve1/lxc/101/status/current")).json.data
    expect(first).toMatchObject({ vmid: 101, type: "lxc", status: "running", ha: { managed: 0 } })
    expect(typeof first.pid).toBe("number")
    expect(first.uptime).toBeGreaterThan(0)
    expect(first.cpu).toBeGreaterThan(0)
    expect(first.cpu).toBeLessThanOrEqual(1)
    clock += 10_000
    const later = (await api(sim, "/nodes/pve1/lxc/101/status/current")).json.data
    expect(later.uptime).toBe(first.uptime + 10)
    for (const k of ["netin", "netout", "diskread", "diskwrite"]) expect(later[k]).toBeGreaterThan(first[k])
    const stopped = (await api(sim, "/nodes/pve1/lxc/102/status/current")).json.data
    expect(stopped).toMatchObject({ status: "stopped", cpu: 0, mem: 0, netin: 0, diskwrite: 0, uptime: 0 })
    expect(stopped.pid).toBeUndefined()
  })

  it("counts uptime from the moment a guest is seen starting", async () => {
    const start = await api(sim, "/nodes/pve1/lxc/102/status/start", { method: "POST" })
    await waitTask(sim, "pve1", start.json.data)
    clock += 5_000
    const data = (await api(sim, "/nodes/pve1/lxc/102/status/current")).json.data
    expect(data).toMatchObject({ status: "running", uptime: 5 })
  })
})

describe("PVE simulator: authentication", () => {
  let clock = Date.now()
  let sim: PveSim
  beforeAll(async () => {
    sim = await startPveSimulator({ ...fast, authFailureDelayMs: 150, ticketLifetimeMs: 60_000, now: () => clock })
  })
  afterAll(() => sim.close())

  const login = async (password = sim.user.password) =>
    call(sim, "/api2/json/access/ticket", {
      method: "POST",
      headers: form,
      body: new URLSearchParams({ username: sim.user.userid, password }).toString()
    })

  it("answers 401 No ticket with an empty body and no Content-Type, after the delay", async () => {
    const t0 = performance.now()
    const r = await call(sim, "/api2/json/version")
    expect(performance.now() - t0).toBeGreaterThanOrEqual(150)
    expect([r.status, r.statusMessage]).toEqual([401, "No ticket"])
    expect(r.raw.length).toBe(0)
    expect(r.headers["content-type"]).toBeUndefined()
  })

  it("answers a wrong token secret with 401 Authentication failed! after the delay", async () => {
    const t0 = performance.now()
    const r = await call(sim, "/api2/json/version", {
      headers: { Authorization: `PVEAPIToken=${sim.token.tokenId}=00000000-0000-0000-0000-000000000000` }
    })
    expect(performance.now() - t0).toBeGreaterThanOrEqual(150)
    expect([r.status, r.statusMessage, r.raw.length]).toEqual([401, "Authentication failed!", 0])
  })

  it("parses the token header with the server's regexes (space form, other schemes before it)", async () => {
    const spaced = await call(sim, "/api2/json/version", {
      headers: { Authorization: `Basic x PVEAPIToken ${sim.token.tokenId}=${sim.token.secret}` }
    })
    expect(spaced.status).toBe(200)
    // Split at the LAST "=": an "=" inside the id part makes the id invalid, not the secret.
    const extra = await call(sim, "/api2/json/version", {
      headers: { Authorization: `PVEAPIToken=${sim.token.tokenId}=${sim.token.secret}=` }
    })
    expect(extra.status).toBe(401)
  })

  it("splits the token at the last '=', so an '=' in the secret lands in the (then invalid) token id", async () => {
    const other = await startPveSimulator({
      ...fast,
      tokens: [{ tokenId: "ci@pve!ab", secret: "1111-2222" }],
      users: [{ userid: "ci@pve", password: "x" }]
    })
    try {
      const ok = await call(other, "/api2/json/version", {
        headers: { Authorization: "PVEAPIToken=ci@pve!ab=1111-2222" }
      })
      expect(ok.status).toBe(200)
      const bad = await call(other, "/api2/json/version", {
        headers: { Authorization: "PVEAPIToken=ci@pve!ab=11=11-2222" }
      })
      expect(bad.status).toBe(401)
    } finally {
      await other.close()
    }
  })

  it("refuses /access/ticket for API tokens with 403", async () => {
    const r = await call(sim, "/api2/json/access/ticket", {
      method: "POST",
      headers: { ...tokenHeader(sim), ...form },
      body: "username=root@pam&password=x"
    })
    expect(r.status).toBe(403)
    expect(r.statusMessage).toBe(
      "Permission check failed (URI '/access/ticket' not available with API token, need proper ticket.)"
    )
  })

  it("answers a bad password with 401 authentication failure through the JSON formatter, after the delay", async () => {
    const t0 = performance.now()
    const r = await login("wrong")
    expect(performance.now() - t0).toBeGreaterThanOrEqual(150)
    expect([r.status, r.statusMessage]).toEqual([401, "authentication failure"])
    expect(r.json).toEqual({ data: null, message: "authentication failure\n" })
  })

  it("issues tickets that work as cookies, need CSRF on POST, renew, and expire", async () => {
    const r = await login()
    expect(r.status).toBe(200)
    const { ticket, CSRFPreventionToken, username, cap } = r.json.data
    expect(username).toBe("root@pam")
    expect(ticket).toMatch(/^PVE:root@pam:[0-9A-F]{8}::[A-Za-z0-9+/=]+$/)
    expect(CSRFPreventionToken).toMatch(/^[0-9A-F]{8}:[A-Za-z0-9+/]{43}$/)
    expect(cap.vms["VM.PowerMgmt"]).toBe(1)
    const cookie = { Cookie: `PVEAuthCookie=${encodeURIComponent(ticket)}` }

    expect((await call(sim, "/api2/json/nodes", { headers: cookie })).status).toBe(200)
    const noCsrf = await call(sim, "/api2/json/nodes/pve1/lxc/102/status/start", { method: "POST", headers: cookie })
    expect([noCsrf.status, noCsrf.statusMessage, noCsrf.raw.length]).toEqual([
      401,
      "Permission denied - invalid csrf token",
      0
    ])
    const forged = await call(sim, "/api2/json/nodes/pve1/lxc/102/status/start", {
      method: "POST",
      headers: { ...cookie, CSRFPreventionToken: `${CSRFPreventionToken.slice(0, 9)}${"A".repeat(43)}` }
    })
    expect([forged.status, forged.statusMessage]).toEqual([401, "Permission denied - invalid csrf token"])
    const withCsrf = await call(sim, "/api2/json/nodes/pve1/lxc/102/status/start", {
      method: "POST",
      headers: { ...cookie, CSRFPreventionToken }
    })
    expect(withCsrf.status).toBe(200)
    const task = await waitTask(sim, "pve1", withCsrf.json.data)
    expect(task.user).toBe("root@pam")
    expect(task.tokenid).toBeUndefined()

    // Renewal: the old ticket as password.
    clock += 30_000
    const renewed = await login(ticket)
    expect(renewed.status).toBe(200)
    expect(renewed.json.data.ticket).not.toBe(ticket)

    // The first ticket is now 61 s old, beyond the 60 s lifetime; the renewed one is 31 s old.
    clock += 31_000
    expect((await call(sim, "/api2/json/nodes", { headers: cookie })).status).toBe(401)
    const fresh = { Cookie: `PVEAuthCookie=${encodeURIComponent(renewed.json.data.ticket)}` }
    expect((await call(sim, "/api2/json/nodes", { headers: fresh })).status).toBe(200)
    // The Authorization form of the ticket is accepted too.
    const viaHeader = await call(sim, "/api2/json/nodes", {
      headers: { Authorization: `PVEAuthCookie=${renewed.json.data.ticket}` }
    })
    expect(viaHeader.status).toBe(200)
    expect((await login(ticket)).status).toBe(401)
  })

  it("accepts a JSON login body", async () => {
    const r = await call(sim, "/api2/json/access/ticket", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "root", realm: "pam", password: sim.user.password })
    })
    expect(r.status).toBe(200)
    expect(r.json.data.username).toBe("root@pam")
  })
})

describe("PVE simulator: tasks and power actions", () => {
  let sim: PveSim
  beforeAll(async () => {
    sim = await startPveSimulator(fast)
  })
  afterAll(() => sim.close())

  it("starts a guest through a UPID task that runs, then stops with OK", async () => {
    const r = await api(sim, "/nodes/pve1/lxc/102/status/start", { method: "POST" })
    expect(r.status).toBe(200)
    const upid: string = r.json.data
    expect(upid).toMatch(UPID_REGEX)
    expect(upid).toMatch(/^UPID:pve1:[0-9A-F]{8}:[0-9A-F]{8,9}:[0-9A-F]{8}:vzstart:102:root@pam!gatehouse:$/)
    const running = (await api(sim, `/nodes/pve1/tasks/${encodeURIComponent(upid)}/status`)).json.data
    expect(running).toMatchObject({ upid, node: "pve1", type: "vzstart", id: "102", status: "running" })
    expect(running.exitstatus).toBeUndefined()
    const done = await waitTask(sim, "pve1", upid)
    expect(done).toMatchObject({ status: "stopped", exitstatus: "OK", user: "root@pam", tokenid: "gatehouse" })
    expect(typeof done.pid).toBe("number")
    expect((await api(sim, "/nodes/pve1/lxc/102/status/current")).json.data.status).toBe("running")
    const log = await api(sim, `/nodes/pve1/tasks/${encodeURIComponent(upid)}/log`)
    expect(log.json).toEqual({ data: [{ n: 1, t: "TASK OK" }], total: 1 })
  })

  it("ends a task with an injected failure and leaves the guest as it was", async () => {
    sim.failNextTask(101, "startup for container '101' failed")
    const r = await api(sim, "/nodes/pve1/lxc/101/status/stop", { method: "POST" })
    const done = await waitTask(sim, "pve1", r.json.data)
    expect(done.exitstatus).toBe("startup for container '101' failed")
    const log = await api(sim, `/nodes/pve1/tasks/${encodeURIComponent(r.json.data)}/log`)
    expect(log.json.data.at(-1)).toEqual({ n: 1, t: "TASK ERROR: startup for container '101' failed" })
    expect((await api(sim, "/nodes/pve1/lxc/101/status/current")).json.data.status).toBe("running")
  })

  it("ends a task that logged warnings with WARNINGS: <n> after it acted (PVE counts that as success)", async () => {
    sim.warnNextTask(101, 2)
    const r = await api(sim, "/nodes/pve1/lxc/101/status/stop", { method: "POST" })
    const done = await waitTask(sim, "pve1", r.json.data)
    expect(done.exitstatus).toBe("WARNINGS: 2")
    const log = await api(sim, `/nodes/pve1/tasks/${encodeURIComponent(r.json.data)}/log`)
    expect(log.json.data.at(-1)).toEqual({ n: 1, t: "TASK WARNINGS: 2" })
    expect((await api(sim, "/nodes/pve1/lxc/101/status/current")).json.data.status).toBe("stopped")
    // The next task is an ordinary one; 101 runs again for the tests below.
    const start = await api(sim, "/nodes/pve1/lxc/101/status/start", { method: "POST" })
    expect((await waitTask(sim, "pve1", start.json.data)).exitstatus).toBe("OK")
  })

  it("shuts down and reboots with 0/1 booleans, and refuses actions on stopped guests", async () => {
    const down = await api(sim, "/nodes/pve1/lxc/101/status/shutdown", {
      method: "POST",
      headers: form,
      body: "timeout=5&forceStop=1"
    })
    expect(down.status).toBe(200)
    expect((await waitTask(sim, "pve1", down.json.data)).exitstatus).toBe("OK")
    const stop = await api(sim, "/nodes/pve1/lxc/101/status/stop", { method: "POST" })
    expect([stop.status, stop.statusMessage]).toEqual([500, "CT 101 not running"])
    const reboot = await api(sim, "/nodes/pve1/lxc/101/status/reboot", { method: "POST" })
    expect([reboot.status, reboot.statusMessage]).toEqual([500, "VM 101 not running"])
    // A JSON body may use true/false.
    const start = await api(sim, "/nodes/pve1/lxc/101/status/start", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ debug: false })
    })
    expect(start.status).toBe(200)
    await waitTask(sim, "pve1", start.json.data)
  })

  it("reflects setGuest, addGuest and removeGuest in the listings", async () => {
    sim.addGuest({ vmid: 150, node: "pve1", name: "cache", status: "stopped" })
    expect((await api(sim, "/nodes/pve1/lxc")).json.data.map((g: any) => g.vmid)).toContain(150)
    sim.setGuest(150, { status: "running" })
    expect((await api(sim, "/nodes/pve1/lxc/150/status/current")).json.data.status).toBe("running")
    sim.removeGuest(150)
    expect((await api(sim, "/nodes/pve1/lxc/150/status/current")).status).toBe(500)
  })
})

describe("PVE simulator: guests in /cluster/resources come from the RRD cache (pvestatd's last update)", () => {
  const guest = async (sim: PveSim, vmid: number) =>
    (await api(sim, "/cluster/resources?type=vm")).json.data.find((e: any) => e.vmid === vmid)

  it("lags a power action until pvestatd's next update; status/current does not", async () => {
    const sim = await startPveSimulator(fast)
    try {
      const start = await api(sim, "/nodes/pve1/lxc/102/status/start", { method: "POST" })
      await waitTask(sim, "pve1", start.json.data)
      expect((await api(sim, "/nodes/pve1/lxc/102/status/current")).json.data.status).toBe("running")
      expect(await guest(sim, 102)).toMatchObject({ status: "stopped", uptime: 0, mem: 0 })
      await sim.sampleRrd()
      expect(await guest(sim, 102)).toMatchObject({ status: "running", name: "db" })
    } finally {
      await sim.close()
    }
  })

  it("lists a guest created since the last update with status unknown and nothing else", async () => {
    const sim = await startPveSimulator(fast)
    try {
      sim.addGuest({ vmid: 150, node: "pve1", name: "cache", status: "running" })
      expect(await guest(sim, 150)).toEqual({ id: "lxc/150", vmid: 150, node: "pve1", type: "lxc", status: "unknown" })
      await sim.sampleRrd()
      expect(await guest(sim, 150)).toMatchObject({ status: "running", name: "cache" })
    } finally {
      await sim.close()
    }
  })

  it("updates by itself every rrdIntervalMs", async () => {
    const sim = await startPveSimulator({ ...fast, rrdIntervalMs: 50 })
    try {
      sim.setGuest(101, { status: "stopped" })
      const deadline = Date.now() + 5000
      let status = (await guest(sim, 101)).status
      while (status !== "stopped" && Date.now() < deadline) status = (await guest(sim, 101)).status
      expect(status).toBe("stopped")
    } finally {
      await sim.close()
    }
  })
})

describe("PVE simulator: permissions", () => {
  let sim: PveSim
  beforeAll(async () => {
    sim = await startPveSimulator({
      ...fast,
      tokens: [
        { tokenId: "root@pam!gatehouse", secret: "a0000000-0000-4000-8000-000000000001" },
        { tokenId: "root@pam!bare", secret: "a0000000-0000-4000-8000-000000000002", privsep: true },
        {
          tokenId: "root@pam!audit",
          secret: "a0000000-0000-4000-8000-000000000003",
          privsep: true,
          acl: { "/vms": ["VM.Audit"], "/nodes/pve1": ["Sys.Audit"] }
        }
      ]
    })
  })
  afterAll(() => sim.close())
  const as = (name: string, secret: string) => ({ Authorization: `PVEAPIToken=root@pam!${name}=${secret}` })
  const bare = as("bare", "a0000000-0000-4000-8000-000000000002")
  const audit = as("audit", "a0000000-0000-4000-8000-000000000003")

  it("shows a privilege-separated token without ACL empty lists and refuses power and node status", async () => {
    expect((await call(sim, "/api2/json/cluster/resources?type=vm", { headers: bare })).json).toEqual({ data: [] })
    expect((await call(sim, "/api2/json/nodes/pve1/lxc", { headers: bare })).json).toEqual({ data: [] })
    const power = await call(sim, "/api2/json/nodes/pve1/lxc/102/status/start", { method: "POST", headers: bare })
    expect([power.status, power.statusMessage]).toEqual([403, "Permission check failed (/vms/102, VM.PowerMgmt)"])
    const status = await call(sim, "/api2/json/nodes/pve1/status", { headers: bare })
    expect([status.status, status.statusMessage]).toEqual([403, "Permission check failed (/nodes/pve1, Sys.Audit)"])
    const nodes = (await call(sim, "/api2/json/nodes", { headers: bare })).json.data
    expect(nodes[0].maxmem).toBeUndefined()
    expect((await call(sim, "/api2/json/access/permissions", { headers: bare })).json).toEqual({ data: {} })
  })

  it("propagates ACLs to children and reports them in /access/permissions", async () => {
    const vms = (await call(sim, "/api2/json/cluster/resources?type=vm", { headers: audit })).json.data
    expect(vms).toHaveLength(2)
    const power = await call(sim, "/api2/json/nodes/pve1/lxc/101/status/stop", { method: "POST", headers: audit })
    expect(power.status).toBe(403)
    const perms = (await call(sim, "/api2/json/access/permissions", { headers: audit })).json.data
    expect(perms).toEqual({ "/vms": { "VM.Audit": 1 }, "/nodes/pve1": { "Sys.Audit": 1 } })
    const one = (await call(sim, "/api2/json/access/permissions?path=/vms/101", { headers: audit })).json.data
    expect(one).toEqual({ "/vms/101": { "VM.Audit": 1 } })
    const journal = await call(sim, "/api2/json/nodes/pve1/journal", { headers: audit })
    expect(journal.statusMessage).toBe("Permission check failed (/nodes/pve1, Sys.Syslog)")
    const full = (await api(sim, "/access/permissions")).json.data
    expect(full["/"]["VM.PowerMgmt"]).toBe(1)
  })
})

describe("PVE simulator: test controls", () => {
  let sim: PveSim
  beforeAll(async () => {
    sim = await startPveSimulator(fast)
  })
  afterAll(() => sim.close())

  it("records requests with their auth kind", async () => {
    sim.resetRequests()
    await api(sim, "/cluster/resources?type=vm")
    await call(sim, "/api2/json/version")
    expect(sim.countRequests("/cluster/resources")).toBe(1)
    expect(sim.countRequests(/version$/)).toBe(1)
    expect(sim.requests[0]).toEqual({
      method: "GET",
      path: "/api2/json/cluster/resources",
      query: { type: "vm" },
      authKind: "token"
    })
    expect(sim.requests[1]!.authKind).toBe("none")
  })

  it("injects faults, once or until cleared, including non-JSON bodies", async () => {
    sim.fault({ match: "/cluster/resources", status: 500, reason: "internal error", once: true })
    const failed = await api(sim, "/cluster/resources")
    expect([failed.status, failed.statusMessage]).toEqual([500, "internal error"])
    expect(failed.json).toEqual({ data: null, message: "internal error\n" })
    expect((await api(sim, "/cluster/resources")).status).toBe(200)
    sim.fault({ match: /\/nodes\/pve1\/status$/, status: 200, reason: "OK", body: "not json" })
    const odd = await api(sim, "/nodes/pve1/status")
    expect([odd.status, odd.text]).toEqual([200, "not json"])
    expect((await api(sim, "/nodes/pve1/status")).text).toBe("not json")
    sim.fault({ match: "/nodes/pve1/status", status: 503, reason: "service unavailable" })
    expect((await api(sim, "/nodes/pve1/status")).statusMessage).toBe("service unavailable")
    sim.fault(undefined)
    expect((await api(sim, "/nodes/pve1/status")).json.data.uptime).toBeGreaterThan(0)
  })

  it("injects a fault for the next N matching requests only", async () => {
    sim.fault({ match: "/nodes/pve1/status", status: 503, reason: "service unavailable", times: 3 })
    const statuses: Array<number> = []
    for (let i = 0; i < 5; i++) statuses.push((await api(sim, "/nodes/pve1/status")).status)
    // Requests the fault does not match do not use it up.
    expect((await api(sim, "/version")).status).toBe(200)
    statuses.push((await api(sim, "/nodes/pve1/status")).status)
    expect(statuses).toEqual([503, 503, 503, 200, 200, 200])
  })

  it("serves a certificate signed by a given CA: trusted with that CA, refused with another", async () => {
    const ca = generateCa()
    const signed = await startPveSimulator({ ...fast, certificate: generateCertificate("pve1", { issuer: ca }) })
    const version = (trusted: string) =>
      new Promise<number>((resolve, reject) => {
        const req = https.request(
          `${signed.url}/api2/json/version`,
          { headers: tokenHeader(signed), ca: trusted, agent: false },
          (res) => {
            res.resume()
            resolve(res.statusCode ?? 0)
          }
        )
        req.on("error", reject)
        req.end()
      })
    try {
      expect(await version(ca.certPem)).toBe(200)
      await expect(version(generateCa().certPem)).rejects.toMatchObject({ code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE" })
    } finally {
      await signed.close()
    }
  })

  it("hangs matching requests without answering", async () => {
    sim.hang("/nodes/pve1/lxc")
    const outcome = await new Promise<string>((resolve) => {
      const req = https.request(
        `${sim.url}/api2/json/nodes/pve1/lxc`,
        { headers: tokenHeader(sim), ca: sim.certPem, agent: false, timeout: 300 },
        () => resolve("answered")
      )
      req.on("timeout", () => {
        req.destroy()
        resolve("timeout")
      })
      req.on("error", () => {})
      req.end()
    })
    expect(outcome).toBe("timeout")
    sim.hang(undefined)
    expect((await api(sim, "/nodes/pve1/lxc")).status).toBe(200)
  })

  it("stops (connections refused) and starts again on the same port with the same certificate", async () => {
    const port = new URL(sim.url).port
    await sim.stop()
    await expect(api(sim, "/version")).rejects.toMatchObject({ code: "ECONNREFUSED" })
    await sim.start()
    expect(new URL(sim.url).port).toBe(port)
    const r = await api(sim, "/version")
    expect(r.status).toBe(200)
  })

  it("marks nodes offline in the listings", async () => {
    sim.setNode("pve1", { status: "offline" })
    const nodes = (await api(sim, "/cluster/resources?type=node")).json.data
    expect(nodes[0]).toMatchObject({ id: "node/pve1", status: "offline" })
    expect(nodes[0].maxmem).toBeUndefined()
    const guests = (await api(sim, "/cluster/resources?type=vm")).json.data
    expect(guests[0].status).toBe("unknown")
    sim.setNode("pve1", { status: "online" })
  })
})

const lxc = requireTool("lxc-start")
describe.skipIf(lxc.skip)("PVE simulator with real LXC containers", () => {
  let dir: string
  let sim: PveSim
  const lxcPath = () => path.join(dir, "lxc")
  const state = () => execFileSync("lxc-info", ["-P", lxcPath(), "-n", "901", "-s", "-H"]).toString().trim()

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "pve-sim-lxc-"))
    fs.mkdirSync(lxcPath())
    const conf = path.join(dir, "empty.conf")
    fs.writeFileSync(conf, "lxc.net.0.type = empty\nlxc.apparmor.profile = unconfined\n")
    execFileSync("lxc-create", ["-P", lxcPath(), "-n", "901", "-t", "busybox", "-f", conf], { stdio: "pipe" })
    sim = await startPveSimulator({
      ...fast,
      backend: lxcBackend({ lxcPath: lxcPath() }),
      guests: [{ vmid: 901, node: "pve1", name: "box", status: "stopped" }]
    })
  })
  afterAll(async () => {
    await sim?.close()
    spawnSync("lxc-stop", ["-P", lxcPath(), "-n", "901", "-k"])
    spawnSync("lxc-destroy", ["-P", lxcPath(), "-n", "901"])
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("starts and stops a real container through the API", async () => {
    expect((await api(sim, "/nodes/pve1/lxc/901/status/current")).json.data.status).toBe("stopped")
    const start = await api(sim, "/nodes/pve1/lxc/901/status/start", { method: "POST" })
    expect((await waitTask(sim, "pve1", start.json.data)).exitstatus).toBe("OK")
    expect(state()).toBe("RUNNING")
    expect((await api(sim, "/nodes/pve1/lxc/901/status/current")).json.data.status).toBe("running")
    const stop = await api(sim, "/nodes/pve1/lxc/901/status/stop", { method: "POST" })
    expect((await waitTask(sim, "pve1", stop.json.data)).exitstatus).toBe("OK")
    expect(state()).toBe("STOPPED")
    expect((await api(sim, "/nodes/pve1/lxc/901/status/current")).json.data.status).toBe("stopped")
  })

  it("sees a container stopped behind the simulator's back", async () => {
    const start = await api(sim, "/nodes/pve1/lxc/901/status/start", { method: "POST" })
    await waitTask(sim, "pve1", start.json.data)
    execFileSync("lxc-stop", ["-P", lxcPath(), "-n", "901", "-k"])
    const deadline = Date.now() + 5000
    let status = ""
    while (status !== "stopped" && Date.now() < deadline)
      status = (await api(sim, "/nodes/pve1/lxc/901/status/current")).json.data.status
    expect(status).toBe("stopped")
  })
})
