/**
 * Preload for the server entry (`runServerToExit(env, ms, { preload: [<this file's path>] })`):
 * the process reports the Node.js version TEST_NODE_VERSION, so the runtime check can be run on
 * any machine, beside the run on a real older Node where one is installed.
 */
const version = process.env.TEST_NODE_VERSION
if (version) Object.defineProperty(process.versions, 'node', { value: version })
