import type { ArgPolicy } from './arg-kinds.js'

// Policies as data (issue 30 item 1): what the request pipeline's steps do for an operation is
// declared with the operation (`Operation.policy`) and with its parameters (`ArgSpec.policy`); the
// steps and the sync walks read these declarations, never lists of resource parameter names.

/**
 * What an operation's answer reads, or its writes change, named as the change log records changes
 * (`changes/change-log.ts`, one name per tracked table): `events` stands for every kind of event
 * change (filtered, searched or other columns). The hot-read cache keeps an answer across changes
 * of kinds it does not read; so a read left out here is a stale answer, and is tested for.
 */
export type Resource = 'events' | 'event_occurrences' | 'event_terms' | 'event_organizers' | 'venues' | 'organizers' | 'terms' | 'images' | 'users'

/** Every resource (what an operation reads when it cannot say more, and the change log's tables). */
export const RESOURCES: readonly Resource[] = ['events', 'event_occurrences', 'event_terms', 'event_organizers', 'venues', 'organizers', 'terms', 'images', 'users']

/**
 * A limit of wrong guesses, by its name in the calendar's options (`config/options.ts`): an event's
 * password per event and client (`passwordGuesses`), failed logins per client (`loginGuesses`).
 */
export type GuessLimitName = 'passwordGuesses' | 'loginGuesses'

/** An operation's own policies, beside its parameters'. */
export interface OperationPolicy {
  /** The rate limit its wrong guesses count against (an event read's password); the operation counts them with this limit. */
  readonly guesses?: GuessLimitName
  /** What its answer may read, whatever was asked (anonymous or not). */
  readonly reads?: readonly Resource[]
  /** What it may change; `[]` for a read (a read that writes, as a window past the occurrence horizon may, says so). */
  readonly writes?: readonly Resource[]
  /**
   * `never`: the hot-read cache never keeps its answers: they read no data (the root descriptor,
   * `/doc`), are streamed text (feeds) or depend on more than the data (sync walks: how far the
   * change log was pruned). Otherwise an anonymous GET answered 200 with JSON may be kept.
   */
  readonly cache?: 'never'
  /** A create: an `Idempotency-Key` (or the script API's `idempotencyKey`) makes a retry return the first answer. */
  readonly idempotent?: boolean
  /**
   * Read replicas (`db/replicas.ts`): `primary`, its anonymous reads stay on the primary like every
   * write (sync walks on their own path; the root descriptor and `/doc`, which read no data).
   */
  readonly replica?: 'primary'
}

/** Declared parameters, as far as policies go. */
type Declared = Readonly<Record<string, { readonly policy?: ArgPolicy }>>

/** The declared parameters whose policy sets `key` to `value`. */
export function paramsWith<K extends keyof ArgPolicy>(args: Declared, key: K, value: NonNullable<ArgPolicy[K]>): string[] {
  return Object.entries(args).filter(([, spec]) => spec.policy?.[key] === value).map(([name]) => name)
}

/** What the hot-read cache reads of an operation. */
export interface CacheRules {
  /** Never kept (`OperationPolicy.cache`). */
  readonly never: boolean
  /** A request sending any of these is never kept. */
  readonly uncachedWith: readonly string[]
  /** With any of these sent, an answer that read the clock holds within its second, else its minute. */
  readonly secondWith: readonly string[]
  /** What a kept answer depends on: a change of any other resource leaves it kept (`OperationPolicy.reads`; all when undeclared). */
  readonly reads: readonly Resource[]
}

const rulesOf = new WeakMap<object, CacheRules>()

/** The cache rules of an operation, from its declarations (worked out once per operation). */
export function cacheRules(operation: { readonly args: Declared; readonly policy?: OperationPolicy }): CacheRules {
  let rules = rulesOf.get(operation)
  if (!rules) {
    const { args } = operation
    rules = {
      never: operation.policy?.cache === 'never',
      uncachedWith: paramsWith(args, 'cache', 'uncached'),
      secondWith: paramsWith(args, 'cache', 'second'),
      reads: operation.policy?.reads ?? RESOURCES,
    }
    rulesOf.set(operation, rules)
  }
  return rules
}
