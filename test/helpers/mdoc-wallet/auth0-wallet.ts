import { Worker } from 'node:worker_threads'
import type { WalletJob } from './auth0-wallet-worker.js'

/** Runs one job of the @auth0/mdl wallet in its own worker thread (see auth0-wallet-worker.ts); base64url CBOR back. */
export function auth0Wallet(job: WalletJob): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./auth0-wallet-worker.ts', import.meta.url), {
      workerData: job,
      execArgv: ['--import', 'tsx'],
    })
    worker.once('message', (m: { result?: string; error?: string }) => {
      void worker.terminate()
      if (m.result !== undefined) resolve(m.result)
      else reject(new Error(m.error))
    })
    worker.once('error', reject)
  })
}
