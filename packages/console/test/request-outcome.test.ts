import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { declineOf, type RequestDetail } from '../src/lib/request-outcome.js'

const request = (status = 'pending') => ({
  id: 'presreq-1',
  verifier_did: 'did:key:z6Mkv',
  presentation_type: 'Check',
  purpose: 'Hiring',
  status,
  required_credentials: [],
  required_predicates: [],
  created_at: '2026-01-01T00:00:00.000Z',
  expires_at: '2026-01-01T01:00:00.000Z',
})
const detail = (extra: Partial<RequestDetail> = {}, status?: string): RequestDetail => ({
  request: request(status),
  ...extra,
})

describe('a verifier request: the holder refused or not', () => {
  it("reads a wallet's OpenID4VP error response (OID4VP 1.0 §8.5) as a refusal, with its description", () => {
    const at = '2026-01-01T00:10:00.000Z'
    assert.deepEqual(
      declineOf(
        detail({
          openid4vp: {
            client_id: 'x',
            answer: 'declined',
            holder_response: { error: 'access_denied', error_description: 'Not today', at },
          },
        }),
      ),
      { kind: 'declined', by: null, reason: 'Not today', at, via: 'openid4vp' },
    )
    // access_denied alone is the refusal itself, not a reason to show; another error code is.
    assert.equal(
      declineOf(
        detail({
          openid4vp: {
            client_id: 'x',
            answer: 'declined',
            holder_response: { error: 'access_denied', error_description: null, at },
          },
        }),
      )?.reason,
      null,
    )
    assert.equal(
      declineOf(
        detail({
          openid4vp: {
            client_id: 'x',
            answer: 'declined',
            holder_response: { error: 'invalid_request', error_description: null, at },
          },
        }),
      )?.reason,
      'invalid_request',
    )
  })

  it("reads a rejection in the spec's inbox of an unaddressed request (the request itself stays pending), naming the holder", () => {
    const answers = [
      { holder_did: 'did:key:a', status: 'approved' as const, reason: null, at: '2026-01-01T00:01:00.000Z' },
      { holder_did: 'did:key:b', status: 'rejected' as const, reason: 'No', at: '2026-01-01T00:02:00.000Z' },
    ]
    assert.deepEqual(declineOf(detail({ answers })), {
      kind: 'declined',
      by: 'did:key:b',
      reason: 'No',
      at: '2026-01-01T00:02:00.000Z',
      via: 'inbox',
    })
  })

  it('sees no refusal while the request waits, or when holders only approved', () => {
    assert.equal(declineOf(detail()), undefined)
    assert.equal(
      declineOf(
        detail({
          answers: [{ holder_did: 'did:key:a', status: 'approved', reason: null, at: '2026-01-01T00:01:00.000Z' }],
          openid4vp: { client_id: 'x', answer: null, holder_response: null },
        }),
      ),
      undefined,
    )
    assert.equal(declineOf(detail({ openid4vp: { client_id: 'x', answer: 'accepted' } })), undefined)
  })

  it('takes a closed addressed request (status rejected) as refused, by its holder', () => {
    assert.equal(declineOf(detail({}, 'rejected'))?.kind, 'declined')
  })
})
