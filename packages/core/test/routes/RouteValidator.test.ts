import { assert, describe, it } from "@effect/vitest"
import { InvalidYaml, ValidationFailed } from "@gatehouse-edge/contract/domain"
import { Effect } from "effect"
import { validateRoutesYaml } from "../../src/routes/RoutesYaml.js"
import { RouteValidator } from "../../src/routes/RouteValidator.js"
import * as RouteValidatorLive from "../../src/routes/RouteValidatorLive.js"

const validator = RouteValidatorLive.inline

describe("RouteValidator: validate", () => {
  it.effect("succeeds with the normalized routes", () =>
    Effect.gen(function* () {
      const routes = yield* validator.validate("app:\n  port: 8443\ndb:\n  port: '5432:5432'\n")
      assert.deepStrictEqual(
        routes.map((r) => [r.alias, r.scheme]),
        [
          ["app", "https"],
          ["db", "tcp"]
        ]
      )
    })
  )

  it.effect("fails with InvalidYaml for a syntax error, with line and column", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(validator.validate("app: {port: 80\n"))
      assert.instanceOf(error, InvalidYaml)
      assert.strictEqual(error.issues[0]?.line, 2)
      assert.match(error.message, /^invalid YAML: /)
    })
  )

  it.effect("fails with ValidationFailed carrying every issue", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(validator.validate("app:\n  port: x\nweb:\n  bind: nope\n  port: 80\n"))
      assert.instanceOf(error, ValidationFailed)
      assert.deepStrictEqual(
        error.issues.map((i) => i.path.join(".")),
        ["app.port", "web.bind", "web.bind"]
      )
      assert.strictEqual(error.message, "validation failed: 3 problems")
    })
  )
})

describe("RouteValidator.framesOf (the stream frames of a report)", () => {
  it("answers a document with a frame per route, then done with the counts", () => {
    const frames = RouteValidator.framesOf(validateRoutesYaml("good:\n  port: 80\nbad:\n  port: x\n"))
    assert.deepStrictEqual(
      frames.map((f) => ("done" in f ? ["done", f.valid, f.invalid] : [f.alias, f.valid])),
      [
        ["good", true],
        ["bad", false],
        ["done", 1, 1]
      ]
    )
    const bad = frames[1]
    assert.isTrue(bad !== undefined && "errors" in bad && bad.errors?.[0]?.path.join(".") === "bad.port")
  })

  it("a document that is no YAML gets one done frame carrying the syntax errors", () => {
    const frames = RouteValidator.framesOf(validateRoutesYaml("app: {port: 80\n"))
    assert.strictEqual(frames.length, 1)
    const [done] = frames
    assert.isTrue(done !== undefined && "done" in done && done.valid === 0 && done.invalid === 0)
    assert.strictEqual(done !== undefined && "done" in done ? done.errors?.[0]?.line : undefined, 2)
  })

  it("problems of the document as a whole are in the done frame", () => {
    const [done] = RouteValidator.framesOf(validateRoutesYaml("- a\n- b\n"))
    assert.isTrue(done !== undefined && "done" in done && (done.errors?.length ?? 0) === 1)
  })
})

describe("RouteValidator.errorOf (the one report → error mapping)", () => {
  it("maps a report to no error, InvalidYaml or ValidationFailed", () => {
    assert.isUndefined(RouteValidator.errorOf(validateRoutesYaml("app:\n  port: 80\n")))
    assert.instanceOf(RouteValidator.errorOf(validateRoutesYaml("app: [\n")), InvalidYaml)
    assert.instanceOf(RouteValidator.errorOf(validateRoutesYaml("app:\n  port: x\n")), ValidationFailed)
  })
})
