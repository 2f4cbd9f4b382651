import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import { InvalidArgument, PayloadTooLarge, RateLimited, toWireError, UnsupportedMediaType } from "../domain/index.js"

/**
 * Turns request decoding failures (bad path, query, headers or body) into the shared error body
 * (`400 invalid_argument` with one issue per problem) instead of HttpApi's empty 400; refuses bodies that are not
 * UTF-8 (400) or declare another charset (415). Every endpoint may answer 429 when a client is over its caps.
 */
export class RequestValidation extends HttpApiMiddleware.Service<RequestValidation>()(
  "@gatehouse-edge/contract/RequestValidation",
  {
    error: [
      toWireError(InvalidArgument),
      toWireError(PayloadTooLarge),
      toWireError(UnsupportedMediaType),
      toWireError(RateLimited)
    ]
  }
) {}
