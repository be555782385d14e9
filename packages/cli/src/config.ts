import { availableParallelism } from 'node:os'
import { isAbsolute, resolve } from 'node:path'
import { z } from 'zod'
import type { DatabaseOptions } from '@cal-events/core'
import { LOG_LEVELS } from './logging.js'

/** Everything the server and the commands need, read once from the environment. */
export interface ServerConfig {
  /** TCP port; `0` picks a free one. */
  port: number
  host: string
  variant: 'A' | 'B'
  siteTimezone: string
  publicBaseUrl: string | undefined
  /** PostgreSQL (`DATABASE_URL`), else embedded PGlite in `CAL_DATA_DIR`. */
  database: DatabaseOptions
  /** PostgreSQL schema of the calendar's tables (`CAL_DB_SCHEMA`, default `cal_events`). */
  schema?: string
  /** Registered as an administrator token on start (`CAL_ADMIN_TOKEN`). */
  adminToken: string | undefined
  /** Seed the demo calendar into an empty database. */
  demo: boolean
  /** Request log level (`CAL_LOG_LEVEL`, default `info`; `silent` turns logging off). */
  logLevel: (typeof LOG_LEVELS)[number]
  /** Express `trust proxy` (`CAL_TRUST_PROXY`): whose `X-Forwarded-Proto`/`-Host`/`-For` count. Default off. */
  trustProxy?: boolean | number | string
  /** Serve Prometheus metrics at `GET /metrics` (`CAL_METRICS=1`). */
  metrics?: boolean
  /** Compress responses of 1 KB and more for clients that accept it (`CAL_COMPRESSION`, default on). */
  compression?: boolean
  /** Apply pending migrations on start (`CAL_MIGRATE_ON_START`, default on). */
  migrateOnStart?: boolean
  /** How long a start waits for PostgreSQL to come up (`CAL_DB_WAIT_SECONDS`, default 10). */
  dbWaitMs?: number
  /** Serve `GET /__stats` (SQL statements, requests, RSS) for the benchmark (`CAL_BENCH_STATS=1`). */
  benchStats?: boolean
  /** Origins allowed cross-origin (`CAL_CORS_ORIGINS`, comma-separated; `*` = any origin, reads only); unset = off. */
  corsOrigins?: string[]
  /** Also serve `/wp-json/tribe/events/v1` with the reference's header names (`CAL_WP_COMPAT=1`). */
  wpCompat?: boolean
  /** Serve many calendars, each under `/calendars/{key}` (`CAL_MULTI_CALENDAR=1`; docs/multi-calendar.md). */
  multiCalendar?: boolean
  /** Megabytes for the hot-read cache of anonymous reads (`CAL_RESPONSE_CACHE_MB`, default 32; `0` turns it off). */
  responseCacheMb?: number
}

/** The environment was unusable; the message names every bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

/** Where PGlite keeps the calendar when `CAL_DATA_DIR` is unset: `.data/pglite` under the working directory. */
export function defaultDataDir(cwd: string = process.cwd()): string {
  return resolve(cwd, '.data/pglite')
}

/** What a caller of `loadConfig` may set beside the environment. */
export interface LoadConfigOptions {
  /** The PGlite directory when `CAL_DATA_DIR` is unset. Default `defaultDataDir()`. */
  defaultDataDir?: string
}

// Empty values (`PORT=`) count as unset, as in most .env conventions.
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema.optional())

const flag = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.enum(['1', '0', 'true', 'false', 'yes', 'no', 'on', 'off'], { error: 'expected 1 or 0' }))
  .transform((v) => ['1', 'true', 'yes', 'on'].includes(v))

// A first check for a readable message; the calendar validates the zone fully on start.
function isTimezone(tz: string): boolean {
  if (/^UTC[+-]\d/.test(tz)) return true
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz })
    return true
  } catch {
    return false
  }
}

