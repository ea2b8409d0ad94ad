import { deserialize } from 'node:v8'
import type { Worker } from 'node:worker_threads'
import { spawnModuleWorker } from '../module-worker.js'
import type { ThreadReply, ThreadRequest, WorkerOptions } from './pglite-thread-messages.js'

interface Pending {
  resolve: (result: { rows: unknown[]; affectedRows?: number }) => void
  reject: (error: Error) => void
}

/**
 * Embedded PGlite on a thread of its own (pglite-worker.ts). A statement crosses the thread
 * boundary as one message each way instead of costing the event loop its whole parse, plan and
 * execution (docs/decisions.md, "Database"). Statements from many callers are
 * pipelined: the thread runs the next as soon as one ends, without waiting for this loop.
 */
export class PGliteThread {
  private readonly worker: Worker
  private readonly pending = new Map<number, Pending>()
  private nextId = 1
  private nextTurn = 1
  private stopped: Error | undefined
  readonly ready: Promise<void>

  constructor(options: WorkerOptions) {
    this.worker = spawnModuleWorker(import.meta.url, 'pglite-worker', {
      workerData: options,
      transferList: options.template ? [options.template] : [],
    })
    this.ready = new Promise<void>((resolve, reject) => this.pending.set(0, { resolve: () => resolve(), reject }))
    this.ready.catch(() => undefined)
    this.worker.on('message', (message: ThreadReply) => this.settle(message))
    this.worker.on('error', (error) =>
      this.stop(new Error(`The embedded database stopped: ${error.message}`, { cause: error })),
    )
    this.worker.on('exit', () => this.stop(new Error('The embedded database is closed')))
  }

  query(sql: string, params: readonly unknown[], turn: number): Promise<{ rows: unknown[]; affectedRows?: number }> {
    return this.call((id) => ({ op: 'query', id, turn, sql, params }))
  }

  /** A number for a transaction's statements: they hold the session until `endTurn`. */
  newTurn(): number {
    return this.nextTurn++
  }

  endTurn(turn: number): void {
    if (!this.stopped) this.post({ op: 'end', turn })
  }

  /** Closes the database after every statement sent before (the thread runs in order). */
  async close(): Promise<void> {
    if (this.stopped) return
    await this.call((id) => ({ op: 'close', id }))
    this.worker.ref() // until it has exited
    await new Promise<void>((resolve) => (this.stopped ? resolve() : this.worker.once('exit', () => resolve())))
  }

  private call(request: (id: number) => ThreadRequest): Promise<{ rows: unknown[]; affectedRows?: number }> {
    if (this.stopped) return Promise.reject(this.stopped)
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject })
      // Ref'd only while a statement is out: an idle database never keeps the process alive.
      if (this.pending.size === 1) this.worker.ref()
      this.post(request(id))
    })
  }

  private post(request: ThreadRequest): void {
    this.worker.postMessage(request)
  }

  private settle(message: ThreadReply): void {
    const waiter = this.pending.get(message.id)
    if (!waiter) return
    this.pending.delete(message.id)
    if (this.pending.size === 0) this.worker.unref()
    if (!('error' in message)) {
      let rows: unknown[]
      try {
        rows = deserialize(message.rows) as unknown[]
      } catch (error) {
        return waiter.reject(
          new Error('The embedded database answered with rows that cannot be read here (a value nested too deep?)', {
            cause: error,
          }),
        )
      }
      return waiter.resolve({ rows, affectedRows: message.affectedRows })
    }
    const error = Object.assign(new Error(message.error.message), message.error)
    waiter.reject(error)
    // A database that did not start answers every later statement with why.
    if (message.id === 0) this.stop(error)
  }

  private stop(error: Error): void {
    this.stopped ??= error
    for (const waiter of this.pending.values()) waiter.reject(this.stopped)
    this.pending.clear()
  }
}
