import { assert, describe, it } from "@effect/vitest"
import { declareStream, StreamEndpoints } from "@gatehouse-edge/contract/api"
import { Schema } from "effect"

describe("frames written as their JSON", () => {
  it("is refused for a frame schema with an encoding (a date, say): its wire form is not the value", () => {
    assert.throws(
      () =>
        declareStream({
          group: "docker",
          endpoint: "logs",
          frame: Schema.Struct({ at: Schema.DateTimeUtc }),
          framesAsJson: true,
          summary: "",
          ends: ""
        }),
      /framesAsJson needs a frame schema without encoding/
    )
  })

  it("gives the same text as the schema's encoder for the streams that use it", () => {
    const line = { stream: "stderr" as const, timestamp: "2026-11-24T10:00:00.000000001Z", line: 'héllo "x"' }
    const viaSchema = Schema.encodeSync(Schema.fromJsonString(StreamEndpoints.dockerLogs.frame))(line)
    assert.strictEqual(JSON.stringify(line), viaSchema)
    assert.isTrue(StreamEndpoints.dockerLogs.framesAsJson)
  })
})
