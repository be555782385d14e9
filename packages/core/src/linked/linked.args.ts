import { z } from 'zod'
import { arg, args, type ArgSpec } from '../api/arg-kinds.js'
import type { ArgsRecord } from '../api/operation.js'
import { WRITABLE_STATUSES } from '../auth/permissions.js'
import type { LinkedKind } from './kinds.js'

/** `image`: a URL, an image id, or `""` (O-21); checked further by checkImageValue. */
export const imageArg: ArgSpec<string | number> = arg(z.union([z.string().max(2048), z.number()]), {
  type: ['string', 'integer'],
}, { description: 'Featured image ID or URL.' })

const coordinate = (max: number) =>
  arg(
    z.union([z.number(), z.string().regex(/^\s*-?\d+(?:\.\d+)?\s*$/)]).transform(Number).pipe(z.number().min(-max).max(max)),
    { type: 'number' },
  )

/** Body fields of a venue/organizer create or update (CONTRACT 11.1); also used for inline data. */
export function linkedWriteArgs(kind: LinkedKind, forCreate: boolean): ArgsRecord {
  const fields: ArgsRecord = {
    [kind.nameField]: args.nestr({ required: forCreate, description: `${kind.type} name` }),
    author: args.int(),
    date: args.time(),
    date_utc: args.time(),
    description: args.str0(),
    status: args.enumOf(WRITABLE_STATUSES),
  }
  for (const field of kind.textFields) fields[field] = field === 'website' ? args.url0() : args.str0()
  if (kind.type === 'venue') {
    fields.show_map = args.truthy()
    fields.show_map_link = args.truthy()
    // Documented extension: coordinates for the event list's geoloc filters.
    fields.geo_lat = coordinate(90)
    fields.geo_lng = coordinate(180)
  }
  fields.image = imageArg
  return fields
}
