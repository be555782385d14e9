import { sql, type Kysely, type Migration } from 'kysely'

// Idempotency keys of creates (issue 15 item 10, docs in README "Idempotency-Key"). One row per
// caller and key; `status` null while the first request is still running. No foreign key to
// users: a host's authenticate hook may name callers that have no user row.
const STATEMENTS = [
  `create table cal_idempotency_keys (
     user_id bigint not null,
     key text not null,
     fingerprint text not null,
     status integer,
     body jsonb,
     location text,
     created_utc timestamptz not null default now(),
     primary key (user_id, key)
   )`,
  `create index cal_idempotency_keys_created on cal_idempotency_keys (created_utc)`,
]

/** `cal_idempotency_keys`: the first answer to each caller's `Idempotency-Key`. */
export const idempotencyKeys: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    await sql.raw('drop table if exists cal_idempotency_keys').execute(db)
  },
}
