/**
 * How many of the newest `keep` events failed sign-ins (`auth/login_failed`) may be: a tenth, at least one. Anybody
 * can make them, without a key, so without a share of their own a flood of wrong passwords or broken OIDC
 * callbacks from many addresses would push every other event (a key created, a config changed) out of the history.
 */
export const failedSignInShare = (keep: number): number => Math.max(1, Math.floor(keep / 10))

/**
 * How many of the newest `keep` events new and expired auth requests (`auth_request/created`, `auth_request/expired`)
 * may be: half, at least one. The SSH gate's key (`auth_requests:create`, which decides nothing) makes them, two per
 * request past the pending cap: without a share, a few hundred requests from a stolen gate key would push every
 * sign-in, key and verdict out of the history. Half still holds the last few hundred requests of a busy gate. The
 * verdicts (`approved`, `rejected`, `registered`) are outside it: only an operator makes them, and they are what an
 * audit of who let whom in reads.
 */
export const authRequestTrafficShare = (keep: number): number => Math.max(1, Math.floor(keep / 2))

/** A kind of event anybody with little or no privilege can make many of, kept to a share of the history. */
export interface EventShare {
  readonly category: string
  readonly actions: ReadonlyArray<string>
  /** How many of the newest `keep` events these may be. */
  readonly share: (keep: number) => number
  /** The `event_marks` column that remembers the newest one dropped beyond the share. */
  readonly mark: "failed_trimmed_through" | "request_trimmed_through"
  /** The same mark in `HistoryExtent`. */
  readonly extent: "failedTrimmedThrough" | "requestTrimmedThrough"
}

/**
 * The shares, each trimmed before the cap. Together they hold at most 60 % of the history, so a flood of both
 * leaves the newest 40 % to everything else.
 */
export const eventShares: ReadonlyArray<EventShare> = [
  {
    category: "auth",
    actions: ["login_failed"],
    share: failedSignInShare,
    mark: "failed_trimmed_through",
    extent: "failedTrimmedThrough"
  },
  {
    category: "auth_request",
    actions: ["created", "expired"],
    share: authRequestTrafficShare,
    mark: "request_trimmed_through",
    extent: "requestTrimmedThrough"
  }
]

/** Whether a read of `category` (`undefined`: every one) includes the events of `share`. */
export const followsShare = (category: string | undefined, share: EventShare): boolean =>
  category === undefined || category === share.category
