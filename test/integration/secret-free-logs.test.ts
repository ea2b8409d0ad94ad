import assert from 'node:assert/strict'
import net from 'node:net'
import { after, before, describe, it } from 'node:test'
import { DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { ADMIN_KEY, createTestApp, type TestApp } from '../helpers/test-app.js'
import { multipart, PDF_BYTES } from '../helpers/wallet-fixtures.js'

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' +
    '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
)
const COOKIE_SECRET = 'sess-7f3a9c1e5b2d4f60a8e1c3b5d7f9a2c4'

/** One request as written on the wire (no client normalises the path), and the status answered. */
function raw(port: number, text: string | Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text))
    let response = ''
    socket.on('data', (d) => (response += d.toString('latin1')))
    socket.on('error', reject)
    socket.on('close', () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(response)?.[1] ?? 0)))
  })
}

const get = (path: string, headers: Record<string, string> = {}) =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`

const encodeAll = (s: string, hex: (c: string) => string) =>
  [...s].map((c) => `%${hex(c.charCodeAt(0).toString(16).padStart(2, '0'))}`).join('')

/**
 * The log as written, with every %XX decoded, and with logged Buffers ({"type":"Buffer","data":[…]})
 * turned back into text: a secret in percent-encoding or as bytes is still the secret.
 */
function readable(lines: string[]): string[] {
  const log = lines.join('')
  return [
    log,
    log.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
    log.replace(/"data":\[([\d,]*)\]/g, (_, bytes: string) =>
      Buffer.from(bytes.split(',').filter(Boolean).map(Number)).toString('latin1'),
    ),
  ]
}

/** Fails if the value, or any 12-character piece of it, is in the log. */
function assertAbsent(lines: string[], name: string, value: string): void {
  for (const log of readable(lines)) {
    assert.ok(!log.includes(value), `${name} appears in the log`)
    for (let at = 0; at + 12 <= value.length; at++)
      assert.ok(
        !log.includes(value.slice(at, at + 12)),
        `a piece of ${name} (${value.slice(at, at + 12)}) appears in the log`,
      )
  }
}

describe('no secret in the log at any level, whatever the URL spelling or the plugin logging', () => {
  const lines: string[] = []
  let t: TestApp
  let port: number
  const holder = new DidClient()
  let holderToken: string
  let shareToken: string
  const spellings: Record<string, number> = {}

  before(async () => {
    t = await createTestApp({ env: { LOG_LEVEL: 'trace' }, logSink: { write: (line) => void lines.push(line) } })
    const issuer = new IssuerActor()
    await issuer.setUp(t.app, 'Log Office')
    holderToken = await holder.login(t.app)
    const schemaId = await issuer.schema(t.app, {
      name: 'Pass',
      version: '1',
      attributes: [{ name: 'holder_name', data_type: 'string', required: true }],
      anonymous_credentials: false,
    })
    const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
      credential_type: 'Pass',
      schema_id: schemaId,
      subject_did: holder.did,
      attributes: { holder_name: 'H' },
    })
    assert.equal(issued.statusCode, 201, issued.body)
    const share = await callAs(t.app, 'POST', `/api/wallet/${holder.did}/credentials/share`, holderToken, {
      credential_id: issued.json().credential.id,
      expires_in_seconds: 600,
    })
    assert.equal(share.statusCode, 201, share.body)
    shareToken = share.json().share.token
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = (t.app.server.address() as net.AddressInfo).port
    lines.length = 0

    // Multipart uploads log their options at trace, headers included; every credential header is sent.
    const secretHeaders = {
      Authorization: `Bearer ${holderToken}`,
      Cookie: `session=${COOKIE_SECRET}`,
      'X-Admin-Key': ADMIN_KEY,
    }
    const uploads = [
      {
        path: '/api/auth/avatar',
        body: multipart([{ name: 'file', filename: 'a.png', contentType: 'image/png', data: PNG }]),
      },
      {
        path: `/api/wallet/${holder.did}/evidence/upload`,
        body: multipart([
          { name: 'label', value: 'transcript' },
          { name: 'file', filename: 't.pdf', contentType: 'application/pdf', data: PDF_BYTES },
        ]),
      },
    ]
    for (const { path, body } of uploads) {
      const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: ${body.headers['content-type']}\r\nContent-Length: ${body.payload.length}\r\n${Object.entries(
        secretHeaders,
      )
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}\r\n`
      assert.equal(await raw(port, Buffer.concat([Buffer.from(head), body.payload])), 201, path)
    }
    // A request Node cannot parse: its raw bytes (the Authorization line) travel with the client error.
    await raw(port, `GET /api/health HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${holderToken}\r\nBad Header\r\n\r\n`)

    const T = shareToken
    const variants = [
      `/api/wallet/shared/${T}`,
      `/api/wallet/%73hared/${T}`,
      `/api/wallet/sh%61red/${T}`,
      `/%61pi/wallet/shared/${T}`,
      `/api/wallet/shared/${encodeAll(T, (h) => h)}`,
      `/api/wallet/shared/${encodeAll(T, (h) => h.toUpperCase())}`,
      `/api/wallet/shared/${T}?utm=1`,
      `//api/wallet/shared/${T}`,
      `/api//wallet/shared/${T}`,
      `/API/wallet/shared/${T}`,
      `/api/wallet/SHARED/${T}`,
      `/api/wallet/shared/${T}/`,
      `/api/wallet/shared;v=1/${T}`,
      `/api/wallet/shared/${T};v=1`,
      `/api/wallet/./shared/${T}`,
      `/api/wallet/x/../shared/${T}`,
      `/api/wallet%2Fshared/${T}`,
      `/api/wallet/shared%2F${T}`,
      `/api/wallet/shared/%zz${T}`,
      `http://x/api/wallet/shared/${T}`,
      `/api/wallet/shared?token=${T}`,
      `/api/health?token=${T}&access_token=${T}`,
      `/api/health?${T}`,
      `/api/nothing-here/${T}?${T}=${T}`,
    ]
    for (const [i, path] of variants.entries()) {
      spellings[path.replaceAll(T, '<token>')] = await raw(
        port,
        get(path, { 'X-Request-Id': `spelling-${i}`, Cookie: `session=${COOKIE_SECRET}` }),
      )
    }
    const listed = get(`/api/wallet/${holder.did}/evidence?limit=1&token=${T}`, {
      'X-Request-Id': 'listed',
      Authorization: `Bearer ${holderToken}`,
    })
    assert.equal(await raw(port, listed), 200)
  })
  after(() => t.close())

  it('answered the share link under several spellings (the router decodes them), and logged every request', () => {
    assert.equal(spellings['/api/wallet/%73hared/<token>'], 200, JSON.stringify(spellings, null, 1))
    assert.equal(spellings['/api/wallet/shared/<token>'], 200)
    assert.ok(Object.values(spellings).includes(404))
    const incoming = lines
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === 'incoming request' && String(l.reqId).startsWith('spelling-'))
    assert.equal(incoming.length, Object.keys(spellings).length)
  })

  it('logs a matched share link as its route, the token redacted, however the URL was spelled', () => {
    const urlOf = (reqId: string) =>
      lines.map((l) => JSON.parse(l)).find((l) => l.reqId === reqId && l.msg === 'incoming request')?.req.url
    assert.equal(urlOf('spelling-0'), '/api/wallet/shared/[redacted]')
    assert.equal(urlOf('spelling-1'), '/api/wallet/shared/[redacted]')
    assert.equal(urlOf('spelling-4'), '/api/wallet/shared/[redacted]')
  })

  it("keeps what is not secret: a route's identifiers and declared query parameters, an unmatched path's route words", () => {
    const urlOf = (reqId: string) =>
      lines.map((l) => JSON.parse(l)).find((l) => l.reqId === reqId && l.msg === 'incoming request')?.req.url
    assert.equal(urlOf('listed'), `/api/wallet/${holder.did}/evidence?limit=1&[redacted]`)
    assert.equal(urlOf('spelling-14'), '/api/wallet/[redacted]/shared/[redacted]')
    assert.equal(urlOf('spelling-23'), '/api/[redacted]/[redacted]?[redacted]')
  })

  it('logged the multipart options at trace with the credential headers redacted', () => {
    const busboy = lines.map((l) => JSON.parse(l)).filter((l) => l.busboyOptions)
    assert.ok(
      busboy.length >= 2,
      'the multipart plugin logged its options (the check below would be vacuous otherwise)',
    )
    for (const line of busboy) {
      assert.equal(line.busboyOptions.headers.authorization, '[redacted]')
      assert.equal(line.busboyOptions.headers.cookie, '[redacted]')
      assert.equal(line.busboyOptions.headers['x-admin-key'], '[redacted]')
    }
  })

  it('contains no bearer token, share token, admin key or cookie, in any spelling', () => {
    assert.ok(
      lines.some((l) => JSON.parse(l).level === 10),
      'trace lines were captured',
    )
    assertAbsent(lines, 'the bearer token', holderToken)
    assertAbsent(lines, "the bearer token's signature", holderToken.split('.')[2]!)
    assertAbsent(lines, 'the share token', shareToken)
    assertAbsent(lines, 'the admin key', ADMIN_KEY)
    assertAbsent(lines, 'the cookie', COOKIE_SECRET)
  })
})
