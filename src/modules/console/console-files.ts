import { stat } from 'node:fs/promises'
import path from 'node:path'

/** Media types of what a Vite build emits; anything else is served as bytes. */
const MEDIA_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json',
}

export interface ConsoleFile {
  file: string
  mediaType: string
  size: number
  /** Vite names files under assets/ by their content hash: they never change under that name. */
  immutable: boolean
}

export const INDEX = 'index.html'
const ASSETS = 'assets'

/**
 * The file of the built console that answers a path under /app: the file itself when it exists
 * inside the build, else index.html (single-page app: the client reads its own location), else
 * undefined when the console is not built. A path leaving the build directory never resolves to
 * a file outside it.
 */
export async function resolveConsoleFile(dir: string, relative: string): Promise<ConsoleFile | undefined> {
  const root = path.resolve(dir)
  const candidate = path.resolve(root, `.${path.posix.sep}${relative}`)
  if (relative !== '' && candidate.startsWith(root + path.sep)) {
    const found = await fileAt(candidate)
    if (found)
      return {
        file: candidate,
        mediaType: mediaTypeOf(candidate),
        size: found,
        immutable: relative.startsWith(`${ASSETS}/`),
      }
    // A missing hashed asset is an old page asking for a file a new build replaced: not the app.
    if (relative.startsWith(`${ASSETS}/`)) return undefined
  }
  const index = path.join(root, INDEX)
  const size = await fileAt(index)
  return size === undefined ? undefined : { file: index, mediaType: mediaTypeOf(index), size, immutable: false }
}

export async function consoleBuilt(dir: string): Promise<boolean> {
  return (await fileAt(path.join(path.resolve(dir), INDEX))) !== undefined
}

function mediaTypeOf(file: string): string {
  return MEDIA_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream'
}

async function fileAt(file: string): Promise<number | undefined> {
  try {
    const info = await stat(file)
    return info.isFile() ? info.size : undefined
  } catch {
    return undefined
  }
}
