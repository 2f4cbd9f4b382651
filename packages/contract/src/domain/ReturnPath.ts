const BASE = "http://gatehouse.invalid"

/**
 * Where to send a browser after signing in: `returnTo` when it is a path on this server, else `/`. Anything that
 * could leave the origin is refused — absolute URLs, `//host`, `/\host` (browsers read it as `//host`), control
 * characters and encoded tricks that resolve elsewhere — so a crafted link never turns the login into an open
 * redirect.
 */
export const safeReturnPath = (returnTo: string | undefined): string => {
  if (returnTo === undefined || returnTo === "" || returnTo.length > 2048) return "/"
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (!returnTo.startsWith("/") || /[\u0000-\u001f\u007f\\]/.test(returnTo) || returnTo.startsWith("//")) return "/"
  if (!URL.canParse(returnTo, BASE)) return "/"
  const url = new URL(returnTo, BASE)
  if (url.origin !== BASE) return "/"
  const path = `${url.pathname}${url.search}${url.hash}`
  // Dot segments and encoded dots (`/.//host`, `/%2e//host`, `/a/..//host`) pass the raw check above but
  // normalise to `//host`, so the result is checked again: it is what the browser will read.
  return leavesOrigin(path) ? "/" : path
}

/** A path a browser resolves against another host: `//host` or `/\host`. */
const leavesOrigin = (path: string): boolean => path.startsWith("//") || path.startsWith("/\\")
