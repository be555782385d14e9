export { createCalendar, migrateCalendar } from './create-calendar.js'
export type { HealthReport, PoolStats } from './db/health.js'
export type { ReadStats } from './db/replicas.js'
export type { OpenApiDocument, OpenApiOperation } from './openapi/document.js'
export type { DescribedArg, DescribedRoute, RootDescriptor } from './openapi/root-descriptor.js'
export { eventLoopDelay } from './shared/loop-delay.js'
export type { EventLoopDelay } from './shared/loop-delay.js'
export type { MigrationReport } from './db/migrate.js'
export type { Calendar, CalendarScripts, CallOptions, CreateOptions, EventResourceApi, PostResourceApi, TermResourceApi } from './create-calendar.js'
export type { ExistingPolicy, ImportItemError, ImportOptions, ImportProgress, ImportSummary, LinkedImportItemError, LinkedImportSummary, LinkedResourceApi } from './create-calendar.js'
export type { EventFeedQuery, EventInput, EventOrganizerInput, EventVenueInput, EventListQuery, FollowingInput, OccurrenceInput, LinkedListQuery, OrganizerInput, TermInput, TermListQuery, VenueInput } from './create-calendar.js'
export type { CalendarOptions, DatabaseOptions, Authenticate, ResolvedOptions } from './config/options.js'
export type { HostClient, HostPool, HostPoolClient, HostQueryConfig } from './db/host-pool.js'
export type { CachedAnswer, CalendarRequest, CalendarResponse } from './http/request.js'
export type { CorsOptions } from './http/cors.js'
export type { RouteDef, Endpoint, HttpMethod } from './http/routes.js'
export { CalendarError } from './errors.js'
export type { CalendarErrorCode } from './errors.js'
export { ROLES } from './auth/principal.js'
export type { Principal, Role } from './auth/principal.js'
export type { TokenInfo, TokenInput } from './auth/tokens.js'
export type { FeedKeyInfo, FeedKeyInput } from './auth/feed-keys.js'
export { NAMESPACE, WP_NAMESPACE } from './api/context.js'
export type {
  EventResource,
  VenueResource,
  OrganizerResource,
  TermResource,
  EventList,
  VenueList,
  OrganizerList,
  CategoryList,
  TagList,
} from './openapi/resource-types.js'
export { createCalendars, CALENDAR_KEY } from './calendars/calendar-set.js'
export type { Calendars, CalendarsOptions, CalendarInfo, CalendarSettings, CreateCalendarOptions } from './calendars/calendar-set.js'
