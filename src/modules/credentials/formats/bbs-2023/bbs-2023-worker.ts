/**
 * Worker-thread entry of the bbs-2023 pool: receives {id, op, args}, runs one bbs-2023-core
 * operation and answers {id, ok, result | error} (worker-pool.ts). Documents and bytes cross by
 * structured clone. The libraries are plain JavaScript: a failure never breaks the worker.
 */
import { parentPort } from 'node:worker_threads'
import type { WorkerReply } from '../../../../crypto/worker-pool.js'
import * as core from './bbs-2023-core.js'

export type Bbs2023Op = 'signBase' | 'derive' | 'verify'

const ops: Record<Bbs2023Op, (args: never) => Promise<unknown>> = {
  signBase: (args: core.SignBaseRequest) => core.signBase(args),
  derive: (args: core.DeriveRequest) => core.deriveDisclosure(args),
  verify: (args: core.VerifyRequest) => core.verifyDerived(args),
}

const port = parentPort
if (!port) throw new Error('bbs-2023-worker must run in a worker thread')

port.on('message', async (task: { id: number; op: Bbs2023Op; args: unknown }) => {
  let reply: WorkerReply
  try {
    const run = Object.hasOwn(ops, task.op) ? ops[task.op] : undefined
    if (!run) throw new TypeError(`unknown bbs-2023 operation ${String(task.op)}`)
    reply = { id: task.id, ok: true, result: await run(task.args as never) }
  } catch (thrown) {
    const error = thrown instanceof Error ? thrown : new Error(`bbs-2023: ${String(thrown)}`)
    reply = { id: task.id, ok: false, error: { name: error.name, message: error.message }, fatal: false }
  }
  port.postMessage(reply)
})
