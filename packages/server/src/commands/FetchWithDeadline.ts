import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import * as Layer from "effect/Layer"

/** Why a call failed when the server accepted it but sent no answer (not even its status) within `timeoutMs`. */
export class NoAnswerWithin extends Data.TaggedError("NoAnswerWithin")<{ readonly timeoutMs: number }> {}

/**
 * `fetch` as the HTTP client, each call failing (a `TransportError` caused by {@link NoAnswerWithin}) when its
 * answer's status and headers have not come within `timeoutMs`; fetch alone would wait 300 s. Only the head is
 * timed: a body on its way (a large file, a long list) is not cut. The typed client's WebSocket streams do not go
 * through it and keep their own limits (the upgrade's, then the silence of a stream).
 */
export const fetchWithDeadline = (timeoutMs: number): Layer.Layer<HttpClient.HttpClient> =>
  Layer.effect(
    HttpClient.HttpClient,
    Effect.map(Effect.service(HttpClient.HttpClient), (client) =>
      HttpClient.transform(client, (answer, request) =>
        Effect.timeoutOrElse(answer, {
          duration: Duration.millis(timeoutMs),
          orElse: () =>
            Effect.fail(
              new HttpClientError.HttpClientError({
                reason: new HttpClientError.TransportError({ request, cause: new NoAnswerWithin({ timeoutMs }) })
              })
            )
        })
      )
    )
  ).pipe(Layer.provide(FetchHttpClient.layer))
