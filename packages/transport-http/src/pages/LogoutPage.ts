import { escapeHtml, htmlResponse } from "./Html.js"

/** What the sign-out page shows. */
export interface LogoutPageOptions {
  /** The CSRF token of the session in the browser's cookie: the form sends it back. */
  readonly csrfToken: string
  /** Why an earlier attempt was refused, announced above the form; the page is then served with status 403. */
  readonly error?: string | undefined
  /** The OpenID provider's end-session origin, where the form's answer may redirect (see `Login.endSessionOrigin`). */
  readonly endSessionOrigin?: string | undefined
}

/**
 * The sign-out confirmation, for a browser that reached `GET /api/v1/auth/logout` by a plain link or a form
 * without its CSRF token: a form that posts the token to `POST /api/v1/auth/logout` (it works without
 * JavaScript), and a way back. Asking first is what keeps a link on another site from signing the browser out;
 * the page cannot be framed (see `htmlResponse`), so it cannot be clicked through from another site either.
 */
export const logoutPage = (options: LogoutPageOptions) => {
  const error = options.error === undefined ? "" : `<p class="error" role="alert">${escapeHtml(options.error)}</p>\n`
  return htmlResponse(
    {
      title: "Sign out",
      body: `<div class="card">
<h1>Sign out of Gatehouse?</h1>
${error}<p>This ends your session in this browser.</p>
<form method="post" action="/api/v1/auth/logout">
  <input type="hidden" name="csrf_token" value="${escapeHtml(options.csrfToken)}">
  <button type="submit" autofocus>Sign out</button>
</form>
<p class="or"><a href="/">Cancel</a></p>
</div>`,
      formTargets: options.endSessionOrigin === undefined ? [] : [options.endSessionOrigin]
    },
    options.error === undefined ? 200 : 403
  )
}
