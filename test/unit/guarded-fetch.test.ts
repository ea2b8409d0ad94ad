/**
 * Guarded outgoing fetch. Real parts: node:http servers on loopback, real sockets, the real
 * `lookup` hook, the real IP-range policy (except where a test says otherwise). Faked: DNS, via
 * the `resolveHost` edge, to give test hostnames addresses.
 */
import { after, before, describe, it } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createGuardedFetch, type GuardedFetchOptions } from '../../src/adapters/http-out/guarded-fetch.js'
import { refusedAddressReason } from '../../src/adapters/http-out/ip-ranges.js'
import { DependencyUnavailableError, ValidationError } from '../../src/errors.js'

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void

interface TestServer {
  port: number
  hits: string[]
  close: () => Promise<void>
}

async function serve(host: string, handler: Handler): Promise<TestServer> {
  const hits: string[] = []
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '')
    handler(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}

const base: GuardedFetchOptions = { allowPrivate: false, timeoutMs: 2000, maxBytes: 1024 }
const isValidation = (pattern: RegExp) => (e: unknown) => e instanceof ValidationError && pattern.test(e.message)
const isUnavailable = (pattern: RegExp) => (e: unknown) =>
  e instanceof DependencyUnavailableError && pattern.test(e.message)

describe('refusedAddressReason', () => {
  const refused: [string, RegExp][] = [
    ['127.0.0.1', /loopback/],
    ['127.255.255.254', /loopback/],
    ['10.1.2.3', /private/],
    ['172.16.0.1', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /link-local/],
    ['100.64.0.1', /carrier-grade NAT/],
    ['100.127.255.255', /carrier-grade NAT/],
    ['0.0.0.0', /this network/],
    ['0.1.2.3', /this network/],
    ['224.0.0.1', /multicast/],
    ['239.255.255.250', /multicast/],
    ['240.0.0.1', /reserved/],
    ['255.255.255.255', /reserved/],
    ['192.0.2.1', /documentation/],
    ['198.18.0.1', /benchmarking/],
    ['::1', /loopback/],
    ['::', /unspecified/],
    ['0:0:0:0:0:0:0:1', /loopback/],
    ['fc00::1', /unique-local/],
    ['fd12:3456:789a::1', /unique-local/],
    ['fe80::1', /link-local/],
    ['fe80::1%eth0', /link-local/],
    ['[fe80::1]', /link-local/],
    ['febf:ffff::1', /link-local/],
    ['ff02::1', /multicast/],
    ['2001:db8::1', /documentation/],
    ['2001::1', /Teredo/],
    ['::ffff:127.0.0.1', /IPv4-mapped loopback/],
    ['::ffff:7f00:1', /IPv4-mapped loopback/],
    ['::ffff:10.0.0.1', /IPv4-mapped private/],
    ['::ffff:a9fe:a9fe', /IPv4-mapped link-local/],
    ['0:0:0:0:0:ffff:192.168.0.1', /IPv4-mapped private/],
    ['64:ff9b::127.0.0.1', /NAT64 loopback/],
    ['2002:7f00:1::', /6to4 loopback/],
    ['::127.0.0.1', /IPv4-compatible/],
    ['::ffff:0.0.0.0', /IPv4-mapped "this network"/],
    ['64:ff9b::10.0.0.1', /NAT64 private/],
    ['64:ff9b::a9fe:a9fe', /NAT64 link-local/],
    ['64:ff9b:1::8.8.8.8', /local-use NAT64/],
    ['2002:c0a8:101::1', /6to4 private/],
    ['2002:c058:6301::', /6to4 deprecated 6to4 relay/],
    ['2001:0:4136:e378::1', /Teredo/],
    ['100::1', /discard-only/],
    ['3fff::1', /documentation/],
    ['5f00::1', /SRv6/],
    ['fec0::1', /site-local/],
    ['4000::1', /outside global unicast/],
    ['localhost', /not an IP address/],
    ['1.2.3', /not an IP address/],
    ['', /not an IP address/],
  ]
  for (const [ip, reason] of refused) {
    it(`refuses ${ip || '(empty)'}`, () => assert.match(refusedAddressReason(ip) ?? 'allowed', reason))
  }
  const allowed = [
    '1.1.1.1',
    '8.8.8.8',
    '93.184.216.34',
    '172.32.0.1',
    '100.128.0.1',
    '192.169.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '::ffff:8.8.8.8',
    '64:ff9b::8.8.8.8',
    '2002:808:808::1',
  ]
  for (const ip of allowed) {
    it(`allows ${ip}`, () => assert.equal(refusedAddressReason(ip), undefined))
  }
})

