/**
 * Scopes of the W3C VC API's OAuth 2.0 tokens (docs/vc-api.md "Scopes"), tried as an attacker
 * holding a narrow token would: RFC 6749 §3.3 at the token endpoint (a client's scopes, narrowed
 * by the request's `scope`, answered in the token response), RFC 6750 §3.1 on every VC API route
 * (403 insufficient_scope naming the scope in WWW-Authenticate).
 *
 * Real: the whole app on the engine under test (app.inject), its route table, its migrations.
 */
import assert from 'node:assert/strict'
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { after, before, describe, it } from 'node:test'
import type { LightMyRequestResponse } from 'fastify'
import { sql } from 'kysely'
import { createMigrator } from '../../src/db/migrator.js'
import { migrations } from '../../src/db/migrations/index.js'
import { callAs, IssuerActor } from '../helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../helpers/test-app.js'
import { TEST_ENGINE } from '../helpers/test-database.js'
import {
  basicAuth,
  createClient,
  pathOf,
  tokenRequest,
  VC_V2,
  vcApiPost,
  type Json,
  type VcApiClient,
} from '../helpers/vc-api.js'

const ALL_SCOPES = ['issue', 'verify', 'status']
const WITH_STATUS = { credentialStatus: { type: 'BitstringStatusListEntry', statusPurpose: 'revocation' } }