// An origin is scheme, host and port only (what a browser sends in `Origin`); the calendar checks again.
function isOrigin(value: string): boolean {
  if (value === '*') return true
  try {
    const url = new URL(value)
    return /^https?:$/.test(url.protocol) && value.replace(/\/$/, '') === url.origin
  } catch {
    return false
  }
}

/**
 * PostgreSQL's own sizing rule (about twice the cores plus a couple) for a database on this
 * machine, as in the example set-up: more connections than that only queue inside PostgreSQL.
 * On 2 cores, 6 measured 5-10% more list throughput than 10 and a lower p99 (BENCHMARKS.md).
 */
export function defaultPoolSize(cores = availableParallelism()): number {
  return Math.min(100, cores * 2 + 2)
}

const EnvSchema = z.object({
  PORT: optional(
    z
      .string()
      .trim()
      .regex(/^\d+$/, 'expected an integer from 0 to 65535')
      .transform(Number)
      .pipe(z.number().max(65535, 'expected an integer from 0 to 65535')),
  ),
  HOST: optional(z.string().trim()),
  DATABASE_URL: optional(z.string().trim().regex(/^postgres(ql)?:\/\/\S+$/, 'expected a postgres:// or postgresql:// URL')),
  CAL_DATA_DIR: optional(z.string()),
  CAL_DB_POOL_SIZE: optional(
    z
      .string()
      .trim()
      .regex(/^\d+$/, 'expected an integer from 1 to 100')
      .transform(Number)
      .pipe(z.number().min(1, 'expected an integer from 1 to 100').max(100, 'expected an integer from 1 to 100')),
  ),
  CAL_DATABASE_REPLICA_URLS: optional(
    z
      .string()
      .transform((v) => v.split(',').map((u) => u.trim()).filter((u) => u !== ''))
      .refine((list) => list.length > 0 && list.every((u) => /^postgres(ql)?:\/\/\S+$/.test(u)), 'expected comma-separated postgres:// URLs of streaming replicas'),
  ),
  CAL_DB_POOLER: optional(z.string().trim().toLowerCase().pipe(z.enum(['transaction'], { error: 'expected transaction (PgBouncer pool_mode = transaction), or unset' }))),
  CAL_DB_PREPARED_STATEMENTS: optional(flag),
  CAL_DB_SCHEMA: optional(z.string().trim().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'expected a lower-case identifier such as cal_events')),
  CAL_VARIANT: optional(z.string().trim().toUpperCase().pipe(z.enum(['A', 'B'], { error: 'expected A or B' }))),
  CAL_TIMEZONE: optional(z.string().trim().refine(isTimezone, 'expected an IANA time zone (Europe/Berlin) or UTC±h')),
  CAL_PUBLIC_URL: optional(z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' })),
  CAL_ADMIN_TOKEN: optional(
    z
      .string()
      .trim()
      .min(16, 'expected at least 16 characters')
      .regex(/^\S+$/, 'must not contain spaces'),
  ),
  CAL_DEMO: optional(flag),
  CAL_TRUST_PROXY: optional(
    z
      .string()
      .trim()
      .regex(/^[\w.:/, -]+$/, 'expected true, false, a hop count, loopback, or addresses/CIDRs separated by commas')
      .transform((v): boolean | number | string => (v === 'true' ? true : v === 'false' ? false : /^\d+$/.test(v) ? Number(v) : v)),
  ),
  CAL_METRICS: optional(flag),
  CAL_COMPRESSION: optional(flag),
  CAL_MIGRATE_ON_START: optional(flag),
  CAL_DB_WAIT_SECONDS: optional(
    z
      .string()
      .trim()
      .regex(/^\d+$/, 'expected a whole number of seconds from 0 to 600')
      .transform(Number)
      .pipe(z.number().max(600, 'expected a whole number of seconds from 0 to 600')),
  ),
  CAL_BENCH_STATS: optional(flag),
  CAL_WP_COMPAT: optional(flag),
  CAL_MULTI_CALENDAR: optional(flag),
  CAL_RESPONSE_CACHE_MB: optional(
    z
      .string()
      .trim()
      .regex(/^\d+$/, 'expected a whole number of megabytes from 0 (off) to 4096')
      .transform(Number)
      .pipe(z.number().max(4096, 'expected a whole number of megabytes from 0 (off) to 4096')),
  ),
  CAL_LOG_LEVEL: optional(z.enum(LOG_LEVELS)),
  CAL_CORS_ORIGINS: optional(
    z
      .string()
      .transform((v) => v.split(',').map((o) => o.trim()).filter((o) => o !== ''))
      .refine((list) => list.length > 0 && list.every(isOrigin), 'expected * or comma-separated origins such as https://app.example.org'),
  ),
  // Set by pnpm to the directory `pnpm start` was typed in; relative CAL_DATA_DIR values use it.
  INIT_CWD: optional(z.string()),
})

