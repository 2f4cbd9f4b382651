import type { ValidationIssue } from "@gatehouse-edge/contract/domain"
import type { Locator } from "../yaml/IssueCollector.js"
import type { ProvidedRoute } from "./RouteProviders.js"

/**
 * Where a provided route is, for the checks across routes: its file (`file:` sources), else its provider and, for a
 * container's route, the container (`docker:local container web`), so that "first defined at …" names the container
 * a conflicting route came from, not only its engine.
 */
export const locatorOfProvided =
  (provided: ProvidedRoute): Locator =>
  () =>
    provided.source.startsWith("file:")
      ? { file: provided.source.slice("file:".length) }
      : {
          provider:
            provided.container === undefined
              ? provided.source
              : `${provided.source} container ${provided.container.name}`
        }

/**
 * An issue found about a provided route, as it is reported: `provider` stays the provider (`docker:local`), and a
 * container's route has the container's name in front of the message, as its label problems do.
 */
export const attributeIssue = (provided: ProvidedRoute, issue: ValidationIssue): ValidationIssue =>
  provided.container === undefined || issue.provider === undefined
    ? issue
    : { ...issue, provider: provided.source, message: `container ${provided.container.name}: ${issue.message}` }