describe(`W3C VC API: token scopes (${TEST_ENGINE})`, () => {
  let t: TestApp
  const issuer = new IssuerActor()
  let client: VcApiClient
  let signingDid: string

  const token = async (scope?: string, who = client): Promise<{ access_token: string; scope: string }> => {
    const fields = { grant_type: 'client_credentials', ...(scope === undefined ? {} : { scope }) }
    const res = await tokenRequest(t.app, fields, basicAuth(who.client_id, who.client_secret))
    assert.equal(res.statusCode, 200, res.body)
    return res.json()
  }
  const credential = (): Json => ({
    '@context': [VC_V2],
    id: `urn:uuid:${randomUUID()}`,
    type: ['VerifiableCredential'],
    issuer: signingDid,
    validFrom: '2026-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:ebfeb1f712ebc6f1c276e12ec21', name: 'Ada Lovelace' },
  })
  const issue = (accessToken: string, options?: Json) =>
    vcApiPost(t.app, client.endpoints.issue['eddsa-rdfc-2022']!, accessToken, {
      credential: credential(),
      ...(options ? { options } : {}),
    })
  const revoke = (accessToken: string, credentialId: string) =>
    vcApiPost(t.app, client.endpoints.status, accessToken, {
      credentialId,
      credentialStatus: [{ type: 'BitstringStatusListCredential', status: 'revoked' }],
    })
  const verify = (accessToken: string, verifiableCredential: Json) =>
    vcApiPost(t.app, client.endpoints.verify, accessToken, { verifiableCredential })
  const createClientWith = (body: Json) =>
    callAs(t.app, 'POST', `/api/issuer/${issuer.did}/vc-api/clients`, issuer.token, body)
  /** A token request of `who`, authenticated with HTTP Basic. */
  const askToken = (scope: string, who: VcApiClient) =>
    tokenRequest(t.app, { grant_type: 'client_credentials', scope }, basicAuth(who.client_id, who.client_secret))
  /** RFC 6750 §3.1: 403, `error="insufficient_scope"` and the scope needed in WWW-Authenticate. */
  const insufficientScope = (res: LightMyRequestResponse, scope: string) => {
    assert.equal(res.statusCode, 403, res.body)
    assert.equal(res.headers['www-authenticate'], `Bearer error="insufficient_scope", scope="${scope}"`)
    assert.equal(res.json().error, 'insufficient_scope')
    assert.ok(res.json().message)
  }
  const invalidScope = (res: LightMyRequestResponse) => {
    assert.equal(res.statusCode, 400, res.body)
    assert.equal(res.json().error, 'invalid_scope')
    assert.ok(res.json().error_description)
  }

  before(async () => {
    t = await createTestApp()
    issuer.token = await issuer.login(t.app)
    const created = await callAs(t.app, 'POST', '/api/issuer', issuer.token, {
      name: 'Scoped Uni',
      signing_did_method: 'key',
    })
    assert.equal(created.statusCode, 201, created.body)
    const signing = (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/signing`, issuer.token)).json()
    signingDid = signing.signing_dids.find((d: Json) => d.current && d.key_type === 'Ed25519').did
    client = await createClient(t.app, issuer)
  })
  after(() => t?.close())

  it('a client holds issue, verify and status unless created with fewer; listed with its scopes; an unknown scope is a 400', async () => {
    assert.deepEqual((client as unknown as Json).scopes, ALL_SCOPES)
    const narrow = await createClientWith({ name: 'Verifier only', scopes: ['verify'] })
    assert.equal(narrow.statusCode, 201, narrow.body)
    assert.deepEqual(narrow.json().client.scopes, ['verify'])
    const listed = (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/vc-api/clients`, issuer.token)).json()
      .clients as Json[]
    assert.deepEqual(listed.find((c) => c.client_id === narrow.json().client.client_id)?.scopes, ['verify'])
    assert.deepEqual(listed.find((c) => c.client_id === client.client_id)?.scopes, ALL_SCOPES)
    for (const scopes of [['admin'], [], ['issue', 'issue'], 'issue']) {
      const res = await createClientWith({ name: 'Bad', scopes })
      assert.equal(res.statusCode, 400, `${JSON.stringify(scopes)}: ${res.body}`)
    }
  })

  it("the token response carries the scope: the client's own when none is asked, else those asked (RFC 6749 §3.3, §5.1)", async () => {
    assert.equal((await token()).scope, 'issue verify status')
    assert.equal((await token('verify')).scope, 'verify')
    assert.equal((await token('status issue')).scope, 'issue status')
    assert.equal((await token('verify verify')).scope, 'verify')
    // §3.2: a parameter sent without a value is treated as omitted.
    assert.equal((await token('')).scope, 'issue verify status')
  })

  it('an unknown scope is 400 invalid_scope, and no token is granted', async () => {
    for (const scope of ['admin', 'issue admin', 'write:/credentials/issue', 'ISSUE', 'issue,verify']) {
      invalidScope(await askToken(scope, client))
    }
  })

  it("a scope beyond the client's is 400 invalid_scope; its default is its own scopes", async () => {
    const res = await createClientWith({ name: 'Verifier', scopes: ['verify'] })
    const verifier = res.json().client as VcApiClient
    for (const scope of ['issue', 'verify issue', 'status']) {
      invalidScope(await askToken(scope, verifier))
    }
    const granted = await token(undefined, verifier)
    assert.equal(granted.scope, 'verify')
    insufficientScope(await issue(granted.access_token), 'issue')
  })

  it('a client authentication failure is still invalid_client, whatever scope is asked', async () => {
    const res = await tokenRequest(
      t.app,
      { grant_type: 'client_credentials', scope: 'admin' },
      basicAuth(client.client_id, 'wrong'),
    )
    assert.equal(res.statusCode, 401)
    assert.equal(res.json().error, 'invalid_client')
  })

  it('a verify-scoped token can neither issue nor revoke (403 insufficient_scope), and can verify', async () => {
    const full = (await token()).access_token
    const issued = await issue(full, WITH_STATUS)
    assert.equal(issued.statusCode, 201, issued.body)
    const verifyOnly = (await token('verify')).access_token
    insufficientScope(await issue(verifyOnly), 'issue')
    insufficientScope(await revoke(verifyOnly, issued.json().id), 'status')
    // Nothing was revoked: the credential still verifies, with the verify-scoped token itself.
    const verified = await verify(verifyOnly, issued.json())
    assert.equal(verified.statusCode, 200, verified.body)
    assert.equal(verified.json().verified, true)
  })

  it('an issue-scoped token cannot verify credentials or presentations, nor revoke', async () => {
    const issueOnly = (await token('issue')).access_token
    const issued = await issue(issueOnly, WITH_STATUS)
    assert.equal(issued.statusCode, 201, issued.body)
    insufficientScope(await verify(issueOnly, issued.json()), 'verify')
    const presentation = { verifiablePresentation: {}, options: { challenge: 'c' } }
    insufficientScope(await vcApiPost(t.app, client.endpoints.presentations_verify, issueOnly, presentation), 'verify')
    insufficientScope(await revoke(issueOnly, issued.json().id), 'status')
  })

  it('a status-scoped token revokes, and can neither issue nor verify', async () => {
    const issued = await issue((await token('issue')).access_token, WITH_STATUS)
    assert.equal(issued.statusCode, 201, issued.body)
    const statusOnly = (await token('status')).access_token
    insufficientScope(await issue(statusOnly), 'issue')
    insufficientScope(await verify(statusOnly, issued.json()), 'verify')
    const revoked = await revoke(statusOnly, issued.json().id)
    assert.equal(revoked.statusCode, 200, revoked.body)
  })

  it('a missing or unknown token is a 401 naming the Bearer scheme, invalid_token for a token sent (RFC 6750 §3)', async () => {
    const none = await vcApiPost(t.app, client.endpoints.verify, undefined, {})
    assert.equal(none.statusCode, 401)
    assert.equal(none.headers['www-authenticate'], 'Bearer')
    const unknown = await vcApiPost(t.app, client.endpoints.verify, 'not-a-token', {})
    assert.equal(unknown.statusCode, 401)
    assert.equal(unknown.headers['www-authenticate'], 'Bearer error="invalid_token"')
  })

  it('every VC API route declares the one scope it needs, and refuses a token of any other scope before reading the body', async () => {
    const routes = t.app.routeTable.filter((r) => r.url.startsWith('/vc-api/'))
    assert.ok(routes.length >= 4, `${routes.length} VC API routes`)
    const instance = /\/vc-api\/issuers\/([^/]+)\//.exec(client.endpoints.status)![1]!
    const tokens = Object.fromEntries(
      await Promise.all(ALL_SCOPES.map(async (s) => [s, (await token(s)).access_token] as const)),
    )
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json()
    for (const route of routes) {
      const name = `${route.method} ${route.url}`
      const security = (route.schema as { security?: Array<Record<string, string[]>> } | undefined)?.security
      const declared = security?.flatMap((requirement) => Object.values(requirement).flat()) ?? []
      assert.equal(declared.length, 1, `${name} declares one scope: ${JSON.stringify(security)}`)
      const needed = declared[0]!
      assert.ok(ALL_SCOPES.includes(needed), `${name}: ${needed}`)
      // The OpenAPI document tells clients too.
      const openApiPath = route.url.replace(/:(\w+)/g, '{$1}')
      assert.deepEqual(doc.paths[openApiPath]?.[route.method.toLowerCase()]?.security, security, name)
      const url = route.url.replace(':issuer_id', instance).replace(':format', 'eddsa-rdfc-2022').replace(/:\w+/g, 'x')
      for (const scope of ALL_SCOPES) {
        const headers = { authorization: `Bearer ${tokens[scope]}` }
        const res = await t.app.inject({ method: route.method as 'POST', url, headers, payload: {} })
        if (scope === needed) assert.notEqual(res.statusCode, 403, `${name} with ${scope}: ${res.body}`)
        else insufficientScope(res, needed)
      }
    }
    assert.ok(doc.components.securitySchemes.vcApiOAuth2.flows.clientCredentials.scopes.issue)
    assert.equal(pathOf(doc.components.securitySchemes.vcApiOAuth2.flows.clientCredentials.tokenUrl), '/oauth2/token')
  })
})

