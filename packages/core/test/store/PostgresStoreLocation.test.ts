import { assert, describe, it } from "@effect/vitest"
import { Redacted } from "effect"
import { describeLocation } from "../../src/store/PostgresStore.js"

const described = (url: string, schema?: string) => describeLocation({ url: Redacted.make(url), schema })

describe("PostgresStore.describeLocation", () => {
  it("shows where the store is without the password of the user part", () => {
    assert.strictEqual(
      described("postgres://gatehouse:s3cret@db.internal:5432/edge"),
      "postgres://gatehouse@db.internal:5432/edge"
    )
    assert.strictEqual(
      described("postgres://gatehouse@db/edge", "tenant2"),
      "postgres://gatehouse@db/edge (schema tenant2)"
    )
  })

  it("hides a password given in the query (which the driver reads), and keeps the other parameters", () => {
    const text = described(
      "postgres://gatehouse@db/edge?sslmode=require&password=s3cret&sslpassword=k3y&application_name=gh"
    )
    assert.notInclude(text, "s3cret")
    assert.notInclude(text, "k3y")
    assert.strictEqual(
      text,
      "postgres://gatehouse@db/edge?sslmode=require&password=<redacted>&sslpassword=<redacted>&application_name=gh"
    )
  })

  it("shows nothing of a URL whose password ends the host early (an unencoded / ? or #)", () => {
    for (const url of [
      "postgres://gh:12345/Abc@db/edge",
      "postgres://gh:12345?Abc@db/edge",
      "postgres://gh:1#x@db/e"
    ]) {
      assert.strictEqual(described(url), "PostgreSQL (a URL with an '@' after its host: percent-encode the password)")
    }
  })

  it("says nothing of a URL it cannot parse (it could be all secret)", () => {
    assert.strictEqual(described("s3cret not a url"), "PostgreSQL (an unparseable URL)")
  })
})
