import { sql, type Kysely } from 'kysely'
import type { DB } from './generated.js'
import type { DatabaseHandle } from './create-db.js'
import type { ReadStats } from './health.js'

export type { ReadStats } from './health.js'

// Read replicas (issue 32 item 2, docs/production.md "Read replicas"). Positions are WAL positions
// (LSNs) of the primary: a write's answer carries the primary's position after its commit
// (`Cal-Read-After`), and a read that sends it back is served by a replica only when that replica
// has replayed at least that far (`pg_last_wal_replay_lsn()`), else by the primary. A replica's
// replay position is known from probes and from the reads it serves; the known value is never
// ahead of the true one (replay only moves forward), so "known >= asked" is a safe test.

/** A WAL position as a number (`'16/B374D848'` -> 0x16B374D848). */
export function parseLsn(text: string | null | undefined): bigint | undefined {
  if (typeof text !== 'string') return undefined
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim())
  if (!match) return undefined
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`)
}

/** The text form of a WAL position. */
export function formatLsn(lsn: bigint): string {
  return `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`
}

/** How replicas are chosen, with their defaults. */
export interface ReplicaPolicy {
  /** A replica whose replay is further behind the primary than this is skipped (default 10 s). */
  readonly maxLagMs: number
  /** How often each replica's replay position and the primary's position are asked (default 500 ms). */
  readonly probeIntervalMs: number
}

export const DEFAULT_REPLICA_POLICY: ReplicaPolicy = { maxLagMs: 10_000, probeIntervalMs: 500 }

interface Replica {
  readonly url: string
  readonly handle: DatabaseHandle
  /** Replay position known to be reached (a lower bound); undefined until a probe answered. */
  replayed: bigint | undefined
  /** Whether the last probe or read reached it. */
  up: boolean
}

/** Where one anonymous read goes: a replica (with its known position) or the primary. */
export interface ReadChoice {
  readonly db: Kysely<DB>
  /** The replica's URL, undefined for the primary. */
  readonly replica: string | undefined
  /** The replica's replay position known when it was chosen (undefined for the primary: always current). */
  readonly readPosition: bigint | undefined
}

/** The calendar's replicas and the choice between them and the primary. */
export interface ReadRouter {
  /** Where a read that must see at least `after` (a primary position) goes. */
  choose(after: bigint | undefined): ReadChoice
  /** A read on `choice` failed with the replica unreachable: skip it until a probe reaches it again. */
  failed(choice: ReadChoice): void
  /** The primary's position now (after a write's commit: what its caller must read at least). */
  primaryPosition(): Promise<bigint>
  /** The position `choice`'s answer reflects at most: asked on its node after the read. */
  positionAfter(choice: ReadChoice): Promise<bigint | undefined>
  stats(): ReadStats
  close(): Promise<void>
}

const PRIMARY_LSN = sql<{ lsn: string }>`select pg_current_wal_lsn()::text as lsn`
const REPLAY_LSN = sql<{ lsn: string | null }>`select pg_last_wal_replay_lsn()::text as lsn`

/**
 * Routes anonymous reads between `primary` and the `replicas`, probing them every
 * `policy.probeIntervalMs` (a timer that does not keep the process alive). A replica that does not
 * answer, or whose replay is more than `maxLagMs` behind, is skipped until a probe finds it fine.
 */
export function createReadRouter(primary: Kysely<DB>, replicas: readonly { url: string; handle: DatabaseHandle }[], policy: ReplicaPolicy): ReadRouter {
  const nodes: Replica[] = replicas.map((r) => ({ url: r.url, handle: r.handle, replayed: undefined, up: false }))
  /** Recent primary positions with the time they were asked, oldest first (for the lag in time). */
  const history: { at: number; lsn: bigint }[] = []
  let next = 0
  let replicaReads = 0
  let primaryReads = 0
  let fallbacks = 0
  let closed = false

  const lagMs = (node: Replica, now = Date.now()): number | undefined => {
    if (!node.up || node.replayed === undefined) return undefined
    // The oldest primary position it has not reached: it is behind by at least the time since then.
    const behind = history.find((h) => h.lsn > node.replayed!)
    return behind ? now - behind.at : 0
  }

  async function probe(): Promise<void> {
    const now = Date.now()
    try {
      const lsn = parseLsn((await PRIMARY_LSN.execute(primary)).rows[0]?.lsn)
      if (lsn !== undefined && (history.length === 0 || history[history.length - 1]!.lsn !== lsn)) history.push({ at: now, lsn })
    } catch {
      // The primary away: its requests answer 503 on their own; replicas keep what they knew.
    }
    const oldest = now - policy.maxLagMs * 3
    while (history.length > 1 && history[1]!.at < oldest) history.shift()
    await Promise.all(
      nodes.map(async (node) => {
        try {
          const lsn = parseLsn((await REPLAY_LSN.execute(node.handle.db)).rows[0]?.lsn)
          // Not a standby (no replay position): never used, it could be anything.
          if (lsn === undefined) throw new Error('not a standby')
          node.replayed = node.replayed === undefined || lsn > node.replayed ? lsn : node.replayed
          node.up = true
        } catch {
          node.up = false
        }
      }),
    )
  }

  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  const tick = () => {
    if (closed || running) return
    running = probe().finally(() => {
      running = undefined
    })
  }
  if (nodes.length > 0) {
    tick()
    timer = setInterval(tick, policy.probeIntervalMs)
    timer.unref()
  }

  return {
    choose(after) {
      const now = Date.now()
      for (let i = 0; i < nodes.length; i++) {
        const node = nodes[(next + i) % nodes.length]!
        if (!node.up || node.replayed === undefined) continue
        if (after !== undefined && node.replayed < after) continue
        const lag = lagMs(node, now)
        if (lag === undefined || lag > policy.maxLagMs) continue
        next = (next + i + 1) % nodes.length
        replicaReads++
        return { db: node.handle.db, replica: node.url, readPosition: node.replayed }
      }
      primaryReads++
      return { db: primary, replica: undefined, readPosition: undefined }
    },
    failed(choice) {
      const node = nodes.find((n) => n.url === choice.replica)
      if (node) node.up = false
      fallbacks++
    },
    async primaryPosition() {
      const lsn = parseLsn((await PRIMARY_LSN.execute(primary)).rows[0]?.lsn)
      if (lsn === undefined) throw new Error('pg_current_wal_lsn() answered nothing')
      return lsn
    },
    async positionAfter(choice) {
      if (choice.replica === undefined) return parseLsn((await PRIMARY_LSN.execute(primary)).rows[0]?.lsn)
      const lsn = parseLsn((await REPLAY_LSN.execute(choice.db)).rows[0]?.lsn)
      const node = nodes.find((n) => n.url === choice.replica)
      if (node && lsn !== undefined && (node.replayed === undefined || lsn > node.replayed)) node.replayed = lsn
      return lsn
    },
    stats() {
      const now = Date.now()
      return {
        replicaReads,
        primaryReads,
        fallbacks,
        replicas: nodes.map((n) => ({ up: n.up, replayed: n.replayed === undefined ? undefined : formatLsn(n.replayed), lagMs: lagMs(n, now) })),
      }
    },
    async close() {
      closed = true
      clearInterval(timer)
      await running
      await Promise.all(nodes.map((n) => n.handle.close()))
    },
  }
}
