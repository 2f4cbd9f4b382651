import * as Effect from "effect/Effect"
import * as HttpClientError from "effect/http/HttpClientError"
import type * as HttpClientResponse from "effect/http/HttpClientResponse"

/**
 * The failure of a WebSocket upgrade answered with `response` instead of 101. A refusal (3xx–5xx) is read as the
 * plain call reads it (`refused` is the endpoint's decoder): the endpoint's typed error, or an `HttpClientError`
 * that keeps the response when the body is not the API's error (an auth proxy's login page, a proxy's own 502). A
 * 2xx is no refusal, whatever its body (a proxy that does not pass upgrades on, an app's index.html): a
 * `StatusCodeError`. Either way the status says whether opening the stream again can help.
 */
export const upgradeRefusal = <E>(
  response: HttpClientResponse.HttpClientResponse,
  refused: (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<unknown, E>
): Effect.Effect<never, E | HttpClientError.HttpClientError> => {
  const notUpgraded = Effect.fail(
    new HttpClientError.HttpClientError({
      reason: new HttpClientError.StatusCodeError({
        request: response.request,
        response,
        description: "expected a WebSocket upgrade (101 Switching Protocols)"
      })
    })
  )
  return response.status < 300 ? notUpgraded : Effect.andThen(refused(response), notUpgraded)
}
