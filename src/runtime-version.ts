/**
 * The runtime this service is built for: Node.js 24 LTS from 24.7, the first with ML-KEM in
 * node:crypto (OpenSSL 3.5). `npm ci` installs it as the `node-<platform>` package, which npm
 * scripts put first on PATH; a process started by some other Node refuses to run.
 */
export const MIN_NODE = [24, 7] as const

export function runtimeProblem(version = process.versions.node): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number)
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) return undefined
  return `Node.js ${MIN_NODE.join('.')} or later is required (this is ${version}); run it through npm (npm start, npm test), which uses the Node.js that npm ci installed`
}
