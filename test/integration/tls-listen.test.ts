/**
 * HTTPS listening (TLS_CERT_FILE, TLS_KEY_FILE): the app built with a certificate of a throw-away
 * CA (made with the openssl command line, scripts/lib/local-ca.ts) answers /api/health over TLS on
 * a real port to a client that trusts that CA, and to no client that does not.
 * Real: the whole app, its database, a socket. Nothing mocked.
 */
import assert from 'node:assert/strict'
import { readFileSync, rmSync } from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import http from 'node:http'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import type { TLSSocket } from 'node:tls'
import { makeLocalTls } from '../../scripts/lib/local-ca.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { TEST_ENGINE } from '../helpers/test-database.js'

interface Answer {
  status: number
  body: string
  protocol?: string
}

const get = (client: typeof https | typeof http, url: string, options: https.RequestOptions = {}): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = client.get(url, { ...options, timeout: 5000 }, (res) => {
      const chunks: Buffer[] = []
      const protocol = (res.socket as TLSSocket).getProtocol?.() ?? undefined
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), protocol }),
      )
    })
    req.on('timeout', () => req.destroy(new Error('timed out')))
    req.on('error', reject)
  })

describe(`HTTPS listening with TLS_CERT_FILE and TLS_KEY_FILE (${TEST_ENGINE})`, () => {
  let t: TestApp
  let dir: string
  let ca: Buffer
  let port: number

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'tls-listen-'))
    const tls = makeLocalTls(dir)
    ca = readFileSync(tls.caFile)
    t = await createTestApp({ env: { TLS_CERT_FILE: tls.certFile, TLS_KEY_FILE: tls.keyFile } })
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    port = (t.app.server.address() as AddressInfo).port
  })
  after(async () => {
    await t?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('answers /api/health over TLS to a client trusting the CA', async () => {
    const res = await get(https, `https://127.0.0.1:${port}/api/health`, { ca })
    assert.equal(res.status, 200, res.body)
    assert.match(res.protocol ?? '', /^TLSv1\.[23]$/)
    assert.ok(JSON.parse(res.body), 'a JSON health answer')
    // The certificate names localhost as well.
    assert.equal((await get(https, `https://localhost:${port}/api/health`, { ca })).status, 200)
  })

  it('a client that does not trust the CA refuses the certificate; plain HTTP gets no health answer', async () => {
    await assert.rejects(get(https, `https://127.0.0.1:${port}/api/health`), (error: NodeJS.ErrnoException) =>
      /CERT|certificate/i.test(`${error.code} ${error.message}`),
    )
    const plain = await get(http, `http://127.0.0.1:${port}/api/health`).catch((error: Error) => error)
    assert.ok(plain instanceof Error || plain.status !== 200, 'no 200 over plain HTTP')
  })
})
