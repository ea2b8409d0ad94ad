import http from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * Two outside endpoints of the service that can hold their answers, so a test can kill the
 * service at the moment the other side has acted but the service has not heard back yet: the
 * crash windows an outbox must survive. While `holding` is on, each answer waits `holdMs` and
 * then `release` (a promise the test sets, e.g. "the killed process has exited") before it goes
 * out; the set `held` says what is waiting right now.
 */
interface Holding {
  holding: boolean
  holdMs: number
  /** Awaited before a held answer is sent (default: nothing). */
  release: Promise<unknown>
  onHold?: () => void
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function readBody(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

async function close(server: http.Server): Promise<void> {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
}

export interface Delivery {
  eventId: string
  type: string
  attempt: number
  body: Buffer
  signature: string
  event: { id: string; type: string; data: Record<string, unknown> }
}

/**
 * A webhook receiver: records each delivery when its body has arrived (the receiver has the
 * event from that moment), then answers 204, after a hold while holding.
 */
export async function startHoldingReceiver(): Promise<
  Holding & { url: string; deliveries: Delivery[]; held: Set<string>; close(): Promise<void> }
> {
  const state = {
    holding: false,
    holdMs: 300,
    release: Promise.resolve() as Promise<unknown>,
    onHold: undefined as (() => void) | undefined,
    deliveries: [] as Delivery[],
    held: new Set<string>(),
  }
  const server = http.createServer((req, res) => {
    req.on('error', () => undefined)
    res.on('error', () => undefined)
    void (async () => {
      const body = await readBody(req)
      const event = JSON.parse(body.toString('utf8')) as Delivery['event']
      state.deliveries.push({
        eventId: String(req.headers['x-event-id']),
        type: String(req.headers['x-event-type']),
        attempt: Number(req.headers['x-delivery-attempt']),
        body,
        signature: String(req.headers['x-signature']),
        event,
      })
      if (state.holding) {
        state.held.add(event.id)
        state.onHold?.()
        await sleep(state.holdMs)
        await state.release
        state.held.delete(event.id)
      }
      if (!res.destroyed) res.writeHead(204).end()
    })().catch(() => res.destroy())
  })
  const base = await listen(server)
  return Object.assign(state, { url: `${base}/hooks/verifier`, close: () => close(server) })
}

/**
 * A JSON-RPC proxy in front of the dev chain. `eth_sendRawTransaction` is passed on at once (the
 * transaction is mined: the dev chain mines on arrival) and only its answer, the hash, is held:
 * the service has sent a transaction whose fate it does not know yet.
 */
export async function startHoldingRpcProxy(
  target: string,
): Promise<Holding & { url: string; sent: string[]; held: Set<string>; close(): Promise<void> }> {
  const state = {
    holding: false,
    holdMs: 400,
    release: Promise.resolve() as Promise<unknown>,
    onHold: undefined as (() => void) | undefined,
    /** Hashes of every transaction that went through, in order. */
    sent: [] as string[],
    held: new Set<string>(),
  }
  const server = http.createServer((req, res) => {
    req.on('error', () => undefined)
    res.on('error', () => undefined)
    void (async () => {
      const body = await readBody(req)
      const forwarded = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
      const answer = await forwarded.text()
      const messages = ([] as Array<{ method?: string }>).concat(JSON.parse(body.toString('utf8')))
      if (messages.some((m) => m.method === 'eth_sendRawTransaction')) {
        const results = ([] as Array<{ result?: unknown }>).concat(JSON.parse(answer))
        const hashes = results.map((r) => r.result).filter((h): h is string => typeof h === 'string')
        state.sent.push(...hashes)
        if (state.holding) {
          for (const h of hashes) state.held.add(h)
          state.onHold?.()
          await sleep(state.holdMs)
          await state.release
          for (const h of hashes) state.held.delete(h)
        }
      }
      if (!res.destroyed) res.writeHead(forwarded.status, { 'content-type': 'application/json' }).end(answer)
    })().catch(() => res.destroy())
  })
  const url = await listen(server)
  return Object.assign(state, { url, close: () => close(server) })
}
