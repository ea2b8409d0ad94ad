import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createTestApp, type TestApp } from '../helpers/test-app.js'

/**
 * Issue 26 item 4: every creating POST takes an Idempotency-Key. A POST not keyed must be listed
 * here with why a repeat creates nothing new (or why a key would weaken it); a new creating route
 * fails this test until it is keyed or listed.
 */
const NOT_KEYED: Record<string, string> = {
  // Sign-in and accounts: single-use signed challenges; a retry signs a fresh one. Replaying a
  // stored answer would hand out a session token again to whoever holds the captured body.
  'POST /api/auth/challenge': 'a fresh challenge per call; nothing a retry could duplicate',
  'POST /api/auth/verify-challenge': 'single-use signed challenge; answers a session token',
  'POST /api/auth/login': 'single-use signed challenge; answers a session token',
  'POST /api/auth/register':
    'one account per DID (409 on a repeat), proved by a single-use challenge; answers a session token',
  'POST /api/auth/generate-did': 'stores nothing',
  'POST /api/auth/avatar': "replaces the caller's one avatar: a repeat stores the same",
  'POST /api/auth/create-wallet': 'single-use signed challenge; answers a session token',
  'POST /api/auth/login-wallet': 'single-use signed challenge; answers a session token',
  'POST /api/auth/wallet/encrypted-seed': "replaces the caller's one seed: a repeat stores the same",
  'POST /api/auth/wallet/encrypted-seed/get': 'reads; single-use signed challenge',
  'POST /api/admin/generate-did': 'stores nothing',
  'POST /api/admin/holders/register': 'one holder per DID: a repeat answers 409',
  // Transitions of an existing record: a repeat answers the record unchanged.
  'POST /api/issuer/{did}/set-auth': 'sets a flag: a repeat sets the same',
  'POST /api/issuer/{did}/certificates/document-signer':
    'the active Document Signer imported again is answered unchanged',
  'POST /api/issuer/{did}/certificates/csr': 'the pending key is reused: a repeat answers a request for the same key',
  'POST /api/issuer/{did}/certificates/csr/certificate': 'the active certificate sent again is answered unchanged',
  'POST /api/issuer/{did}/certificates/rotate':
    'each call is a new Document Signer; one more after a lost answer leaves the previous valid and listed',
  'POST /api/verifier/{did}/certificates/access': 'the active access certificate imported again is answered unchanged',
  'POST /api/verifier/{did}/certificates/csr': 'the pending key is reused: a repeat answers a request for the same key',
  'POST /api/verifier/{did}/certificates/csr/certificate': 'the active certificate sent again is answered unchanged',
  'POST /api/verifier/{did}/certificates/rotate':
    'each call is a new access certificate; one more after a lost answer leaves the previous listed',
  'POST /api/issuer/{did}/authenticate': 'single-use step-up challenge',
  'POST /api/issuer/{did}/credentials/{credential_id}/revoke': 'revoking again answers 200 unchanged',
  'POST /api/wallet/issuer/{issuer_did}/request/{request_id}/reject': 'rejecting again answers the rejected request',
  'POST /api/wallet/{did}/consents/{consent_id}/revoke': 'revoking again answers 200 unchanged',
  'POST /api/wallet/{did}/credentials/{credential_id}/revoke': 'withdrawing again answers 200 unchanged',
  'POST /api/wallet/{did}/shares/{share_id}/revoke': 'revoking again answers 200 unchanged',
  'POST /api/wallet/presentation-requests': 'takes a request into the inbox: 200 when it is already there',
  'POST /api/wallet/presentation-requests/{request_id}/reject': 'declining again answers the declined request',
  'POST /api/wallet/{did}/offers/preview': 'reads an offer, stores nothing',
  'POST /api/wallet/{did}/offers/decline':
    'records a refusal in the activity log: a repeat records it again, and nothing else changes',
  'POST /api/wallet/{did}/presentation-requests/answer/{session_id}/decline':
    'ends its session once: a repeat answers 409 and sends nothing',
  'POST /api/verifier/requests/{id}/response-code':
    'redeems a single-use code: a repeat answers 409, and a stored answer would hand the code out again',
  'POST /api/blockchain/credential/revoke': 'revoking again answers the revoked anchor',
  'POST /api/blockchain/consent/revoke': 'revoking again answers the revoked consent',
  'POST /api/blockchain-legacy/revoke-credential': 'revoking again answers the revoked anchor',
  'POST /api/blockchain-legacy/revoke-consent': 'revoking again answers the revoked consent',
  'POST /vc-api/issuers/{issuer_id}/credentials/status': 'sets a status bit: a repeat sets the same',
  // Computations that store nothing.
  'POST /api/wallet/{did}/credentials/{credential_id}/anonymous-proof': 'derives a proof, stores nothing',
  'POST /api/wallet/{did}/credentials/{credential_id}/derive': 'derives a proof, stores nothing',
  'POST /api/verifier/presentations/{id}/verify': 'checks a stored presentation; a repeat checks again',
  'POST /api/verifier/presentations/{id}/resend': 'sends the latest event again, which is what a retry asks for',
  'POST /vc-api/credentials/verify': 'stores nothing',
  'POST /vc-api/presentations/verify': 'stores nothing',
  'POST /api/domain/verify': 'records the outcome of a check for the DID: a repeat records it again',
  // Standard protocols define their own retries (nonces, single-use codes, transaction ids).
  'POST /oauth2/token': 'OAuth 2.0 token endpoint (RFC 6749)',
  'POST /issuers/{web_id}/oid4vci/authorize': 'OpenID4VCI: single-use code',
  'POST /issuers/{web_id}/oid4vci/token': 'OpenID4VCI: single-use pre-authorized or authorization code',
  'POST /issuers/{web_id}/oid4vci/par': 'OpenID4VCI: each push answers its own single-use request_uri',
  'POST /issuers/{web_id}/oid4vci/nonce': 'OpenID4VCI: a fresh nonce per call',
  'POST /issuers/{web_id}/oid4vci/credential': 'OpenID4VCI: single-use proof nonce; the protocol has no key',
  'POST /issuers/{web_id}/oid4vci/deferred-credential': 'OpenID4VCI: the transaction id is the retry key',
  'POST /issuers/{web_id}/oid4vci/notification': 'OpenID4VCI: notifications are idempotent by notification_id',
  'POST /openid4vp/responses/{id}': 'OpenID4VP: the request is answered once; its state is the key',
  'POST /openid4vp/requests/{id}': 'OpenID4VP §5.10.1: answers a request object, stores nothing',
}

