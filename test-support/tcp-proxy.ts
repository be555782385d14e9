import net from 'node:net'

/** A loopback TCP proxy whose link can be cut and restored, to simulate a database outage. */
export interface TcpProxy {
  port: number
  /** Drops every open connection and refuses new ones. */
  cut(): void
  /** Accepts connections again. */
  restore(): void
  close(): Promise<void>
}

/** Starts a proxy from 127.0.0.1:<random> to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>()
  let up = true
  const server = net.createServer((client) => {
    if (!up) {
      client.destroy()
      return
    }
    const upstream = net.connect(target.port, target.host)
    for (const s of [client, upstream]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      s.on('error', () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.pipe(upstream).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    cut() {
      up = false
      for (const s of sockets) s.destroy()
    },
    restore() {
      up = true
    },
    close() {
      up = false
      for (const s of sockets) s.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
