import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as HttpApiSchema from "effect/http-api/HttpApiSchema"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import {
  InvalidArgument,
  InvalidCredentials,
  LoginNotConfigured,
  LoginRequest,
  LoginResult,
  LogoutForm,
  LogoutResult,
  OidcLoginFailed,
  OidcProviderFailed,
  OidcUserNotAllowed,
  PermissionDenied,
  RateLimited,
  toWireError
} from "../domain/index.js"

const Text = Schema.String.check(Schema.isMaxLength(2048))
const opt = Schema.optionalKey

/** A redirect (302): the browser goes where `Location` says. */
const Redirect = HttpApiSchema.Empty(302).annotate({ description: "A redirect: see the `Location` header" })

/**
 * Signing in and out (SPEC §9). Public: no credentials needed to reach them. `POST /auth/login` takes JSON or an
 * HTML form (the `/login` page posts one); the session is in the `gatehouse_session` cookie it sets.
 */
export class LoginApi extends HttpApiGroup.make("login").add(
  HttpApiEndpoint.get("start", "/auth/login", {
    query: { return_to: opt(Text), method: opt(Schema.Literals(["oidc", "password"])) },
    success: Redirect,
    error: [toWireError(LoginNotConfigured), toWireError(OidcProviderFailed), toWireError(RateLimited)]
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Start signing in",
      description:
        "302 to the OpenID provider when OIDC is configured (and `method` is not `password`), else to the " +
        "`/login` page. `return_to`: a path on this server to come back to (anything else is ignored). Starting " +
        "an OIDC sign-in takes one attempt from the client address's sign-in allowance (429 when it is used up)."
    })
  ),
  HttpApiEndpoint.post("login", "/auth/login", {
    payload: [LoginRequest, LoginRequest.pipe(HttpApiSchema.asFormUrlEncoded())],
    success: LoginResult,
    error: [
      toWireError(InvalidArgument),
      toWireError(InvalidCredentials),
      toWireError(RateLimited),
      toWireError(LoginNotConfigured),
      toWireError(PermissionDenied)
    ]
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Sign in with a user name and password",
      description:
        "Sets the `gatehouse_session` (HttpOnly) and `gatehouse_csrf` cookies. 401 for a wrong name or password " +
        "(the same for both), 429 with `Retry-After` after too many attempts from one address or for one user, " +
        "403 from another origin. A form post (the `/login` page) is answered with a redirect to `return_to`, " +
        "or the page again with the error."
    })
  ),
  HttpApiEndpoint.get("callback", "/auth/callback", {
    query: {
      code: opt(Text),
      state: opt(Text),
      iss: opt(Text),
      scope: opt(Text),
      session_state: opt(Text),
      error: opt(Text),
      error_description: opt(Text),
      error_uri: opt(Text)
    },
    success: Redirect,
    error: [
      toWireError(OidcLoginFailed),
      toWireError(OidcUserNotAllowed),
      toWireError(OidcProviderFailed),
      toWireError(LoginNotConfigured),
      toWireError(RateLimited)
    ]
  })
    // Providers add parameters of their own to the redirect; they are not this API's to refuse.
    .annotate(HttpApi.QueryParseOptions, { onExcessProperty: "ignore", errors: "all" })
    .annotateMerge(
      OpenApi.annotations({
        summary: "OpenID Connect callback",
        description:
          "Where the provider sends the browser back: checks state (bound to this browser), PKCE, nonce and the " +
          "ID token, applies `allowed_users` / `allowed_groups`, creates the session, 302 to the return path. " +
          "Callbacks count against the client's sign-in allowance with the starts: 429 with `Retry-After` past it."
      })
    ),
  HttpApiEndpoint.get("logout", "/auth/logout", {
    success: Redirect,
    error: toWireError(PermissionDenied)
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Sign out (browser)",
      description:
        "Ends the session, clears the cookies, 302 to the OpenID provider's end-session page for an OIDC " +
        "session where it has one, else to `/login`. With a session cookie it needs the `X-CSRF-Token` header, " +
        "like every request that changes something: a link on another site must not sign you out. Without it, " +
        "a browser (`Accept: text/html`) gets 200 and a page asking to confirm, whose form posts the token to " +
        "`POST /auth/logout`; a script gets 403. Without a session there is nothing to end: 302, and the " +
        "cookies the request carried (if any) are cleared.",
      transform: (operation) => ({
        ...operation,
        responses: {
          ...operation.responses,
          "200": {
            description: "The sign-out confirmation page (a browser with a session cookie, without the header)",
            content: { "text/html": { schema: { type: "string" } } }
          }
        }
      })
    })
  ),
  HttpApiEndpoint.post("logoutJson", "/auth/logout", {
    // Scripts send the token as `X-CSRF-Token` and no body, or a body that is ignored: `Void` reads an empty body,
    // `Unknown` any JSON, the text one what `fetch(url, { method: "POST", body: "" })` sends (`text/plain`). The
    // confirmation page's form sends the token as a field.
    payload: [
      LogoutForm.pipe(HttpApiSchema.asFormUrlEncoded()),
      Schema.Void,
      Schema.Unknown,
      Schema.String.pipe(HttpApiSchema.asText())
    ],
    success: LogoutResult,
    error: toWireError(PermissionDenied)
  }).annotateMerge(
    OpenApi.annotations({
      summary: "Sign out (scripts and forms)",
      description:
        "Ends the session and clears the cookies; `redirect`: the provider's end-session page, if any. With a " +
        "session cookie it needs the session's CSRF token like every other POST (403 without it): as the " +
        "`X-CSRF-Token` header, or as the `csrf_token` field of a form (`application/x-www-form-urlencoded`, " +
        "what the confirmation page of `GET /auth/logout` posts). A form is answered like a browser: 303 to " +
        "where `GET /auth/logout` goes, or the confirmation page again with status 403.",
      transform: (operation) => ({
        ...operation,
        // The body is optional: scripts send none.
        requestBody: { ...operation.requestBody, required: false },
        responses: {
          ...operation.responses,
          "303": { description: "A form was posted: see the `Location` header" },
          "403": {
            ...operation.responses["403"],
            content: {
              ...operation.responses["403"]?.content,
              "text/html": { schema: { type: "string" } }
            }
          }
        }
      })
    })
  )
) {}