describe(`W3C VC API: clients and tokens from before scopes keep every scope (${TEST_ENGINE})`, () => {
  let t: TestApp
  const issuer = new IssuerActor()
  before(async () => {
    t = await createTestApp()
    await issuer.setUp(t.app, 'Old Uni')
  })
  after(() => t?.close())

  it('the migration gives them issue, verify and status', async () => {
    const names = Object.keys(migrations).sort()
    const mine = names.indexOf('20261128T1200-vc-api-scopes')
    assert.ok(mine > 0, 'the scopes migration is registered')
    const migrator = createMigrator(t.deps.database.db)
    const down = await migrator.migrateTo(names[mine - 1]!)
    assert.equal(down.error, undefined)
    const db = t.deps.database.db
    const clientId = `vcc_${randomBytes(8).toString('hex')}`
    const secret = randomBytes(32).toString('base64url')
    const accessToken = randomBytes(32).toString('base64url')
    const digest = (text: string) => createHash('sha256').update(text).digest('hex')
    await sql`insert into vc_api_clients (client_id, issuer_did, name, secret_digest)
      values (${clientId}, ${issuer.did}, 'old', ${digest(secret)})`.execute(db)
    await sql`insert into vc_api_tokens (token_digest, client_id, expires_at)
      values (${digest(accessToken)}, ${clientId}, now() + interval '1 hour')`.execute(db)
    const up = await migrator.migrateToLatest()
    assert.equal(up.error, undefined)

    const listed = (await callAs(t.app, 'GET', `/api/issuer/${issuer.did}/vc-api/clients`, issuer.token)).json()
      .clients as Json[]
    assert.deepEqual(listed.find((c) => c.client_id === clientId)?.scopes, ALL_SCOPES)
    const granted = await tokenRequest(t.app, { grant_type: 'client_credentials' }, basicAuth(clientId, secret))
    assert.equal(granted.json().scope, 'issue verify status')
    // The token granted before the migration still reaches every route (here: past the scope check to validation).
    const routes = ['issuers/x/eddsa-rdfc-2022/credentials/issue', 'issuers/x/credentials/status']
    routes.push('credentials/verify', 'presentations/verify')
    for (const route of routes) {
      const res = await vcApiPost(t.app, `${t.config.publicBaseUrl}/vc-api/${route}`, accessToken, {})
      assert.equal(res.statusCode, 400, `${route}: ${res.body}`)
    }
  })
})
