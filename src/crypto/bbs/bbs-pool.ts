import os from 'node:os'
import type { Worker } from 'node:worker_threads'
import { spawnModuleWorker } from '../../module-worker.js'
import type { BbsKeyPair, BoundPredicate, DerivedProof, ProofCheck, ProofRequest, RevealedMessage } from './bbs-core.js'
import type { BbsMessage } from './bbs-messages.js'
import type { BbsOp, BbsReply } from './bbs-worker.js'

export type { BbsKeyPair, BoundPredicate, DerivedProof, ProofCheck, ProofRequest, RevealedMessage }

/** BBS operations, run off the event loop. Implemented by the worker pool; tests may swap it. */
export interface BbsEngine {
  generateKeyPair(paramsLabel: string): Promise<BbsKeyPair>
  sign(req: { secretKey: Uint8Array; paramsLabel: string; messages: BbsMessage[] }): Promise<Uint8Array>
  verify(req: { publicKey: Uint8Array; paramsLabel: string; messages: BbsMessage[]; signature: Uint8Array }): Promise<boolean>
  deriveProof(req: ProofRequest): Promise<DerivedProof>
  verifyProof(req: ProofCheck): Promise<boolean>
  close(): Promise<void>
}

interface Task {
  id: number
  op: BbsOp
  args: unknown
  resolve: (value: unknown) => void
  reject: (error: Error) => void
}

interface Slot {
  worker: Worker | undefined
  task: Task | undefined
}

/**
 * The worker pool for BBS, and only BBS: Dock's WebAssembly (crypto-wasm-ts) runs synchronously,
 * so signing and proofs must leave the event loop. Sealing does not come here: HPKE's KEM, HKDF and
 * AES-GCM already run on libuv's threads through WebCrypto (sealed-envelope.ts, docs/decisions.md).
 *
 * A fixed number of worker threads, each with its own WebAssembly instance, started on first use;
 * tasks queue (FIFO) while all are busy. A worker that dies or panics fails only its own task and
 * is replaced on the next dispatch. Idle workers are unref'd, so a forgotten pool never keeps the
 * process alive, while a busy one is ref'd until its task answers.
 */
export class BbsPool implements BbsEngine {
  private readonly slots: Slot[]
  private readonly queue: Task[] = []
  private nextId = 1
  private closed = false

  constructor(size: number = Math.max(1, os.availableParallelism())) {
    if (!Number.isSafeInteger(size) || size < 1) throw new RangeError(`BBS pool size must be a positive integer: ${size}`)
    this.slots = Array.from({ length: size }, () => ({ worker: undefined, task: undefined }))
  }

  generateKeyPair(paramsLabel: string): Promise<BbsKeyPair> {
    return this.run('generateKeyPair', { paramsLabel })
  }

  sign(req: { secretKey: Uint8Array; paramsLabel: string; messages: BbsMessage[] }): Promise<Uint8Array> {
    return this.run('sign', req)
  }

  verify(req: { publicKey: Uint8Array; paramsLabel: string; messages: BbsMessage[]; signature: Uint8Array }): Promise<boolean> {
    return this.run('verify', req)
  }

  deriveProof(req: ProofRequest): Promise<DerivedProof> {
    return this.run('deriveProof', req)
  }

  verifyProof(req: ProofCheck): Promise<boolean> {
    return this.run('verifyProof', req)
  }

  /** Test hook: the worker's thread id, or a task whose worker exits mid-task or fails as a WASM panic does. */
  selfTest(action: 'threadId'): Promise<number>
  selfTest(action: 'exit' | 'panic'): Promise<never>
  selfTest(action: 'threadId' | 'exit' | 'panic'): Promise<number> {
    return this.run('selfTest', { action })
  }

  /** Terminates every worker; queued and running tasks reject, later calls too. */
  async close(): Promise<void> {
    this.closed = true
    for (const task of this.queue.splice(0)) task.reject(closedError())
    await Promise.all(
      this.slots.map(async (slot) => {
        const { worker, task } = slot
        slot.worker = undefined
        slot.task = undefined
        task?.reject(closedError())
        if (worker) await worker.terminate()
      }),
    )
  }

  private run<T>(op: BbsOp, args: unknown): Promise<T> {
    if (this.closed) return Promise.reject(closedError())
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, op, args, resolve: resolve as (value: unknown) => void, reject })
      this.dispatch()
    })
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
    const worker = spawnModuleWorker(import.meta.url, 'bbs-worker')
    const settle = (outcome: (task: Task) => void) => {
      const task = slot.task
      slot.task = undefined
      if (task) outcome(task)
    }
    worker.on('message', (reply: BbsReply) => {
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
      settle((task) => task.reject(new Error('BBS worker reply could not be read', { cause: error })))
      worker.unref()
      this.dispatch()
    })
    const died = (error: Error) => {
      if (slot.worker !== worker) return
      slot.worker = undefined
      settle((task) => task.reject(error))
      this.dispatch()
    }
    worker.on('error', (error) => died(new Error(`BBS worker failed: ${error.message}`, { cause: error })))
    worker.on('exit', (code) => died(new Error(`BBS worker exited (code ${code})`)))
    return worker
  }

  private retire(slot: Slot, worker: Worker): void {
    slot.worker = undefined
    void worker.terminate()
  }
}

export function createBbsPool(options: { size?: number } = {}): BbsPool {
  return new BbsPool(options.size)
}

const closedError = () => new Error('BBS pool closed')

/** Keeps the class callers can test for (RangeError: input that cannot be encoded or proved). */
function rebuildError(error: { name: string; message: string }): Error {
  const Type = error.name === 'RangeError' ? RangeError : error.name === 'TypeError' ? TypeError : Error
  const rebuilt = new Type(error.message)
  rebuilt.name = error.name
  return rebuilt
}