describe('Idempotency-Key coverage: every creating POST takes it', () => {
  let t: TestApp
  let posts: Map<string, { keyed: boolean }>

  before(async () => {
    t = await createTestApp()
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs/json' })).json() as {
      paths: Record<string, { post?: { parameters?: Array<{ in: string; name: string }> } }>
    }
    posts = new Map()
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!ops.post) continue
      const keyed = (ops.post.parameters ?? []).some(
        (p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
      )
      posts.set(`POST ${path}`, { keyed })
    }
  })
  after(() => t.close())

  it('each POST is keyed or listed with its reason, never both', () => {
    assert.ok(posts.size > 60, `the OpenAPI document lists ${posts.size} POST routes`)
    const unaccounted = [...posts]
      .filter(([route, { keyed }]) => !keyed && !(route in NOT_KEYED))
      .map(([route]) => route)
    assert.deepEqual(unaccounted, [], 'creating POSTs without Idempotency-Key')
    const both = [...posts].filter(([route, { keyed }]) => keyed && route in NOT_KEYED).map(([route]) => route)
    assert.deepEqual(both, [], 'keyed routes still listed as not keyed')
  })

  it('lists no route that does not exist', () => {
    assert.deepEqual(
      Object.keys(NOT_KEYED).filter((route) => !posts.has(route)),
      [],
    )
  })
})
