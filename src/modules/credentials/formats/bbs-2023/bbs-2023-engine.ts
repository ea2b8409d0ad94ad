import os from 'node:os'
import { WorkerPool } from '../../../../crypto/worker-pool.js'
import * as core from './bbs-2023-core.js'
import type { Bbs2023Op } from './bbs-2023-worker.js'

export type { DeriveRequest, Documents, SignBaseRequest, VerifyOutcome, VerifyRequest } from './bbs-2023-core.js'

/**
 * The heavy part of bbs-2023: RDF canonicalization (RDFC-1.0) and IETF BBS in pure JavaScript,
 * hundreds of milliseconds per operation (docs/formats.md "bbs-2023"). The pool runs it off the
 * event loop; `inlineBbs2023Engine` runs it in place (tests, benchmarks).
 */
export interface Bbs2023Engine {
  signBase(req: core.SignBaseRequest): Promise<Record<string, unknown>>
  derive(req: core.DeriveRequest): Promise<Record<string, unknown>>
  verify(req: core.VerifyRequest): Promise<core.VerifyOutcome>
  close(): Promise<void>
}

export const inlineBbs2023Engine: Bbs2023Engine = {
  signBase: core.signBase,
  derive: core.deriveDisclosure,
  verify: core.verifyDerived,
  close: async () => {},
}

/** bbs-2023 on worker threads (worker-pool.ts); each worker has the bundled contexts, the rest travels with the task. */
export class Bbs2023Pool implements Bbs2023Engine {
  private readonly pool: WorkerPool

  constructor(size: number = Math.max(1, os.availableParallelism())) {
    this.pool = new WorkerPool({ callerUrl: import.meta.url, worker: 'bbs-2023-worker', size, label: 'bbs-2023' })
  }

  signBase(req: core.SignBaseRequest): Promise<Record<string, unknown>> {
    return this.run('signBase', req)
  }

  derive(req: core.DeriveRequest): Promise<Record<string, unknown>> {
    return this.run('derive', req)
  }

  verify(req: core.VerifyRequest): Promise<core.VerifyOutcome> {
    return this.run('verify', req)
  }

  close(): Promise<void> {
    return this.pool.close()
  }

  private run<T>(op: Bbs2023Op, args: unknown): Promise<T> {
    return this.pool.run(op, args)
  }
}