describe('createGuardedFetch', () => {
  let ok: TestServer
  let privateTarget: TestServer
  before(async () => {
    ok = await serve('127.0.0.1', (req, res) => {
      if (req.url === '/hello') {
        res.setHeader('content-type', 'application/json')
        res.setHeader('x-accept-seen', req.headers.accept ?? '')
        res.end('{"hello":"world"}')
      } else if (req.url === '/hang') {
        // never answers
      } else if (req.url === '/stall-body') {
        res.writeHead(200, { 'content-type': 'text/plain' })
        res.write('partial')
      } else if (req.url === '/big-declared') {
        res.writeHead(200, { 'content-length': String(10_000) })
        res.end('x'.repeat(10_000))
      } else if (req.url === '/big-chunked') {
        res.writeHead(200, { 'content-type': 'text/plain' })
        for (let i = 0; i < 20; i++) res.write('y'.repeat(100))
        res.end()
      } else if (req.url?.startsWith('/loop')) {
        res.writeHead(302, { location: `/loop${Number(req.url.slice(5) || 0) + 1}` }).end()
      } else if (req.url === '/relative') {
        res.writeHead(301, { location: '/hello' }).end()
      } else if (req.url?.startsWith('/to?')) {
        res.writeHead(307, { location: decodeURIComponent(req.url.slice(4)) }).end()
      } else {
        res.writeHead(404).end()
      }
    })
    // A second loopback address stands for "some private service" a redirect must not reach.
    privateTarget = await serve('127.0.0.2', (_req, res) => res.end('secret'))
  })
  after(async () => {
    await ok.close()
    await privateTarget.close()
  })

  it('refuses a literal loopback URL when private targets are off, without connecting', async () => {
    const get = createGuardedFetch(base)
    const before = ok.hits.length
    await assert.rejects(get(`http://127.0.0.1:${ok.port}/hello`), isValidation(/loopback.*refused/))
    await assert.rejects(get(`http://[::ffff:127.0.0.1]:${ok.port}/hello`), isValidation(/IPv4-mapped loopback/))
    await assert.rejects(get(`http://0x7f.1:${ok.port}/hello`), isValidation(/loopback/))
    assert.equal(ok.hits.length, before)
  })

  it('refuses a hostname whose resolved address is private (the check sits in the socket lookup)', async () => {
    // Real DNS: localhost comes from the hosts file.
    await assert.rejects(
      createGuardedFetch(base)(`http://localhost:${ok.port}/hello`),
      isValidation(/localhost resolves to .* loopback/),
    )
    // One private address among public ones is enough to refuse.
    const mixed = createGuardedFetch({
      ...base,
      resolveHost: async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '127.0.0.1', family: 4 },
      ],
    })
    await assert.rejects(
      mixed(`http://mixed.test:${ok.port}/hello`),
      isValidation(/mixed.test resolves to a loopback .*address/),
    )
  })

  it('fetches when private targets are allowed', async () => {
    const res = await createGuardedFetch({ ...base, allowPrivate: true })(`http://127.0.0.1:${ok.port}/hello`, {
      accept: 'application/json',
    })
    assert.equal(res.status, 200)
    assert.equal(new TextDecoder().decode(res.body), '{"hello":"world"}')
    assert.equal(res.headers['content-type'], 'application/json')
    assert.equal(res.headers['x-accept-seen'], 'application/json')
    assert.equal(res.url, `http://127.0.0.1:${ok.port}/hello`)
  })

  it('returns non-2xx answers to the caller', async () => {
    const res = await createGuardedFetch({ ...base, allowPrivate: true })(`http://127.0.0.1:${ok.port}/nothing`)
    assert.equal(res.status, 404)
  })

  it('times out a server that never answers, and one that stalls mid-body', async () => {
    const get = createGuardedFetch({ ...base, allowPrivate: true, timeoutMs: 150 })
    // Neither server ever finishes: only the limit, which the error names, can end these calls.
    await assert.rejects(get(`http://127.0.0.1:${ok.port}/hang`), isUnavailable(/did not answer within 150 ms/))
    await assert.rejects(get(`http://127.0.0.1:${ok.port}/stall-body`), isUnavailable(/did not answer within 150 ms/))
  })

  it('times out a DNS answer that never comes', async () => {
    const get = createGuardedFetch({ ...base, timeoutMs: 100, resolveHost: () => new Promise(() => {}) })
    await assert.rejects(get('http://slow-dns.test/'), isUnavailable(/did not answer within 100 ms/))
  })

  it('caps the body size, declared or streamed', async () => {
    const get = createGuardedFetch({ ...base, allowPrivate: true, maxBytes: 1024 })
    await assert.rejects(get(`http://127.0.0.1:${ok.port}/big-declared`), isUnavailable(/larger than 1024 bytes/))
    await assert.rejects(get(`http://127.0.0.1:${ok.port}/big-chunked`), isUnavailable(/larger than 1024 bytes/))
  })

  it('follows redirects up to maxRedirects', async () => {
    const get = createGuardedFetch({ ...base, allowPrivate: true, maxRedirects: 2 })
    const res = await get(`http://127.0.0.1:${ok.port}/relative`)
    assert.equal(res.status, 200)
    assert.equal(res.url, `http://127.0.0.1:${ok.port}/hello`)
    await assert.rejects(get(`http://127.0.0.1:${ok.port}/loop`), isUnavailable(/more than 2 redirects/))
  })

  describe('a redirect from a public host to a private one', () => {
    // Every address a test can reach is loopback, i.e. refused by the real policy. To stand in
    // for a public first hop, the policy is narrowed to let exactly 127.0.0.1 through; 127.0.0.2
    // keeps its real verdict (loopback). The check itself, and the rule that it runs on the
    // address the socket dials, are unchanged: that is what these tests exercise.
    const publicLoopback = (ip: string) => (ip === '127.0.0.1' ? undefined : refusedAddressReason(ip))
    const hosts: Record<string, string> = { 'public.test': '127.0.0.1', 'internal.test': '127.0.0.2' }
    const options: GuardedFetchOptions = {
      ...base,
      addressPolicy: publicLoopback,
      resolveHost: async (name) => {
        const address = hosts[name]
        if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' })
        return [{ address, family: 4 }]
      },
    }

    it('the simulated public first hop is reachable', async () => {
      const res = await createGuardedFetch(options)(`http://public.test:${ok.port}/hello`)
      assert.equal(res.status, 200)
    })

    it('refuses the hop to a literal private address before connecting', async () => {
      const target = encodeURIComponent(`http://127.0.0.2:${privateTarget.port}/`)
      await assert.rejects(
        createGuardedFetch(options)(`http://public.test:${ok.port}/to?${target}`),
        isValidation(/127\.0\.0\.2.*loopback.*refused/),
      )
      assert.equal(privateTarget.hits.length, 0)
    })

    it('refuses the hop to a hostname that resolves privately', async () => {
      const target = encodeURIComponent(`http://internal.test:${privateTarget.port}/`)
      await assert.rejects(
        createGuardedFetch(options)(`http://public.test:${ok.port}/to?${target}`),
        isValidation(/internal\.test resolves to a loopback .*address/),
      )
      assert.equal(privateTarget.hits.length, 0)
    })

    it('control: with private targets allowed the same redirect reaches the target', async () => {
      const target = encodeURIComponent(`http://internal.test:${privateTarget.port}/`)
      const res = await createGuardedFetch({ ...options, allowPrivate: true })(
        `http://public.test:${ok.port}/to?${target}`,
      )
      assert.equal(new TextDecoder().decode(res.body), 'secret')
      assert.equal(privateTarget.hits.length, 1)
    })
  })

  it('refuses schemes other than http(s) and URLs with credentials', async () => {
    const get = createGuardedFetch({ ...base, allowPrivate: true })
    await assert.rejects(get('file:///etc/passwd'), isValidation(/Only http and https/))
    await assert.rejects(get('ftp://example.com/'), isValidation(/Only http and https/))
    await assert.rejects(get(`http://user:pw@127.0.0.1:${ok.port}/hello`), isValidation(/credentials/))
    await assert.rejects(get('not a url'), isValidation(/Not a valid URL/))
  })

  it('reports unreachable hosts as a dependency failure', async () => {
    const closed = await serve('127.0.0.1', () => {})
    await closed.close()
    const get = createGuardedFetch({ ...base, allowPrivate: true })
    await assert.rejects(get(`http://127.0.0.1:${closed.port}/`), isUnavailable(/unreachable \(ECONNREFUSED\)/))
    const noDns = createGuardedFetch({
      ...base,
      resolveHost: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' })
      },
    })
    await assert.rejects(noDns('http://nowhere.test/'), isUnavailable(/unreachable \(ENOTFOUND\)/))
  })
})
