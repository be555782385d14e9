import { sql, type Kysely, type Migration } from 'kysely'

// Columns shared by events, venues and organizers (the reference stores all three as posts).
// All timestamps are `timestamp(0)` holding UTC (or event-local) wall clocks, so no session
// time zone can shift them and both drivers return the same text.
const POST_COLUMNS = `
  id integer primary key default nextval('post_id_seq'),
  author_id integer,
  status text not null check (status in ('publish', 'future', 'draft', 'pending', 'private', 'trash')),
  title text not null default '',
  description text not null default '',
  excerpt text not null default '',
  slug text not null default '',
  language text not null default '',
  translation_group integer,
  date_utc timestamp(0) not null,
  date_floating boolean not null default false,
  modified_utc timestamp(0) not null,
  image_id integer references images(id) on delete set null
`

const STATEMENTS = [
  `create extension if not exists pg_trgm`,
  `create table users (
    id serial primary key,
    login text not null unique,
    display_name text not null default '',
    role text not null check (role in ('subscriber', 'contributor', 'author', 'editor', 'administrator')),
    created_utc timestamp(0) not null default (now() at time zone 'utc')
  )`,
  `create table api_tokens (
    id serial primary key,
    user_id integer not null references users(id) on delete cascade,
    name text not null default '',
    prefix text not null unique,
    secret_hash text not null,
    created_utc timestamp(0) not null default (now() at time zone 'utc'),
    last_used_utc timestamp(0),
    revoked_utc timestamp(0)
  )`,
  // Events, venues, organizers and images share one id space, as posts do in the reference,
  // so an id of one type used on another type's route is recognised.
  `create sequence post_id_seq as integer`,
  `create table images (
    id integer primary key default nextval('post_id_seq'),
    url text not null unique,
    extension text not null default '',
    width integer,
    height integer,
    created_utc timestamp(0) not null default (now() at time zone 'utc')
  )`,
  `create table venues (${POST_COLUMNS},
    address text not null default '',
    city text not null default '',
    country text not null default '',
    province text not null default '',
    state text not null default '',
    zip text not null default '',
    phone text not null default '',
    stateprovince text not null default '',
    website text not null default '',
    show_map boolean not null default true,
    show_map_link boolean not null default true,
    geo_lat double precision check (geo_lat between -90 and 90),
    geo_lng double precision check (geo_lng between -180 and 180),
    check ((geo_lat is null) = (geo_lng is null))
  )`,
  `create table organizers (${POST_COLUMNS},
    phone text not null default '',
    website text not null default '',
    email text not null default ''
  )`,
  `create table events (${POST_COLUMNS},
    password text,
    post_parent integer references events(id) on delete set null,
    timezone text not null default 'UTC',
    all_day boolean not null default false,
    start_local timestamp(0) not null,
    end_local timestamp(0) not null,
    start_utc timestamp(0) not null,
    end_utc timestamp(0) not null,
    cost_values text[] not null default '{}',
    cost_symbol text not null default '',
    cost_position text not null default '' check (cost_position in ('', 'prefix', 'postfix')),
    website text,
    show_map boolean not null default false,
    show_map_link boolean not null default false,
    hide_from_listings boolean not null default false,
    sticky boolean not null default false,
    featured boolean not null default false,
    venue_id integer references venues(id) on delete set null
  )`,
  `create table event_organizers (
    event_id integer not null references events(id) on delete cascade,
    organizer_id integer not null references organizers(id) on delete cascade,
    position smallint not null default 0,
    primary key (event_id, organizer_id)
  )`,
  `create table terms (
    id serial primary key,
    taxonomy text not null check (taxonomy in ('category', 'tag')),
    name text not null,
    slug text not null,
    description text not null default '',
    parent_id integer references terms(id) on delete set null,
    language text not null default '',
    count integer not null default 0,
    unique (taxonomy, language, slug)
  )`,
  `create table event_terms (
    event_id integer not null references events(id) on delete cascade,
    term_id integer not null references terms(id) on delete cascade,
    primary key (event_id, term_id)
  )`,

  // Slugs of public items are unique per type and language (CONTRACT 10.3, 15.4); drafts may share.
  ...['events', 'venues', 'organizers'].map(
    (t) => `create unique index ${t}_public_slug on ${t} (language, slug)
      where status in ('publish', 'future', 'private') and slug <> ''`,
  ),
  ...['events', 'venues', 'organizers'].map((t) => `create index ${t}_slug on ${t} (slug)`),
  ...['venues', 'organizers'].map((t) => `create index ${t}_list on ${t} (date_utc desc, id desc)`),

  // Event list: the anonymous default list walks this partial index in order.
  `create index events_listing on events (start_local, date_utc, id)
     where status = 'publish' and not hide_from_listings`,
  `create index events_start on events (start_local, date_utc, id)`,
  `create index events_end on events (end_local)`,
  `create index events_start_utc on events (start_utc)`,
  `create index events_venue on events (venue_id)`,
  `create index events_parent on events (post_parent) where post_parent is not null`,
  `create index events_featured on events (start_local) where featured`,
  `create index events_search on events using gin ((title || ' ' || excerpt || ' ' || description) gin_trgm_ops)`,
  `create index venues_search on venues using gin ((title || ' ' || description || ' ' || excerpt || ' ' || address
     || ' ' || city || ' ' || province || ' ' || state || ' ' || stateprovince || ' ' || zip || ' ' || phone) gin_trgm_ops)`,
  `create index organizers_search on organizers using gin ((title || ' ' || description || ' ' || excerpt || ' ' || phone
     || ' ' || email || ' ' || website) gin_trgm_ops)`,
  `create index venues_name on venues (lower(title))`,
  `create index organizers_name on organizers (lower(title))`,
  `create index event_organizers_organizer on event_organizers (organizer_id, event_id)`,
  `create index event_terms_term on event_terms (term_id, event_id)`,
  `create index terms_parent on terms (parent_id)`,
  `create index terms_name on terms (taxonomy, language, lower(name))`,

  // Term counts (published events carrying the term) are kept by triggers, so every write path,
  // including concurrent ones and raw SQL, leaves them right.
  `create function cal_event_terms_count() returns trigger language plpgsql as $$
   begin
     if tg_op = 'INSERT' then
       update terms set count = count + 1
        where id = new.term_id and exists (select 1 from events where id = new.event_id and status = 'publish');
       return new;
     end if;
     update terms set count = count - 1
      where id = old.term_id and exists (select 1 from events where id = old.event_id and status = 'publish');
     return old;
   end $$`,
  `create trigger event_terms_count after insert or delete on event_terms
     for each row execute function cal_event_terms_count()`,
  `create function cal_event_status_count() returns trigger language plpgsql as $$
   begin
     if (old.status = 'publish') is distinct from (new.status = 'publish') then
       update terms set count = count + (case when new.status = 'publish' then 1 else -1 end)
        where id in (select term_id from event_terms where event_id = new.id);
     end if;
     return new;
   end $$`,
  `create trigger events_status_count after update of status on events
     for each row execute function cal_event_status_count()`,
  // A hard delete cascades to event_terms after the event row is gone; settle counts first.
  `create function cal_event_delete_count() returns trigger language plpgsql as $$
   begin
     if old.status = 'publish' then
       update terms set count = count - 1 where id in (select term_id from event_terms where event_id = old.id);
     end if;
     return old;
   end $$`,
  `create trigger events_delete_count before delete on events
     for each row execute function cal_event_delete_count()`,
]

/** The whole schema: every resource exists from the first migration on. */
export const initialSchema: Migration = {
  async up(db: Kysely<unknown>) {
    for (const statement of STATEMENTS) await sql.raw(statement).execute(db)
  },
  async down(db: Kysely<unknown>) {
    for (const table of ['event_terms', 'terms', 'event_organizers', 'events', 'organizers', 'venues', 'images', 'api_tokens', 'users']) {
      await sql.raw(`drop table if exists ${table} cascade`).execute(db)
    }
    await sql.raw('drop sequence if exists post_id_seq').execute(db)
    for (const fn of ['cal_event_terms_count', 'cal_event_status_count', 'cal_event_delete_count']) {
      await sql.raw(`drop function if exists ${fn}()`).execute(db)
    }
  },
}
