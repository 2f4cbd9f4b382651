import * as Schema from "effect/Schema"
import { ApiKeyCreatedEvent, ApiKeyRevokedEvent, LoginEvent, LoginFailedEvent, LogoutEvent } from "./AccessEvents.js"
import {
  AuthRequestApprovedEvent,
  AuthRequestCreatedEvent,
  AuthRequestExpiredEvent,
  AuthRequestRegisteredEvent,
  AuthRequestRejectedEvent,
  UserCreatedEvent
} from "./AuthRequestEvents.js"
import { CertLoadFailedEvent, CertReloadedEvent, CertRenewedEvent, CertRenewFailedEvent } from "./CertificateEvents.js"
import { ConfigErrorEvent, ConfigReloadEvent } from "./ConfigEvents.js"
import { DockerDieEvent, DockerHealthStatusEvent, DockerStartEvent, DockerStopEvent } from "./DockerEvents.js"
import { HealthDownEvent, HealthUpEvent } from "./HealthEvents.js"
import {
  CacheRecoveredEvent,
  CacheStaleEvent,
  LxcFailedEvent,
  LxcRestartEvent,
  LxcStartEvent,
  LxcStopEvent,
  PermissionsMissingEvent
} from "./HypervisorEvents.js"

/** Every kind of event, in one list: the closed set of `category/action` pairs. */
const kinds = [
  ConfigReloadEvent,
  ConfigErrorEvent,
  HealthUpEvent,
  HealthDownEvent,
  AuthRequestCreatedEvent,
  AuthRequestApprovedEvent,
  AuthRequestRejectedEvent,
  AuthRequestRegisteredEvent,
  AuthRequestExpiredEvent,
  UserCreatedEvent,
  LxcStartEvent,
  LxcStopEvent,
  LxcRestartEvent,
  LxcFailedEvent,
  CacheStaleEvent,
  CacheRecoveredEvent,
  PermissionsMissingEvent,
  DockerStartEvent,
  DockerStopEvent,
  DockerDieEvent,
  DockerHealthStatusEvent,
  LoginEvent,
  LoginFailedEvent,
  LogoutEvent,
  ApiKeyCreatedEvent,
  ApiKeyRevokedEvent,
  CertRenewedEvent,
  CertRenewFailedEvent,
  CertReloadedEvent,
  CertLoadFailedEvent
] as const

type Kind = (typeof kinds)[number]

/** Something that happened, e.g. `config/reload` or `health/down`: one of a closed set of kinds, each with typed `data`. */
export const Event = Schema.Union([
  ConfigReloadEvent.schema,
  ConfigErrorEvent.schema,
  HealthUpEvent.schema,
  HealthDownEvent.schema,
  AuthRequestCreatedEvent.schema,
  AuthRequestApprovedEvent.schema,
  AuthRequestRejectedEvent.schema,
  AuthRequestRegisteredEvent.schema,
  AuthRequestExpiredEvent.schema,
  UserCreatedEvent.schema,
  LxcStartEvent.schema,
  LxcStopEvent.schema,
  LxcRestartEvent.schema,
  LxcFailedEvent.schema,
  CacheStaleEvent.schema,
  CacheRecoveredEvent.schema,
  PermissionsMissingEvent.schema,
  DockerStartEvent.schema,
  DockerStopEvent.schema,
  DockerDieEvent.schema,
  DockerHealthStatusEvent.schema,
  LoginEvent.schema,
  LoginFailedEvent.schema,
  LogoutEvent.schema,
  ApiKeyCreatedEvent.schema,
  ApiKeyRevokedEvent.schema,
  CertRenewedEvent.schema,
  CertRenewFailedEvent.schema,
  CertReloadedEvent.schema,
  CertLoadFailedEvent.schema
]).annotate({ identifier: "Event" })
export type Event = typeof Event.Type

/** What a producer publishes (built with a kind's constructor, e.g. `HealthEvents.down(...)`); the bus adds id and time. */
export type EventInput = ReturnType<Kind["make"]>

/** The categories of events (`config`, `health`, ...). */
export const EventCategories: ReadonlyArray<Event["category"]> = [...new Set(kinds.map((kind) => kind.category))]
