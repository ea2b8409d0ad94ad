import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { LocalError } from '../args/command.js'

/**
 * JSON files only their owner may read (mode 0600 in a 0700 directory), as ssh keeps its keys:
 * a file that group or others can read or write is refused, not silently fixed, because its
 * secrets may already have been read.
 */
export function readPrivateJson<T>(file: string): T | undefined {
  if (!existsSync(file)) return undefined
  const mode = statSync(file).mode & 0o777
  if (mode & 0o077) {
    throw new LocalError(
      `${file} is readable or writable by others (mode ${mode.toString(8).padStart(4, '0')}); refusing to use it. Run: chmod 600 ${file}`,
    )
  }
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T
  } catch (error) {
    throw new LocalError(`${file} is not JSON: ${(error as Error).message}`)
  }
}

/** Writes through a temporary file and a rename, so a crash never leaves half a key file. */
export function writePrivateJson(file: string, value: unknown): void {
  const dir = path.dirname(file)
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 })
  const tmp = `${file}.${process.pid}.tmp`
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 })
  chmodSync(tmp, 0o600)
  renameSync(tmp, file)
}
