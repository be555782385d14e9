import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomFreePort } from './private-postgres.js'

// Debian's HAProxy round-robin in front of HTTP servers on loopback (the cluster of
// scripts/cluster, the balancer bench): what an operator puts in front of several instances.

const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((path) => existsSync(path)) ?? 'haproxy'

/** A running HAProxy. */
export interface Balancer {
  /** Its base URL, `http://127.0.0.1:PORT`. */
  readonly url: string
  /** Its process (CPU accounting in the benches). */
  readonly pid: number
  /** Stops it and deletes its directory. */
  stop(): Promise<void>
}

/** Polls `url` until it answers 200; fails early when `child` exits. */
export async function waitForOk(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      const res = await fetch(url)
      if (res.ok) return
    } catch {
      // Not listening yet.
    }
    if (child.exitCode !== null) throw new Error(`${url}: the process exited (${child.exitCode})`)
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 200))
  }
}

function haproxyConfig(port: number, backendPorts: readonly number[]): string {
  return [
    'global',
    '  maxconn 4096',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    // A connection refused by a dead instance is tried on another (nothing was sent, so nothing
    // can run twice); a request an instance died in the middle of is not retried.
    '  retries 3',
    '  option redispatch',
    '  retry-on conn-failure',
    'frontend calendar',
    `  bind 127.0.0.1:${port}`,
    '  default_backend instances',
    'backend instances',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    ...backendPorts.map((backend, i) => `  server s${i} 127.0.0.1:${backend} check inter 500ms fall 2 rise 1`),
    '',
  ].join('\n')
}

/**
 * Starts HAProxy on a free loopback port, round-robin over the servers on `backendPorts` (each
 * health-checked with `GET /readyz` every 500 ms), and waits until `/healthz` answers through it.
 */
export async function startBalancer(backendPorts: readonly number[]): Promise<Balancer> {
  const port = await randomFreePort()
  const dir = mkdtempSync(join(tmpdir(), 'cal-haproxy-'))
  const config = join(dir, 'haproxy.cfg')
  writeFileSync(config, haproxyConfig(port, backendPorts))
  const child = spawn(HAPROXY, ['-f', config, '-db'], { stdio: ['ignore', 'ignore', 'ignore'] })
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM')
      await exited
    }
    rmSync(dir, { recursive: true, force: true })
  }
  const url = `http://127.0.0.1:${port}`
  try {
    await waitForOk(`${url}/healthz`, child, 10_000)
  } catch (err) {
    await stop()
    throw err
  }
  return { url, pid: child.pid!, stop }
}
