import cliProgress from 'cli-progress'
import { slugify } from '@cal-events/core/internal'
import type { SqlSession } from './db.js'
import {
  CATEGORIES, CITIES, DESC_A, DESC_B, EXCERPTS, ORG_A, ORG_B, STREETS, TAG_A, TAG_B, TIMEZONES, TITLE_ADJ, TITLE_NOUN, VENUE_A,
  VENUE_B,
} from './vocabulary.js'

/**
 * Bulk seeding straight into the schema the calendar's migrations created: INSERT … SELECT from
 * generate_series, in chunks spread over the given sessions, with the secondary indexes dropped
 * during the load and rebuilt afterwards (the same definitions, read back from pg_indexes).
 *
 * Column semantics follow events/event-write.ts: start_local/end_local are wall clocks in the
 * event's zone, start_utc/end_utc the same instants in UTC, date_utc the publication date (in the
 * future for `future`), drafts without a slug, trashed slugs suffixed `__trashed`, slugs unique
 * among publish/future/private. Term counts (normally kept by triggers) are set in one UPDATE.
 */
export interface SeedSize {
  events: number
  venues: number
  organizers: number
  images: number
  tags: number
}

export const DEFAULT_SIZE: Omit<SeedSize, 'events'> = { venues: 2000, organizers: 1000, images: 500, tags: TAG_A.length * TAG_B.length }

/** Where the seeded ids live (events, venues, organizers and images share post_id_seq). */
export interface SeedLayout extends SeedSize {
  categories: number
  /** Ids: venues 1..V, organizers V+1..V+O, images after, events after the images. */
  firstOrganizerId: number
  firstImageId: number
  firstEventId: number
  firstTagId: number
  /** The seed's notion of now (UTC wall clock), the centre of the ten-year date spread. */
  now: string
  /** Share (0-1) of the timed events seeded as series (issue 19): see `seriesStatements`. */
  seriesShare: number
}

export interface SeedTimings {
  base: number
  load: number
  index: number
  finish: number
  total: number
}

const YEARS_BACK = 5
const DAYS_SPREAD = 3652
const CHUNK = 50_000

const lit = (s: string) => `'${s.replace(/'/g, "''")}'`
const arr = (items: readonly string[]) => `array[${items.map(lit).join(',')}]`
/** `items[floor(r * n)]` in SQL, safe against r rounding up to 1. */
const pick = (items: readonly string[], r: string) => `(${arr(items)})[1 + least(${items.length - 1}, floor((${r}) * ${items.length})::int)]`
const intBelow = (n: number, r: string) => `least(${n - 1}, floor((${r}) * ${n})::int)`

function utcWall(d: Date): string {
  return d.toISOString().slice(0, 19).replace('T', ' ')
}

export function layoutFor(events: number, now = new Date(), seriesShare = 0): SeedLayout {
  const s = { ...DEFAULT_SIZE, events }
  const categories = CATEGORIES.length * 5
  return {
    ...s,
    categories,
    firstOrganizerId: s.venues + 1,
    firstImageId: s.venues + s.organizers + 1,
    firstEventId: s.venues + s.organizers + s.images + 1,
    firstTagId: categories + 1,
    now: utcWall(now),
    seriesShare,
  }
}

/**
 * A share of the timed events made series, with their stored occurrences, as the calendar's
 * writes would leave them (recurrence/occurrences.ts; occurrences expanded in SQL on the wall
 * clock): 60 % weekly for one to two years (COUNT 52-104), 25 % monthly for one to two years
 * (COUNT 12-24, only for start days up to the 28th, so every month has the day), 15 % weekly
 * without end, stored up to the horizon. The horizon is set two days past the calendar's own
 * (now + 36 months), so its daily job has nothing to store during a run.
 */
