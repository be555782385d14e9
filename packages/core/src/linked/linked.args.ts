import { z } from 'zod'
import { arg, args, coordinateSchema, listSchema, type ArgSpec } from '../api/arg-kinds.js'
import type { ArgsRecord } from '../api/operation.js'
import { ALL_STATUSES, WRITABLE_STATUSES } from '../auth/permissions.js'
import type { VariantConfig } from '../config/variants.js'
import type { LinkedKind } from './kinds.js'

/** `image`: a URL, an image id, or `""` (O-21); checked further by checkImageValue. */
export const imageArg: ArgSpec<string | number> = arg(z.union([z.string().max(2048), z.number()]), {
  type: ['string', 'integer'],
}, { description: 'Featured image ID or URL.' })

const coordinate = (max: number) => arg(coordinateSchema(max), { type: 'number' })

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
    fields.geo_lat = { ...coordinate(90), description: 'Latitude (-90 to 90); needs geo_lng.', with: 'geo_lng' }
    fields.geo_lng = { ...coordinate(180), description: 'Longitude (-180 to 180); needs geo_lat.', with: 'geo_lat' }
  }
  fields.image = imageArg
  return fields
}

/**
 * `search` of the venue/organizer lists. Only `""` fails here (nestr); any other non-string
 * (an array from `search[]=`) must reach the handler, which answers the reference's
 * `archive-bad-search-string` instead of `rest_invalid_param` (CONTRACT 7).
 */
const searchArg: ArgSpec<unknown> = arg(z.unknown().refine((v) => v !== ''), { type: 'string' }, {
  openapi: { type: 'string', minLength: 1 },
})

/** The `status` list filter: known statuses, array or CSV (CONTRACT 6.5). */
const statusListArg: ArgSpec<string[]> = arg(listSchema(z.enum(ALL_STATUSES)), {
  type: 'array',
  items: { type: 'string', enum: ALL_STATUSES },
})

/** Query parameters of `GET /venues` and `GET /organizers` (SPEC, CONTRACT 7). */
export function linkedListArgs(kind: LinkedKind, variant: VariantConfig) {
  return {
    page: args.posint({ default: 1, description: 'Page of the archive to return.' }),
    per_page: args.posint({ default: variant.perPageDefault, description: `${kind.plural} per page (at most 50).` }),
    search: { ...searchArg, description: `${kind.plural} whose name, description or details contain the string.` },
    event: args.int({ description: `Only the ${kind.plural} of this event.` }),
    has_events: args.truthy({ description: `${kind.plural} linked (or, when false, not linked) to a non-draft event.` }),
    only_with_upcoming: args.truthy({ default: false, description: `Only ${kind.plural} linked to an upcoming event.` }),
    status: { ...statusListArg, description: `${kind.type} post statuses.` },
  }
}
