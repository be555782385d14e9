import type { Kysely } from 'kysely'
import { invalidFeedKey, looksLikeFeedKey, resolveFeedKey } from '../../auth/feed-keys.js'
import { createGuessLimiter, type GuessLimiter } from '../../auth/guess-limiter.js'
import type { Principal } from '../../auth/principal.js'
import type { TokenCache } from '../../auth/token-cache.js'
import { authenticateBearer } from '../../auth/tokens.js'
import type { GuessLimitName } from '../../api/policy.js'
import type { ResolvedOptions } from '../../config/options.js'
import type { DB } from '../../db/generated.js'
import { invalidParams } from '../../errors.js'
import { parseQueryString } from '../parse-input.js'
import type { CalendarRequest } from '../request.js'
import { header, need, type HttpExchange, type Step } from './step.js'

/**
 * Resolves the caller: the host's hook when configured, else the bearer-token authenticator, its
 * failed logins counted per client by `logins` when given, its tokens kept in `tokens` when given.
 */
export async function resolvePrincipal(
  request: CalendarRequest,
  options: ResolvedOptions,
  db: Kysely<DB>,
  logins?: GuessLimiter,
  tokens?: TokenCache,
): Promise<Principal | null> {
  if (options.authenticate) return (await options.authenticate(request)) ?? null
  const key = request.client
  // Without a client address every caller would share one count, and ten bad tokens from anybody
  // would lock everybody out: such an adapter gets no limit.
  const guard = logins && key ? { check: () => logins.check(key, options.now().getTime()), fail: () => logins.fail(key, options.now().getTime()) } : undefined
  return authenticateBearer(db, header(request, 'authorization'), guard, tokens)
}

/**
 * The user a feed URL's `key` stands for. With an Authorization header as well, which of the two
 * should decide what the feed shows is unclear: that is refused rather than guessed.
 */
async function feedKeyPrincipal(request: CalendarRequest, key: unknown, db: Kysely<DB>): Promise<Principal> {
  if (header(request, 'authorization') !== undefined) {
    throw invalidParams({ key: 'Send either a feed key or an Authorization header, not both.' })
  }
  return resolveFeedKey(db, key)
}

/** The 429 of a client that used up its failed logins. */
const loginMessage = (seconds: number) => `Too many failed logins from this client; try again in ${seconds} seconds.`

/**
 * Who asks. The contract's order is credentials, then parameters; a feed's `key` parameter (a
 * private feed key) stands for its user, so on feeds the query is read first. A feed key is
 * read-only and for feeds: anywhere else it is no credential at all (the unknown token's 401).
 */
export function authenticateStep(options: ResolvedOptions, tokens?: TokenCache): Step<HttpExchange> {
  // Failed Basic/Bearer logins per client (issue 28), like wrong event passwords per event and
  // client: counted against the limit this step declares.
  const guesses = 'loginGuesses' satisfies GuessLimitName
  const logins = createGuessLimiter(options[guesses], loginMessage)
  return {
    name: 'authenticate',
    guesses,
    async run(x, next) {
      if (need(x.endpoint, 'the endpoint').feedKey) {
        x.query = parseQueryString(x.request.query)
        x.principal = x.query.key === undefined ? await resolvePrincipal(x.request, options, x.db, logins, tokens) : await feedKeyPrincipal(x.request, x.query.key, x.db)
      } else {
        x.principal = await resolvePrincipal(x.request, options, x.db, logins, tokens)
        x.query = parseQueryString(x.request.query)
        if (looksLikeFeedKey(x.query.key)) throw invalidFeedKey()
      }
      await next()
    },
  }
}