function seriesStatements(l: SeedLayout): string[] {
  if (l.seriesShare <= 0) return []
  const horizon = `(timestamp ${lit(l.now)} + interval '36 months 2 days')::timestamp(0)`
  const perTenThousand = Math.round(l.seriesShare * 10_000)
  return [
    `select setseed(0.19)`,
    `create temp table bench_series as
     select id, case when r < 0.6 or extract(day from start_local) > 28 then 'W' when r < 0.85 then 'M' else 'O' end as kind,
       52 + ${intBelow(53, 'r2')} as weeks, 12 + ${intBelow(13, 'r2')} as months
     from (select id, start_local, random() as r, random() as r2 from events
            where not all_day and (id::bigint * 7919) % 10000 < ${perTenThousand}) s`,
    `update events e set recurrence = array[case s.kind when 'W' then 'RRULE:FREQ=WEEKLY;COUNT=' || s.weeks
                                                    when 'M' then 'RRULE:FREQ=MONTHLY;COUNT=' || s.months
                                                    else 'RRULE:FREQ=WEEKLY' end]
       from bench_series s where s.id = e.id`,
    `insert into event_occurrences (series_id, occurrence_key, start_local, end_local, start_utc, end_utc, status, language, featured,
       hide_from_listings, venue_id, date_utc, author_id)
     select e.id, to_char(o.su, 'YYYYMMDD"T"HH24MISS"Z"'), o.sl, o.el, o.su, ((o.el at time zone e.timezone) at time zone 'UTC')::timestamp(0),
       e.status, e.language, e.featured, e.hide_from_listings, e.venue_id, e.date_utc, e.author_id
     from bench_series s join events e on e.id = s.id
     cross join lateral (
       select x.sl, (x.sl + (e.end_local - e.start_local))::timestamp(0) as el, ((x.sl at time zone e.timezone) at time zone 'UTC')::timestamp(0) as su
       from (select (e.start_local + case when s.kind = 'M' then make_interval(months => k) else make_interval(days => 7 * k) end)::timestamp(0) as sl
               from generate_series(0, case s.kind when 'W' then s.weeks - 1 when 'M' then s.months - 1
                                      else greatest(0, floor(extract(epoch from (${horizon} - e.start_local)) / 604800)::int) end) k) x
     ) o
     where s.kind <> 'O' or o.sl <= ${horizon}
     on conflict do nothing`,
    `update event_occurrence_horizon set until = ${horizon}`,
    `drop table bench_series`,
  ]
}

