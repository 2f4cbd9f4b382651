import { safeReturnPath } from "@gatehouse-edge/core/domain"
import { Login } from "@gatehouse-edge/core/services"
import * as Effect from "effect/Effect"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Layer from "effect/Layer"
import { homePage } from "./HomePage.js"
import { loginPage } from "./LoginPage.js"

/**
 * The server-rendered pages next to the API: `/login` (the sign-in form; public) and `/` (a minimal overview that
 * asks the API, with the browser's session, who is signed in and what the routes are).
 */
export const layerPages = Layer.unwrap(
  // Login is taken here, not per request: requests run without the core's services (see serveWithoutCore).
  Effect.map(Effect.service(Login), (login) =>
    Layer.mergeAll(
      HttpRouter.add(
        "GET",
        "/login",
        Effect.map(Effect.service(HttpServerRequest.HttpServerRequest), (request) => {
          const query = new URL(request.url, "http://page.invalid").searchParams
          return loginPage({
            ...login.methods,
            returnTo: safeReturnPath(query.get("return_to") ?? undefined),
            notice: query.has("signed_out") ? "You are signed out." : undefined
          })
        })
      ),
      HttpRouter.add("GET", "/", Effect.sync(homePage))
    )
  )
)
