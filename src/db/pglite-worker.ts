/**
 * The embedded database's thread (src/db/pglite-thread.ts starts it): PGlite runs here so its
 * WebAssembly (parsing, planning, executing, WAL writes) stays off the event loop that serves
 * HTTP. Statements run one at a time in arrival order, with one exception that keeps
 * transactions isolated on PGlite's single session: once a transaction's first statement has
 * run, only that transaction's statements run until its turn ends; everything else waits.
 */
import { serialize } from 'node:v8'
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'
import { PGliteStatements } from './pglite-statements.js'
import {
  INT8_OID,
  LOCK_TIMEOUT_MESSAGE,
  LOCK_TIMEOUT_MS,
  type ThreadReply,
  type ThreadRequest,
  type WorkerOptions,
} from './pglite-thread-messages.js'

const port = parentPort!
const options = workerData as WorkerOptions
const lockTimeoutMs = options.lockTimeoutMs ?? LOCK_TIMEOUT_MS

const pglite = new PGlite({
  dataDir: options.dataDir,
  loadDataDir: options.template ? new Blob([options.template]) : undefined,
  // PGlite starts with fsync off and this skips its per-statement flush: the WAL makes a killed
  // process recover to its last commit (test/process/crash-safety.test.ts), but power loss or an
  // OS crash can lose recent commits. Production durability: DATABASE_URL.
  relaxedDurability: true,
  parsers: { [INT8_OID]: Number },
})

const statements = new PGliteStatements(pglite)

type Waiting = ThreadRequest & { since: number }

/** The transaction turn that holds the session; 0: none. */
let active = 0
const waiting: Waiting[] = []
let pumping = false

const reply = (message: ThreadReply) => port.postMessage(message)

/** Rows as ThreadReply carries them; the bytes are handed over rather than copied. */
function replyRows(id: number, rows: unknown[], affectedRows?: number): void {
  const bytes = serialize(rows)
  const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
  port.postMessage({ id, rows: bytes, affectedRows } satisfies ThreadReply, owned ? [bytes.buffer] : [])
}

const runnable = (m: Waiting) => active === 0 || ('turn' in m && m.turn === active)

async function pump(): Promise<void> {
  if (pumping) return
  pumping = true
  try {
    for (let i = waiting.findIndex(runnable); i >= 0; i = waiting.findIndex(runnable)) {
      const [message] = waiting.splice(i, 1) as [Waiting]
      await handle(message)
    }
  } finally {
    pumping = false
  }
}

async function handle(message: Waiting): Promise<void> {
  switch (message.op) {
    case 'query': {
      if (message.turn !== 0) active = message.turn
      try {
        const result = await statements.query(message.sql, message.params)
        replyRows(message.id, result.rows, result.affectedRows)
      } catch (error) {
        reply({ id: message.id, error: toPlain(error) })
      }
      return
    }
    case 'end':
      if (active === message.turn) active = 0
      return
    case 'close':
      clearInterval(expiry)
      try {
        if (!pglite.closed) await pglite.close()
        replyRows(message.id, [])
      } catch (error) {
        reply({ id: message.id, error: toPlain(error) })
      }
      port.close()
      return
  }
}

// A statement that waits this long is almost surely one made outside an open transaction by the
// code holding that transaction: it would wait forever. Fail it loudly instead.
const expiry = setInterval(
  () => {
    const now = Date.now()
    for (let i = waiting.length - 1; i >= 0; i--) {
      const message = waiting[i]!
      if (message.op !== 'query' || now - message.since < lockTimeoutMs) continue
      waiting.splice(i, 1)
      reply({ id: message.id, error: { message: LOCK_TIMEOUT_MESSAGE } })
    }
  },
  Math.min(1000, lockTimeoutMs / 4),
)
expiry.unref()

/** Driver errors keep their SQLSTATE and fields (code, constraint, ...) across the thread boundary. */
function toPlain(error: unknown): Record<string, unknown> & { message: string } {
  if (!(error instanceof Error)) return { message: String(error) }
  const plain: Record<string, unknown> & { message: string } = { message: error.message }
  for (const [key, value] of Object.entries(error)) {
    if (value === undefined || typeof value === 'function' || key === 'query' || key === 'params') continue
    plain[key] = value
  }
  return plain
}

pglite.waitReady.then(
  () => {
    replyRows(0, [])
    port.on('message', (message: Waiting) => {
      // A fresh object from the structured clone: stamped in place rather than copied.
      message.since = Date.now()
      waiting.push(message)
      void pump()
    })
  },
  (error: unknown) => reply({ id: 0, error: toPlain(error) }),
)