function baseStatements(l: SeedLayout): string[] {
  const now = `timestamp ${lit(l.now)}`
  const parents = CATEGORIES.map(([name]) => name)
  const categoryRows: string[] = []
  parents.forEach((name, i) => categoryRows.push(`(${i + 1}, 'category', ${lit(name)}, ${lit(slugify(name))}, null)`))
  CATEGORIES.forEach(([, children], p) =>
    children.forEach((name, c) => categoryRows.push(`(${parents.length + 1 + p * children.length + c}, 'category', ${lit(name)}, ${lit(slugify(name))}, ${p + 1})`)),
  )
  const tagRows: string[] = []
  TAG_A.forEach((a, i) => TAG_B.forEach((b, j) => tagRows.push(`(${l.firstTagId + i * TAG_B.length + j}, 'tag', ${lit(`${a} ${b}`)}, ${lit(slugify(`${a} ${b}`))}, null)`)))
  const city = (r: string, col: number) => pick(CITIES.map((c) => c[col]!), r)
  return [
    `insert into users (id, login, display_name, role) values (1, 'editor', 'Events Editor', 'editor')`,
    `select setval('users_id_seq', 1)`,
    `insert into terms (id, taxonomy, name, slug, parent_id) values ${categoryRows.join(', ')}`,
    `insert into terms (id, taxonomy, name, slug, parent_id) values ${tagRows.join(', ')}`,
    `select setval('terms_id_seq', ${l.firstTagId + l.tags - 1})`,
    // Venues: most published, a few drafts and trashed; 70% with coordinates.
    `select setseed(0.11)`,
    `insert into venues (id, author_id, status, title, description, slug, date_utc, modified_utc, address, city, country, state, zip, phone,
       stateprovince, website, geo_lat, geo_lng)
     select n, 1, status, title, case when rd < 0.5 then ${pick(DESC_B, 'rd * 2')} else '' end,
       case when status = 'draft' then '' when status = 'trash' then base || '-' || n || '__trashed' else base || '-' || n end,
       d, d + make_interval(days => ${intBelow(30, 'rd')}), ((n * 7) % 400 + 1)::text || ' ' || ${pick(STREETS, 'rs')},
       ${city('rc', 0)}, ${city('rc', 3)}, ${city('rc', 1)}, ${city('rc', 2)} || lpad((n % 100)::text, 2, '0'),
       '+1 555 ' || lpad((n % 10000)::text, 4, '0'), ${city('rc', 1)}, 'https://venue-' || n || '.example.com',
       case when rg < 0.7 then round((rg / 0.7 * 120 - 55)::numeric, 5)::float8 end,
       case when rg < 0.7 then round((rs * 340 - 170)::numeric, 5)::float8 end
     from (
       select n, status, a || ' ' || b as title, lower(replace(a, ' ', '-')) || '-' || lower(b) as base,
         (${now} - make_interval(days => ${intBelow(3650, 'rd')}))::timestamp(0) as d, rd, rs, rc, rg
       from (select n, ${pick(VENUE_A, 'random()')} a, ${pick(VENUE_B, 'random()')} b, random() rd, random() rs, random() rc, random() rg,
         case when random() < 0.97 then 'publish' when random() < 0.6 then 'draft' else 'trash' end as status
         from generate_series(1, ${l.venues}) n) s
     ) t`,
    `insert into organizers (id, author_id, status, title, slug, date_utc, modified_utc, phone, website, email)
     select n, 1, 'publish', title, base || '-' || n, d, d, '+1 555 ' || lpad((n % 10000)::text, 4, '0'),
       'https://org-' || n || '.example.org', 'info@org-' || n || '.example.org'
     from (
       select ${l.venues} + n as n, a || ' ' || b as title, lower(replace(a, ' ', '-')) || '-' || lower(b) as base,
         (${now} - make_interval(days => ${intBelow(3650, 'random()')}))::timestamp(0) as d
       from (select n, ${pick(ORG_A, 'random()')} a, ${pick(ORG_B, 'random()')} b from generate_series(1, ${l.organizers}) n) s
     ) t`,
    `insert into images (id, url, extension, width, height)
     select ${l.firstImageId - 1} + n, 'https://images.example.com/events/' || n || '.jpg', 'jpg', 1200, 800 from generate_series(1, ${l.images}) n`,
  ]
}

