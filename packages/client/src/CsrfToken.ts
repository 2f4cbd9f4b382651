import { CsrfCookieName } from "@gatehouse-edge/contract/api"

/**
 * In a browser, the CSRF token of the signed-in session: the `gatehouse_csrf` cookie, readable by the page's
 * script by design (it proves the request comes from a page of the server's origin). Undefined elsewhere.
 */
export const csrfTokenFromDocument = (): string | undefined => {
  const cookie = (globalThis as { readonly document?: { readonly cookie?: string } }).document?.cookie
  const entry = cookie
    ?.split(";")
    .map((part) => part.trim())
    .find((part) => part.startsWith(`${CsrfCookieName}=`))
  return entry === undefined ? undefined : decodeURIComponent(entry.slice(CsrfCookieName.length + 1))
}
