import os from 'node:os'
import { WorkerPool } from '../worker-pool.js'
import type { BbsKeyPair, BoundPredicate, DerivedProof, ProofCheck, ProofRequest, RevealedMessage } from './bbs-core.js'
import type { BbsMessage } from './bbs-messages.js'
import type { BbsOp } from './bbs-worker.js'

export type { BbsKeyPair, BoundPredicate, DerivedProof, ProofCheck, ProofRequest, RevealedMessage }

/** BBS operations, run off the event loop. Implemented by the worker pool; tests may swap it. */
export interface BbsEngine {
  generateKeyPair(paramsLabel: string): Promise<BbsKeyPair>
  sign(req: { secretKey: Uint8Array; paramsLabel: string; messages: BbsMessage[] }): Promise<Uint8Array>
  verify(req: {
    publicKey: Uint8Array
    paramsLabel: string
    messages: BbsMessage[]
    signature: Uint8Array
  }): Promise<boolean>
  deriveProof(req: ProofRequest): Promise<DerivedProof>
  verifyProof(req: ProofCheck): Promise<boolean>
  close(): Promise<void>
}

/**
 * The worker pool for BBS, and only BBS: Dock's WebAssembly (crypto-wasm-ts) runs synchronously,
 * so signing and proofs must leave the event loop. Sealing does not come here: HPKE's KEM, HKDF and
 * AES-GCM already run on libuv's threads through WebCrypto (sealed-envelope.ts, docs/decisions.md).
 *
 * Each worker thread has its own WebAssembly instance (worker-pool.ts: started on first use,
 * FIFO queue, a dead worker fails only its own task). A worker that panics is retired.
 */
export class BbsPool implements BbsEngine {
  private readonly pool: WorkerPool

  constructor(size: number = Math.max(1, os.availableParallelism())) {
    this.pool = new WorkerPool({ callerUrl: import.meta.url, worker: 'bbs-worker', size, label: 'BBS' })
  }

  generateKeyPair(paramsLabel: string): Promise<BbsKeyPair> {
    return this.run('generateKeyPair', { paramsLabel })
  }

  sign(req: { secretKey: Uint8Array; paramsLabel: string; messages: BbsMessage[] }): Promise<Uint8Array> {
    return this.run('sign', req)
  }

  verify(req: {
    publicKey: Uint8Array
    paramsLabel: string
    messages: BbsMessage[]
    signature: Uint8Array
  }): Promise<boolean> {
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
  close(): Promise<void> {
    return this.pool.close()
  }

  private run<T>(op: BbsOp, args: unknown): Promise<T> {
    return this.pool.run(op, args)
  }
}

export function createBbsPool(options: { size?: number } = {}): BbsPool {
  return new BbsPool(options.size)
}