/** Events n in [from, to] (1-based). */
function eventsChunk(l: SeedLayout, from: number, to: number): string {
  const now = `timestamp ${lit(l.now)}`
  const firstDay = `(date ${lit(l.now.slice(0, 10))} - interval '${YEARS_BACK} years')::date`
  const today = new Date(`${l.now.slice(0, 10)}T00:00:00Z`)
  const first = new Date(today)
  first.setUTCFullYear(first.getUTCFullYear() - YEARS_BACK)
  const daysBack = Math.round((today.getTime() - first.getTime()) / 86_400_000)
  const adjSlugs = TITLE_ADJ.map(slugify)
  const nounSlugs = TITLE_NOUN.map(slugify)
  return `select setseed(${((from % 9973) / 9973).toFixed(6)});
  insert into events (id, author_id, status, title, description, excerpt, slug, language, date_utc, date_floating, modified_utc,
    image_id, password, timezone, all_day, start_local, end_local, start_utc, end_utc, cost_values, cost_symbol, cost_position,
    website, show_map, show_map_link, hide_from_listings, sticky, featured, venue_id)
  select id, 1, status, title, description, excerpt,
    case when status in ('publish', 'future', 'private') then slug_base || '-' || n
         when status = 'trash' then slug_base || '-' || n || '__trashed' else '' end,
    '', date_utc, date_floating,
    (case when date_utc > ${now} then ${now} - make_interval(days => ${intBelow(10, 'r_mod')})
          else least(date_utc + make_interval(days => ${intBelow(10, 'r_mod')}), ${now}) end)::timestamp(0),
    image_id, password, timezone, all_day, start_local, end_local, start_utc, end_utc, cost_values, cost_symbol, cost_position,
    website, show_map, show_map_link, hide_from_listings, sticky, featured, venue_id
  from (
    select u.*,
      (case when status = 'future' then ${now} + make_interval(days => 1 + ${intBelow(60, 'r_pub')})
            else least(start_utc - make_interval(days => 1 + ${intBelow(120, 'r_pub')}), ${now} - make_interval(mins => 1 + ${intBelow(100000, 'r_mod')})) end
      )::timestamp(0) as date_utc,
      status in ('draft', 'pending') and r_pub < 0.5 as date_floating
    from (
      select t.*,
        ((start_local at time zone timezone) at time zone 'UTC')::timestamp(0) as start_utc,
        ((end_local at time zone timezone) at time zone 'UTC')::timestamp(0) as end_utc
      from (
        select n, ${l.firstEventId - 1} + n as id, status, r_pub, r_mod,
          (${arr(TITLE_ADJ)})[a + 1] || ' ' || (${arr(TITLE_NOUN)})[b + 1] as title,
          (${arr(adjSlugs)})[a + 1] || '-' || (${arr(nounSlugs)})[b + 1] as slug_base,
          ${pick(DESC_A, 'r_d1')} || ' ' || ${pick(DESC_B, 'r_d2')} || case when r_d1 < 0.5 then ' ' || ${pick(DESC_A, 'r_d2')} else '' end as description,
          case when r_exc < 0.5 then '' else ${pick(EXCERPTS, '(r_exc - 0.5) * 2')} end as excerpt,
          case when r_tz < 0.85 then 'UTC' else ${pick(TIMEZONES, '(r_tz - 0.85) / 0.15')} end as timezone,
          r_kind < 0.04 as all_day,
          (case when r_kind < 0.04 then day0::timestamp
                else day0 + make_interval(hours => 8 + ${intBelow(13, 'r_hour')}, mins => 15 * ${intBelow(4, 'r_min')}) end)::timestamp(0) as start_local,
          (case when r_kind < 0.04 then (day0 + ${intBelow(3, 'r_len')})::timestamp + interval '23:59:59'
                when r_kind < 0.07 then day0 + make_interval(days => 1 + ${intBelow(4, 'r_len')}, hours => 8 + ${intBelow(13, 'r_hour')})
                else day0 + make_interval(hours => 8 + ${intBelow(13, 'r_hour')}, mins => 15 * ${intBelow(4, 'r_min')} + 60 + 30 * ${intBelow(7, 'r_len')}) end
          )::timestamp(0) as end_local,
          case when r_cost < 0.4 then '{}'::text[] when r_cost < 0.6 then array['0']
               when r_cost < 0.9 then array[${pick(['5', '10', '12', '15', '20', '25', '30', '45'], '(r_cost - 0.6) / 0.3')}]
               else array[${pick(['5', '10', '15'], '(r_cost - 0.9) * 10')}, ${pick(['20', '35', '50', '80'], 'r_len')}] end as cost_values,
          case when r_cost < 0.6 then '' else '$' end as cost_symbol,
          case when r_cost < 0.6 then '' else 'prefix' end as cost_position,
          case when r_web < 0.3 then 'https://tickets.example.com/e/' || n end as website,
          case when r_venue < 0.9 then 1 + ${intBelow(l.venues, 'power(r_venue / 0.9, 1.5)')} end as venue_id,
          r_venue < 0.72 as show_map, r_venue < 0.72 as show_map_link,
          case when r_img < 0.2 then ${l.firstImageId} + ${intBelow(l.images, 'r_img * 5')} end as image_id,
          case when status = 'publish' and r_flag < 0.02 then 'secret' end as password,
          r_flag >= 0.02 and r_flag < 0.03 as hide_from_listings,
          r_flag2 < 0.005 as sticky,
          r_flag2 >= 0.005 and r_flag2 < 0.055 as featured
        from (
          select n, ${intBelow(TITLE_ADJ.length, 'random()')} as a, ${intBelow(TITLE_NOUN.length, 'random()')} as b,
            (${firstDay} + ${intBelow(DAYS_SPREAD, 'r_day')}) as day0,
            -- Scheduled posts (\`future\`) only among events still ahead.
            case when r < 0.92 then 'publish' when r < 0.93 then (case when ${intBelow(DAYS_SPREAD, 'r_day')} > ${daysBack} then 'future' else 'publish' end)
                 when r < 0.955 then 'draft'
                 when r < 0.965 then 'pending' when r < 0.975 then 'private' else 'trash' end as status,
            r_pub, r_mod, r_d1, r_d2, r_exc, r_tz, r_kind, r_hour, r_min, r_len, r_cost, r_web, r_venue, r_img, r_flag, r_flag2
          from (
            select n, random() r, random() r_day, random() r_pub, random() r_mod, random() r_d1, random() r_d2, random() r_exc, random() r_tz,
              random() r_kind, random() r_hour, random() r_min, random() r_len, random() r_cost, random() r_web, random() r_venue,
              random() r_img, random() r_flag, random() r_flag2
            from generate_series(${from}, ${to}) n
          ) r0
        ) r1
      ) t
    ) u
  ) v`
}

