import { readdirSync, readFileSync } from 'node:fs'

// CPU time from /proc (Linux): where the machine's cycles went during a measurement, so the
// report can say what limits a figure (server, PostgreSQL, the load generator or something else).

/** Milliseconds of one CPU tick in /proc (USER_HZ is 100 on Linux). */
export const TICK_MS = 10

/** CPU ticks (user + system) of a process or thread so far: `pid`, or a `pid/task/tid` path under /proc. */
export function processTicks(pid: number | string): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[11]) + Number(fields[12]) // utime + stime
  } catch {
    return 0
  }
}

/**
 * CPU ticks of each PostgreSQL process, by pid; with `database`, only the backends connected to
 * it, told by their process title (`postgres: [cluster: ]user database host(port) state`).
 */
export function postgresTicks(database?: string): Map<string, number> {
  const ticks = new Map<string, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue
      if (database !== undefined && !readFileSync(`/proc/${entry}/cmdline`, 'utf8').split(/[\s\0]+/).includes(database)) continue
      ticks.set(entry, processTicks(entry))
    } catch {
      // gone meanwhile
    }
  }
  return ticks
}

/**
 * PostgreSQL ticks between two marks, per process: a backend that exits in between (another
 * server's idle pool connection timing out) must not subtract its whole lifetime from the sum.
 */
function postgresDelta(a: Map<string, number>, b: Map<string, number>): number {
  let sum = 0
  for (const [pid, ticks] of b) sum += ticks - (a.get(pid) ?? 0)
  return sum
}

function machineTicks(): { busy: number; all: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
    const idle = (line[3] ?? 0) + (line[4] ?? 0)
    const all = line.slice(0, 8).reduce((a, b) => a + b, 0)
    return { busy: all - idle, all }
  } catch {
    return { busy: 0, all: 0 }
  }
}

export interface CpuMark {
  server: number
  loadgen: number
  postgres: Map<string, number>
  /** The backends connected to the server's own database (when known). */
  postgresOwn?: Map<string, number>
  machine: { busy: number; all: number }
}

/**
 * CPU ticks so far of the server, the load generator (`loadgenPid`), PostgreSQL (every process, and
 * with `database` the backends of that database apart) and the machine.
 */
export function cpuMark(serverPid: number, loadgenPid: number, database?: string): CpuMark {
  return {
    server: processTicks(serverPid),
    loadgen: processTicks(loadgenPid),
    postgres: postgresTicks(),
    ...(database !== undefined ? { postgresOwn: postgresTicks(database) } : {}),
    machine: machineTicks(),
  }
}

/** CPU milliseconds per request by consumer, and how busy the machine was (1 = every core). */
export interface CpuPerRequest {
  server: number
  postgres: number
  /**
   * PostgreSQL backends of the server's own database only: other databases' work on a shared
   * server (other benches, test suites) is not in it, nor WAL writer and checkpointer.
   */
  postgresOwn?: number
  loadgen: number
  other: number
  busy: number
}

export function cpuPerRequest(a: CpuMark, b: CpuMark, requests: number): CpuPerRequest {
  const per = (ticks: number) => (requests > 0 ? (ticks * TICK_MS) / requests : 0)
  const server = b.server - a.server
  const loadgen = b.loadgen - a.loadgen
  const postgres = postgresDelta(a.postgres, b.postgres)
  const busy = b.machine.busy - a.machine.busy
  const all = b.machine.all - a.machine.all
  return {
    server: per(server),
    postgres: per(postgres),
    ...(a.postgresOwn && b.postgresOwn ? { postgresOwn: per(postgresDelta(a.postgresOwn, b.postgresOwn)) } : {}),
    loadgen: per(loadgen),
    other: per(Math.max(0, busy - server - loadgen - postgres)),
    busy: all > 0 ? busy / all : 0,
  }
}
