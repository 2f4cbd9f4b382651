import { describe, expect, it } from "vitest"
import {
  commandInputProblems,
  inGuest,
  journalArgv,
  normalizeFile,
  tailArgv
} from "../../src/hypervisor/NodeCommands.js"
import { missingPrivileges } from "../../src/hypervisor/PermissionCheck.js"

// SPEC §5.4: every one of these is refused, naming the parameter.
const dangerous = [..."&|;$`'\"<>\\(){}*?!~#", " ", "\t", "\n", "\u0000", "\u007f"]

describe("command input (SPEC §5.4)", () => {
  it.each(dangerous.map((c) => [JSON.stringify(c), c]))("refuses %s in a service and in a file", (_, char) => {
    const service = commandInputProblems({ services: ["ok", `bad${char}unit`] })
    expect(service?.issues.map((i) => i.path)).toEqual([["service", 1]])
    expect(service?.message).toMatch(/^invalid service: service must not contain/)
    const file = commandInputProblems({ files: [`/var/log/a${char}b`] })
    expect(file?.issues.map((i) => i.path)).toEqual([["file", 0]])
  })

  it("refuses a leading '-', '..' segments, relative and empty paths", () => {
    expect(commandInputProblems({ services: ["-n"] })?.message).toMatch(/must not start with `-`/)
    expect(commandInputProblems({ files: ["/var/log/../../etc/shadow"] })?.message).toMatch(/`\.\.` path segment/)
    expect(commandInputProblems({ files: ["var/log/syslog"] })?.message).toMatch(/absolute path/)
    expect(commandInputProblems({ services: [""] })?.message).toMatch(/must not be empty/)
  })

  it("refuses files under /dev, /proc and /sys, however the path is spelled", () => {
    for (const file of ["/dev/zero", "//dev/urandom", "/./proc/kcore", "/sys/kernel/notes", "/dev"]) {
      expect(commandInputProblems({ files: [file] })?.message, file).toBe(
        "invalid file: file must not be under /dev, /proc or /sys"
      )
    }
    // Even where hypervisor.tail_paths allows every directory.
    expect(commandInputProblems({ files: ["//dev/zero"], tailPaths: ["/"] })?.message).toMatch(/\/dev, \/proc/)
    expect(commandInputProblems({ files: ["/var/log/dev/app.log", "/devices.log"], tailPaths: ["/"] })).toBeUndefined()
  })

  it("refuses files outside hypervisor.tail_paths (default /var/log), however the path is spelled", () => {
    for (const file of [
      "/etc/pve/priv/authkey.key",
      "/etc/shadow",
      "/root/.ssh/id_rsa",
      "/var/logx/app.log",
      "/var/log",
      "/var/log/",
      "/./var/log",
      "//var//log//"
    ]) {
      const problem = commandInputProblems({ files: ["/var/log/syslog", file] })
      expect(problem?.issues, file).toEqual([
        { path: ["file", 1], message: "file must be under /var/log (the directories hypervisor.tail_paths allows)" }
      ])
      expect(problem?.message).toBe(
        "invalid file: file must be under /var/log (the directories hypervisor.tail_paths allows)"
      )
    }
    for (const file of ["/var/log/syslog", "//var/log/syslog", "/./var/./log/pve/tasks/active", "/var/log/a/"]) {
      expect(commandInputProblems({ files: [file] }), file).toBeUndefined()
    }
    const configured = { tailPaths: ["/srv/app/logs/", "/var/log/nginx"] }
    expect(
      commandInputProblems({ files: ["/srv/app/logs/x.log", "/var/log/nginx/error.log"], ...configured })
    ).toBeUndefined()
    expect(commandInputProblems({ files: ["/var/log/syslog"], ...configured })?.message).toBe(
      "invalid file: file must be under one of /srv/app/logs, /var/log/nginx " +
        "(the directories hypervisor.tail_paths allows)"
    )
    expect(commandInputProblems({ files: ["/var/log/syslog"], tailPaths: [] })?.message).toBe(
      "invalid file: file cannot be followed: hypervisor.tail_paths allows no directory"
    )
  })

  it("normalizes a file to one spelling, so duplicates are found however they are written", () => {
    expect(["/var/log/x", "/./var/log/x", "//var/log/x", "/var/./log//x", "/var/log/x/"].map(normalizeFile)).toEqual(
      Array(5).fill("/var/log/x")
    )
    expect(normalizeFile("/")).toBe("/")
  })

  it("refuses more than 16 files or services in one request", () => {
    const many = Array.from({ length: 17 }, (_, i) => `/var/log/f${i}`)
    expect(commandInputProblems({ files: many })?.issues).toEqual([
      { path: ["file"], message: "file may be given at most 16 times" }
    ])
    expect(commandInputProblems({ files: many.slice(0, 16) })).toBeUndefined()
    expect(commandInputProblems({ services: Array.from({ length: 17 }, (_, i) => `u${i}`) })?.message).toBe(
      "invalid service: service may be given at most 16 times"
    )
  })

  it("refuses a limit outside 1–1000 and reports every problem at once", () => {
    expect(commandInputProblems({ limit: 0 })?.issues[0]?.path).toEqual(["limit"])
    expect(commandInputProblems({ limit: 1001 })).toBeDefined()
    expect(commandInputProblems({ limit: 1.5 })).toBeDefined()
    const all = commandInputProblems({ services: ["a;b"], files: ["rel"], limit: 0 })
    expect(all?.issues).toHaveLength(3)
  })

  it("accepts ordinary units, paths and limits", () => {
    expect(
      commandInputProblems({
        services: ["pveproxy", "ssh.service", "user@1000.service"],
        files: ["/var/log/syslog"],
        limit: 1000
      })
    ).toBeUndefined()
  })

  it("builds argv word by word, in the container through pct exec", () => {
    expect(journalArgv(["pveproxy", "ssh"], 5)).toEqual([
      "journalctl",
      "-f",
      "-n",
      "5",
      "--no-pager",
      "-u",
      "pveproxy",
      "-u",
      "ssh"
    ])
    expect(inGuest(101, tailArgv(["/var/log/a"], 10))).toEqual([
      "pct",
      "exec",
      "101",
      "--",
      "tail",
      "-n",
      "10",
      "-F",
      "/var/log/a"
    ])
    expect(inGuest(0, ["journalctl"])).toEqual(["journalctl"])
  })
})

describe("missingPrivileges", () => {
  it("names every privilege a token without ACL lacks", () => {
    expect(missingPrivileges({}).map((m) => m.privilege)).toEqual(["Sys.Audit", "VM.Audit", "VM.PowerMgmt"])
  })

  it("counts grants on an ancestor, on the path and below it", () => {
    expect(missingPrivileges({ "/": { "Sys.Audit": 1, "VM.Audit": 1, "VM.PowerMgmt": 1 } })).toEqual([])
    expect(
      missingPrivileges({ "/nodes": { "Sys.Audit": 1 }, "/vms/101": { "VM.Audit": 1, "VM.PowerMgmt": 1 } })
    ).toEqual([])
  })

  it("does not count a grant on a sibling path, or one set to 0", () => {
    const missing = missingPrivileges({
      "/storage": { "VM.Audit": 1 },
      "/vms": { "VM.Audit": 1, "VM.PowerMgmt": 0 },
      "/nodes": { "Sys.Audit": 1 }
    })
    expect(missing.map((m) => `${m.path} ${m.privilege}`)).toEqual(["/vms VM.PowerMgmt"])
  })
})
