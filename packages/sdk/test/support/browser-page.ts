import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { build } from 'esbuild'

const ENTRY = path.resolve(import.meta.dirname, '../../src/index.ts')

/** The SDK bundled for browsers (one ES module, no Node built-ins: a `node:` import fails the build). */
export async function bundleSdk(): Promise<string> {
  const result = await build({
    entryPoints: [ENTRY],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  })
  return result.outputFiles[0]!.text
}

/**
 * A page origin apart from the service (as a web app using the SDK would be): `/` loads the
 * bundle and puts the SDK on `globalThis.sdk`. The service must list this origin in CORS_ORIGINS.
 */
export async function servePage(bundle: string): Promise<{ origin: string; close(): Promise<void> }> {
  const html =
    '<!doctype html><meta charset="utf-8"><title>SDK</title><script type="module">import * as sdk from "/sdk.js"; globalThis.sdk = sdk; document.title = "ready"</script>'
  const server: Server = createServer((req, res) => {
    if (req.url === '/sdk.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle)
    if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end(html)
    res.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
