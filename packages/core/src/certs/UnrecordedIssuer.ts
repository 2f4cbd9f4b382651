/** The directory taken as the issuer of a certificate whose state does not record one, and what to log about it. */
export interface UnrecordedIssuer {
  readonly directory: string
  /** Set when the choice is not plain: why this directory (a guess, or another than configured). */
  readonly note: string | undefined
  /** The evidence did not decide: the configured directory was taken for want of a better one. */
  readonly guessed: boolean
}

/**
 * Who issued a certificate stored before the issuing directory was recorded (state.json without `directory`), from
 * the directories the data dir held accounts for before this start: every version made the account of a directory
 * on its first start with it, before ordering anything, so the certificate came from one of them. One account, for
 * another directory than configured, is that certificate's CA (staging, then production configured on an old build):
 * it is recorded, and the certificate renewed at once. Otherwise it counts as the configured directory's (renewing
 * every certificate after an upgrade would hit the CA's rate limits), said in the log when that is a guess.
 */
export const unrecordedIssuer = (
  name: string,
  configured: string,
  accounts: ReadonlyArray<string>
): UnrecordedIssuer => {
  const prefix = `certificate ${name} has no recorded ACME directory`
  const [only, ...more] = accounts
  if (only !== undefined && more.length === 0) {
    if (only === configured) return { directory: configured, note: undefined, guessed: false }
    return {
      directory: only,
      note: `${prefix}: the data dir's only ACME account is for ${only}, so it was issued there`,
      guessed: false
    }
  }
  const seen = accounts.length === 0 ? "no ACME account in the data dir" : `ACME accounts for ${accounts.join(", ")}`
  return {
    directory: configured,
    note: `${prefix} and ${seen}: it is taken as issued by acme.directory ${configured} (if it came from another, renew it now: gatehouse cert renew --name ${name})`,
    guessed: true
  }
}
