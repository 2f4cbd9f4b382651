import { assert, describe, it } from "@effect/vitest"
import { makeEventResume } from "../../src/docker/EventResume.js"

const event = (time: number, id: string, action = "start", nanos = 0) => ({
  time,
  timeNano: time * 1e9 + nanos,
  id,
  action
})

describe("resuming an engine's event stream", () => {
  it("asks from the second of the last event passed on (the engine's clock), nothing before the first", () => {
    const resume = makeEventResume()
    assert.isUndefined(resume.since())
    assert.isTrue(resume.isNew(event(1_764_130_770, "a")))
    assert.strictEqual(resume.since(), 1_764_130_770)
    assert.isTrue(resume.isNew(event(1_764_130_775, "b")))
    assert.strictEqual(resume.since(), 1_764_130_775)
  })

  it("passes on what the engine sends again of that second only once, and what is new", () => {
    const resume = makeEventResume()
    assert.isTrue(resume.isNew(event(1000, "a", "start", 1)))
    assert.isTrue(resume.isNew(event(1000, "a", "die", 2)))
    // The stream broke and was opened again with since=1000: the engine repeats the second, then goes on.
    assert.isFalse(resume.isNew(event(1000, "a", "start", 1)))
    assert.isFalse(resume.isNew(event(1000, "a", "die", 2)))
    assert.isTrue(resume.isNew(event(1000, "b", "start", 3)), "missed while the stream was down")
    assert.isTrue(resume.isNew(event(1005, "a", "start", 0)))
    assert.isFalse(resume.isNew(event(1003, "c")), "older than what was passed on: a repeat")
    // The same container and action again, later: a new event.
    assert.isTrue(resume.isNew(event(1007, "a", "start", 0)))
  })

  it("passes on an event without times (nothing to resume by)", () => {
    const resume = makeEventResume()
    assert.isTrue(resume.isNew({ id: "a", action: "start" }))
    assert.isTrue(resume.isNew({ id: "a", action: "start" }))
  })

  it("before a first event, resumes from when the stream was first not open (this machine's clock)", () => {
    const resume = makeEventResume()
    assert.isUndefined(resume.missedSince(), "never down: from now on")
    resume.notOpenFrom(5_000)
    resume.notOpenFrom(4_000)
    resume.notOpenFrom(6_000)
    assert.strictEqual(resume.missedSince(), 4_000, "the earliest")
    assert.isUndefined(resume.since())
    // An event came: from its second on, on the engine's clock, from then on.
    assert.isTrue(resume.isNew(event(1000, "a")))
    assert.isUndefined(resume.missedSince())
    resume.notOpenFrom(7_000)
    assert.isUndefined(resume.missedSince())
    assert.strictEqual(resume.since(), 1000)
  })
})
