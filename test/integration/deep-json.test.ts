/**
 * Deep and oversized JSON (issue 20, item 5): nesting, key counts and string lengths past
 * src/json-limits.ts in every free-form field and in JSON inside signed material are refused at
 * the edge with a 400 naming the field, and nothing a client sends can make the database stop
 * answering others. Every request has a deadline: the failure this guards against is a request
 * that is never answered and a database that serves no one after it.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import { JSON_LIMITS } from '../../src/json-limits.js'
import { nestedJsonText, signJwtText, withRawProperty } from '../helpers/deep-json.js'
import { bearer, DidClient } from '../helpers/did-client.js'
import { injectWithin } from '../helpers/fuzz/fuzz-runner.js'
import { VERY_DEEP } from '../helpers/fuzz/hostile-values.js'
import { accessToken, createClient, pathOf, type VcApiClient } from '../helpers/vc-api.js'
import { signPresentation } from '../helpers/holder-wallet.js'
import { IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { multipart } from '../helpers/wallet-fixtures.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const { documentDepth, freeFormDepth, freeFormMembers, freeFormStringLength } = JSON_LIMITS
const DEADLINE_MS = 10_000

const SCHEMA = {
  name: 'Deep',
  version: '1',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'address', data_type: 'object' },
    { name: 'courses', data_type: 'array' },
  ],
  anonymous_credentials: false,
}

/** A free-form object value (as JSON text) of exactly `depth` levels: `{"address": {"a": … "x"}}`. */
const recordOfDepth = (depth: number) => `{"address":${nestedJsonText(depth - 1)}}`
/** A free-form object value holding `members` keys and items in all. */
const recordOfMembers = (members: number) => `{"courses":[${Array.from({ length: members - 1 }, () => '0').join(',')}]}`
/** A free-form object value with one string of `length` characters. */
const recordWithString = (length: number) => `{"address":{"note":"${'x'.repeat(length)}"}}`

/** A JSON text with `"@VALUE@"` replaced by `valueText`. */
const fill = (template: unknown, valueText: string) => JSON.stringify(template).replace('"@VALUE@"', valueText)

