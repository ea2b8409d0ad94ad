/**
 * Domain ownership over HTTP (app.inject). Real parts: the app, the database, the guarded fetch
 * (sockets, timeouts, size cap, redirect handling, the private-address check in the socket's
 * lookup), DID resolution and JWS verification. Faked: DNS (a host table for the fetch's
 * resolveHost, an in-memory TXT resolver) and the transport scheme: the service always asks for
 * https://<domain>/...; the test's HttpGet turns that into http://<domain>:<port>/... of a local
 * node:http server before handing it to the guarded fetch, whose address policy lets exactly
 * 127.0.0.1 pass as "public" so private targets (10.0.0.0/8 etc.) are still refused.
 */
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, describe, it } from 'node:test'
import type { DnsResolver } from '../../src/adapters/dns.js'
import { createGuardedFetch, type HttpGet } from '../../src/adapters/http-out/guarded-fetch.js'
import { refusedAddressReason } from '../../src/adapters/http-out/ip-ranges.js'
import { signCompactJws } from '../../src/crypto/jws.js'
import { DidClient } from '../helpers/did-client.js'
import { callAs } from '../helpers/issuer-setup.js'
import { createTestApp, ManualClock, type TestApp } from '../helpers/test-app.js'

const CONTEXT = 'https://identity.foundation/.well-known/did-configuration/v1'
const WELL_KNOWN = '/.well-known/credential-service-verification.txt'
const DID_CONFIG = '/.well-known/did-configuration.json'
const FETCH_TIMEOUT_MS = 500
const FETCH_MAX_BYTES = 32 * 1024

interface Published {
  status?: number
  body?: string
  headers?: Record<string, string>
}

