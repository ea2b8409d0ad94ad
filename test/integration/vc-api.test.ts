/**
 * The W3C VC API (docs/vc-api.md) over HTTP: an issuer profile's OAuth 2.0 clients, the token
 * endpoint (RFC 6749 §4.4 client credentials, §5.2 errors), issuing in every document-securing
 * format, the status route, and credential and presentation verification.
 *
 * Real: the whole app on the engine under test (app.inject). Checked independently of the
 * service: Data Integrity credentials with @digitalbazaar/vc alone (the cryptosuites, a document
 * loader built here from the context packages, did:key documents built from the key), vc+jwt with
 * jose and the key inside the issuer's did:key, status lists with @digitalbazaar/vc-bitstring-status-list,
 * presentations signed by a holder key with @digitalbazaar/vc's signPresentation.
 * Swapped: outgoing HTTP answers 404, so an unknown JSON-LD context is never fetched.
 */
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import {
  createDiscloseCryptosuite,
  createVerifyCryptosuite as bbsVerifySuite,
} from '@digitalbazaar/bbs-2023-cryptosuite'
import { DataIntegrityProof } from '@digitalbazaar/data-integrity'
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey'
import { createVerifyCryptosuite as jcsVerifySuite } from '@digitalbazaar/eddsa-jcs-2022-cryptosuite'
import { cryptosuite as rdfc } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite'
import * as vc from '@digitalbazaar/vc'
import { checkStatus, decodeList } from '@digitalbazaar/vc-bitstring-status-list'
import { decodeProtectedHeader, importJWK, jwtVerify } from 'jose'
import { base58btc } from 'multiformats/bases/base58'
import { JSON_LIMITS } from '../../src/json-limits.js'
import { DidClient } from '../helpers/did-client.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { TEST_ENGINE } from '../helpers/test-database.js'
import {
  accessToken,
  basicAuth,
  createClient,
  libraryDocumentLoader,
  nested,
  pathOf,
  tokenRequest,
  VC_V1,
  VC_V2,
  vcApiPost,
  type Json,
  type VcApiClient,
} from '../helpers/vc-api.js'

const DI_FORMATS = ['eddsa-rdfc-2022', 'eddsa-jcs-2022', 'bbs-2023'] as const
const FORMATS = [...DI_FORMATS, 'vc+jwt'] as const
type Format = (typeof FORMATS)[number]
type DiFormat = (typeof DI_FORMATS)[number]
const IETF_BBS_KEY_TYPE = 'BBS-BLS12-381-SHA-256'
/** The VCDM 2.0 context defines no catch-all @vocab; claims of other terms bring a context of their own. */
const VOCAB = { '@vocab': 'https://example.org/vocab#' }