/** Terms (1-2 categories, 0-4 tags, popularity skewed) and organizers (0-3) of events n in [from, to]. */
function linksChunk(l: SeedLayout, from: number, to: number): string {
  const id = `${l.firstEventId - 1} + n`
  const cats = l.categories
  const tags = l.tags
  const orgs = l.organizers
  return `select setseed(${(((from + 7) % 9967) / 9967).toFixed(6)});
  insert into event_terms (event_id, term_id)
  select id, 1 + (c1 + k * cs) % ${cats} from (
    select ${id} as id, ${intBelow(cats, 'power(random(), 1.6)')} as c1, 1 + ${intBelow(cats - 1, 'random()')} as cs,
      case when random() < 0.3 then 2 else 1 end as nc
    from generate_series(${from}, ${to}) n) s, generate_series(0, nc - 1) k;
  insert into event_terms (event_id, term_id)
  select id, ${l.firstTagId} + (t1 + k * ts) % ${tags} from (
    select ${id} as id, ${intBelow(tags, 'power(random(), 1.5)')} as t1, 1 + ${intBelow(Math.floor(tags / 4) - 1, 'random()')} as ts, r
    from (select n, random() as r from generate_series(${from}, ${to}) n) g) s,
    generate_series(0, case when r < 0.15 then -1 when r < 0.4 then 0 when r < 0.7 then 1 when r < 0.9 then 2 else 3 end) k;
  insert into event_organizers (event_id, organizer_id, position)
  select id, ${l.firstOrganizerId} + (o1 + k * os) % ${orgs}, k from (
    select ${id} as id, ${intBelow(orgs, 'power(random(), 1.3)')} as o1, 1 + ${intBelow(Math.floor(orgs / 3) - 1, 'random()')} as os, r
    from (select n, random() as r from generate_series(${from}, ${to}) n) g) s,
    generate_series(0, case when r < 0.3 then -1 when r < 0.75 then 0 when r < 0.95 then 1 else 2 end) k`
}

const LOAD_SETTINGS = (mem: string) => `
  set session_replication_role = replica;
  set synchronous_commit = off;
  set maintenance_work_mem = '${mem}';
  set max_parallel_maintenance_workers = 0;
  set work_mem = '64MB'`

interface Job {
  label: string
  weight: number
  sql: string
}

/** Runs jobs over the sessions, each session taking the next job when it is free. */
async function runJobs(sessions: SqlSession[], jobs: Job[], onDone: (job: Job) => void): Promise<void> {
  const queue = [...jobs]
  await Promise.all(
    sessions.map(async (s) => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        await s.exec(job.sql)
        onDone(job)
      }
    }),
  )
}

