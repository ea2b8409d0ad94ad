import { Worker, type WorkerOptions } from 'node:worker_threads'

/**
 * A worker thread running the module `name` next to `callerUrl` (pass `import.meta.url`), with its
 * extension: .js when compiled (plain node), .ts under tsx (npm start, tests). Node 20 applies
 * neither the parent's tsx loader nor an `execArgv: ['--import', 'tsx']` to a worker's entry
 * module (both fail with "Unknown file extension .ts"), so a bootstrap registers tsx inside the
 * worker, then imports the entry.
 */
export function spawnModuleWorker(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  const fromSource = callerUrl.endsWith('.ts')
  const entry = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, callerUrl)
  if (!fromSource) return new Worker(entry, options)
  const tsxApi = import.meta.resolve('tsx/esm/api')
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}) })`
  return new Worker(bootstrap, { ...options, eval: true })
}
