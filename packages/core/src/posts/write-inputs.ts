import type { Kysely, Transaction } from 'kysely'
import type { DB } from '../db/generated.js'
import { invalidParam } from '../errors.js'
import { isRowId } from '../shared/row-id.js'
import { parseTimeInput } from '../time/time-input.js'
import { storableWall, utcToWall, wallToUtc, type WallTime } from '../time/wall-time.js'

type Db = Kysely<DB> | Transaction<DB>

/** Places a write-side time value: wall clocks are read in `zone`, instants kept (O-17). Result in UTC. */
export function timeToUtc(raw: unknown, zone: string, now: Date, name: string): WallTime {
  const parsed = parseTimeInput(raw, { now, zone })
  if (!parsed) throw invalidParam(name)
  const utc = storableWall(() => (parsed.kind === 'instant' ? parsed.utc : wallToUtc(parsed.wall, zone)))
  if (utc === null) throw invalidParam(name)
  return utc
}

/** Places a write-side time value as a wall clock in `zone`. */
export function timeToWall(raw: unknown, zone: string, now: Date, name: string): WallTime {
  const parsed = parseTimeInput(raw, { now, zone })
  if (!parsed) throw invalidParam(name)
  const wall = storableWall(() => (parsed.kind === 'instant' ? utcToWall(parsed.utc, zone) : parsed.wall))
  if (wall === null) throw invalidParam(name)
  return wall
}

const IMAGE_EXTENSIONS = /\.(?:jpe?g|png|gif|webp|avif|svg|bmp|tiff?|ico|heic)$/i

/** Validates an `image` value (O-21): `""` clears, a URL registers, an id must exist. */
export function checkImageValue(value: unknown, name = 'image'): { clear: true } | { url: string; extension: string } | { id: number } {
  if (value === '' || value === null || value === false || value === 0) return { clear: true }
  if (typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value))) {
    const id = Number(value)
    if (!isRowId(id)) throw invalidParam(name)
    return { id }
  }
  if (typeof value === 'string') {
    let url: URL
    try {
      url = new URL(value)
    } catch {
      throw invalidParam(name)
    }
    if ((url.protocol === 'http:' || url.protocol === 'https:') && IMAGE_EXTENSIONS.test(url.pathname)) {
      return { url: url.href, extension: url.pathname.split('.').pop()!.toLowerCase() }
    }
  }
  if (value && typeof value === 'object' && 'id' in value) return checkImageValue(value.id, name)
  throw invalidParam(name)
}

/** Turns a checked image value into an image id (registering URLs); `null` clears. */
export async function resolveImage(db: Db, value: ReturnType<typeof checkImageValue>, name = 'image'): Promise<number | null> {
  if ('clear' in value) return null
  if ('id' in value) {
    const row = await db.selectFrom('images').select('id').where('id', '=', value.id).executeTakeFirst()
    if (!row) throw invalidParam(name)
    return row.id
  }
  const row = await db
    .insertInto('images')
    .values({ url: value.url, extension: value.extension })
    .onConflict((oc) => oc.column('url').doUpdateSet({ extension: value.extension }))
    .returning('id')
    .executeTakeFirstOrThrow()
  return row.id
}
