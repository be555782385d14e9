import { paramsWith } from '../../api/policy.js'
import { isDatabaseUnavailable } from '../../db/connection-errors.js'
import { formatLsn, parseLsn, type ReadChoice, type ReadRouter } from '../../db/replicas.js'
import { header, need, type HttpExchange, type Step } from './step.js'

/**
 * With read replicas: the primary's WAL position an answer reflects (a write's commit, or at most
 * what a read saw), and the header a caller sends it back in so that it never reads older data
 * (docs/production.md "Read replicas").
 */
export const READ_AFTER_HEADER = 'Cal-Read-After'

/** A `Cal-Read-After` that is not a position: read on the primary, which is never behind. */
const UNREADABLE_POSITION = (1n << 64n) - 1n

/**
 * Read replicas (`db/replicas.ts`). An anonymous GET/HEAD (not a sync walk, see `onPrimary`) is read on a replica
 * that has replayed the caller's `Cal-Read-After`, else on the primary; writes and signed-in callers
 * stay on the primary. A read whose replica went away mid-read runs again on the primary (no 5xx).
 * Every answer below 400 gets the position it reflects: a write's, the primary's after its commit;
 * a read's, its node's position asked after it (never less than what the read saw).
 */
export function replicaStep(reads: ReadRouter): Step<HttpExchange> {
  return {
    name: 'replica',
    async run(x, next) {
      const reading = x.method === 'GET' || x.method === 'HEAD'
      if (reading && !x.principal && !onPrimary(x)) {
        const asked = header(x.request, READ_AFTER_HEADER)
        x.readFrom = reads.choose(asked === undefined ? undefined : (parseLsn(asked) ?? UNREADABLE_POSITION))
      }
      try {
        await next()
      } catch (err) {
        if (x.readFrom?.replica === undefined || !isDatabaseUnavailable(err)) throw err
        reads.failed(x.readFrom)
        x.readFrom = { db: x.db, replica: undefined, readPosition: undefined }
        await next()
      }
      const response = x.response
      if (!response || response.status >= 400) return
      const position = x.readFrom ? await positionAfterRead(reads, x.readFrom) : reading ? undefined : await reads.primaryPosition().catch(() => undefined)
      if (position !== undefined) response.headers[READ_AFTER_HEADER] = formatLsn(position)
    },
  }
}

/**
 * Anonymous reads that stay on the primary: operations declared so (`replica: 'primary'`: the
 * `/sync` routes, the root descriptor and `/doc`), and a list sent one of a sync walk's own
 * parameters (`ArgPolicy.sync` `walk`: `sync`, `sync_token`, `sync_page`; docs/sync.md).
 */
function onPrimary(x: HttpExchange): boolean {
  const operation = need(x.operation, 'the operation')
  if (operation.policy?.replica === 'primary') return true
  const query = need(x.query, 'the query')
  return walkParams(operation.args).some((name) => query[name] !== undefined)
}

const walkParamsOf = new WeakMap<object, readonly string[]>()

/** A sync walk's own parameters among an operation's declared ones, worked out once per operation (as `cacheRules`). */
function walkParams(args: Parameters<typeof paramsWith>[0]): readonly string[] {
  let names = walkParamsOf.get(args)
  if (!names) {
    names = paramsWith(args, 'sync', 'walk')
    walkParamsOf.set(args, names)
  }
  return names
}

/**
 * The most a read on `choice` can have seen, asked after it: the replica's replay position, or the
 * primary's position when the replica cannot say (the primary is never behind a replica).
 */
async function positionAfterRead(reads: ReadRouter, choice: ReadChoice): Promise<bigint | undefined> {
  try {
    const position = await reads.positionAfter(choice)
    if (position !== undefined) return position
  } catch {
    // Asked of the primary below.
  }
  return reads.primaryPosition().catch(() => undefined)
}
