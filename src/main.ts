/**
 * The service's entry point (`npm start`, the Docker image): checks the Node.js version before
 * anything else is loaded, then starts the server. The check must come first: the server's own
 * imports use APIs an older Node lacks (node:crypto's ML-KEM, ...), and would crash on import with
 * a message that names none of this. Only runtime-version.ts, which imports nothing, is loaded
 * statically; server.ts is imported dynamically once the runtime is known to be good.
 */
import module from 'node:module'
import { runtimeProblem } from './runtime-version.js'

const problem = runtimeProblem()
if (problem) {
  console.error(problem)
  process.exit(2)
}
// V8's compiled code for the service and its libraries, kept on disk (the OS's temporary
// directory) so a restart skips most of the compiling that loading them costs (Node 22.1+).
module.enableCompileCache?.()
await import('./server.js')
