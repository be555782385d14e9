import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely'
import type { Principal } from '../auth/principal.js'
import { readableSql } from '../auth/visibility.js'
import type { DB } from '../db/generated.js'

type Db = Kysely<DB> | Transaction<DB>

// A write's existence checks (author, image ids, linked venues/organizers, origin ids) are asked
// of the database together, in one statement, before the permission check (issue 33: a create
// asked them one statement each). Callers register what they need while they check the shape of
// the input, then read the answers in the order their rules are written.

/** What a write (or a batch of writes) needs to know exists. */
export class WriteLookups {
  readonly users = new Set<number>()
  readonly images = new Set<number>()
  /** Venue/organizer ids the caller must be able to read (and not in the trash). */
  readonly linked = { venues: new Set<number>(), organizers: new Set<number>() }
  /** `origin_uid`s per language. */
  readonly origins = new Map<string, Set<string>>()

  /** Registers an origin id to look up in `language`. */
  origin(language: string, uid: string): void {
    let set = this.origins.get(language)
    if (!set) this.origins.set(language, (set = new Set()))
    set.add(uid)
  }

  /** Whether anything was registered. */
  get empty(): boolean {
    return this.users.size + this.images.size + this.linked.venues.size + this.linked.organizers.size + this.origins.size === 0
  }
}

/** The answers to a `WriteLookups`. */
export interface LookupAnswers {
  users: Set<number>
  images: Set<number>
  linked: { venues: Set<number>; organizers: Set<number> }
  /** The event holding an origin id: key `originKey(language, uid)`. */
  origins: Map<string, number>
}

/** Key of `LookupAnswers.origins`. */
export function originKey(language: string, uid: string): string {
  return `${language}\u0000${uid}`
}

const ints = (set: Set<number>) => sql`${[...set]}::int[]`

/** Answers every registered lookup in one statement (none when nothing was registered). */
export async function answerLookups(db: Db, needs: WriteLookups, principal: Principal | null): Promise<LookupAnswers> {
  const answers: LookupAnswers = { users: new Set(), images: new Set(), linked: { venues: new Set(), organizers: new Set() }, origins: new Map() }
  const parts: RawBuilder<unknown>[] = []
  if (needs.users.size > 0) parts.push(sql`select 'user' as kind, id, null::text as uid, null::text as language from users where id = any(${ints(needs.users)})`)
  if (needs.images.size > 0) parts.push(sql`select 'image' as kind, id, null::text as uid, null::text as language from images where id = any(${ints(needs.images)})`)
  for (const table of ['venues', 'organizers'] as const) {
    if (needs.linked[table].size === 0) continue
    parts.push(sql`select ${table}::text as kind, id, null::text as uid, null::text as language from ${sql.table(table)}
      where id = any(${ints(needs.linked[table])}) and status <> 'trash' and ${readableSql(principal, table, { trashHidden: true })}`)
  }
  for (const [language, uids] of needs.origins) {
    // One index probe per origin id: with a long list as `= any(...)`, a generic plan may scan the
    // table, and as a join a merge join reads the origin index from its start (the `limit 1` of
    // the lateral keeps it a probe; an origin id is held by one event of a language at most).
    parts.push(sql`select 'origin' as kind, e.id, u.uid, ${language}::text as language from unnest(${[...uids]}::text[]) u(uid)
      cross join lateral (select id from events where language = ${language} and origin_uid = u.uid limit 1) e`)
  }
  if (parts.length === 0) return answers
  const { rows } = await sql<{ kind: string; id: number; uid: string | null; language: string | null }>`${sql.join(parts, sql` union all `)}`.execute(db)
  for (const row of rows) {
    if (row.kind === 'user') answers.users.add(row.id)
    else if (row.kind === 'image') answers.images.add(row.id)
    else if (row.kind === 'venues' || row.kind === 'organizers') answers.linked[row.kind].add(row.id)
    else answers.origins.set(originKey(row.language!, row.uid!), row.id)
  }
  return answers
}
