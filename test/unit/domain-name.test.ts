/** Domain canonical form and the origin rule of Domain Linkage Credentials: pure functions. */
import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { originOf } from '../../src/modules/domain/domain-linkage.js'
import { normalizeDomain, proofLocations } from '../../src/modules/domain/domain-name.js'
import { ValidationError } from '../../src/errors.js'

describe('normalizeDomain', () => {
  const accepted: [string, string][] = [
    ['example.com', 'example.com'],
    ['  Sub.Example.COM  ', 'sub.example.com'],
    ['example.com.', 'example.com'],
    ['Bücher.example.com', 'xn--bcher-kva.example.com'],
    ['xn--bcher-kva.example.com', 'xn--bcher-kva.example.com'],
    ['münchen.de', 'xn--mnchen-3ya.de'],
    ['a-b.c-d.example.org', 'a-b.c-d.example.org'],
    ['1password.com', '1password.com'],
    [`${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
  ]
  for (const [input, expected] of accepted) {
    it(`accepts ${JSON.stringify(input)}`, () => assert.equal(normalizeDomain(input), expected))
  }
  const refused: [string, RegExp][] = [
    ['', /empty/],
    ['https://example.com', /scheme/],
    ['HTTP://example.com', /scheme/],
    ['example.com/x', /path/],
    ['example.com?x', /path/],
    ['example.com:8443', /port/],
    ['user@example.com', /user information/],
    ['93.184.216.34', /IP addresses/],
    ['0x7f.1', /IP addresses/],
    ['127.1', /IP addresses/],
    ['[2001:db8::1]', /IP addresses/],
    ['2001:db8::1', /IP addresses/],
    ['localhost', /single-label|special-use/],
    ['intranet', /single-label/],
    ['foo.localhost', /special-use/],
    ['printer.local', /special-use/],
    ['x.test', /special-use/],
    ['x.example', /special-use/],
    ['x.invalid', /special-use/],
    ['x.onion', /special-use/],
    ['1.168.192.in-addr.arpa', /special-use/],
    ['x.internal', /special-use/],
    ['example.123', /all digits|not a valid domain name/],
    [`${'a'.repeat(64)}.com`, /longer than 63/],
    [`${'abcdefghi.'.repeat(26)}com`, /longer than 253/],
    ['exa mple.com', /spaces/],
    ['-x.example.com', /inner hyphens/],
    ['x-.example.com', /inner hyphens/],
    ['_dmarc.example.com', /inner hyphens/],
    ['a..example.com', /empty label/],
    ['xn--zz.com', /not a valid domain name/],
  ]
  for (const [input, reason] of refused) {
    it(`refuses ${JSON.stringify(input)}`, () =>
      assert.throws(
        () => normalizeDomain(input),
        (e: unknown) => e instanceof ValidationError && reason.test(e.message),
      ))
  }
})

describe('proofLocations', () => {
  it('names the well-known file, the TXT record and the DID configuration', () => {
    assert.deepEqual(proofLocations('example.com'), {
      origin: 'https://example.com',
      wellKnownUrl: 'https://example.com/.well-known/credential-service-verification.txt',
      txtName: '_credential-service-challenge.example.com',
      didConfigurationUrl: 'https://example.com/.well-known/did-configuration.json',
    })
  })
})

describe('originOf (vc.credentialSubject.origin)', () => {
  const cases: [string, string | undefined][] = [
    ['https://identity.foundation', 'https://identity.foundation'],
    ['identity.foundation', 'https://identity.foundation'],
    ['https://Identity.Foundation/', 'https://identity.foundation'],
    ['https://identity.foundation:443', 'https://identity.foundation'],
    ['https://bücher.example.com', 'https://xn--bcher-kva.example.com'],
    ['http://identity.foundation', 'http://identity.foundation'],
    ['https://identity.foundation:8443', 'https://identity.foundation:8443'],
    ['https://identity.foundation/path', undefined],
    ['https://identity.foundation?q', undefined],
    ['https://user@identity.foundation', undefined],
    ['not a host', undefined],
  ]
  for (const [input, expected] of cases) {
    it(`${input} -> ${expected}`, () => assert.equal(originOf(input), expected))
  }
})