function progressBar(enabled: boolean) {
  if (!enabled) return undefined
  return new cliProgress.SingleBar(
    { format: '  {phase} [{bar}] {percentage}% | {value}/{total} {unit} | {duration}s', hideCursor: true, clearOnComplete: false },
    cliProgress.Presets.shades_classic,
  )
}

/**
 * Seeds an empty, migrated calendar database. `sessions`: one or more sessions on it (PostgreSQL:
 * two, to load and index in parallel; PGlite: one).
 */
export async function seed(sessions: SqlSession[], layout: SeedLayout, options: { progress?: boolean; maintenanceMem?: string } = {}): Promise<SeedTimings> {
  const t0 = performance.now()
  const mark = () => (performance.now() - t0) / 1000
  const showBar = options.progress ?? process.stdout.isTTY
  const [main] = sessions
  if (!main) throw new Error('seed needs a session')
  for (const s of sessions) await s.exec(LOAD_SETTINGS(options.maintenanceMem ?? '512MB'))

  for (const statement of baseStatements(layout)) await main.exec(statement)
  const tBase = mark()

  // Secondary indexes go during the load and come back built in one pass each (primary keys stay).
  const indexes = await main.query<{ name: string; def: string }>(
    `select indexname as name, indexdef as def from pg_indexes
      where schemaname = current_schema() and tablename in ('events', 'event_terms', 'event_organizers', 'event_occurrences')
        and indexname not in (select conname from pg_constraint)`,
  )
  for (const ix of indexes) await main.exec(`drop index ${ix.name}`)

  const jobs: Job[] = []
  for (let from = 1; from <= layout.events; from += CHUNK) {
    const to = Math.min(layout.events, from + CHUNK - 1)
    jobs.push({ label: 'events', weight: to - from + 1, sql: eventsChunk(layout, from, to) })
    jobs.push({ label: 'links', weight: to - from + 1, sql: linksChunk(layout, from, to) })
  }
  const bar = progressBar(showBar)
  const loadTotal = jobs.reduce((a, j) => a + j.weight, 0)
  bar?.start(loadTotal / 2, 0, { phase: 'load ', unit: 'events' })
  let done = 0
  await runJobs(sessions, jobs, (j) => {
    done += j.weight / 2
    bar?.update(Math.round(done))
  })
  bar?.stop()
  for (const statement of seriesStatements(layout)) await main.exec(statement)
  const tLoad = mark()

  // The trigram index is by far the slowest: start it first, the btrees share the other session.
  const ordered = [...indexes].sort((a, b) => Number(/using gin/i.test(b.def)) - Number(/using gin/i.test(a.def)))
  const ixBar = progressBar(showBar)
  ixBar?.start(ordered.length, 0, { phase: 'index', unit: 'indexes' })
  let built = 0
  await runJobs(
    sessions,
    ordered.map((ix) => ({ label: ix.name, weight: 1, sql: ix.def })),
    () => ixBar?.update(++built),
  )
  ixBar?.stop()
  const tIndex = mark()

  await main.exec(`
    update terms t set count = c.n
      from (select et.term_id, count(*)::int as n from event_terms et join events e on e.id = et.event_id
             where e.status = 'publish' group by et.term_id) c
     where c.term_id = t.id;
    select setval('post_id_seq', ${layout.firstEventId + layout.events - 1})`)
  // The visibility map for index-only scans, then statistics for the planner. Separate passes: an
  // ANALYZE holds a snapshot that would keep a concurrent VACUUM from marking pages all-visible.
  const tables = ['events', 'event_terms', 'event_organizers', 'event_occurrences', 'venues', 'organizers', 'terms', 'images', 'users']
  for (const verb of ['vacuum', 'analyze']) {
    await runJobs(sessions, tables.map((t) => ({ label: t, weight: 1, sql: `${verb} ${t}` })), () => {})
  }
  for (const s of sessions) await s.exec(`reset session_replication_role; reset synchronous_commit`)
  const tFinish = mark()
  return { base: tBase, load: tLoad - tBase, index: tIndex - tLoad, finish: tFinish - tIndex, total: tFinish }
}