describe('deep and oversized JSON is refused at the edge, and the database keeps serving', () => {
  let t: TestApp
  const issuer = new IssuerActor()
  const holder = new DidClient()
  const verifier = new DidClient()
  const external = new DidClient()
  let holderToken: string
  let verifierToken: string
  let schemaId: string
  let templateId: string
  let requestId: string
  let vcApiClient: VcApiClient
  let vcApiToken: string

  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Deep University')
    schemaId = await issuer.schema(t.app, SCHEMA)
    holderToken = await holder.login(t.app)
    verifierToken = await verifier.login(t.app)
    const template = await call('POST', `/api/issuer/${issuer.did}/templates`, issuer.token, {
      name: 'T',
      credential_type: 'Deep',
      schema_id: schemaId,
    })
    assert.equal(template.statusCode, 201, template.body)
    templateId = template.json().template.id
    const request = await call('POST', '/api/wallet/credential-request', holderToken, {
      issuer_did: issuer.did,
      schema_id: schemaId,
      credential_type: 'Deep',
      attributes: { given_name: 'Ada' },
    })
    assert.equal(request.statusCode, 201, request.body)
    requestId = request.json().request.id
    vcApiClient = await createClient(t.app, issuer)
    vcApiToken = await accessToken(t.app, vcApiClient)
  })
  after(() => t.close())

  function call(
    method: 'GET' | 'POST' | 'PUT',
    url: string,
    token?: string,
    payload?: unknown,
  ): Promise<LightMyRequestResponse> {
    return injectWithin(
      t.app,
      {
        method,
        url,
        headers: token ? bearer(token) : {},
        ...(payload === undefined ? {} : { payload: payload as object }),
      },
      DEADLINE_MS,
    )
  }
  function send(
    method: 'POST' | 'PUT',
    url: string,
    token: string | undefined,
    text: string,
  ): Promise<LightMyRequestResponse> {
    return injectWithin(
      t.app,
      { method, url, headers: { ...(token ? bearer(token) : {}), 'content-type': 'application/json' }, payload: text },
      DEADLINE_MS,
    )
  }

  /** Other clients are served: health is up, a new DID signs in, the holder's wallet lists. */
  async function assertServing(): Promise<void> {
    const health = await call('GET', '/api/health')
    assert.equal(health.statusCode, 200, `health: ${health.body}`)
    const login = await injectWithin(
      t.app,
      { method: 'POST', url: '/api/auth/verify-challenge', payload: await new DidClient().proof(t.app) },
      DEADLINE_MS,
    )
    assert.equal(login.statusCode, 200, `login: ${login.body}`)
    const listing = await call('GET', `/api/wallet/${holder.did}/credentials`, holderToken)
    assert.equal(listing.statusCode, 200, `wallet listing: ${listing.body}`)
  }

  function assertRefused(res: LightMyRequestResponse, field: string, what: string): void {
    assert.equal(res.statusCode, 400, `${what}: ${res.body.slice(0, 300)}`)
    const body = res.json()
    assert.equal(body.success, false, what)
    assert.equal(body.code, 'VALIDATION_FAILED', what)
    assert.ok(body.message.includes(field), `${what}: the message names ${field}: ${body.message}`)
  }

  /** Every free-form field of a request body, and a request that carries `valueText` in it. */
  const freeFormFields: Array<{
    field: string
    route: string
    request: (valueText: string) => Promise<{ method: 'POST' | 'PUT'; url: string; token?: string; text: string }>
  }> = [
    {
      field: 'metadata',
      route: 'POST /api/auth/create-wallet',
      request: async (v) => ({
        method: 'POST',
        url: '/api/auth/create-wallet',
        text: withRawProperty({ ...(await holder.proof(t.app)), wallet_name: 'Phone' }, 'metadata', v),
      }),
    },
    {
      field: 'fixed_attributes',
      route: 'POST /api/issuer/:did/templates',
      request: async (v) => ({
        method: 'POST',
        url: `/api/issuer/${issuer.did}/templates`,
        token: issuer.token,
        text: withRawProperty({ name: 'T', credential_type: 'Deep', schema_id: schemaId }, 'fixed_attributes', v),
      }),
    },
    {
      field: 'fixed_attributes',
      route: 'PUT /api/issuer/:did/templates/:template_id',
      request: async (v) => ({
        method: 'PUT',
        url: `/api/issuer/${issuer.did}/templates/${templateId}`,
        token: issuer.token,
        text: withRawProperty({}, 'fixed_attributes', v),
      }),
    },
    {
      field: 'attributes',
      route: 'POST /api/issuer/:did/issue',
      request: async (v) => ({
        method: 'POST',
        url: `/api/issuer/${issuer.did}/issue`,
        token: issuer.token,
        text: withRawProperty(
          { credential_type: 'Deep', schema_id: schemaId, subject_did: holder.did },
          'attributes',
          v,
        ),
      }),
    },
    {
      field: 'attributes',
      route: 'POST /api/issuer/:did/offers',
      request: async (v) => ({
        method: 'POST',
        url: `/api/issuer/${issuer.did}/offers`,
        token: issuer.token,
        text: withRawProperty({ credential_type: 'Deep', schema_id: schemaId }, 'attributes', v),
      }),
    },
    {
      field: 'attributes',
      route: 'POST /api/wallet/credential-request',
      request: async (v) => ({
        method: 'POST',
        url: '/api/wallet/credential-request',
        token: holderToken,
        text: withRawProperty(
          { issuer_did: issuer.did, schema_id: schemaId, credential_type: 'Deep' },
          'attributes',
          v,
        ),
      }),
    },
    {
      field: 'attributes',
      route: 'POST /api/wallet/issuer/:issuer_did/request/:request_id/approve',
      request: async (v) => {
        const challenge = await call(
          'GET',
          `/api/wallet/issuer/${issuer.did}/request/${requestId}/challenge`,
          issuer.token,
        )
        assert.equal(challenge.statusCode, 200, challenge.body)
        return {
          method: 'POST',
          url: `/api/wallet/issuer/${issuer.did}/request/${requestId}/approve`,
          token: issuer.token,
          text: withRawProperty({ signature: issuer.sign(challenge.json().challenge) }, 'attributes', v),
        }
      },
    },
    // An OpenID4VP transaction data item (OID4VP 1.0 §5.1): its own fields are the type's, so the item is free-form.
    {
      field: 'transaction_data',
      route: 'POST /api/verifier/requests',
      request: async (v) => ({
        method: 'POST',
        url: '/api/verifier/requests',
        token: holderToken,
        text: withRawProperty(
          {
            verifier_did: holder.did,
            presentation_type: 'Deep',
            purpose: 'Deep',
            required_credentials: [{ credential_type: 'Deep' }],
          },
          'transaction_data',
          `[${v}]`,
        ),
      }),
    },
    // The W3C VC API: the credential or presentation itself is the free-form value.
    {
      field: 'credential',
      route: 'POST /vc-api/issuers/:issuer_id/:format/credentials/issue',
      request: async (v) => ({
        method: 'POST',
        url: pathOf(vcApiClient.endpoints.issue['eddsa-rdfc-2022']!),
        token: vcApiToken,
        text: withRawProperty({}, 'credential', v),
      }),
    },
    {
      field: 'verifiableCredential',
      route: 'POST /vc-api/credentials/verify',
      request: async (v) => ({
        method: 'POST',
        url: '/vc-api/credentials/verify',
        token: vcApiToken,
        text: withRawProperty({}, 'verifiableCredential', v),
      }),
    },
    {
      field: 'verifiablePresentation',
      route: 'POST /vc-api/presentations/verify',
      request: async (v) => ({
        method: 'POST',
        url: '/vc-api/presentations/verify',
        token: vcApiToken,
        text: withRawProperty({ options: { challenge: 'c' } }, 'verifiablePresentation', v),
      }),
    },
  ]

  /** The route's body limit, from the app's own route table. */
  const bodyLimitOf = (route: string): number => {
    const [method, url] = route.split(' ')
    const found = t.app.routeTable.find((r) => r.method === method && r.url === url)
    assert.ok(found, `route ${route} is registered`)
    return found.bodyLimit ?? t.config.bodyLimitBytes
  }

  it('the free-form fields listed here are every free-form field of the route table', () => {
    // Each body schema node that accepts any JSON carries the free-form limit (the hostile-input
    // suite checks that); this test must cover each of those routes.
    const routes = t.app.routeTable
      .filter((r) => JSON.stringify((r.schema as Json | undefined)?.body ?? {}).includes('"x-free-form-json":true'))
      .map((r) => `${r.method} ${r.url}`)
    assert.deepEqual([...new Set(freeFormFields.map((f) => f.route))].sort(), routes.sort())
  })

  for (const depth of [freeFormDepth + 1, documentDepth + 1, VERY_DEEP]) {
    it(`every free-form field refuses a value ${depth} levels deep with a 400 naming the field, and others are still served`, async () => {
      for (const { field, route, request } of freeFormFields) {
        const r = await request(recordOfDepth(depth))
        assertRefused(await send(r.method, r.url, r.token, r.text), field, `${route}, ${depth} levels`)
      }
      await assertServing()
    })
  }

  it(`every free-form field refuses more than ${freeFormMembers} keys and items, and strings over ${freeFormStringLength} characters`, async () => {
    for (const { field, route, request } of freeFormFields) {
      const members = await request(recordOfMembers(freeFormMembers + 1))
      assertRefused(
        await send(members.method, members.url, members.token, members.text),
        field,
        `${route}, ${freeFormMembers + 1} members`,
      )
      const long = await request(recordWithString(freeFormStringLength + 1))
      const res = await send(long.method, long.url, long.token, long.text)
      // On a route with the small body limit the string cannot arrive at all.
      if (Buffer.byteLength(long.text) > bodyLimitOf(route)) assert.equal(res.statusCode, 413, `${route}: ${res.body}`)
      else assertRefused(res, field, `${route}, a string of ${freeFormStringLength + 1} characters`)
    }
    await assertServing()
  })

  it('a credential right at every limit is issued and listed whole', async () => {
    const issue = (attributesText: string) =>
      send(
        'POST',
        `/api/issuer/${issuer.did}/issue`,
        issuer.token,
        withRawProperty(
          { credential_type: 'Deep', schema_id: schemaId, subject_did: holder.did },
          'attributes',
          attributesText,
        ),
      )
    const deepest = await issue(`{"given_name":"Ada","address":${nestedJsonText(freeFormDepth - 1)}}`)
    assert.equal(deepest.statusCode, 201, deepest.body)
    const widest = await issue(
      `{"given_name":"Ada","courses":[${Array.from({ length: freeFormMembers - 2 }, () => '1').join(',')}]}`,
    )
    assert.equal(widest.statusCode, 201, widest.body.slice(0, 300))
    const longest = await issue(`{"given_name":"Ada","address":{"note":"${'x'.repeat(freeFormStringLength)}"}}`)
    assert.equal(longest.statusCode, 201, longest.body.slice(0, 300))
    const listing = await call('GET', `/api/wallet/${holder.did}/credentials?limit=200`, holderToken)
    assert.equal(listing.statusCode, 200, listing.body.slice(0, 300))
    const byId = new Map<string, Json>(listing.json().data.map((c: Json) => [c.id, c]))
    assert.deepEqual(
      byId.get(deepest.json().credential.id)?.credential_data.address,
      JSON.parse(nestedJsonText(freeFormDepth - 1)),
    )
    assert.equal(byId.get(widest.json().credential.id)?.credential_data.courses.length, freeFormMembers - 2)
    assert.equal(byId.get(longest.json().credential.id)?.credential_data.address.note.length, freeFormStringLength)
  })

  it("a deep attribute issued to a holder is refused, and that holder's wallet listing still answers", async () => {
    const count = async () => {
      const listing = await call('GET', `/api/wallet/${holder.did}/credentials?limit=200`, holderToken)
      assert.equal(listing.statusCode, 200, listing.body.slice(0, 300))
      return listing.json().count as number
    }
    const before = await count()
    const res = await send(
      'POST',
      `/api/issuer/${issuer.did}/issue`,
      issuer.token,
      withRawProperty(
        { credential_type: 'Deep', schema_id: schemaId, subject_did: holder.did },
        'attributes',
        `{"given_name":"Ada","address":${nestedJsonText(VERY_DEEP)}}`,
      ),
    )
    assertRefused(res, 'attributes', 'issue')
    assert.equal(await count(), before)
  })

  it('a JSON evidence file nested past the document limit is refused unparsed; one within it is kept', async () => {
    const upload = (data: string) => {
      const { payload, headers } = multipart([
        { name: 'label', value: 'transcript' },
        { name: 'file', filename: 'e.json', contentType: 'application/json', data: Buffer.from(data) },
      ])
      return injectWithin(
        t.app,
        {
          method: 'POST',
          url: `/api/wallet/${holder.did}/evidence/upload`,
          headers: { ...headers, ...bearer(holderToken) },
          payload,
        },
        DEADLINE_MS,
      )
    }
    // A megabyte of brackets: parsing it would hold the event loop far longer than the scan.
    const deep = await upload(nestedJsonText(512 * 1024, 'array', '1'))
    assert.equal(deep.statusCode, 415, deep.body)
    assert.equal(deep.json().success, false)
    const fine = await upload(nestedJsonText(documentDepth, 'array', '1'))
    assert.equal(fine.statusCode, 201, fine.body)
    await assertServing()
  })

  describe('JSON inside signed material', () => {
    /** A JWT-VC from an outside did:key issuer to the holder, with `address` set to `valueText` in its credentialSubject. */
    const credentialWith = (valueText: string) => {
      const now = Math.floor(Date.now() / 1000)
      const payload = {
        iss: external.did,
        sub: holder.did,
        iat: now,
        nbf: now,
        jti: `urn:uuid:${randomUUID()}`,
        vc: {
          '@context': ['https://www.w3.org/2018/credentials/v1'],
          type: ['VerifiableCredential', 'DeepBadge'],
          issuer: external.did,
          credentialSubject: { id: holder.did, address: '@VALUE@' },
        },
      }
      return signJwtText(external, fill(payload, valueText))
    }
    const importJwt = (jwt: string) =>
      call('POST', `/api/wallet/${holder.did}/credentials/import`, holderToken, { credential_jwt: jwt })

    it('an imported JWT-VC whose claims are past the free-form limits is refused with a 400 naming credential_jwt', async () => {
      // The claims (credentialSubject) are a free-form value; the payload itself stays under its own depth limit.
      assertRefused(
        await importJwt(credentialWith(nestedJsonText(freeFormDepth))),
        'credential_jwt',
        'claims one level too deep',
      )
      assertRefused(
        await importJwt(credentialWith(`[${Array.from({ length: freeFormMembers }, () => '0').join(',')}]`)),
        'credential_jwt',
        'claims with too many items',
      )
      assertRefused(
        await importJwt(credentialWith(`"${'x'.repeat(freeFormStringLength + 1)}"`)),
        'credential_jwt',
        'a claim string too long',
      )
      // Past the payload's own depth limit, and far past it.
      assertRefused(
        await importJwt(credentialWith(nestedJsonText(documentDepth))),
        'credential_jwt',
        'payload too deep',
      )
      assertRefused(await importJwt(credentialWith(nestedJsonText(VERY_DEEP))), 'credential_jwt', 'payload very deep')
      const atLimit = await importJwt(credentialWith(nestedJsonText(freeFormDepth - 1)))
      assert.equal(atLimit.statusCode, 201, atLimit.body)
      await assertServing()
    })

    /** A presentation request of the verifier, taken into the holder's inbox. */
    async function inboxRequest(): Promise<Json> {
      const created = await call('POST', '/api/verifier/requests', verifierToken, {
        verifier_did: verifier.did,
        presentation_type: 'DeepCheck',
        required_credentials: [{ credential_type: 'Deep' }],
        purpose: 'Testing',
      })
      assert.equal(created.statusCode, 201, created.body)
      const take = await call('POST', '/api/wallet/presentation-requests', holderToken, {
        qr_code_data: created.json().qr_code_data,
      })
      assert.equal(take.statusCode, 201, take.body)
      return created.json().request
    }
    async function localCredential(): Promise<{ id: string; jwt: string }> {
      const res = await call('POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
        credential_type: 'Deep',
        schema_id: schemaId,
        subject_did: holder.did,
        attributes: { given_name: 'Ada' },
      })
      assert.equal(res.statusCode, 201, res.body)
      return { id: res.json().credential.id, jwt: res.json().credential.jwt }
    }
    /** The holder's VP-JWT with an extra payload claim `evidence` set to `valueText`. */
    const presentationWith = (request: Json, credentials: unknown[], valueText: string) => {
      const now = Math.floor(Date.now() / 1000)
      const payload = {
        iss: holder.did,
        aud: verifier.did,
        nonce: request.nonce,
        iat: now,
        exp: now + 600,
        evidence: '@VALUE@',
        vp: {
          '@context': ['https://www.w3.org/2018/credentials/v1'],
          type: ['VerifiablePresentation'],
          holder: holder.did,
          verifiableCredential: credentials,
        },
      }
      return signJwtText(holder, fill(payload, valueText))
    }

    it('a VP-JWT whose payload nests too deep is refused at approval and at submission with a 400 naming presentation_jwt', async () => {
      const credential = await localCredential()
      const request = await inboxRequest()
      for (const depth of [documentDepth, VERY_DEEP]) {
        const vp = presentationWith(request, [credential.jwt], nestedJsonText(depth))
        assertRefused(
          await call('POST', `/api/wallet/presentation-requests/${request.id}/approve`, holderToken, {
            credential_ids: [credential.id],
            presentation_jwt: vp,
          }),
          'presentation_jwt',
          `approval, ${depth} levels`,
        )
        assertRefused(
          await call('POST', '/api/verifier/presentations', holderToken, { presentation_jwt: vp }),
          'presentation_jwt',
          `submission, ${depth} levels`,
        )
      }
      // The same presentation without the deep claim is taken.
      const approved = await call('POST', `/api/wallet/presentation-requests/${request.id}/approve`, holderToken, {
        credential_ids: [credential.id],
        presentation_jwt: presentationWith(request, [credential.jwt], '"fine"'),
      })
      assert.equal(approved.statusCode, 201, approved.body)
      await assertServing()
    })

    it('a presented credential nested too deep fails verification with a readable error; the verifier is still served', async () => {
      const credential = await localCredential()
      const request = await inboxRequest()
      const deepCredential = credentialWith(nestedJsonText(VERY_DEEP))
      const vp = signPresentation(holder, {
        aud: verifier.did,
        nonce: request.nonce,
        credentials: [credential.jwt, deepCredential],
      })
      const approved = await call('POST', `/api/wallet/presentation-requests/${request.id}/approve`, holderToken, {
        credential_ids: [credential.id],
        presentation_jwt: vp,
      })
      assert.equal(approved.statusCode, 201, approved.body)
      const id = approved.json().presentation.id
      const verified = await call('POST', `/api/verifier/presentations/${id}/verify`, verifierToken, {
        presentation_jwt: vp,
      })
      assert.equal(verified.statusCode, 200, verified.body.slice(0, 300))
      const result = verified.json().verification_result
      assert.equal(result.is_valid, false)
      assert.ok(
        result.errors.some(
          (e: string) => e.startsWith('credential 2') && e.includes(`deeper than ${documentDepth} levels`),
        ),
        JSON.stringify(result.errors),
      )
      assert.equal((await call('GET', `/api/verifier/presentations/${id}`, verifierToken)).statusCode, 200)
      assert.equal((await call('GET', `/api/verifier/${verifier.did}/presentations`, verifierToken)).statusCode, 200)
      await assertServing()
    })
  })

  describe('the database itself', () => {
    const db = () => t.deps.database.db
    const within = <T>(promise: Promise<T>, what: string): Promise<T> =>
      Promise.race([
        promise,
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`${what}: no answer within ${DEADLINE_MS} ms (hang)`)),
            DEADLINE_MS,
          ).unref(),
        ),
      ])

    it('a JSON parameter nested past what the database parses fails its statement (54001, as PostgreSQL answers), inside a transaction too, and the next statements run', async () => {
      const deep = nestedJsonText(20_000, 'array', '1')
      const refused = (error: unknown) => (error as { code?: unknown }).code === '54001'
      await assert.rejects(within(sql`select ${deep}::jsonb as j`.execute(db()), 'a deep jsonb parameter'), refused)
      await assert.rejects(
        within(
          db()
            .transaction()
            .execute((trx) => sql`select ${deep}::json as j`.execute(trx)),
          'a deep json parameter in a transaction',
        ),
        refused,
      )
      const after = await within(sql<{ one: number }>`select 1 as one`.execute(db()), 'the next statement')
      assert.equal(after.rows[0]?.one, 1)
      await assertServing()
    })

    it('a stored value nested too deep to hand over answers its request rather than hanging, inside a transaction too, and the database keeps serving', async () => {
      const request = await call('POST', '/api/wallet/credential-request', holderToken, {
        issuer_did: issuer.did,
        schema_id: schemaId,
        credential_type: 'Deep',
        attributes: { given_name: 'Deep' },
      })
      assert.equal(request.statusCode, 201, request.body)
      const id: string = request.json().request.id
      // Built inside the database, as data stored before the edge limits were would be.
      await within(
        sql`update credential_requests set attributes = jsonb_build_object('address', (repeat('{"a":', 3000) || '1' || repeat('}', 3000))::jsonb) where id = ${id}`.execute(
          db(),
        ),
        'storing',
      )
      const listing = await call('GET', `/api/wallet/${holder.did}/credential-requests`, holderToken)
      assert.ok(listing.statusCode === 200 || listing.statusCode === 500, `the listing answers: ${listing.statusCode}`)
      await within(
        db()
          .transaction()
          .execute((trx) => trx.selectFrom('credential_requests').selectAll().where('id', '=', id).execute())
          .catch(() => undefined),
        'reading it in a transaction',
      )
      await assertServing()
      await within(
        sql`update credential_requests set attributes = '{}'::jsonb where id = ${id}`.execute(db()),
        'clearing it',
      )
    })
  })
})
