/**
 * did:web resolution and the DID resolver. Real: a node:http server on 127.0.0.1 and the
 * guarded fetch; `allowHttp` swaps https for http (no certificates in tests), `allowPrivate`
 * lets the fetch reach loopback. Faked where stated: a counting fetcher and the clock.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createGuardedFetch, type HttpGet } from '../../src/adapters/http-out/guarded-fetch.js'
import { didWebUrl, parseDidWeb, resolveDidWeb } from '../../src/modules/did/methods/did-web-method.js'
import { createDidResolver } from '../../src/modules/did/did-resolver.js'
import { buildRegisteredDidDocument, type DidDocument } from '../../src/modules/did/did-document.js'
import { ed25519AuthenticationKeys } from '../../src/modules/did/verification-keys.js'
import { DependencyUnavailableError, NotFoundError, UnprocessableError, ValidationError } from '../../src/errors.js'

const KEY_MB = 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp'

function documentFor(did: string): DidDocument {
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: did,
    verificationMethod: [{ id: `${did}#key-1`, type: 'Multikey', controller: did, publicKeyMultibase: KEY_MB }],
    authentication: ['#key-1'],
  }
}

describe('didWebUrl (did:web spec §3.2)', () => {
  const cases: [string, string][] = [
    ['did:web:example.com', 'https://example.com/.well-known/did.json'],
    ['did:web:w3c-ccg.github.io', 'https://w3c-ccg.github.io/.well-known/did.json'],
    ['did:web:w3c-ccg.github.io:user:alice', 'https://w3c-ccg.github.io/user/alice/did.json'],
    ['did:web:example.com%3A3000', 'https://example.com:3000/.well-known/did.json'],
    ['did:web:example.com%3a3000:user:alice', 'https://example.com:3000/user/alice/did.json'],
    ['did:web:xn--bcher-kva.example', 'https://xn--bcher-kva.example/.well-known/did.json'],
    ['did:web:localhost%3A39250', 'https://localhost:39250/.well-known/did.json'],
    ['did:web:example.com%3A65535:a.b:c_d-e', 'https://example.com:65535/a.b/c_d-e/did.json'],
  ]
  for (const [did, url] of cases) it(`${did} -> ${url}`, () => assert.equal(didWebUrl(did), url))

  it('uses http only when allowed', () => {
    assert.equal(didWebUrl('did:web:localhost%3A8080', true), 'http://localhost:8080/.well-known/did.json')
  })

  const invalid: [string, RegExp][] = [
    ['did:key:z6Mk', /Not a did:web/],
    ['did:web:127.0.0.1', /IP addresses are not allowed/],
    ['did:web:example.com%3Aabc', /port is not a number/],
    ['did:web:example.com%3A99999', /port is out of range/],
    ['did:web:example.com%3A1%3A2', /more than one port/],
    ['did:web:-bad-.com', /not a domain name/],
    ['did:web:b%C3%BCcher.example', /only percent-encoding can be %3A.*punycode/],
    ['did:web:example.com::alice', /path segment ""/],
    ['did:web:example.com:..:etc', /path segment "\.\."/],
    ['did:web:example.com:%2e%2E:etc', /path segment "%2e%2E"/],
    // The DID with its port encoded once more: not a port, and not another path either.
    ['did:web:localhost%253A39250', /percent-encoded more than once/],
    ['did:web:localhost%25253A39250', /percent-encoded more than once/],
    ['did:web:example.com%2F..%2Fadmin', /only percent-encoding can be %3A/],
    ['did:web:example.com%40evil.example', /only percent-encoding can be %3A/],
    ['did:web:user@example.com', /not a domain name/],
    ['did:web:example.com?x', /not a domain name/],
    ['did:web:example.com#x', /not a domain name/],
    ['did:web:example.com%3A', /port is not a number/],
    ['did:web:example.com%3A0', /port is out of range/],
    ['did:web:example.com%3A080', /port is out of range/],
    ['did:web:example.com%3A65536', /port is out of range/],
    ['did:web:example.com%3A+80', /port is not a number/],
    ['did:web:%3A80', /not a domain name/],
    ['did:web:', /not a domain name/],
    ['did:web:example..com', /not a domain name/],
    ['did:web:example.com.', /not a domain name/],
    ['did:web:a.b:.:c', /path segment "\."/],
    ['did:web:a.b:x%2Fy', /path segment "x%2Fy"/],
    ['did:web:a.b:x%3Ay', /path segment "x%3Ay"/],
    ['did:web:a.b:x%252Fy', /path segment "x%252Fy"/],
    ['did:web:a.b:', /path segment ""/],
    // Hosts the URL parser would read as IPv4 in another notation (WHATWG URL "ends in a number").
    ['did:web:2130706433', /numeric last label/],
    ['did:web:0x7f.1', /numeric last label/],
    ['did:web:127.000.0.1', /numeric last label/],
    ['did:web:example.123', /numeric last label/],
  ]
  for (const [did, message] of invalid) {
    it(`rejects ${did}`, () =>
      assert.throws(
        () => didWebUrl(did),
        (e) => e instanceof ValidationError && message.test(e.message),
      ))
  }

  it('reads host, port and path once (parseDidWeb)', () => {
    assert.deepEqual(parseDidWeb('did:web:localhost%3A39250'), { host: 'localhost', port: 39250, path: [] })
    assert.deepEqual(parseDidWeb('did:web:example.com%3a8443:user:alice'), {
      host: 'example.com',
      port: 8443,
      path: ['user', 'alice'],
    })
    // Without an encoded colon, what follows the host is a path, never a port.
    assert.deepEqual(parseDidWeb('did:web:localhost:39250'), { host: 'localhost', port: undefined, path: ['39250'] })
    assert.deepEqual(parseDidWeb('did:web:127.0.0.1%3A8080'), { host: '127.0.0.1', port: 8080, path: [] })
  })
})

describe('did:web over HTTP', () => {
  let server: http.Server
  let host: string
  let hits = 0
  before(async () => {
    server = http.createServer((req, res) => {
      hits++
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/did+json' }).end(JSON.stringify(body))
      }
      if (req.url === '/.well-known/did.json') json(200, documentFor(`did:web:${host}`))
      else if (req.url === '/user/alice/did.json') json(200, documentFor(`did:web:${host}:user:alice`))
      else if (req.url === '/mismatch/did.json') json(200, documentFor('did:web:evil.example'))
      else if (req.url === '/array/did.json') json(200, [documentFor(`did:web:${host}:array`)])
      else if (req.url === '/badvm/did.json') json(200, { id: `did:web:${host}:badvm`, verificationMethod: {} })
      else if (req.url === '/notjson/did.json') res.end('<html>hello</html>')
      else if (req.url === '/huge/did.json')
        json(200, { ...documentFor(`did:web:${host}:huge`), pad: 'x'.repeat(10_000) })
      else if (req.url === '/broken/did.json') res.writeHead(500).end()
      else res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    host = `127.0.0.1%3A${(server.address() as AddressInfo).port}`
  })
  after(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const open = createGuardedFetch({ allowPrivate: true, timeoutMs: 2000, maxBytes: 64 * 1024 })
  const resolve = (did: string, httpGet: HttpGet = open, maxBytes?: number) =>
    resolveDidWeb(did, { httpGet, allowHttp: true, maxBytes })

  it('resolves /.well-known/did.json and a path-based document', async () => {
    const root = await resolve(`did:web:${host}`)
    assert.equal(root.id, `did:web:${host}`)
    const alice = await resolve(`did:web:${host}:user:alice`)
    assert.equal(alice.id, `did:web:${host}:user:alice`)
    assert.equal(ed25519AuthenticationKeys(alice).length, 1)
  })

  it('is refused by the guard when private targets are off', async () => {
    const guarded = createGuardedFetch({ allowPrivate: false, timeoutMs: 2000, maxBytes: 64 * 1024 })
    const before = hits
    await assert.rejects(
      resolve(`did:web:${host}`, guarded),
      (e) => e instanceof ValidationError && /loopback/.test(e.message),
    )
    assert.equal(hits, before)
  })

  it('rejects a document whose id is another DID', async () => {
    await assert.rejects(
      resolve(`did:web:${host}:mismatch`),
      (e) => e instanceof UnprocessableError && /id "did:web:evil.example" is not/.test(e.message),
    )
  })

  it('rejects documents that are not a JSON object or are malformed', async () => {
    await assert.rejects(
      resolve(`did:web:${host}:array`),
      (e) => e instanceof UnprocessableError && /not a JSON object/.test(e.message),
    )
    await assert.rejects(
      resolve(`did:web:${host}:notjson`),
      (e) => e instanceof UnprocessableError && /not UTF-8 JSON/.test(e.message),
    )
    await assert.rejects(
      resolve(`did:web:${host}:badvm`),
      (e) => e instanceof UnprocessableError && /verificationMethod is not an array/.test(e.message),
    )
  })

  it('caps the document size (here below the fetcher cap, as an injected fetcher could have none)', async () => {
    await assert.rejects(
      resolve(`did:web:${host}:huge`, open, 4096),
      (e) => e instanceof UnprocessableError && /larger than 4096 bytes/.test(e.message),
    )
  })

  it('maps 404 to NotFoundError and other failures to DependencyUnavailableError', async () => {
    await assert.rejects(resolve(`did:web:${host}:nobody`), NotFoundError)
    await assert.rejects(
      resolve(`did:web:${host}:broken`),
      (e) => e instanceof DependencyUnavailableError && /HTTP 500/.test(e.message),
    )
    const failing: HttpGet = async () => {
      throw new Error('socket hang up')
    }
    await assert.rejects(resolve(`did:web:${host}`, failing), DependencyUnavailableError)
  })
})

describe('createDidResolver', () => {
  const webDid = 'did:web:example.com'
  let fetches = 0
  let clock = 1_000_000
  const fakeGet: HttpGet = async (url) => {
    fetches++
    if (url !== 'https://example.com/.well-known/did.json')
      return { status: 404, headers: {}, body: new Uint8Array(), url }
    return { status: 200, headers: {}, body: new TextEncoder().encode(JSON.stringify(documentFor(webDid))), url }
  }
  const registered = buildRegisteredDidDocument(
    'did:example:alice',
    Uint8Array.from({ length: 32 }, (_, i) => i),
  )
  const resolver = createDidResolver({
    httpGet: fakeGet,
    now: () => clock,
    cacheMaxEntries: 2,
    lookupLocal: async (did) => (did === 'did:example:alice' ? registered : undefined),
  })

  it('resolves did:key without I/O, normalizing the input', async () => {
    const before = fetches
    const result = await resolver.resolve(`DID:KEY:${KEY_MB}#frag`)
    assert.equal(result.didDocument.id, `did:key:${KEY_MB}`)
    assert.equal(result.didResolutionMetadata.contentType, 'application/did+ld+json')
    assert.deepEqual(result.didDocumentMetadata, {})
    assert.equal(fetches, before)
  })

  it('resolves DIDs registered here', async () => {
    assert.deepEqual((await resolver.resolve('did:example:alice')).didDocument, registered)
  })

  it('caches did:web for 60 s and hands out copies', async () => {
    const before = fetches
    const first = await resolver.resolve(webDid)
    first.didDocument.id = 'mutated'
    const second = await resolver.resolve(webDid)
    assert.equal(second.didDocument.id, webDid)
    assert.equal(fetches, before + 1)
    clock += 61_000
    await resolver.resolve(webDid)
    assert.equal(fetches, before + 2)
  })

  it('shares one fetch between concurrent resolutions', async () => {
    clock += 61_000
    const before = fetches
    await Promise.all([resolver.resolve(webDid), resolver.resolve(webDid), resolver.resolve(webDid)])
    assert.equal(fetches, before + 1)
  })

  it('bounds the cache size', async () => {
    const multi: HttpGet = async (url) => {
      fetches++
      const did = `did:web:${new URL(url).hostname}`
      return { status: 200, headers: {}, body: new TextEncoder().encode(JSON.stringify({ id: did })), url }
    }
    const small = createDidResolver({
      httpGet: multi,
      now: () => clock,
      cacheMaxEntries: 2,
      lookupLocal: async () => undefined,
    })
    const before = fetches
    for (const name of ['a.example', 'b.example', 'c.example', 'a.example']) await small.resolve(`did:web:${name}`)
    // a was evicted when c arrived (so fetched twice), and b when a came back.
    assert.equal(fetches, before + 4)
    const bare = await small.resolve('did:web:b.example')
    assert.equal(bare.didResolutionMetadata.contentType, 'application/did+json')
    assert.equal(fetches, before + 5)
  })

  it('gives NotFound for an unknown did:web, 400 for unsupported methods and malformed DIDs', async () => {
    await assert.rejects(resolver.resolve('did:web:nobody.example'), NotFoundError)
    await assert.rejects(
      resolver.resolve('did:ethr:0xabc'),
      (e) => e instanceof ValidationError && /method "ethr" is not supported/.test(e.message),
    )
    await assert.rejects(resolver.resolve('not-a-did'), ValidationError)
    await assert.rejects(resolver.resolve('did:key:zNotBase58OIl'), ValidationError)
  })

  it('refuses a DID still percent-encoded instead of decoding it again (no fetch)', async () => {
    const before = fetches
    for (const did of [
      encodeURIComponent(webDid),
      'did%3Aweb%3Aexample.com%253A8443',
      'did:web:example.com%253A8443',
    ]) {
      await assert.rejects(
        resolver.resolve(did),
        (e) => e instanceof ValidationError && /percent-encoded/.test(e.message),
        did,
      )
    }
    assert.equal(fetches, before)
  })
})
