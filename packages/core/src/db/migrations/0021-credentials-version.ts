import { sql, type Kysely, type Migration } from 'kysely'

// A version of what a token resolves to (issue 33 item 1, docs/production.md "Tokens").
// Self-contained on purpose: a migration is history and must not change with the runtime modules.
//
// A calendar process keeps the principals of tokens it resolved, and on each request asks this
// version in the change check it already sends (changes/change-log.ts): a kept principal is used
// only while the version is the one read beside its token row. So every change that can refuse a
// token or change its principal raises it, in the changing transaction (it commits or rolls back
// with it, so a reader never sees the new version before the change, as a sequence would allow):
// - api_tokens: a row deleted, or its revocation, expiry, secret, owner or prefix changed (not
//   `last_used_utc`, which authenticating writes), or the table truncated;
// - users: a role or login changed (a Basic credential names the login), a user deleted.
// A new token needs no raise: nothing kept can name it. Raw SQL writes go through the triggers too.
const UP = [
  `create table cal_credentials_version (
     one boolean primary key default true check (one),
     version bigint not null
   )`,
  `insert into cal_credentials_version (version) values (1)`,
  `create function cal_credentials_version() returns bigint language sql stable as $$
     select version from cal_credentials_version
   $$`,
  `create function cal_raise_credentials_version() returns trigger language plpgsql as $$
   begin
     update cal_credentials_version set version = version + 1;
     return null;
   end $$`,
  `create trigger cal_credentials_token_change after update on api_tokens for each row
     when (old.revoked_utc is distinct from new.revoked_utc or old.expires_utc is distinct from new.expires_utc
        or old.secret_hash is distinct from new.secret_hash or old.user_id is distinct from new.user_id
        or old.prefix is distinct from new.prefix)
     execute function cal_raise_credentials_version()`,
  `create trigger cal_credentials_token_delete after delete or truncate on api_tokens
     for each statement execute function cal_raise_credentials_version()`,
  `create trigger cal_credentials_user_change after update on users for each row
     when (old.role is distinct from new.role or old.login is distinct from new.login)
     execute function cal_raise_credentials_version()`,
  `create trigger cal_credentials_user_delete after delete or truncate on users
     for each statement execute function cal_raise_credentials_version()`,
]

const DOWN = [
  `drop trigger if exists cal_credentials_user_delete on users`,
  `drop trigger if exists cal_credentials_user_change on users`,
  `drop trigger if exists cal_credentials_token_delete on api_tokens`,
  `drop trigger if exists cal_credentials_token_change on api_tokens`,
  `drop function if exists cal_raise_credentials_version()`,
  `drop function if exists cal_credentials_version()`,
  `drop table if exists cal_credentials_version`,
]

/** A version raised by every change that can refuse a token or change what it resolves to. */
export const credentialsVersion: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of UP) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    for (const statement of DOWN) await sql.raw(statement).execute(db)
  },
}
