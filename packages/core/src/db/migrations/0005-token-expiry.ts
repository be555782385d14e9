import { sql, type Kysely, type Migration } from 'kysely'

/** `api_tokens.expires_utc`: when a token stops working (null: never), issue 15 item 12. */
export const tokenExpiry: Migration = {
  async up(db: Kysely<unknown>) {
    await sql.raw('alter table api_tokens add column expires_utc timestamp(0)').execute(db)
  },
  async down(db: Kysely<unknown>) {
    await sql.raw('alter table api_tokens drop column if exists expires_utc').execute(db)
  },
}
