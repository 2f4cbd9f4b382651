/** What identifies an engine event for the resume: its times as the engine sent them, its container and action. */
export interface ResumableEvent {
  /** Unix seconds. */
  readonly time?: number | undefined
  /** Unix nanoseconds (a JSON number: exact to a few hundred nanoseconds, the same for every copy of one event). */
  readonly timeNano?: number | undefined
  readonly id: string
  readonly action: string
}

/**
 * Where an engine's event stream resumes after it broke: `since` for each open (the second of the last event
 * passed on, or of the first open), and which events of that second were passed on already. The engine sends
 * again everything from that second on, so events that happened while the stream was down (the daemon restarted,
 * a container started before the stream was back) are not lost, and the second asked for again repeats nothing.
 */
export const makeEventResume = () => {
  let second: number | undefined
  let passed = new Set<string>()
  return {
    /** The `since` of an open of the stream at `nowMs`, in Unix seconds. */
    since: (nowMs: number): number => {
      second ??= Math.floor(nowMs / 1000)
      return second
    },
    /** Whether `event` is new (and then remembered), or a repeat of one passed on before. */
    isNew: (event: ResumableEvent): boolean => {
      const time = event.time
      if (time === undefined) return true
      if (second !== undefined && time < second) return false
      if (second === undefined || time > second) {
        second = time
        passed = new Set()
      }
      const key = `${event.timeNano ?? time}/${event.id}/${event.action}`
      if (passed.has(key)) return false
      passed.add(key)
      return true
    }
  }
}
