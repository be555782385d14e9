import type { CalendarOptions } from '@cal-events/core'
import type { ServerConfig } from './config.js'

// Apart from the server: the `calendars` command and `--calendar` of the tools load no Express.

/**
 * The calendar options a configuration names, shared by one calendar (`serve`) and a calendar set
 * (`CAL_MULTI_CALENDAR=1`, the `calendars` and `--calendar` commands).
 */
export function calendarsOptions(config: ServerConfig, onError?: (err: unknown) => void): Omit<CalendarOptions, 'schema' | 'authenticate'> {
  return {
    variant: config.variant,
    siteTimezone: config.siteTimezone,
    database: config.database,
    migrate: config.migrateOnStart ?? true,
    ...(config.publicBaseUrl ? { publicBaseUrl: config.publicBaseUrl } : {}),
    ...(onError ? { onError } : {}),
    ...(config.corsOrigins ? { cors: { origins: config.corsOrigins } } : {}),
    ...(config.wpCompat ? { wpCompat: true } : {}),
    ...(config.responseCacheMb === undefined ? {} : { responseCache: config.responseCacheMb === 0 ? false : { maxBytes: config.responseCacheMb * 1024 * 1024 } }),
  }
}