describe(`W3C VC API: clients, tokens, issue, status, verify (${TEST_ENGINE})`, () => {
  /** Every URL the service fetched: a credential must never make it fetch what it names. */
  const fetched: string[] = []
  let t: TestApp
  /** Signs with service-made did:keys, so a verifier needs nothing of the service to resolve them. */
  const issuerA = new IssuerActor()
  /** A second issuer (hosted did:web). */
  const issuerB = new IssuerActor()
  const strict = new IssuerActor()
  const noProfile = new DidClient()
  let noProfileToken: string
  let clientA: VcApiClient
  let clientB: VcApiClient
  let tokenA: string
  let tokenB: string
  /** A's signing DIDs by key type. */
  let ed25519Did: string
  let bbsDid: string
  let loader: ReturnType<typeof libraryDocumentLoader>

  const issuerFor = (format: Format) => (format === 'bbs-2023' ? bbsDid : ed25519Did)
  const credentialFor = (format: Format, extra: Json = {}): Json => ({
    '@context': [VC_V2],
    id: `urn:uuid:${randomUUID()}`,
    type: ['VerifiableCredential'],
    issuer: issuerFor(format),
    validFrom: '2026-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:ebfeb1f712ebc6f1c276e12ec21', name: 'Ada Lovelace' },
    ...extra,
  })
  const issue = (format: string, body: Json, token = tokenA, client = clientA) =>
    vcApiPost(
      t.app,
      client.endpoints.issue[format] ??
        client.endpoints.issue['eddsa-rdfc-2022']!.replace('/eddsa-rdfc-2022/', `/${encodeURIComponent(format)}/`),
      token,
      body,
    )
  const issued = async (format: Format, extra: Json = {}, options?: Json): Promise<Json> => {
    const res = await issue(format, { credential: credentialFor(format, extra), ...(options ? { options } : {}) })
    assert.equal(res.statusCode, 201, res.body)
    return res.json()
  }
  const updateStatus = (credentialId: string, status: string | boolean, token = tokenA, client = clientA) =>
    vcApiPost(t.app, client.endpoints.status, token, {
      credentialId,
      credentialStatus: [{ type: 'BitstringStatusListCredential', status }],
    })
  const verifyHere = (verifiableCredential: unknown, token = tokenA) =>
    vcApiPost(t.app, clientA.endpoints.verify, token, { verifiableCredential })

  const verifySuite = (format: DiFormat) =>
    new DataIntegrityProof({
      cryptosuite:
        format === 'eddsa-rdfc-2022' ? rdfc : format === 'eddsa-jcs-2022' ? jcsVerifySuite() : bbsVerifySuite(),
    })
  /** @digitalbazaar/vc alone; a bbs-2023 base proof is first derived by the holder (bbs-2023 §3.4.3), as a verifier only ever sees a derived one. */
  const libraryVerify = async (credential: Json, format: DiFormat) => {
    const presented =
      format === 'bbs-2023'
        ? await vc.derive({
            verifiableCredential: credential,
            suite: new DataIntegrityProof({
              cryptosuite: createDiscloseCryptosuite({ selectivePointers: ['/credentialSubject/name'] }),
            }),
            documentLoader: loader,
          })
        : credential
    return vc.verifyCredential({
      credential: presented,
      suite: verifySuite(format),
      documentLoader: loader,
      checkStatus: async () => ({ verified: true }),
    })
  }
  /** The jose view of an EnvelopedVerifiableCredential: its data: URL's JWT, verified with the key inside the did:key it names. */
  const joseVerify = async (envelope: Json) => {
    assert.equal(envelope.type, 'EnvelopedVerifiableCredential')
    const match = /^data:application\/vc\+jwt,(.+)$/s.exec(envelope.id)
    assert.ok(match, `a data: URL of a vc+jwt: ${envelope.id}`)
    const jwt = match[1]!
    const kid = String(decodeProtectedHeader(jwt).kid)
    const did = kid.split('#')[0]!
    assert.ok(did.startsWith('did:key:z6Mk'), kid)
    const raw = base58btc.decode(did.slice('did:key:'.length)).subarray(2)
    const key = await importJWK({ kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, 'EdDSA')
    const { payload, protectedHeader } = await jwtVerify(jwt, key)
    return { jwt, payload: payload as Json, header: protectedHeader, did }
  }

  before(async () => {
    t = await createTestApp({
      httpGet: async (url) => {
        fetched.push(url)
        return {
          status: 404,
          headers: { 'content-type': 'text/plain' },
          body: new TextEncoder().encode('not found'),
          url,
        }
      },
    })
    loader = libraryDocumentLoader(t.app, t.config.publicBaseUrl)
    issuerA.token = await issuerA.login(t.app)
    const created = await callAs(t.app, 'POST', '/api/issuer', issuerA.token, {
      name: 'Key Uni',
      signing_did_method: 'key',
    })
    assert.equal(created.statusCode, 201, created.body)
    await issuerB.setUp(t.app, 'Web Uni')
    await strict.setUp(t.app, 'Strict Uni')
    const set = await callAs(t.app, 'POST', `/api/issuer/${strict.did}/set-auth`, strict.token, {
      ...(await strict.proof(t.app, strict.did, 'step-up')),
      require_step_up: true,
    })
    assert.equal(set.statusCode, 200, set.body)
    noProfileToken = await noProfile.login(t.app)

    const signing = (await callAs(t.app, 'GET', `/api/issuer/${issuerA.did}/signing`, issuerA.token)).json()
    const current = (keyType: string) =>
      signing.signing_dids.find((d: Json) => d.current && d.key_type === keyType)?.did as string
    ed25519Did = current('Ed25519')
    bbsDid = current(IETF_BBS_KEY_TYPE)
    assert.match(ed25519Did, /^did:key:z6Mk/)
    assert.match(bbsDid, /^did:key:zUC7/)
    clientA = await createClient(t.app, issuerA)
    clientB = await createClient(t.app, issuerB)
    tokenA = await accessToken(t.app, clientA)
    tokenB = await accessToken(t.app, clientB)
  })
  after(() => t?.close())

  describe('clients of an issuer profile', () => {
    it('creates one: 201, the secret shown in that answer only, and the VC API endpoints of this issuer', async () => {
      const res = await callAs(t.app, 'POST', `/api/issuer/${issuerA.did}/vc-api/clients`, issuerA.token, {
        name: 'Nightly issuance',
      })
      assert.equal(res.statusCode, 201, res.body)
      const client = res.json().client
      assert.equal(client.name, 'Nightly issuance')
      assert.equal(client.revoked_at, null)
      assert.ok(typeof client.client_id === 'string' && client.client_id.length >= 16)
      assert.ok(typeof client.client_secret === 'string' && client.client_secret.length >= 32, 'a long random secret')
      assert.notEqual(client.client_secret, clientA.client_secret)
      const base = t.config.publicBaseUrl
      assert.equal(client.endpoints.token, `${base}/oauth2/token`)
      assert.deepEqual(Object.keys(client.endpoints.issue).sort(), [...FORMATS].sort())
      const instance = /\/vc-api\/issuers\/([^/]+)\/eddsa-rdfc-2022\/credentials\/issue$/.exec(
        client.endpoints.issue['eddsa-rdfc-2022'],
      )?.[1]
      assert.ok(instance, client.endpoints.issue['eddsa-rdfc-2022'])
      for (const format of FORMATS)
        assert.equal(client.endpoints.issue[format], `${base}/vc-api/issuers/${instance}/${format}/credentials/issue`)
      assert.equal(client.endpoints.status, `${base}/vc-api/issuers/${instance}/credentials/status`)
      assert.equal(client.endpoints.verify, `${base}/vc-api/credentials/verify`)
      assert.equal(client.endpoints.presentations_verify, `${base}/vc-api/presentations/verify`)
      // Another issuer's instance is another path.
      assert.ok(!clientB.endpoints.issue['eddsa-rdfc-2022']!.includes(instance))
      // The new client works at once.
      assert.ok(await accessToken(t.app, client))
    })

    it('lists them without their secrets', async () => {
      const res = await callAs(t.app, 'GET', `/api/issuer/${issuerA.did}/vc-api/clients`, issuerA.token)
      assert.equal(res.statusCode, 200, res.body)
      const listed = res.json().clients as Json[]
      assert.ok(
        listed.some((c) => c.client_id === clientA.client_id && c.name === 'CI pipeline' && c.revoked_at === null),
      )
      assert.ok(!listed.some((c) => c.client_id === clientB.client_id), "B's client is not in A's list")
      for (const c of listed) assert.equal(c.client_secret, undefined)
      assert.ok(!res.body.includes(clientA.client_secret), 'the secret appears nowhere in the listing')
    })

    it('revokes one: its tokens stop working (401), its secret gets no new token; listed as revoked', async () => {
      const client = await createClient(t.app, issuerA, 'Short-lived')
      const token = await accessToken(t.app, client)
      assert.equal(
        (await updateStatus('urn:uuid:never-issued', 'revoked', token, client)).statusCode,
        404,
        'the token works before (past the auth hook)',
      )
      const revoked = await callAs(
        t.app,
        'DELETE',
        `/api/issuer/${issuerA.did}/vc-api/clients/${client.client_id}`,
        issuerA.token,
      )
      assert.equal(revoked.statusCode, 200, revoked.body)
      const after = await updateStatus('urn:uuid:never-issued', 'revoked', token, client)
      assert.equal(after.statusCode, 401, after.body)
      assert.equal(
        (await issue('eddsa-rdfc-2022', { credential: credentialFor('eddsa-rdfc-2022') }, token, client)).statusCode,
        401,
      )
      const again = await tokenRequest(
        t.app,
        { grant_type: 'client_credentials' },
        basicAuth(client.client_id, client.client_secret),
      )
      assert.equal(again.statusCode, 401, again.body)
      assert.equal(again.json().error, 'invalid_client')
      const listed = (await callAs(t.app, 'GET', `/api/issuer/${issuerA.did}/vc-api/clients`, issuerA.token)).json()
        .clients as Json[]
      assert.ok(listed.find((c) => c.client_id === client.client_id)?.revoked_at, 'revoked_at is set')
      // A second revocation: no active client with that id.
      assert.equal(
        (await callAs(t.app, 'DELETE', `/api/issuer/${issuerA.did}/vc-api/clients/${client.client_id}`, issuerA.token))
          .statusCode,
        404,
      )
      // The issuer's other client is untouched.
      assert.equal((await updateStatus('urn:uuid:never-issued', 'revoked')).statusCode, 404)
    })

    it("another issuer's client id is unknown (404) and stays working; a made-up id is 404", async () => {
      const res = await callAs(
        t.app,
        'DELETE',
        `/api/issuer/${issuerB.did}/vc-api/clients/${clientA.client_id}`,
        issuerB.token,
      )
      assert.equal(res.statusCode, 404, res.body)
      const ghost = await callAs(
        t.app,
        'DELETE',
        `/api/issuer/${issuerB.did}/vc-api/clients/vcc_AAAAAAAAAAAAAAAAAAAAAA`,
        issuerB.token,
      )
      assert.equal(ghost.statusCode, 404)
      assert.equal(ghost.json().code, res.json().code)
      assert.equal((await updateStatus('urn:uuid:never-issued', 'revoked')).statusCode, 404, "A's client still works")
      // B's session on A's path is another DID: 403 from the ownership check.
      assert.equal(
        (await callAs(t.app, 'GET', `/api/issuer/${issuerA.did}/vc-api/clients`, issuerB.token)).statusCode,
        403,
      )
    })

    it('a signed-in DID without an issuer profile has no clients: 404', async () => {
      assert.equal(
        (await callAs(t.app, 'POST', `/api/issuer/${noProfile.did}/vc-api/clients`, noProfileToken, { name: 'x' }))
          .statusCode,
        404,
      )
      assert.equal(
        (await callAs(t.app, 'GET', `/api/issuer/${noProfile.did}/vc-api/clients`, noProfileToken)).statusCode,
        404,
      )
      assert.equal(
        (
          await callAs(
            t.app,
            'DELETE',
            `/api/issuer/${noProfile.did}/vc-api/clients/${clientA.client_id}`,
            noProfileToken,
          )
        ).statusCode,
        404,
      )
    })

    it('refuses a bad name (400) and no session (401)', async () => {
      for (const body of [{}, { name: '' }, { name: 'x'.repeat(201) }]) {
        assert.equal(
          (await callAs(t.app, 'POST', `/api/issuer/${issuerA.did}/vc-api/clients`, issuerA.token, body)).statusCode,
          400,
          JSON.stringify(body).slice(0, 50),
        )
      }
      assert.equal(
        (await callAs(t.app, 'POST', `/api/issuer/${issuerA.did}/vc-api/clients`, undefined, { name: 'x' })).statusCode,
        401,
      )
      assert.equal(
        (await callAs(t.app, 'POST', `/api/issuer/${issuerA.did}/vc-api/clients`, tokenA, { name: 'x' })).statusCode,
        401,
        'a VC API token is no session token',
      )
    })

    it('a profile that requires step-up creates and revokes clients only from a stepped-up session', async () => {
      const create = (token: string) =>
        callAs(t.app, 'POST', `/api/issuer/${strict.did}/vc-api/clients`, token, { name: 'Strict client' })
      const refused = await create(strict.token)
      assert.equal(refused.statusCode, 401, refused.body)
      assert.match(refused.json().message, /step-up/)
      const steppedUp = await strict.login(t.app)
      const auth = await callAs(
        t.app,
        'POST',
        `/api/issuer/${strict.did}/authenticate`,
        steppedUp,
        await strict.proof(t.app, strict.did, 'step-up'),
      )
      assert.equal(auth.statusCode, 200, auth.body)
      const created = await create(steppedUp)
      assert.equal(created.statusCode, 201, created.body)
      const client = created.json().client as VcApiClient
      // Listing is a read: no step-up.
      assert.equal(
        (await callAs(t.app, 'GET', `/api/issuer/${strict.did}/vc-api/clients`, strict.token)).statusCode,
        200,
      )
      const revokeWith = (token: string) =>
        callAs(t.app, 'DELETE', `/api/issuer/${strict.did}/vc-api/clients/${client.client_id}`, token)
      const notStepped = await revokeWith(strict.token)
      assert.equal(notStepped.statusCode, 401, notStepped.body)
      assert.ok(await accessToken(t.app, client), 'the refused revocation changed nothing')
      assert.equal((await revokeWith(steppedUp)).statusCode, 200)
    })
  })

  describe('token endpoint (RFC 6749 §4.4, §5.2)', () => {
    const assertToken = (res: Awaited<ReturnType<typeof tokenRequest>>) => {
      assert.equal(res.statusCode, 200, res.body)
      const body = res.json()
      assert.deepEqual(Object.keys(body).sort(), ['access_token', 'expires_in', 'scope', 'token_type'])
      assert.equal(body.token_type, 'Bearer')
      // No scope asked: the client's own, every scope (vc-api-scopes.test.ts tests the narrowing).
      assert.equal(body.scope, 'issue verify status')
      assert.ok(Number.isInteger(body.expires_in) && body.expires_in > 0)
      assert.ok(typeof body.access_token === 'string' && body.access_token.length >= 32)
      assert.match(String(res.headers['cache-control']), /no-store/)
      return body.access_token as string
    }
    const oauthError = (res: Awaited<ReturnType<typeof tokenRequest>>, status: number, error: string) => {
      assert.equal(res.statusCode, status, res.body)
      assert.equal(res.json().error, error)
      assert.ok(typeof res.json().error_description === 'string')
      assert.match(String(res.headers['cache-control']), /no-store/)
    }

    it('grants a token to HTTP Basic and to client_id/client_secret in the form body; JSON bodies too; each token works', async () => {
      const viaBasic = assertToken(
        await tokenRequest(
          t.app,
          { grant_type: 'client_credentials' },
          basicAuth(clientA.client_id, clientA.client_secret),
        ),
      )
      const viaBody = assertToken(
        await tokenRequest(t.app, {
          grant_type: 'client_credentials',
          client_id: clientA.client_id,
          client_secret: clientA.client_secret,
        }),
      )
      const viaJson = assertToken(
        await t.app.inject({
          method: 'POST',
          url: '/oauth2/token',
          payload: {
            grant_type: 'client_credentials',
            client_id: clientA.client_id,
            client_secret: clientA.client_secret,
          },
        }),
      )
      assert.equal(new Set([viaBasic, viaBody, viaJson]).size, 3, 'a new token each time')
      for (const token of [viaBasic, viaBody, viaJson])
        assert.equal((await updateStatus('urn:uuid:never-issued', 'revoked', token)).statusCode, 404)
    })

    it('wrong secret or unknown client: 401 invalid_client', async () => {
      oauthError(
        await tokenRequest(
          t.app,
          { grant_type: 'client_credentials' },
          basicAuth(clientA.client_id, `${clientA.client_secret}x`),
        ),
        401,
        'invalid_client',
      )
      oauthError(
        await tokenRequest(t.app, {
          grant_type: 'client_credentials',
          client_id: clientA.client_id,
          client_secret: clientB.client_secret,
        }),
        401,
        'invalid_client',
      )
      oauthError(
        await tokenRequest(t.app, {
          grant_type: 'client_credentials',
          client_id: 'vcc_unknown',
          client_secret: clientA.client_secret,
        }),
        401,
        'invalid_client',
      )
      oauthError(
        await tokenRequest(
          t.app,
          { grant_type: 'client_credentials' },
          { authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` },
        ),
        401,
        'invalid_client',
      )
    })

    it('a 401 to HTTP Basic names the scheme (WWW-Authenticate); one to body credentials does not', async () => {
      const basic = await tokenRequest(
        t.app,
        { grant_type: 'client_credentials' },
        basicAuth(clientA.client_id, `${clientA.client_secret}x`),
      )
      assert.equal(basic.statusCode, 401)
      assert.match(String(basic.headers['www-authenticate']), /^Basic /)
      const body = await tokenRequest(t.app, {
        grant_type: 'client_credentials',
        client_id: clientA.client_id,
        client_secret: 'wrong',
      })
      assert.equal(body.statusCode, 401)
      assert.equal(body.headers['www-authenticate'], undefined)
    })

    it('no grant_type: 400 invalid_request', async () => {
      oauthError(
        await tokenRequest(t.app, {}, basicAuth(clientA.client_id, clientA.client_secret)),
        400,
        'invalid_request',
      )
    })

    it('grant_type=password: 400 unsupported_grant_type', async () => {
      oauthError(
        await tokenRequest(
          t.app,
          { grant_type: 'password', username: 'a', password: 'b' },
          basicAuth(clientA.client_id, clientA.client_secret),
        ),
        400,
        'unsupported_grant_type',
      )
    })

    it('no client authentication: 401 invalid_client', async () => {
      oauthError(await tokenRequest(t.app, { grant_type: 'client_credentials' }), 401, 'invalid_client')
      oauthError(
        await tokenRequest(t.app, { grant_type: 'client_credentials', client_id: clientA.client_id }),
        401,
        'invalid_client',
      )
    })

    it('HTTP Basic with another client_id, or with a secret, in the body: 400 invalid_request (RFC 6749 §2.3: one method)', async () => {
      oauthError(
        await tokenRequest(
          t.app,
          { grant_type: 'client_credentials', client_id: clientB.client_id, client_secret: clientB.client_secret },
          basicAuth(clientA.client_id, clientA.client_secret),
        ),
        400,
        'invalid_request',
      )
      oauthError(
        await tokenRequest(
          t.app,
          { grant_type: 'client_credentials', client_id: clientA.client_id, client_secret: clientA.client_secret },
          basicAuth(clientA.client_id, clientA.client_secret),
        ),
        400,
        'invalid_request',
      )
    })

    it('a session token is no VC API token, and a VC API token no session token', async () => {
      assert.equal((await updateStatus('urn:uuid:never-issued', 'revoked', issuerA.token)).statusCode, 401)
      assert.equal((await callAs(t.app, 'GET', '/api/auth/me', tokenA)).statusCode, 401)
      assert.equal((await updateStatus('urn:uuid:never-issued', 'revoked', 'not-a-token')).statusCode, 401)
    })
  })

  describe('issue', () => {
    for (const format of DI_FORMATS) {
      it(`${format}: 201, a Data Integrity credential @digitalbazaar/vc verifies alone; tampered, it does not`, async () => {
        const input = credentialFor(format)
        const credential = await issued(format, input)
        assert.equal(credential.proof.type, 'DataIntegrityProof')
        assert.equal(credential.proof.cryptosuite, format)
        assert.equal(credential.proof.proofPurpose, 'assertionMethod')
        assert.ok(String(credential.proof.verificationMethod).startsWith(`${issuerFor(format)}#`))
        const { proof: _proof, ...unsigned } = credential
        assert.deepEqual(unsigned, input, 'the document is secured as it was given')
        const verified = await libraryVerify(credential, format)
        assert.equal(verified.verified, true, JSON.stringify(verified.error ?? verified, null, 1)?.slice(0, 2000))
        const tampered = structuredClone(credential)
        tampered.credentialSubject.name = 'Someone Else'
        assert.equal((await libraryVerify(tampered, format).catch(() => ({ verified: false }))).verified, false)
      })
    }

    it('vc+jwt: 201, an EnvelopedVerifiableCredential whose data: URL holds a JWT jose verifies with the did:key of the issuer', async () => {
      const input = credentialFor('vc+jwt')
      const envelope = await issued('vc+jwt', input)
      assert.deepEqual(envelope['@context'], VC_V2)
      const { payload, header, did } = await joseVerify(envelope)
      assert.equal(did, ed25519Did)
      assert.equal(header.alg, 'EdDSA')
      assert.equal(header.typ, 'vc+jwt')
      assert.equal(payload.issuer, ed25519Did)
      assert.deepEqual(payload.credentialSubject, input.credentialSubject)
      assert.equal(payload.id, input.id)
      // Tampered, the JWT no longer verifies.
      const [h, p, s] = envelope.id.slice('data:application/vc+jwt,'.length).split('.')
      const changed = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), issuer: issuerB.did }),
      ).toString('base64url')
      await assert.rejects(joseVerify({ ...envelope, id: `data:application/vc+jwt,${h}.${changed}.${s}` }))
    })

    it('eddsa-jcs-2022 refuses a context object (not a URL) in @context, which its library could not verify: 400 naming @context', async () => {
      const res = await issue('eddsa-jcs-2022', {
        credential: credentialFor('eddsa-jcs-2022', { '@context': [VC_V2, VOCAB] }),
      })
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(res.json().details.field, 'credential.@context')
    })

    it('VC 1.1 input gets an issuanceDate, and verifies with the library', async () => {
      const input = {
        '@context': [VC_V1, VOCAB],
        id: `urn:uuid:${randomUUID()}`,
        type: ['VerifiableCredential', 'ExampleCredential'],
        issuer: ed25519Did,
        credentialSubject: { id: 'did:example:subject', name: 'Ada' },
      }
      const res = await issue('eddsa-rdfc-2022', { credential: input })
      assert.equal(res.statusCode, 201, res.body)
      const credential = res.json()
      assert.match(credential.issuanceDate, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/)
      assert.ok(Math.abs(Date.parse(credential.issuanceDate) - Date.now()) < 5 * 60_000, 'about now')
      const verified = await libraryVerify(credential, 'eddsa-rdfc-2022')
      assert.equal(verified.verified, true, JSON.stringify(verified.error ?? verified, null, 1)?.slice(0, 2000))
      // An issuanceDate the caller gave is kept.
      const given = await issue('eddsa-rdfc-2022', {
        credential: { ...input, id: `urn:uuid:${randomUUID()}`, issuanceDate: '2025-05-05T05:05:05Z' },
      })
      assert.equal(given.statusCode, 201, given.body)
      assert.equal(given.json().issuanceDate, '2025-05-05T05:05:05Z')
    })

    for (const format of FORMATS) {
      it(`${format}: options.credentialStatus adds a BitstringStatusListEntry; the served list reads 0, then 1 after the status route revokes`, async () => {
        const input = credentialFor(format)
        const answer = await issued(format, input, { credentialStatus: { type: 'BitstringStatusListEntry' } })
        const credential = format === 'vc+jwt' ? (await joseVerify(answer)).payload : answer
        const entry = credential.credentialStatus
        assert.equal(entry.type, 'BitstringStatusListEntry')
        assert.equal(entry.statusPurpose, 'revocation')
        assert.match(entry.statusListIndex, /^(0|[1-9]\d*)$/)
        assert.ok(entry.statusListCredential.startsWith(`${t.config.publicBaseUrl}/`), entry.statusListCredential)
        if (format !== 'vc+jwt') {
          assert.match(entry.statusListCredential, /\/ld$/, 'Data Integrity credentials name the JSON-LD list')
          assert.equal((await libraryVerify(answer, format)).verified, true, 'the entry is inside the signed document')
        }
        const served = await t.app.inject({ method: 'GET', url: pathOf(entry.statusListCredential) })
        assert.equal(served.statusCode, 200, served.body)

        const index = Number(entry.statusListIndex)
        /** The bit, as vc-bitstring-status-list reads it: a DI list's proof verified by the library; a vc+jwt list's JWT by jose first. */
        const bit = async (): Promise<boolean> => {
          let list: Json
          let verifyList = true
          if (format === 'vc+jwt') {
            const res = await t.app.inject({ method: 'GET', url: pathOf(entry.statusListCredential) })
            const jwt = res.body
            const did = String(decodeProtectedHeader(jwt).kid).split('#')[0]!
            const raw = base58btc.decode(did.slice('did:key:'.length)).subarray(2)
            list = (
              await jwtVerify(
                jwt,
                await importJWK({ kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw).toString('base64url') }, 'EdDSA'),
              )
            ).payload as Json
            verifyList = false
          } else list = (await loader(entry.statusListCredential)).document as Json
          assert.equal(list.id, entry.statusListCredential)
          const direct = (await decodeList({ encodedList: list.credentialSubject.encodedList })).getStatus(index)
          const result = await checkStatus({
            credential,
            documentLoader: async (url: string) =>
              url === entry.statusListCredential ? { contextUrl: null, documentUrl: url, document: list } : loader(url),
            suite: new DataIntegrityProof({ cryptosuite: rdfc }),
            verifyBitstringStatusListCredential: verifyList,
            // The list is signed by the issuer's Ed25519 DID; a bbs-2023 credential names its BBS did:key.
            verifyMatchingIssuers: format !== 'bbs-2023',
          })
          assert.equal(result.verified, true, result.error?.message)
          assert.equal(result.results![0]!.status, direct)
          return direct
        }
        assert.equal(await bit(), false)
        const revoked = await updateStatus(input.id, 'revoked')
        assert.equal(revoked.statusCode, 200, revoked.body)
        assert.deepEqual(revoked.json(), { credentialId: input.id, status: 'revoked' })
        assert.equal(await bit(), true)
        // Revoking again changes nothing; reinstating is refused.
        assert.equal((await updateStatus(input.id, 'revoked')).statusCode, 200)
        const reinstate = await updateStatus(input.id, 'active')
        assert.equal(reinstate.statusCode, 409, reinstate.body)
        assert.equal(await bit(), true)
      })
    }

    it('status: an unknown credentialId is 404, another issuer cannot revoke ours (404), one issued without a status entry is 404', async () => {
      assert.equal((await updateStatus(`urn:uuid:${randomUUID()}`, 'revoked')).statusCode, 404)
      const input = credentialFor('eddsa-rdfc-2022')
      await issued('eddsa-rdfc-2022', input, { credentialStatus: {} })
      const other = await updateStatus(input.id, 'revoked', tokenB, clientB)
      assert.equal(other.statusCode, 404, other.body)
      const viaPath = await updateStatus(input.id, 'revoked', tokenB, clientA)
      assert.equal(viaPath.statusCode, 404, "B's token on A's status path")
      const plain = credentialFor('eddsa-rdfc-2022')
      await issued('eddsa-rdfc-2022', plain)
      assert.equal((await updateStatus(plain.id, 'revoked')).statusCode, 404)
      // Still active: A's verify says so.
      assert.equal(
        (await verifyHere(await issued('eddsa-rdfc-2022', credentialFor('eddsa-rdfc-2022'), { credentialStatus: {} })))
          .statusCode,
        200,
      )
    })

    it("status options: another type or purpose, or a credentialStatus of the caller's own beside options.credentialStatus, is a 400 naming the field", async () => {
      for (const [options, field, extra] of [
        [{ credentialStatus: { type: 'StatusList2021Entry' } }, 'type', {}],
        [{ credentialStatus: { statusPurpose: 'suspension' } }, 'statusPurpose', {}],
        [
          { credentialStatus: {} },
          'credentialStatus',
          {
            credentialStatus: {
              id: 'https://example.org/status/1#3',
              type: 'BitstringStatusListEntry',
              statusPurpose: 'revocation',
              statusListIndex: '3',
              statusListCredential: 'https://example.org/status/1',
            },
          },
        ],
      ] as const) {
        const res = await issue('eddsa-rdfc-2022', { credential: credentialFor('eddsa-rdfc-2022', extra), options })
        assert.equal(res.statusCode, 400, res.body)
        assert.ok(res.json().message.includes(field), `${field}: ${res.json().message}`)
      }
    })

    it('the same credential id issued with a status entry at once: one 201, the others 409, never 500', async () => {
      const input = credentialFor('eddsa-jcs-2022')
      const answers = await Promise.all(
        [0, 1, 2].map(() => issue('eddsa-jcs-2022', { credential: input, options: { credentialStatus: {} } })),
      )
      assert.deepEqual(answers.map((r) => r.statusCode).sort(), [201, 409, 409], answers.map((r) => r.body).join('\n'))
    })

    it("a credentialStatus the caller wrote naming this service's own status lists: 400 (only an allocated slot may)", async () => {
      const mine = await issued('eddsa-jcs-2022', credentialFor('eddsa-jcs-2022'), { credentialStatus: {} })
      const copied = credentialFor('eddsa-jcs-2022', { credentialStatus: mine.credentialStatus })
      const res = await issue('eddsa-jcs-2022', { credential: copied })
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(res.json().details.field, 'credential.credentialStatus')
    })

    it("status values other than the VC API's, or an unknown status type: 400", async () => {
      const input = credentialFor('eddsa-jcs-2022')
      await issued('eddsa-jcs-2022', input, { credentialStatus: {} })
      for (const entry of [
        { type: 'BitstringStatusListCredential', status: 'suspended' },
        { type: 'Whatever', status: 'revoked' },
      ]) {
        const res = await vcApiPost(t.app, clientA.endpoints.status, tokenA, {
          credentialId: input.id,
          credentialStatus: [entry],
        })
        assert.equal(res.statusCode, 400, res.body)
      }
    })

    it('a day that does not exist (2026-02-30) is no xsd:dateTimeStamp: 400 naming validFrom', async () => {
      const res = await issue('eddsa-rdfc-2022', {
        credential: credentialFor('eddsa-rdfc-2022', { validFrom: '2026-02-30T00:00:00Z' }),
      })
      assert.equal(res.statusCode, 400, res.body)
      assert.match(res.json().message, /validFrom/)
    })

    it('past the values canonicalized for one proof (eddsa: 1,000, bbs-2023: 150): 400 before any signing', async () => {
      const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`claim${i}`, i]))
      const eddsa = await issue('eddsa-rdfc-2022', {
        credential: credentialFor('eddsa-rdfc-2022', { '@context': [VC_V2, VOCAB], credentialSubject: many(1000) }),
      })
      assert.equal(eddsa.statusCode, 400, eddsa.body)
      assert.match(eddsa.json().message, /more than 1000 JSON values/)
      const bbs = await issue('bbs-2023', {
        credential: credentialFor('bbs-2023', { '@context': [VC_V2, VOCAB], credentialSubject: many(150) }),
      })
      assert.equal(bbs.statusCode, 400, bbs.body)
      assert.match(bbs.json().message, /more than 150 JSON values/)
    })

    it("without a token: 401; with issuer A's token on issuer B's path: 404; an unknown format: 404", async () => {
      assert.equal(
        (await issue('eddsa-rdfc-2022', { credential: credentialFor('eddsa-rdfc-2022') }, '')).statusCode,
        401,
      )
      const crossed = await issue('eddsa-rdfc-2022', { credential: credentialFor('eddsa-rdfc-2022') }, tokenA, clientB)
      assert.equal(crossed.statusCode, 404, crossed.body)
      const unknown = await issue('ecdsa-rdfc-2019', { credential: credentialFor('eddsa-rdfc-2022') })
      assert.equal(unknown.statusCode, 404, unknown.body)
      assert.equal(
        (await issue('jwt_vc_json', { credential: credentialFor('eddsa-rdfc-2022') })).statusCode,
        404,
        'a format that does not secure documents',
      )
      const ghost = await vcApiPost(
        t.app,
        `${t.config.publicBaseUrl}/vc-api/issuers/00000000000000000000000000000000/eddsa-rdfc-2022/credentials/issue`,
        tokenA,
        { credential: credentialFor('eddsa-rdfc-2022') },
      )
      assert.equal(ghost.statusCode, 404)
    })

    it("an issuer that is not this instance's signing DID for the format: 400", async () => {
      for (const [format, issuer] of [
        ['eddsa-rdfc-2022', issuerB.did],
        ['eddsa-rdfc-2022', bbsDid],
        ['bbs-2023', ed25519Did],
        ['vc+jwt', issuerA.did],
        ['eddsa-jcs-2022', { id: 'did:example:someone-else' }],
      ] as const) {
        const res = await issue(format, { credential: credentialFor(format, { issuer }) })
        assert.equal(res.statusCode, 400, `${format} ${JSON.stringify(issuer)}: ${res.body}`)
        assert.match(res.json().message, /issuer/)
      }
      // The issuer as an object with its id is accepted.
      assert.equal(
        (
          await issue('eddsa-jcs-2022', {
            credential: credentialFor('eddsa-jcs-2022', { issuer: { id: ed25519Did, name: 'Key Uni' } }),
          })
        ).statusCode,
        201,
      )
    })

    /** One broken VCDM rule each (vcdm-input-checks.ts): the field the message must name, and the change. */
    const RULES: Array<[string, string, (c: Json) => void]> = [
      ['@context not an array', '@context', (c) => void (c['@context'] = VC_V2)],
      ['@context empty', '@context', (c) => void (c['@context'] = [])],
      [
        '@context not starting with the VC context',
        '@context',
        (c) => void (c['@context'] = ['https://example.org/ctx', VC_V2]),
      ],
      ['@context entry neither URL nor object', '@context[1]', (c) => void (c['@context'] = [VC_V2, 42])],
      ['type missing', 'type', (c) => void delete c.type],
      ['type a string', 'type', (c) => void (c.type = 'VerifiableCredential')],
      ['type without VerifiableCredential', 'VerifiableCredential', (c) => void (c.type = ['ExampleCredential'])],
      ['type with an empty string', 'type', (c) => void (c.type = ['VerifiableCredential', ''])],
      ['id not a URL', 'id', (c) => void (c.id = 'not a url')],
      ['issuer missing', 'issuer', (c) => void delete c.issuer],
      ['issuer not a URL', 'issuer', (c) => void (c.issuer = 'no-scheme')],
      ['issuer object without id', 'issuer.id', (c) => void (c.issuer = { name: 'Key Uni' })],
      [
        'issuer.name not a language value',
        'issuer.name',
        (c) => void (c.issuer = { id: ed25519Did, name: { '@value': 'Key Uni', bogus: 1 } }),
      ],
      ['credentialSubject missing', 'credentialSubject', (c) => void delete c.credentialSubject],
      ['credentialSubject empty', 'credentialSubject', (c) => void (c.credentialSubject = {})],
      ['credentialSubject an empty array', 'credentialSubject', (c) => void (c.credentialSubject = [])],
      [
        'credentialSubject.id not a URL',
        'credentialSubject.id',
        (c) => void (c.credentialSubject = { id: 'ada', name: 'Ada' }),
      ],
      [
        'credentialSubject[1] not an object',
        'credentialSubject[1]',
        (c) => void (c.credentialSubject = [{ name: 'Ada' }, 'Bob']),
      ],
      ['validFrom without a timezone', 'validFrom', (c) => void (c.validFrom = '2026-01-01T00:00:00')],
      ['validUntil a date only', 'validUntil', (c) => void (c.validUntil = '2027-01-01')],
      [
        'validFrom after validUntil',
        'validFrom',
        (c) => Object.assign(c, { validFrom: '2027-01-01T00:00:00Z', validUntil: '2026-06-01T00:00:00Z' }),
      ],
      [
        'credentialStatus without a type',
        'credentialStatus.type',
        (c) => void (c.credentialStatus = { id: 'https://example.org/status#1' }),
      ],
      [
        'credentialStatus entry not an object',
        'credentialStatus[0]',
        (c) => void (c.credentialStatus = ['https://example.org/status#1']),
      ],
      [
        'termsOfUse id not a URL',
        'termsOfUse.id',
        (c) => void (c.termsOfUse = { type: 'TrustFrameworkPolicy', id: 'policy 1' }),
      ],
      ['evidence empty', 'evidence', (c) => void (c.evidence = [])],
      [
        'refreshService without a type',
        'refreshService.type',
        (c) => void (c.refreshService = { id: 'https://example.org/refresh' }),
      ],
      [
        'credentialSchema without an id',
        'credentialSchema.id',
        (c) => void (c.credentialSchema = { type: 'JsonSchema' }),
      ],
      ['name a number', 'name', (c) => void (c.name = 42)],
      [
        'description with an unknown key in a language value',
        'description',
        (c) => void (c.description = [{ '@value': 'A degree', '@language': 'en', extra: true }]),
      ],
      [
        'relatedResource id not a URL',
        'relatedResource[0].id',
        (c) => void (c.relatedResource = [{ id: 'nope', digestSRI: 'sha384-abc' }]),
      ],
      [
        'relatedResource without a digest',
        'relatedResource[0]',
        (c) => void (c.relatedResource = [{ id: 'https://example.org/a.json' }]),
      ],
      [
        'relatedResource repeated',
        'relatedResource[1].id',
        (c) =>
          void (c.relatedResource = [
            { id: 'https://example.org/a.json', digestSRI: 'sha384-a' },
            { id: 'https://example.org/a.json', digestSRI: 'sha384-b' },
          ]),
      ],
      [
        'BitstringStatusListEntry without statusPurpose',
        'statusPurpose',
        (c) =>
          void (c.credentialStatus = {
            type: 'BitstringStatusListEntry',
            statusListIndex: '1',
            statusListCredential: 'https://example.org/list',
          }),
      ],
      [
        'BitstringStatusListEntry with a numeric statusListIndex',
        'statusListIndex',
        (c) =>
          void (c.credentialStatus = {
            type: 'BitstringStatusListEntry',
            statusPurpose: 'revocation',
            statusListIndex: 1,
            statusListCredential: 'https://example.org/list',
          }),
      ],
      [
        'BitstringStatusListEntry with statusListCredential not a URL',
        'statusListCredential',
        (c) =>
          void (c.credentialStatus = {
            type: 'BitstringStatusListEntry',
            statusPurpose: 'revocation',
            statusListIndex: '01',
            statusListCredential: 'list',
          }),
      ],
    ]
    for (const format of ['eddsa-rdfc-2022', 'vc+jwt'] as const) {
      it(`${format}: each VCDM rule broken is a 400 naming the field`, async () => {
        for (const [what, field, change] of RULES) {
          const credential = credentialFor(format)
          change(credential)
          const res = await issue(format, { credential })
          assert.equal(res.statusCode, 400, `${what}: ${res.statusCode} ${res.body}`)
          assert.ok(res.json().message.includes(field), `${what}: the message names ${field}: ${res.json().message}`)
        }
      })
    }

    it('VC 1.1 date rules: a malformed issuanceDate or expirationDate, or one before the other, is a 400 naming it', async () => {
      const v1 = (extra: Json) => ({
        '@context': [VC_V1, VOCAB],
        type: ['VerifiableCredential'],
        issuer: ed25519Did,
        credentialSubject: { name: 'Ada' },
        ...extra,
      })
      for (const [extra, field] of [
        [{ issuanceDate: '2026-01-01' }, 'issuanceDate'],
        [{ issuanceDate: null }, 'issuanceDate'],
        [{ issuanceDate: '2026-01-01T00:00:00Z', expirationDate: '2026-13-01T00:00:00Z' }, 'expirationDate'],
        [{ issuanceDate: '2026-02-01T00:00:00Z', expirationDate: '2026-01-01T00:00:00Z' }, 'issuanceDate'],
      ] as const) {
        const res = await issue('eddsa-rdfc-2022', { credential: v1(extra) })
        assert.equal(res.statusCode, 400, `${JSON.stringify(extra)}: ${res.body}`)
        assert.ok(res.json().message.includes(field), res.json().message)
      }
    })

    it('an unknown JSON-LD context or a term no context defines: 400, never 500', async () => {
      const unknownContext = await issue('eddsa-rdfc-2022', {
        credential: credentialFor('eddsa-rdfc-2022', {
          '@context': [VC_V2, 'https://example.org/contexts/unknown/v1'],
        }),
      })
      assert.equal(unknownContext.statusCode, 400, unknownContext.body)
      assert.ok(unknownContext.json().message.length > 0)
      for (const format of ['eddsa-rdfc-2022', 'bbs-2023'] as const) {
        const undefinedTerm = await issue(format, {
          credential: {
            '@context': [VC_V1],
            type: ['VerifiableCredential'],
            issuer: issuerFor(format),
            issuanceDate: '2026-01-01T00:00:00Z',
            credentialSubject: { id: 'did:example:subject', undefinedTermNobodyDefines: 'x' },
          },
        })
        assert.equal(undefinedTerm.statusCode, 400, `${format}: ${undefinedTerm.body}`)
        assert.ok(undefinedTerm.json().message.length > 0)
      }
    })

    it('a credential nested past the free-form depth limit: 400; within it, issued (JCS, JWT) or a 400 where RDF canonicalization gives up, never 500', async () => {
      // The W3C examples context (an @vocab, bundled) by URL: eddsa-jcs-2022 takes no context objects.
      const deep = (depth: number) => ({
        '@context': [VC_V2, 'https://www.w3.org/ns/credentials/examples/v2'],
        credentialSubject: { id: 'did:example:deep', deep: nested(depth) },
      })
      for (const format of FORMATS) {
        const res = await issue(format, { credential: credentialFor(format, deep(JSON_LIMITS.freeFormDepth + 2)) })
        assert.equal(res.statusCode, 400, `${format}: ${res.body}`)
        assert.match(res.json().message, /credential/)
      }
      for (const format of ['eddsa-jcs-2022', 'vc+jwt'] as const) {
        const within = await issue(format, { credential: credentialFor(format, deep(JSON_LIMITS.freeFormDepth - 4)) })
        assert.equal(within.statusCode, 201, `${format}: ${within.body}`)
      }
      // A chain of blank nodes of one shape is past rdf-canonize's bound on blank-node hashing (RDFC-1.0 §4.8).
      for (const format of ['eddsa-rdfc-2022', 'bbs-2023'] as const) {
        const canonicalized = await issue(format, { credential: credentialFor(format, deep(8)) })
        assert.equal(canonicalized.statusCode, 400, `${format}: ${canonicalized.body}`)
      }
    })
  })

  describe('verify credentials', () => {
    it('a credential issued above, in every format: 200 {verified: true}', async () => {
      for (const format of FORMATS) {
        let credential = await issued(format, {}, { credentialStatus: {} })
        // A bbs-2023 base proof is the holder's; a verifier is shown a proof derived from it (bbs-2023 §3.4.3).
        if (format === 'bbs-2023')
          credential = await vc.derive({
            verifiableCredential: credential,
            suite: new DataIntegrityProof({
              cryptosuite: createDiscloseCryptosuite({ selectivePointers: ['/credentialSubject/name'] }),
            }),
            documentLoader: loader,
          })
        const res = await verifyHere(credential)
        assert.equal(res.statusCode, 200, `${format}: ${res.body}`)
        assert.equal(res.json().verified, true)
        assert.ok(Array.isArray(res.json().checks))
      }
    })

    it('tampered: 400 with details.problems', async () => {
      for (const format of ['eddsa-rdfc-2022', 'eddsa-jcs-2022'] as const) {
        const credential = await issued(format)
        credential.credentialSubject.name = 'Someone Else'
        const res = await verifyHere(credential)
        assert.equal(res.statusCode, 400, `${format}: ${res.body}`)
        const problems = res.json().details?.problems
        assert.ok(Array.isArray(problems) && problems.length > 0, res.body)
      }
      const envelope = await issued('vc+jwt')
      const [h, p, s] = envelope.id.slice('data:application/vc+jwt,'.length).split('.')
      const changed = Buffer.from(
        JSON.stringify({ ...JSON.parse(Buffer.from(p, 'base64url').toString()), name: 'changed' }),
      ).toString('base64url')
      const res = await verifyHere({ ...envelope, id: `data:application/vc+jwt,${h}.${changed}.${s}` })
      assert.equal(res.statusCode, 400, res.body)
      assert.ok(res.json().details.problems.length > 0)
    })

    it('revoked: 400, the reason says so', async () => {
      for (const format of ['eddsa-rdfc-2022', 'vc+jwt'] as const) {
        const input = credentialFor(format)
        const credential = await issued(format, input, { credentialStatus: {} })
        assert.equal((await verifyHere(credential)).statusCode, 200)
        assert.equal((await updateStatus(input.id, true)).statusCode, 200)
        const res = await verifyHere(credential)
        assert.equal(res.statusCode, 400, `${format}: ${res.body}`)
        assert.ok(
          res.json().details.problems.some((p: Json) => p.reason === 'revoked' || /revoked/i.test(p.message)),
          res.body,
        )
      }
    })

    it('garbage: 400, never 500', async () => {
      for (const garbage of [
        { hello: 'world' },
        { '@context': [VC_V2], type: ['VerifiableCredential'] },
        { type: 'EnvelopedVerifiableCredential', id: 'data:application/vc+jwt,not.a.jwt' },
        { type: 'EnvelopedVerifiableCredential', id: 'https://example.org' },
        {
          '@context': [VC_V2],
          type: ['VerifiableCredential'],
          issuer: ed25519Did,
          credentialSubject: { a: 1 },
          proof: { type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022', proofValue: 'zzz' },
        },
      ]) {
        const res = await verifyHere(garbage)
        assert.equal(res.statusCode, 400, `${JSON.stringify(garbage)}: ${res.body}`)
      }
      for (const body of [{}, { verifiableCredential: 'text' }, { verifiableCredential: [] }]) {
        assert.equal((await vcApiPost(t.app, clientA.endpoints.verify, tokenA, body)).statusCode, 400)
      }
      assert.equal(
        (await vcApiPost(t.app, clientA.endpoints.verify, undefined, { verifiableCredential: {} })).statusCode,
        401,
      )
    })
  })

  describe('verify presentations (Data Integrity, eddsa-rdfc-2022)', () => {
    let holder: { did: string; key: Ed25519Multikey.Ed25519KeyPair }
    let credential: Json
    const challenge = 'vc-api-challenge-1'
    const domain = 'https://verifier.example'
    const signed = async (over: { challenge: string; domain?: string }) => {
      const presentation = vc.createPresentation({ verifiableCredential: [credential], holder: holder.did })
      return vc.signPresentation({
        presentation,
        suite: new DataIntegrityProof({ signer: holder.key.signer(), cryptosuite: rdfc }),
        challenge: over.challenge,
        domain: over.domain,
        documentLoader: loader,
      })
    }
    const verifyVp = (verifiablePresentation: Json, options?: Json) =>
      vcApiPost(t.app, clientA.endpoints.presentations_verify, tokenA, {
        verifiablePresentation,
        ...(options ? { options } : {}),
      })

    before(async () => {
      const generated = await Ed25519Multikey.generate()
      const did = `did:key:${generated.publicKeyMultibase}`
      holder = {
        did,
        key: await Ed25519Multikey.from({
          ...(await generated.export({ publicKey: true, secretKey: true })),
          id: `${did}#${generated.publicKeyMultibase}`,
          controller: did,
        }),
      }
      credential = await issued('eddsa-rdfc-2022', { credentialSubject: { id: did, name: 'Ada Lovelace' } })
    })

    it('a holder-signed VP with an issued credential, bound to the challenge and domain: 200', async () => {
      const res = await verifyVp(await signed({ challenge, domain }), { challenge, domain })
      assert.equal(res.statusCode, 200, res.body)
      assert.equal(res.json().verified, true)
    })

    it('a wrong challenge or domain, or no challenge: 400', async () => {
      const vp = await signed({ challenge, domain })
      const wrongChallenge = await verifyVp(vp, { challenge: 'another-challenge', domain })
      assert.equal(wrongChallenge.statusCode, 400, wrongChallenge.body)
      const wrongDomain = await verifyVp(vp, { challenge, domain: 'https://elsewhere.example' })
      assert.equal(wrongDomain.statusCode, 400, wrongDomain.body)
      const noChallenge = await verifyVp(vp, { domain })
      assert.equal(noChallenge.statusCode, 400, noChallenge.body)
      assert.equal((await verifyVp(vp)).statusCode, 400, 'no options at all')
      const signedForOther = await verifyVp(await signed({ challenge: 'x', domain }), { challenge, domain })
      assert.equal(signedForOther.statusCode, 400, signedForOther.body)
    })

    it('a proof set on a presentation: 400, even when one of its proofs verifies (what is read from a proof must come from the one verified)', async () => {
      const vp = await signed({ challenge, domain })
      const forged = {
        ...(vp.proof as Json),
        created: new Date().toISOString(),
        proofValue: 'z3FXQjecWufY46yg5abdVZsXqLhxhueuSoZgNSARiKBk',
      }
      const res = await verifyVp({ ...vp, proof: [forged, vp.proof] }, { challenge, domain })
      assert.equal(res.statusCode, 400, res.body)
      assert.match(res.json().message, /exactly one proof/)
    })

    it('a DID named as a JSON-LD context is never resolved: the credential is refused (400), no did:web is fetched', async () => {
      const before = fetched.length
      const withDidContext = {
        ...credential,
        '@context': [...(credential['@context'] as string[]), 'did:web:attacker.example'],
      }
      const res = await vcApiPost(t.app, clientA.endpoints.verify, tokenA, { verifiableCredential: withDidContext })
      assert.equal(res.statusCode, 400, res.body)
      assert.equal(
        fetched.slice(before).filter((u) => u.includes('attacker.example')).length,
        0,
        fetched.slice(before).join(', '),
      )
    })

    it('an unsigned VP, or a tampered one: 400', async () => {
      const unsigned = vc.createPresentation({ verifiableCredential: [credential], holder: holder.did })
      const res = await verifyVp(unsigned, { challenge, domain })
      assert.equal(res.statusCode, 400, res.body)
      const tampered = await signed({ challenge, domain })
      tampered.holder = 'did:example:someone-else'
      assert.equal((await verifyVp(tampered, { challenge, domain })).statusCode, 400)
      const badCredential = await signed({ challenge, domain })
      ;(badCredential.verifiableCredential as Json[])[0]!.credentialSubject.name = 'Someone Else'
      assert.equal(
        (await verifyVp(badCredential, { challenge, domain })).statusCode,
        400,
        'a VP over a tampered credential (the VP proof breaks too)',
      )
    })
  })
})
