/**
 * Worker-thread entry of the BBS pool: receives {id, op, args}, runs one bbs-core operation and
 * answers {id, ok, result | error}. Bytes cross as Uint8Array (structured clone), never library
 * objects. `fatal` tells the pool to retire this worker: after a WASM panic (or a failed
 * instantiation) the instance cannot be trusted with the next task.
 */
import { parentPort, threadId } from 'node:worker_threads'
import type { WorkerReply } from '../worker-pool.js'
import * as core from './bbs-core.js'
import type { BbsMessage } from './bbs-messages.js'

export type BbsOp = 'generateKeyPair' | 'sign' | 'verify' | 'deriveProof' | 'verifyProof' | 'selfTest'

/** The pool's reply shape (worker-pool.ts). */
export type BbsReply = WorkerReply

interface SignArgs {
  secretKey: Uint8Array
  paramsLabel: string
  messages: BbsMessage[]
}

// lib ES2023 has no WebAssembly typings; the class is a global in Node.
const WebAssemblyRuntimeError = (globalThis as unknown as { WebAssembly: { RuntimeError: ErrorConstructor } })
  .WebAssembly.RuntimeError

const ops: Record<BbsOp, (args: never) => unknown> = {
  generateKeyPair: (args: { paramsLabel: string }) => core.generateKeyPair(args.paramsLabel),
  sign: (args: SignArgs) => core.sign(args.secretKey, args.paramsLabel, args.messages),
  verify: (args: { publicKey: Uint8Array; paramsLabel: string; messages: BbsMessage[]; signature: Uint8Array }) =>
    core.verify(args.publicKey, args.paramsLabel, args.messages, args.signature),
  deriveProof: (args: core.ProofRequest) => core.deriveProof(args),
  verifyProof: (args: core.ProofCheck) => core.verifyProof(args),
  // For the pool's recovery tests: which thread runs, die mid-task, or fail as a Rust panic does.
  selfTest: (args: { action: 'threadId' | 'exit' | 'panic' }) => {
    if (args.action === 'threadId') return threadId
    if (args.action === 'exit') process.exit(70)
    throw new WebAssemblyRuntimeError('unreachable')
  },
}

const port = parentPort
if (!port) throw new Error('bbs-worker must run in a worker thread')

const ready = core.initBbs()
// Set by a fatal failure: should a task still arrive, it is refused rather than run on a broken instance.
let broken: Error | undefined
port.on('message', async (task: { id: number; op: BbsOp; args: unknown }) => {
  let reply: BbsReply
  try {
    if (broken) throw broken
    await ready.catch((error: unknown) => {
      throw Object.assign(asError(error), { initFailed: true })
    })
    const run = Object.hasOwn(ops, task.op) ? ops[task.op] : undefined
    if (!run) throw new TypeError(`unknown BBS operation ${String(task.op)}`)
    reply = { id: task.id, ok: true, result: run(task.args as never) }
  } catch (thrown) {
    const error = asError(thrown)
    const fatal = error === broken || core.isWasmPanic(error) || 'initFailed' in error
    if (fatal) broken ??= error
    reply = { id: task.id, ok: false, error: { name: error.name, message: error.message }, fatal }
  }
  port.postMessage(reply)
})

function asError(thrown: unknown): Error {
  return thrown instanceof Error ? thrown : new Error(`BBS: ${String(thrown)}`)
}
