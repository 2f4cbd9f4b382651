import { assert, describe, it } from "@effect/vitest"
import { SecretUnreadable, StoreOpenFailed } from "@gatehouse-edge/core"
import { ValidationFailed } from "@gatehouse-edge/core/domain"
import { Cause, Data } from "effect"
import { describeStartupFailure } from "../src/commands/StartupFailure.js"

class Lookalike extends Data.TaggedError("StoreOpenFailed")<{ readonly message: string }> {}

describe("describeStartupFailure", () => {
  it("explains the failures an operator can fix, matched by class", () => {
    const secret = new SecretUnreadable({
      key: "auth.oidc.client_secret_file",
      path: "/run/oidc",
      reason: "no such file"
    })
    assert.strictEqual(
      describeStartupFailure(Cause.fail(secret), "127.0.0.1:8888"),
      "cannot read the secret for auth.oidc.client_secret_file from /run/oidc: no such file"
    )
    const store = new StoreOpenFailed({ filename: "/data/gatehouse.db", cause: new Error("locked") })
    assert.strictEqual(
      describeStartupFailure(Cause.die(store), "x"),
      "cannot open the store /data/gatehouse.db: locked"
    )
    const routes = new ValidationFailed({ issues: [{ path: ["app", "port"], message: "out of range", file: "a.yml" }] })
    assert.include(describeStartupFailure(Cause.fail(routes), "x"), "  a.yml: app.port: out of range")
  })

  it("leaves anything else to be reported in full, even an error that only borrows a tag", () => {
    assert.isUndefined(describeStartupFailure(Cause.fail(new Lookalike({ message: "not ours" })), "x"))
    assert.isUndefined(describeStartupFailure(Cause.die(new Error("boom")), "x"))
  })
})
