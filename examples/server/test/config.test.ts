import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { ConfigError, defaultDataDir, defaultPoolSize, loadConfig } from '@cal-events/cli'

const DEFAULT_DATA_DIR = defaultDataDir()

describe('example server configuration', () => {
  it('defaults to PGlite in .data/pglite of the working directory, demo data on, port 3000 on loopback', () => {
    expect(loadConfig({})).toEqual({
      port: 3000,
      host: '127.0.0.1',
      variant: 'A',
      siteTimezone: 'UTC',
      publicBaseUrl: undefined,
      database: { dataDir: DEFAULT_DATA_DIR },
      adminToken: undefined,
      demo: true,
      logLevel: 'info',
    })
    expect(DEFAULT_DATA_DIR).toBe(resolve(process.cwd(), '.data/pglite'))
    // The example server keeps its own, whatever the working directory.
    const own = fileURLToPath(new URL('../.data/pglite', import.meta.url))
    expect(loadConfig({}, { defaultDataDir: own }).database).toEqual({ dataDir: own })
  })

  it('uses DATABASE_URL with demo data off unless CAL_DEMO says otherwise', () => {
    const url = 'postgres://postgres@127.0.0.1:5432/calendar'
    expect(loadConfig({ DATABASE_URL: url })).toMatchObject({ database: { url, poolSize: defaultPoolSize() }, demo: false })
    expect([defaultPoolSize(1), defaultPoolSize(2), defaultPoolSize(64)]).toEqual([4, 6, 100])
    expect(loadConfig({ DATABASE_URL: url, CAL_DEMO: '1' }).demo).toBe(true)
    expect(loadConfig({ CAL_DEMO: '0' }).demo).toBe(false)
    expect(loadConfig({ DATABASE_URL: url, CAL_DB_POOL_SIZE: '16' }).database).toEqual({ url, poolSize: 16, startupWaitMs: 10_000 })
  })

  it('connects through a transaction pooler with CAL_DB_POOLER=transaction', () => {
    const url = 'postgres://postgres@127.0.0.1:6432/calendar'
    expect(loadConfig({ DATABASE_URL: url, CAL_DB_POOL_SIZE: '4', CAL_DB_POOLER: 'transaction' }).database).toEqual({
      url,
      poolSize: 4,
      startupWaitMs: 10_000,
      pooler: 'transaction',
    })
  })

  it('names prepared statements behind the pooler with CAL_DB_PREPARED_STATEMENTS=1, and refuses a value that is no flag', () => {
    const url = 'postgres://postgres@127.0.0.1:6432/calendar'
    expect(loadConfig({ DATABASE_URL: url, CAL_DB_POOLER: 'transaction', CAL_DB_PREPARED_STATEMENTS: '1' }).database).toMatchObject({
      pooler: 'transaction',
      preparedStatements: true,
    })
    expect(loadConfig({ DATABASE_URL: url, CAL_DB_PREPARED_STATEMENTS: '0' }).database).toMatchObject({ preparedStatements: false })
    expect(() => loadConfig({ DATABASE_URL: url, CAL_DB_PREPARED_STATEMENTS: 'sometimes' })).toThrow(/CAL_DB_PREPARED_STATEMENTS/)
  })

  it('reads from the streaming replicas of CAL_DATABASE_REPLICA_URLS (comma-separated)', () => {
    const url = 'postgres://postgres@127.0.0.1:5432/calendar'
    const replicas = ['postgres://postgres@10.0.0.2:5432/calendar', 'postgres://postgres@10.0.0.3:5432/calendar']
    expect(loadConfig({ DATABASE_URL: url, CAL_DATABASE_REPLICA_URLS: ` ${replicas.join(' , ')} ` }).database).toMatchObject({ url, replicas })
  })

  it('reads every variable and treats empty values as unset', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      CAL_VARIANT: 'b',
      CAL_TIMEZONE: 'Europe/Berlin',
      CAL_PUBLIC_URL: 'https://example.org',
      CAL_ADMIN_TOKEN: 'a-long-enough-admin-token',
      DATABASE_URL: '',
    })
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      variant: 'B',
      siteTimezone: 'Europe/Berlin',
      publicBaseUrl: 'https://example.org',
      adminToken: 'a-long-enough-admin-token',
      database: { dataDir: DEFAULT_DATA_DIR },
    })
  })

  it('resolves a relative CAL_DATA_DIR against the directory pnpm was started in', () => {
    expect(loadConfig({ CAL_DATA_DIR: 'data/db', INIT_CWD: '/srv/app' }).database).toEqual({ dataDir: resolve('/srv/app', 'data/db') })
    expect(loadConfig({ CAL_DATA_DIR: '/abs/db' }).database).toEqual({ dataDir: join('/abs/db') })
  })

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['CAL_VARIANT', 'C'],
    ['CAL_TIMEZONE', 'Mars/Olympus'],
    ['CAL_PUBLIC_URL', 'ftp://example.org'],
    ['CAL_ADMIN_TOKEN', 'short'],
    ['CAL_DEMO', 'maybe'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['CAL_DB_POOL_SIZE', '0'],
    ['CAL_DB_POOL_SIZE', 'many'],
    ['CAL_DB_POOLER', 'session'],
    ['CAL_DATABASE_REPLICA_URLS', 'replica.internal:5432'],
    ['CAL_CORS_ORIGINS', 'app.example.org'],
    ['CAL_CORS_ORIGINS', 'https://app.example.org/path'],
    ['CAL_CORS_ORIGINS', ' , '],
    ['CAL_WP_COMPAT', 'maybe'],
    ['CAL_RESPONSE_CACHE_MB', '-1'],
    ['CAL_RESPONSE_CACHE_MB', 'lots'],
    ['CAL_RESPONSE_CACHE_MB', '5000'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError)
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^Invalid environment:\\n  ${name}=`))
  })

  it('turns CORS on with CAL_CORS_ORIGINS (comma-separated origins, or *)', () => {
    expect(loadConfig({}).corsOrigins).toBeUndefined()
    expect(loadConfig({ CAL_CORS_ORIGINS: '' }).corsOrigins).toBeUndefined()
    expect(loadConfig({ CAL_CORS_ORIGINS: ' https://a.example.org, http://localhost:5173/ ,*' }).corsOrigins).toEqual([
      'https://a.example.org',
      'http://localhost:5173/',
      '*',
    ])
  })

  it('serves the compatibility path with CAL_WP_COMPAT=1', () => {
    expect(loadConfig({}).wpCompat).toBeUndefined()
    expect(loadConfig({ CAL_WP_COMPAT: '1' }).wpCompat).toBe(true)
    expect(loadConfig({ CAL_WP_COMPAT: 'off' }).wpCompat).toBeUndefined()
  })

  it('sizes the hot-read cache with CAL_RESPONSE_CACHE_MB (0 turns it off)', () => {
    expect(loadConfig({}).responseCacheMb).toBeUndefined()
    expect(loadConfig({ CAL_RESPONSE_CACHE_MB: '0' }).responseCacheMb).toBe(0)
    expect(loadConfig({ CAL_RESPONSE_CACHE_MB: ' 64 ' }).responseCacheMb).toBe(64)
  })
})
