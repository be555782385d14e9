import { sql } from 'kysely'
import { defineOperation } from '../api/operation.js'
import type { VariantConfig } from '../config/variants.js'
import { eventContentVisible, eventVisible } from '../auth/visibility.js'
import { listScope } from '../auth/permissions.js'
import { findEventAccess } from '../posts/visibility.js'
import { invalidParams } from '../errors.js'
import { listHeaders, listUrls, paging, totalPages } from '../shared/pagination.js'
import { termListArgs } from './term.args.js'
import type { Taxonomy } from './taxonomies.js'
import { allTermsExist, findTerm, selectTermPage, termListQuery, type TermListFilters } from './term.repository.js'
import { serializeTerm } from './term.serializer.js'
import { TERM_READS } from './term.operations.js'

/** `GET /categories` or `GET /tags` (CONTRACT 5, 8). */
export function termListOperation(taxonomy: Taxonomy, variant: VariantConfig) {
  return defineOperation({
    policy: { reads: TERM_READS, writes: [] },
    args: termListArgs(taxonomy, variant),
    // A tag list echoes an undeclared `parent` in its links, as the reference does.
    readsRaw: ['parent'],
    async prepare(input, ctx) {
      const db = ctx.db
      const failures: Record<string, string> = {}
      if (input.include && !(await allTermsExist(db, taxonomy, input.include))) failures.include = 'Every ID must be an existing term.'
      if (input.exclude && !(await allTermsExist(db, taxonomy, input.exclude))) failures.exclude = 'Every ID must be an existing term.'
      // O-28: 0 names the top level instead of being refused.
      if (input.parent !== undefined && input.parent !== 0 && !(await findTerm(db, taxonomy, input.parent))) {
        failures.parent = `Not an existing ${taxonomy.doc.noun}.`
      }
      // CONTRACT 8: `event` wins over `post`; only the one used must exist.
      const eventParam = input.event !== undefined ? 'event' : input.post !== undefined ? 'post' : undefined
      const eventId = input.event ?? input.post
      const event = eventParam ? await findEventAccess(db, eventId!) : undefined
      // A hidden event answers as a missing one (no existence oracle, issue 15 item 6).
      if (eventParam && (!event || !eventVisible(ctx.principal, event))) failures[eventParam] = 'Not an existing event.'
      if (Object.keys(failures).length > 0) throw invalidParams(failures)
      const filters: TermListFilters = {
        taxonomy,
        language: variant.multilingual ? ctx.language : undefined,
        search: input.search,
        // As in the reference, `include=` (an empty list) is no filter at all.
        include: input.include?.length ? input.include : undefined,
        exclude: input.exclude?.length ? input.exclude : undefined,
        hideEmpty: input.hide_empty ?? true,
        parent: input.parent === undefined ? undefined : input.parent === 0 ? null : input.parent,
        eventId,
        // A protected event the caller cannot unlock shows no terms (CONTRACT 9.3).
        nothing: event !== undefined && !eventContentVisible(ctx.principal, event),
        scope: listScope(ctx.principal),
        slug: input.slug,
        orderby: input.orderby ?? 'name',
        order: input.order ?? 'asc',
      }
      return { page: input.page, perPage: input.per_page, filters }
    },
    async run({ page, perPage, filters }, ctx) {
      const p = paging(page, perPage, variant.perPageDefault)
      const { total } = await termListQuery(ctx.db, filters).select(sql<number>`count(*)::int`.as('total')).executeTakeFirstOrThrow()
      const pages = totalPages(total, p.perPage)
      // CONTRACT 5.3: past the last page the list is empty, not a 404, so no statement is needed.
      const rows = total > p.offset ? await selectTermPage(ctx.db, filters, p.perPage, p.offset).execute() : []
      const collection = taxonomy.plural
      const urls = listUrls(`${ctx.urls.rest}/${collection}`, ctx.raw.query, p, pages)
      const body: Record<string, unknown> = { rest_url: urls.rest_url, total, total_pages: pages }
      body[collection] = rows.map((row) => serializeTerm(row, ctx.urls))
      if (urls.next_rest_url) body.next_rest_url = urls.next_rest_url
      if (urls.previous_rest_url) body.previous_rest_url = urls.previous_rest_url
      return { body, headers: listHeaders(total, pages) }
    },
  })
}
