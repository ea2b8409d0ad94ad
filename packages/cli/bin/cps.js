#!/usr/bin/env node
// The built CLI (dist/, made at install by scripts/build.mjs) runs under plain node when it is
// current. Otherwise, and when the SDK is resolved to its TypeScript source (the export condition
// @credential-service/source that the repository's npm scripts set), tsx compiles the sources on load.
import { existsSync, readdirSync, statSync } from 'node:fs'
import path from 'node:path'

const dir = path.resolve(import.meta.dirname, '..')
const built = path.join(dir, 'dist/main.js')

function newest(file) {
  const info = statSync(file)
  return info.isDirectory()
    ? readdirSync(file).reduce((latest, name) => Math.max(latest, newest(path.join(file, name))), info.mtimeMs)
    : info.mtimeMs
}

const sourceSdk = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) =>
  arg.includes('@credential-service/source'),
)
const current = existsSync(built) && statSync(built).mtimeMs >= newest(path.join(dir, 'src'))
if (current && !sourceSdk) {
  await import(built)
} else {
  const { register } = await import('tsx/esm/api')
  register()
  await import('../src/main.ts')
}
