import assert from 'node:assert/strict'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

/** A stand-in for a Vite build: an index page and one hashed asset. */
async function fakeBuild(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'console-dist-'))
  await mkdir(path.join(dir, 'assets'))
  await writeFile(
    path.join(dir, 'index.html'),
    '<!doctype html><title>console</title><script type="module" src="/app/assets/index-AbC123.js"></script>',
  )
  await writeFile(path.join(dir, 'assets/index-AbC123.js'), 'console.log("app")')
  await writeFile(path.join(os.tmpdir(), 'console-secret.txt'), 'outside the build')
  return dir
}

describe('the web console at /app', () => {
  let built: TestApp
  let missing: TestApp
  before(async () => {
    built = await createTestApp({ env: { CONSOLE_DIR: await fakeBuild() } })
    missing = await createTestApp({ env: { CONSOLE_DIR: path.join(os.tmpdir(), 'no-console-build-here') } })
  })
  after(async () => {
    await built?.close()
    await missing?.close()
  })

  it('serves the page without a session, under a CSP that allows only its own scripts, styles and API', async () => {
    const res = await built.app.inject({ method: 'GET', url: '/app/' })
    assert.equal(res.statusCode, 200)
    assert.match(res.headers['content-type'] as string, /^text\/html/)
    assert.match(res.body, /<title>console<\/title>/)
    const csp = String(res.headers['content-security-policy'])
      .split(';')
      .map((d) => d.trim())
    assert.ok(csp.includes("script-src 'self'"), csp.join('; '))
    assert.ok(csp.includes("style-src 'self'"))
    assert.ok(csp.includes("connect-src 'self'"))
    assert.ok(csp.includes("default-src 'none'"))
    assert.ok(csp.includes("frame-ancestors 'none'"))
    assert.ok(!csp.join(' ').includes('unsafe-inline') && !csp.join(' ').includes('unsafe-eval'))
    assert.equal(res.headers['x-content-type-options'], 'nosniff')
    assert.equal(res.headers['cache-control'], 'no-cache')
  })

  it('redirects /app to /app/', async () => {
    const res = await built.app.inject({ method: 'GET', url: '/app' })
    assert.equal(res.statusCode, 301)
    assert.equal(res.headers.location, '/app/')
  })

  it('caches hashed assets as immutable, with their media type', async () => {
    const res = await built.app.inject({ method: 'GET', url: '/app/assets/index-AbC123.js' })
    assert.equal(res.statusCode, 200)
    assert.equal(res.body, 'console.log("app")')
    assert.match(res.headers['content-type'] as string, /^text\/javascript/)
    assert.match(res.headers['cache-control'] as string, /immutable/)
    assert.match(res.headers['cache-control'] as string, /max-age=31536000/)
  })

  it('answers the page for any other path (single-page app) but 404 for a missing hashed asset', async () => {
    const page = await built.app.inject({ method: 'GET', url: '/app/holder/credentials' })
    assert.equal(page.statusCode, 200)
    assert.match(page.body, /<title>console<\/title>/)
    const asset = await built.app.inject({ method: 'GET', url: '/app/assets/index-Old999.js' })
    assert.equal(asset.statusCode, 404)
    assert.equal(asset.json().success, false)
  })

  it('never serves a file outside the build', async () => {
    for (const url of [
      '/app/../console-secret.txt',
      '/app/%2e%2e/console-secret.txt',
      '/app/assets/%2e%2e/%2e%2e/console-secret.txt',
    ]) {
      const res = await built.app.inject({ method: 'GET', url })
      assert.ok(!res.body.includes('outside the build'), url)
    }
  })

  it('keeps the API CSP on API routes', async () => {
    const res = await built.app.inject({ method: 'GET', url: '/api/health/live' })
    assert.equal(res.headers['content-security-policy'], "default-src 'none'; frame-ancestors 'none'")
  })

  it('answers 503 with a clear message when the console is not built, and the API still runs', async () => {
    const res = await missing.app.inject({ method: 'GET', url: '/app/' })
    assert.equal(res.statusCode, 503)
    const body = res.json()
    assert.equal(body.success, false)
    assert.match(body.message, /not built/)
    assert.match(body.message, /npm run build:console/)
    const health = await missing.app.inject({ method: 'GET', url: '/api/health/live' })
    assert.equal(health.statusCode, 200)
  })

  it('is not part of the OpenAPI document', async () => {
    const doc = (await built.app.inject({ method: 'GET', url: '/api/docs/json' })).json()
    assert.ok(!Object.keys(doc.paths).some((p) => p.startsWith('/app')))
  })
})
