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
 * passed on), and which events of that second were passed on already. The engine sends again everything from that
 * second on, so events that happened while the stream was down (the daemon restarted, a container started before
 * the stream was back) are not lost, and the second asked for again repeats nothing. The second is the engine's
 * own time, never this machine's: a remote engine's clock may be off, and a `since` in its future would hide new
 * events. Until a first event has come, the stream resumes from when it was first not open (an engine down when
 * the server started, or whose stream broke before any event): `missedSince` gives that moment on this machine's
 * clock, for the caller to ask the engine from on the engine's own clock.
 */
export const makeEventResume = () => {
  let second: number | undefined
  let passed = new Set<string>()
  let missedFrom: number | undefined
  return {
    /** The `since` of the next open of the stream (Unix seconds, the engine's clock), or none yet. */
    since: (): number | undefined => second,
    /**
     * Before a first event: since when the stream was not open (epoch milliseconds, this machine's clock), if it
     * ever was not; then what happened from that moment on is to be asked for.
     */
    missedSince: (): number | undefined => (second === undefined ? missedFrom : undefined),
    /** The stream was not open from `atMillis` on (an open failed, or the stream broke): the earliest is kept. */
    notOpenFrom: (atMillis: number): void => {
      if (second === undefined && (missedFrom === undefined || atMillis < missedFrom)) missedFrom = atMillis
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
