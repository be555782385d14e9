import { z } from 'zod'
import { arg, listSchema } from '../api/arg-kinds.js'
import { ALL_STATUSES } from '../auth/permissions.js'

/** `status` list filter of the post lists: known statuses, array or CSV (`"publish, draft"`, CONTRACT 6.5). */
export const statusListArg = arg(listSchema(z.enum(ALL_STATUSES)), {
  type: 'array',
  items: { type: 'string', enum: ALL_STATUSES },
})

/** `image` of a post write: a URL, an image id, or `""` (O-21); checked further by checkImageValue. */
export const imageArg = arg(z.union([z.string().max(2048), z.number()]), {
  type: ['string', 'integer'],
}, { description: 'Featured image ID or URL.' })
