import { sql, type Kysely, type Migration } from 'kysely'

// Private feed keys (issue 20 item 3): calendar apps cannot send an Authorization header, so a
// user's secret key in the feed URL stands for them, on the feed routes only. Stored like API
// tokens: a public prefix to find the row, a SHA-256 of the whole key. Not change-tracked: no
// response shows a key row, and a revoked key is refused before anything is read.
const STATEMENTS = [
  `create table cal_feed_keys (
     id serial primary key,
     user_id integer not null references users(id) on delete cascade,
     name text not null default '',
     prefix text not null unique,
     secret_hash text not null,
     created_utc timestamp(0) not null default (now() at time zone 'utc'),
     last_used_utc timestamp(0),
     revoked_utc timestamp(0)
   )`,
  `create index cal_feed_keys_user on cal_feed_keys (user_id)`,
]

/** `cal_feed_keys`: revocable secret keys that make a feed URL show what one user may see. */
export const feedKeys: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    await sql.raw('drop table if exists cal_feed_keys').execute(db)
  },
}