/** Reads and validates the server's environment variables; throws `ConfigError`. */
export function loadConfig(env: Record<string, string | undefined> = process.env, options: LoadConfigOptions = {}): ServerConfig {
  const parsed = EnvSchema.safeParse(env)
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = String(issue.path[0])
      return `  ${name}=${JSON.stringify(env[name] ?? '')}: ${issue.message}`
    })
    throw new ConfigError(`Invalid environment:\n${lines.join('\n')}`)
  }
  const e = parsed.data
  const dataDir = e.CAL_DATA_DIR
    ? isAbsolute(e.CAL_DATA_DIR)
      ? e.CAL_DATA_DIR
      : resolve(e.INIT_CWD ?? process.cwd(), e.CAL_DATA_DIR)
    : (options.defaultDataDir ?? defaultDataDir())
  const database: DatabaseOptions = e.DATABASE_URL
    ? {
        url: e.DATABASE_URL,
        poolSize: e.CAL_DB_POOL_SIZE ?? defaultPoolSize(),
        startupWaitMs: (e.CAL_DB_WAIT_SECONDS ?? 10) * 1000,
        ...(e.CAL_DB_POOLER ? { pooler: e.CAL_DB_POOLER } : {}),
        ...(e.CAL_DB_PREPARED_STATEMENTS !== undefined ? { preparedStatements: e.CAL_DB_PREPARED_STATEMENTS } : {}),
        ...(e.CAL_DATABASE_REPLICA_URLS ? { replicas: e.CAL_DATABASE_REPLICA_URLS } : {}),
      }
    : { dataDir }
  return {
    port: e.PORT ?? 3000,
    host: e.HOST ?? '127.0.0.1',
    variant: e.CAL_VARIANT ?? 'A',
    siteTimezone: e.CAL_TIMEZONE ?? 'UTC',
    publicBaseUrl: e.CAL_PUBLIC_URL,
    database,
    adminToken: e.CAL_ADMIN_TOKEN,
    demo: e.CAL_DEMO ?? !e.DATABASE_URL,
    logLevel: e.CAL_LOG_LEVEL ?? 'info',
    // Only present when set, so the usual configuration stays as it was.
    ...(e.CAL_DB_SCHEMA ? { schema: e.CAL_DB_SCHEMA } : {}),
    ...(e.CAL_TRUST_PROXY !== undefined && e.CAL_TRUST_PROXY !== false ? { trustProxy: e.CAL_TRUST_PROXY } : {}),
    ...(e.CAL_METRICS ? { metrics: true } : {}),
    ...(e.CAL_COMPRESSION === false ? { compression: false } : {}),
    ...(e.CAL_MIGRATE_ON_START === false ? { migrateOnStart: false } : {}),
    ...(e.CAL_BENCH_STATS ? { benchStats: true } : {}),
    ...(e.CAL_CORS_ORIGINS ? { corsOrigins: e.CAL_CORS_ORIGINS } : {}),
    ...(e.CAL_WP_COMPAT ? { wpCompat: true } : {}),
    ...(e.CAL_MULTI_CALENDAR ? { multiCalendar: true } : {}),
    ...(e.CAL_RESPONSE_CACHE_MB !== undefined ? { responseCacheMb: e.CAL_RESPONSE_CACHE_MB } : {}),
  }
}
