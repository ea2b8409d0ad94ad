import type { Worker } from 'node:worker_threads'
import { spawnModuleWorker } from '../module-worker.js'

/** What a pool's worker answers to `{id, op, args}`; `fatal` asks the pool to retire that worker. */
export type WorkerReply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; error: { name: string; message: string }; fatal: boolean }

interface Task {
  id: number
  op: string
  args: unknown
  resolve: (value: unknown) => void
  reject: (error: Error) => void
}

interface Slot {
  worker: Worker | undefined
  task: Task | undefined
}

export interface WorkerPoolOptions {
  /** `import.meta.url` of the module beside the worker entry. */
  callerUrl: string
  /** The worker entry module's name, without extension (module-worker.ts). */
  worker: string
  size: number
  /** Names the pool in its errors ("BBS", "bbs-2023"). */
  label: string
}

/**
 * A fixed number of worker threads running one entry module, started on first use; tasks queue
 * (FIFO) while all are busy. A worker that dies fails only its own task and is replaced on the
 * next dispatch. Idle workers are unref'd, so a forgotten pool never keeps the process alive,
 * while a busy one is ref'd until its task answers.
 */
export class WorkerPool {
  private readonly slots: Slot[]
  private readonly queue: Task[] = []
  private nextId = 1
  private closed = false

  constructor(private readonly options: WorkerPoolOptions) {
    if (!Number.isSafeInteger(options.size) || options.size < 1)
      throw new RangeError(`${options.label} pool size must be a positive integer: ${options.size}`)
    this.slots = Array.from({ length: options.size }, () => ({ worker: undefined, task: undefined }))
  }

  run<T>(op: string, args: unknown): Promise<T> {
    if (this.closed) return Promise.reject(this.closedError())
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, op, args, resolve: resolve as (value: unknown) => void, reject })
      this.dispatch()
    })
  }

  /** Terminates every worker; queued and running tasks reject, later calls too. */
  async close(): Promise<void> {
    this.closed = true
    for (const task of this.queue.splice(0)) task.reject(this.closedError())
    await Promise.all(
      this.slots.map(async (slot) => {
        const { worker, task } = slot
        slot.worker = undefined
        slot.task = undefined
        task?.reject(this.closedError())
        if (worker) await worker.terminate()
      }),
    )
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0 || this.closed) return
      if (slot.task) continue
      const task = this.queue.shift()!
      slot.task = task
      const worker = (slot.worker ??= this.start(slot))
      worker.ref()
      worker.postMessage({ id: task.id, op: task.op, args: task.args })
    }
  }

  private start(slot: Slot): Worker {
    const { label } = this.options
    const worker = spawnModuleWorker(this.options.callerUrl, this.options.worker)
    const settle = (outcome: (task: Task) => void) => {
      const task = slot.task
      slot.task = undefined
      if (task) outcome(task)
    }
    worker.on('message', (reply: WorkerReply) => {
      if (slot.worker !== worker || slot.task?.id !== reply.id) return
      if (reply.ok) settle((task) => task.resolve(reply.result))
      else {
        settle((task) => task.reject(rebuildError(reply.error)))
        if (reply.fatal) this.retire(slot, worker)
      }
      worker.unref()
      this.dispatch()
    })
    // The reply could not be deserialized: that task fails, the worker itself is fine.
    worker.on('messageerror', (error) => {
      if (slot.worker !== worker) return
      settle((task) => task.reject(new Error(`${label} worker reply could not be read`, { cause: error })))
      worker.unref()
      this.dispatch()
    })
    const died = (error: Error) => {
      if (slot.worker !== worker) return
      slot.worker = undefined
      settle((task) => task.reject(error))
      this.dispatch()
    }
    worker.on('error', (error) => died(new Error(`${label} worker failed: ${error.message}`, { cause: error })))
    worker.on('exit', (code) => died(new Error(`${label} worker exited (code ${code})`)))
    return worker
  }

  private retire(slot: Slot, worker: Worker): void {
    slot.worker = undefined
    void worker.terminate()
  }

  private closedError(): Error {
    return new Error(`${this.options.label} pool closed`)
  }
}

/** Keeps the class callers can test for (RangeError: input that cannot be encoded or proved). */
function rebuildError(error: { name: string; message: string }): Error {
  const Type = error.name === 'RangeError' ? RangeError : error.name === 'TypeError' ? TypeError : Error
  const rebuilt = new Type(error.message)
  rebuilt.name = error.name
  return rebuilt
}