describe('domain ownership: challenge, verify, status', () => {
  let t: TestApp
  const clock = new ManualClock()
  const owner = new DidClient()
  const rival = new DidClient()
  let token: string
  let rivalToken: string

  // The "internet": what each host publishes, and the DNS the fetch and TXT lookups see.
  const files = new Map<string, Published>()
  const txt = new Map<string, string[][] | 'hang' | string>()
  const hosts: Record<string, string> = {
    'internal.example.com': '10.0.0.7',
  }
  const publicHosts = [
    'acme.example.com',
    'xn--bcher-kva.example.com',
    'link.example.com',
    'slow.example.com',
    'big.example.com',
    'hop.example.com',
    'hop2.example.com',
    'broken.example.com',
    'down.example.com',
    'missing.example.com',
    'wrong.example.com',
  ]
  for (const h of publicHosts) hosts[h] = '127.0.0.1'
  let server: http.Server
  let port = 0
  let closedPort = 0
  const hits: string[] = []

  const httpGet = (): HttpGet => {
    const guarded = createGuardedFetch({
      allowPrivate: false,
      timeoutMs: FETCH_TIMEOUT_MS,
      maxBytes: FETCH_MAX_BYTES,
      maxRedirects: 3,
      resolveHost: async (name) => {
        const address = hosts[name]
        if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
        return [{ address, family: 4 }]
      },
      // 127.0.0.1 stands in for a public address; every other address keeps its real verdict.
      addressPolicy: (ip) => (ip === '127.0.0.1' ? undefined : refusedAddressReason(ip)),
    })
    return (url, init) => {
      const target = new URL(url)
      if (target.protocol === 'https:') {
        target.protocol = 'http:'
        target.port = String(target.hostname === 'down.example.com' ? closedPort : port)
      }
      return guarded(target.href, init)
    }
  }

  const dns: DnsResolver = {
    resolveTxt: async (name) => {
      const answer = txt.get(name)
      if (answer === undefined) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
      if (answer === 'hang') return new Promise<string[][]>(() => {})
      if (typeof answer === 'string') throw Object.assign(new Error(`queryTxt ${answer} ${name}`), { code: answer })
      return answer
    },
  }

  before(async () => {
    server = http.createServer((req, res) => {
      const host = (req.headers.host ?? '').replace(/:\d+$/, '')
      hits.push(`${host}${req.url}`)
      if (host === 'slow.example.com') return // never answers
      if (host === 'big.example.com') {
        res.writeHead(200, { 'content-type': 'text/plain' })
        for (let i = 0; i < 64; i++) res.write('x'.repeat(1024))
        return void res.end()
      }
      if (host === 'hop.example.com') return void res.writeHead(302, { location: `http://10.0.0.7${req.url}` }).end()
      if (host === 'hop2.example.com')
        return void res.writeHead(307, { location: `http://internal.example.com:${port}${req.url}` }).end()
      const published = files.get(`${host}${req.url}`)
      if (!published) return void res.writeHead(404).end('not found')
      res.writeHead(published.status ?? 200, { 'content-type': 'text/plain', ...published.headers })
      res.end(published.body ?? '')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    port = (server.address() as AddressInfo).port
    const closed = http.createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    closedPort = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))

    t = await createTestApp({
      clock,
      httpGet: httpGet(),
      dns,
      env: { OUTBOUND_TIMEOUT_MS: String(FETCH_TIMEOUT_MS), JWT_TTL_SECONDS: String(30 * 86400) },
    })
    token = await owner.login(t.app)
    rivalToken = await rival.login(t.app)
  })
  after(async () => {
    await t.close()
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  const challenge = async (domain: string, as = owner, tok = token) => {
    const res = await callAs(t.app, 'POST', '/api/domain/challenge', tok, { did: as.did, domain })
    assert.equal(res.statusCode, 201, res.body)
    return res.json().challenge
  }
  const verify = (body: Record<string, unknown>, tok = token) =>
    callAs(t.app, 'POST', '/api/domain/verify', tok, { did: owner.did, ...body })
  const status = async (did = owner.did, tok = token, query = '') => {
    const res = await callAs(t.app, 'GET', `/api/domain/status/${did}${query}`, tok)
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }
  const recordOf = async (domain: string) =>
    (await status()).domains.find((d: { domain: string }) => d.domain === domain)
  /** Error answers name the domain and URL the caller gave, never an address it resolved to. */
  const expectError = (res: Awaited<ReturnType<typeof verify>>, code: number, reason?: string) => {
    assert.equal(res.statusCode, code, res.body)
    const body = res.json()
    assert.equal(body.success, false)
    if (reason) assert.equal(body.details?.reason, reason, res.body)
    assert.doesNotMatch(res.body, /127\.0\.0\.1|10\.0\.0\.7|:\d{4,5}\//)
    return body
  }
  const publishToken = (host: string, body: string) => files.set(`${host}${WELL_KNOWN}`, { body })

  it('issues a challenge with the token and both places to publish it', async () => {
    const c = await challenge('acme.example.com')
    assert.match(c.id, /^domch-/)
    assert.equal(c.did, owner.did)
    assert.equal(c.domain, 'acme.example.com')
    assert.ok(Buffer.from(c.token, 'base64url').length >= 32)
    assert.deepEqual(c.well_known, { url: `https://acme.example.com${WELL_KNOWN}`, content: c.token })
    assert.deepEqual(c.dns_txt, { name: '_credential-service-challenge.acme.example.com', type: 'TXT', value: c.token })
    assert.equal(c.did_configuration.url, `https://acme.example.com${DID_CONFIG}`)
    assert.equal(c.did_configuration.origin, 'https://acme.example.com')
    assert.equal(new Date(c.expires_at).getTime() - clock.now().getTime(), 24 * 3600_000)
    const record = await recordOf('acme.example.com')
    assert.equal(record.status, 'pending')
    assert.equal(record.verified, false)
    assert.equal(record.challenge.id, c.id)
    assert.equal(record.challenge.status, 'open')
    // A new challenge supersedes the previous one.
    const again = await challenge('acme.example.com')
    assert.notEqual(again.token, c.token)
    expectError(await verify({ domain: 'acme.example.com', method: 'well_known', challenge_id: c.id }), 404)
  })

  it('normalizes internationalized names to lower-case punycode', async () => {
    const c = await challenge('Bücher.Example.COM.')
    assert.equal(c.domain, 'xn--bcher-kva.example.com')
    assert.equal(c.domain_unicode, 'bücher.example.com')
    assert.equal(c.well_known.url, `https://xn--bcher-kva.example.com${WELL_KNOWN}`)
    publishToken('xn--bcher-kva.example.com', c.token)
    const res = await verify({ domain: 'BÜCHER.example.com', method: 'well_known' })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().domain.domain, 'xn--bcher-kva.example.com')
  })

  it('refuses domains that are not public DNS names (400)', async () => {
    const bad = [
      'https://acme.example.com',
      'acme.example.com/path',
      'acme.example.com:443',
      'user@acme.example.com',
      '127.0.0.1',
      '0x7f.1',
      '2130706433',
      '[::1]',
      '::1',
      'localhost',
      'intranet',
      'printer.local',
      'site.test',
      'svc.internal',
      'a'.repeat(64) + '.com',
      `${'abcdefghij.'.repeat(25)}com`,
      'exa mple.com',
      '-bad.example.com',
      'bad-.example.com',
      'under_score.example.com',
      'a..example.com',
      ' ',
      'xn--zz.com',
    ]
    for (const domain of bad) {
      const res = await callAs(t.app, 'POST', '/api/domain/challenge', token, { did: owner.did, domain })
      assert.equal(res.statusCode, 400, `${domain}: ${res.body}`)
    }
  })

  it('refuses bad bodies (400) and unauthenticated calls (401)', async () => {
    const challengeBodies: unknown[] = [
      {},
      { did: owner.did },
      { domain: 'acme.example.com' },
      { did: owner.did, domain: 5 },
      { did: owner.did, domain: null },
      { did: 'not-a-did', domain: 'acme.example.com' },
    ]
    for (const body of challengeBodies) {
      const res = await callAs(t.app, 'POST', '/api/domain/challenge', token, body)
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`)
    }
    const verifyBodies: unknown[] = [
      { did: owner.did, domain: 'acme.example.com' },
      { did: owner.did, domain: 'acme.example.com', method: 'http' },
      { did: owner.did, method: 'well_known' },
      { did: owner.did, domain: 'acme.example.com', method: 'well_known', challenge_id: '' },
      { did: owner.did, domain: 'acme.example.com', method: 'did_configuration', challenge_id: 'domch-x' },
    ]
    for (const body of verifyBodies) {
      const res = await callAs(t.app, 'POST', '/api/domain/verify', token, body)
      assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`)
    }
    const other = await challenge('wrong.example.com')
    expectError(await verify({ domain: 'acme.example.com', method: 'well_known', challenge_id: other.id }), 400)
    assert.equal(
      (await callAs(t.app, 'GET', `/api/domain/status/${owner.did}?domain=https://x`, token)).statusCode,
      400,
    )
    assert.equal(
      (await callAs(t.app, 'POST', '/api/domain/challenge', undefined, { did: owner.did, domain: 'acme.example.com' }))
        .statusCode,
      401,
    )
    assert.equal(
      (
        await callAs(t.app, 'POST', '/api/domain/verify', undefined, {
          did: owner.did,
          domain: 'acme.example.com',
          method: 'well_known',
        })
      ).statusCode,
      401,
    )
    assert.equal((await callAs(t.app, 'GET', `/api/domain/status/${owner.did}`)).statusCode, 401)
  })

  it('verifies by the token in the well-known file, once', async () => {
    const c = await challenge('acme.example.com')
    publishToken('acme.example.com', `# other services' tokens\nsomething-else\n  ${c.token}  \r\n`)
    const res = await verify({ domain: 'acme.example.com', method: 'well_known' })
    assert.equal(res.statusCode, 200, res.body)
    const body = res.json()
    assert.equal(body.verified, true)
    assert.equal(body.domain.status, 'verified')
    assert.equal(body.domain.method, 'well_known')
    assert.equal(body.domain.verified_at, clock.now().toISOString())
    assert.equal(body.domain.valid_until, null)
    assert.ok(hits.includes(`acme.example.com${WELL_KNOWN}`))
    // Single use: the spent challenge cannot verify again, by default or by id.
    expectError(await verify({ domain: 'acme.example.com', method: 'well_known' }), 409, 'challenge_used')
    expectError(
      await verify({ domain: 'acme.example.com', method: 'well_known', challenge_id: c.id }),
      409,
      'challenge_used',
    )
    const s = await status()
    assert.ok(s.verified_domains.includes('acme.example.com'))
    const record = s.domains.find((d: { domain: string }) => d.domain === 'acme.example.com')
    assert.equal(record.challenge.status, 'used')
    const filtered = await status(owner.did, token, '?domain=ACME.Example.com')
    assert.deepEqual(
      filtered.domains.map((d: { domain: string }) => d.domain),
      ['acme.example.com'],
    )
  })

  it('a wrong token fails (422) and is recorded; the challenge stays usable', async () => {
    const c = await challenge('wrong.example.com')
    publishToken('wrong.example.com', 'not-the-token')
    const failed = expectError(
      await verify({ domain: 'wrong.example.com', method: 'well_known' }),
      422,
      'token_mismatch',
    )
    assert.equal(failed.details.method, 'well_known')
    const record = await recordOf('wrong.example.com')
    assert.equal(record.status, 'failed')
    assert.match(record.last_error, /does not hold the challenge token/)
    // Nothing published at all.
    files.delete(`wrong.example.com${WELL_KNOWN}`)
    expectError(await verify({ domain: 'wrong.example.com', method: 'well_known' }), 422, 'not_found')
    publishToken('wrong.example.com', c.token)
    const ok = await verify({ domain: 'wrong.example.com', method: 'well_known', challenge_id: c.id })
    assert.equal(ok.statusCode, 200, ok.body)
    assert.equal(ok.json().domain.last_error, null)
  })

  it('an expired challenge cannot be verified (409)', async () => {
    const c = await challenge('missing.example.com')
    publishToken('missing.example.com', c.token)
    clock.advance(24 * 3600_000 + 1000)
    expectError(await verify({ domain: 'missing.example.com', method: 'well_known' }), 409, 'challenge_expired')
    assert.equal((await recordOf('missing.example.com')).challenge.status, 'expired')
    // A fresh one works.
    const fresh = await challenge('missing.example.com')
    publishToken('missing.example.com', fresh.token)
    assert.equal((await verify({ domain: 'missing.example.com', method: 'well_known' })).statusCode, 200)
  })

  it('verifies by a DNS TXT record (injected resolver)', async () => {
    const c = await challenge('acme.example.com')
    const name = '_credential-service-challenge.acme.example.com'
    txt.set(name, 'ENODATA')
    expectError(await verify({ domain: 'acme.example.com', method: 'dns_txt' }), 422, 'no_record')
    txt.set(name, [['v=spf1 -all'], ['someone-elses-token']])
    expectError(await verify({ domain: 'acme.example.com', method: 'dns_txt' }), 422, 'token_mismatch')
    txt.set(name, 'ESERVFAIL')
    const servfail = expectError(await verify({ domain: 'acme.example.com', method: 'dns_txt' }), 503)
    assert.match(servfail.message, /DNS lookup .* failed \(ESERVFAIL\)/)
    txt.set(name, 'hang')
    // The answer names the limit that fired: the lookup was given up, not waited out.
    const hung = expectError(await verify({ domain: 'acme.example.com', method: 'dns_txt' }), 503)
    assert.match(hung.message, /did not answer within 500 ms/)
    // Long values arrive as several character-strings of one record.
    txt.set(name, [['v=spf1 -all'], [c.token.slice(0, 20), c.token.slice(20)]])
    const res = await verify({ domain: 'acme.example.com', method: 'dns_txt' })
    assert.equal(res.statusCode, 200, res.body)
    assert.equal(res.json().domain.method, 'dns_txt')
    expectError(await verify({ domain: 'acme.example.com', method: 'dns_txt' }), 409, 'challenge_used')
  })

  describe('DID configuration (DIF Well Known DID Configuration, JWT Domain Linkage Credential)', () => {
    const kidOf = (client: DidClient) => `${client.did}#${client.did.slice('did:key:'.length)}`
    const linkage = async (
      options: {
        signer?: DidClient
        did?: string
        origin?: string
        nbf?: number
        exp?: number
        extra?: Record<string, unknown>
        vcExtra?: Record<string, unknown>
        header?: Record<string, unknown>
      } = {},
    ) => {
      const did = options.did ?? owner.did
      const now = Math.floor(clock.now().getTime() / 1000)
      const nbf = options.nbf ?? now - 3600
      const exp = options.exp ?? now + 365 * 86400
      const payload = {
        iss: did,
        sub: did,
        nbf,
        exp,
        vc: {
          '@context': ['https://www.w3.org/2018/credentials/v1', CONTEXT],
          issuer: did,
          issuanceDate: new Date(nbf * 1000).toISOString(),
          expirationDate: new Date(exp * 1000).toISOString(),
          type: ['VerifiableCredential', 'DomainLinkageCredential'],
          credentialSubject: { id: did, origin: options.origin ?? 'https://link.example.com' },
          ...options.vcExtra,
        },
        ...options.extra,
      }
      const signer = options.signer ?? owner
      return signCompactJws(
        { kid: did === signer.did ? kidOf(signer) : `${did}#${did.slice('did:key:'.length)}`, ...options.header },
        payload,
        signer.privateKey,
      )
    }
    const publishConfiguration = (linked: unknown[], host = 'link.example.com') =>
      files.set(`${host}${DID_CONFIG}`, {
        body: JSON.stringify({ '@context': CONTEXT, linked_dids: linked }),
        headers: { 'content-type': 'application/json' },
      })
    const verifyLink = () => verify({ domain: 'link.example.com', method: 'did_configuration' })

    it('verifies a credential signed by the DID for this origin; no challenge needed', async () => {
      const exp = Math.floor(clock.now().getTime() / 1000) + 2 * 86400
      // The origin also appears as a bare host (the spec's own JWT example), and beside other DIDs and LD-proof entries.
      publishConfiguration([
        { type: ['VerifiableCredential', 'DomainLinkageCredential'] },
        await linkage({ signer: rival, did: rival.did }),
        await linkage({ exp, origin: 'link.example.com' }),
      ])
      const res = await verifyLink()
      assert.equal(res.statusCode, 200, res.body)
      const record = res.json().domain
      assert.equal(record.method, 'did_configuration')
      assert.equal(record.status, 'verified')
      assert.equal(record.valid_until, new Date(exp * 1000).toISOString())
      // Past the credential's expiry the status reads expired.
      clock.advance(3 * 86400_000)
      const later = await recordOf('link.example.com')
      assert.equal(later.status, 'expired')
      assert.equal(later.verified, false)
    })

    it('refuses a credential for another origin', async () => {
      publishConfiguration([await linkage({ origin: 'https://evil.example.com' })])
      const body = expectError(await verifyLink(), 422, 'invalid_linkage_credential')
      assert.match(body.message, /origin is https:\/\/evil\.example\.com, not https:\/\/link\.example\.com/)
      publishConfiguration([await linkage({ origin: 'https://link.example.com/some/path' })])
      expectError(await verifyLink(), 422, 'invalid_linkage_credential')
      publishConfiguration([await linkage({ origin: 'http://link.example.com' })])
      expectError(await verifyLink(), 422, 'invalid_linkage_credential')
    })

    it('refuses expired, not-yet-valid, forged and malformed credentials', async () => {
      const now = Math.floor(clock.now().getTime() / 1000)
      const cases: Array<[string, unknown[], string, RegExp]> = [
        ['expired', [await linkage({ nbf: now - 7200, exp: now - 60 })], 'invalid_linkage_credential', /expired at/],
        ['not yet valid', [await linkage({ nbf: now + 3600 })], 'invalid_linkage_credential', /not valid before/],
        [
          'signed by another key',
          [await linkage({ signer: rival, did: owner.did })],
          'invalid_linkage_credential',
          /signature does not verify|not an Ed25519/,
        ],
        [
          'with an id',
          [await linkage({ extra: { jti: 'urn:uuid:1' } })],
          'invalid_linkage_credential',
          /must not carry an id/,
        ],
        [
          'with a typ header',
          [await linkage({ header: { typ: 'JWT' } })],
          'invalid_linkage_credential',
          /must not carry typ/,
        ],
        [
          'with two subjects',
          [
            await linkage({
              vcExtra: {
                credentialSubject: [{ id: owner.did, origin: 'https://link.example.com' }, { id: rival.did }],
              },
            }),
          ],
          'invalid_linkage_credential',
          /one object/,
        ],
        [
          'of another type',
          [await linkage({ vcExtra: { type: ['VerifiableCredential'] } })],
          'invalid_linkage_credential',
          /DomainLinkageCredential/,
        ],
        ['without exp', [await linkage({ extra: { exp: undefined } })], 'invalid_linkage_credential', /exp/],
        [
          'other DIDs only',
          [await linkage({ signer: rival, did: rival.did })],
          'did_not_linked',
          /no Domain Linkage Credential/,
        ],
      ]
      for (const [label, linked, reason, message] of cases) {
        publishConfiguration(linked)
        const body = expectError(await verifyLink(), 422, reason)
        assert.match(body.message, message, label)
      }
      files.set(`link.example.com${DID_CONFIG}`, { body: '{"linked_dids": "nope"}' })
      expectError(await verifyLink(), 422, 'invalid_configuration')
      files.set(`link.example.com${DID_CONFIG}`, { body: 'not json' })
      expectError(await verifyLink(), 422, 'invalid_configuration')
      files.set(`link.example.com${DID_CONFIG}`, { body: JSON.stringify({ linked_dids: [await linkage()] }) })
      expectError(await verifyLink(), 422, 'invalid_configuration')
      files.delete(`link.example.com${DID_CONFIG}`)
      expectError(await verifyLink(), 422, 'not_found')
    })
  })

  describe('outgoing fetch failures are clear answers, never 500, never an internal address', () => {
    const check = async (domain: string) => {
      await challenge(domain)
      return verify({ domain, method: 'well_known' })
    }

    it('unreachable host: 503', async () => {
      const body = expectError(await check('down.example.com'), 503)
      assert.match(body.message, /down\.example\.com is unreachable \(ECONNREFUSED\)/)
      const nxdomain = expectError(await check('nowhere.example.com'), 503)
      assert.match(nxdomain.message, /nowhere\.example\.com is unreachable \(ENOTFOUND\)/)
    })

    it('a server that never answers: 503 after the timeout', async () => {
      // The answer names the limit that fired (the server never answers, so nothing else could end it).
      const body = expectError(await check('slow.example.com'), 503)
      assert.match(body.message, /slow\.example\.com did not answer within 500 ms/)
    })

    it('an oversized file: 422', async () => {
      const body = expectError(await check('big.example.com'), 422, 'too_large')
      assert.match(body.message, /larger than 32768 bytes/)
    })

    it('a server error: 503; another status: 422', async () => {
      files.set(`broken.example.com${WELL_KNOWN}`, { status: 500, body: 'oops' })
      expectError(await check('broken.example.com'), 503)
      files.set(`broken.example.com${WELL_KNOWN}`, { status: 403, body: 'no' })
      expectError(await check('broken.example.com'), 422, 'http_status')
    })

    it('a redirect to a private address is refused (422), literal or by name, without connecting', async () => {
      const literal = expectError(await check('hop.example.com'), 422, 'private_address')
      assert.match(literal.message, /private or reserved network address/)
      const byName = expectError(await check('hop2.example.com'), 422, 'private_address')
      assert.doesNotMatch(byName.message, /internal\.example\.com/)
      assert.ok(!hits.some((h) => h.startsWith('internal.example.com')))
      // A domain that resolves privately itself.
      expectError(await check('internal.example.com'), 422, 'private_address')
    })
  })

  it('documents the three routes in the OpenAPI document', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs/json' })
    assert.equal(res.statusCode, 200)
    const paths = Object.keys(res.json().paths)
    for (const path of ['/api/domain/challenge', '/api/domain/verify', '/api/domain/status/{did}'])
      assert.ok(paths.includes(path), path)
  })

  describe('ownership', () => {
    it("acting for another DID is 403; another DID's records are 404 or absent", async () => {
      expectError(
        await callAs(t.app, 'POST', '/api/domain/challenge', rivalToken, {
          did: owner.did,
          domain: 'acme.example.com',
        }),
        403,
      )
      expectError(
        await callAs(t.app, 'POST', '/api/domain/verify', rivalToken, {
          did: owner.did,
          domain: 'acme.example.com',
          method: 'well_known',
        }),
        403,
      )
      expectError(await callAs(t.app, 'GET', `/api/domain/status/${owner.did}`, rivalToken), 403)
      const mine = await challenge('acme.example.com')
      // The rival names the owner's challenge while acting as itself.
      const res = await callAs(t.app, 'POST', '/api/domain/verify', rivalToken, {
        did: rival.did,
        domain: 'acme.example.com',
        method: 'well_known',
        challenge_id: mine.id,
      })
      expectError(res, 404)
      // Without a challenge of its own.
      expectError(
        await callAs(t.app, 'POST', '/api/domain/verify', rivalToken, {
          did: rival.did,
          domain: 'acme.example.com',
          method: 'well_known',
        }),
        404,
      )
      const theirs = await status(rival.did, rivalToken)
      assert.ok(!theirs.domains.some((d: { domain: string }) => d.domain === 'acme.example.com'))
      // The same domain can be claimed by several DIDs, each with its own record.
      await challenge('acme.example.com', rival, rivalToken)
      const both = await status(rival.did, rivalToken)
      assert.equal(both.domains.find((d: { domain: string }) => d.domain === 'acme.example.com').status, 'pending')
      assert.equal((await recordOf('acme.example.com')).status, 'verified')
    })
  })
})
