/**
 * Edit distance between two strings (optimal string alignment: insertions, deletions, substitutions and
 * transpositions of adjacent characters each cost 1), so `prot` is one edit away from `port`.
 */
export const editDistance = (a: string, b: string): number => {
  if (a === b) return 0
  if (a.length === 0) return b.length
  if (b.length === 0) return a.length
  // Three rolling rows: the transposition step looks two rows back.
  let before = new Array<number>(b.length + 1).fill(0)
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  let current = new Array<number>(b.length + 1).fill(0)
  for (let i = 1; i <= a.length; i++) {
    current[0] = i
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1)
      current[j] = best
    }
    ;[before, previous, current] = [previous, current, before]
  }
  return previous[b.length]!
}

// Case and `-`/`_` differences are the commonest slips in config keys (`Use-Get` for `use_get`).
const fold = (word: string) => word.toLowerCase().replaceAll("-", "_")

/**
 * The candidate closest to `word`, if one is close enough to be a plausible typo: at most one edit per three
 * characters (at least one; none for words under three characters, where any guess is noise), ignoring case
 * and `-`/`_`. Ties go to the earlier candidate.
 */
export const closestMatch = (word: string, candidates: Iterable<string>): string | undefined => {
  const folded = fold(word)
  let best: string | undefined
  let bestDistance = Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    if (candidate === word) continue
    const foldedCandidate = fold(candidate)
    const longest = Math.max(folded.length, foldedCandidate.length)
    const limit = longest < 3 ? 0 : Math.max(1, Math.floor(longest / 3))
    if (Math.abs(folded.length - foldedCandidate.length) > limit) continue
    const distance = editDistance(folded, foldedCandidate)
    if (distance <= limit && distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

/** A ` (did you mean `x`?)` suffix for an error message, or `""` when no candidate is close. */
export const didYouMean = (word: string, candidates: Iterable<string>): string => {
  const match = closestMatch(word, candidates)
  return match === undefined ? "" : ` (did you mean \`${match}\`?)`
}
