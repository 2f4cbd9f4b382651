import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { InvalidYaml, ValidationFailed } from "../../src/domain/CommonErrors.js"
import { validateRoutes } from "../../src/routes/ValidateRoutes.js"

describe("validateRoutes", () => {
  it.effect("succeeds with the normalized routes", () =>
    Effect.gen(function* () {
      const routes = yield* validateRoutes("app:\n  port: 8443\ndb:\n  port: '5432:5432'\n")
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
      const error = yield* Effect.flip(validateRoutes("app: {port: 80\n"))
      assert.instanceOf(error, InvalidYaml)
      assert.strictEqual(error.issues[0]?.line, 2)
      assert.match(error.message, /^invalid YAML: /)
    })
  )

  it.effect("fails with ValidationFailed carrying every issue", () =>
    Effect.gen(function* () {
      const error = yield* Effect.flip(validateRoutes("app:\n  port: x\nweb:\n  bind: nope\n  port: 80\n"))
      assert.instanceOf(error, ValidationFailed)
      assert.deepStrictEqual(
        error.issues.map((i) => i.path.join(".")),
        ["app.port", "web.bind", "web.bind"]
      )
      assert.strictEqual(error.message, "validation failed: 3 problems")
    })
  )
})
