import { escapeHtml, htmlResponse } from "./Html.js"

/** What the login page shows. */
export interface LoginPageOptions {
  readonly password: boolean
  readonly oidc: boolean
  /** A safe path on this server to return to after signing in. */
  readonly returnTo: string
  readonly username?: string | undefined
  /** An error to announce (a failed attempt), with the status it is served with. */
  readonly error?: { readonly message: string; readonly status: number } | undefined
  readonly notice?: string | undefined
}

/**
 * The `/login` page: a plain HTML form that posts to `/api/v1/auth/login` (it works without JavaScript), and a
 * link to the OpenID provider when OIDC is configured. Labelled fields, the error announced to screen readers
 * (`role="alert"`), autocomplete hints for password managers.
 */
export const loginPage = (options: LoginPageOptions) => {
  const returnTo = escapeHtml(options.returnTo)
  const error =
    options.error === undefined ? "" : `<p class="error" role="alert">${escapeHtml(options.error.message)}</p>`
  const notice = options.notice === undefined ? "" : `<p class="muted" role="status">${escapeHtml(options.notice)}</p>`
  const form = options.password
    ? `<form method="post" action="/api/v1/auth/login">
  <input type="hidden" name="return_to" value="${returnTo}">
  <label for="username">User name</label>
  <input id="username" name="username" autocomplete="username" required maxlength="256"
    value="${escapeHtml(options.username ?? "")}"${options.username === undefined ? " autofocus" : ""}>
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required maxlength="1024"${options.username === undefined ? "" : " autofocus"}>
  <button type="submit">Sign in</button>
</form>`
    : ""
  const oidc = options.oidc
    ? `<p${options.password ? ' class="or"' : ""}><a class="button" href="/api/v1/auth/login?method=oidc&amp;return_to=${encodeURIComponent(options.returnTo)}">Sign in with your identity provider</a></p>`
    : ""
  const none = !options.password && !options.oidc ? `<p>No sign-in is configured: use an API key.</p>` : ""
  return htmlResponse(
    {
      title: "Sign in",
      body: `<div class="card">
<h1>Sign in</h1>
${notice}${error}${form}
${oidc}${none}
</div>`
    },
    options.error?.status ?? 200
  )
}
