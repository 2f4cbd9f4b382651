import { apiKeysMigration } from "../auth/ApiKeysMigration.js"
import { oidcLoginsMigration } from "../auth/OidcLoginsMigration.js"
import { sessionAdmissionMigration } from "../auth/SessionAdmissionMigration.js"
import { sessionsMigration } from "../auth/SessionsMigration.js"
import { authRequestsExpiredMigration } from "../authrequests/AuthRequestsExpiredMigration.js"
import { authRequestsMigration } from "../authrequests/AuthRequestsMigration.js"
import { authRequestsPagingMigration } from "../authrequests/AuthRequestsPagingMigration.js"
import { authRequestsPendingMigration } from "../authrequests/AuthRequestsPendingMigration.js"
import { eventCategoryMarksMigration } from "../events/EventCategoryMarksMigration.js"
import { eventMarksMigration } from "../events/EventMarksMigration.js"
import { eventMarksRequestsMigration } from "../events/EventMarksRequestsMigration.js"
import { eventsMigration } from "../events/EventsMigration.js"
import { loginFailedNamesMigration } from "../events/LoginFailedNamesMigration.js"
import { uptimeMigration } from "../uptime/UptimeMigration.js"

/**
 * The store's schema, oldest first: `<id>_<name>` → the migration, owned by the feature whose tables it creates.
 * To add tables, append the next id; never edit, renumber or remove one that has shipped, since databases in the
 * field have recorded it.
 */
export const migrations = {
  "1_events": eventsMigration,
  "2_api_keys": apiKeysMigration,
  "3_auth_requests": authRequestsMigration,
  "4_sessions": sessionsMigration,
  "5_uptime": uptimeMigration,
  "6_oidc_logins_indexes": oidcLoginsMigration,
  "7_auth_requests_paging": authRequestsPagingMigration,
  "8_event_marks": eventMarksMigration,
  "9_auth_requests_pending": authRequestsPendingMigration,
  "10_session_admission": sessionAdmissionMigration,
  "11_login_failed_names": loginFailedNamesMigration,
  "12_event_marks_requests": eventMarksRequestsMigration,
  "13_auth_requests_expired": authRequestsExpiredMigration,
  "14_event_category_marks": eventCategoryMarksMigration
} as const

/** The newest migration id this build knows. */
export const latestMigrationId = Math.max(...Object.keys(migrations).map((key) => Number.parseInt(key, 10)))

/** The table effect/sql's Migrator records applied migrations in. */
export const migrationsTable = "effect_sql_migrations"
