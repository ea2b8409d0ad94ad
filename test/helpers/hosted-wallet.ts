import assert from 'node:assert/strict'
import { sign } from 'node:crypto'
import { bearer, DidClient } from './did-client.js'
import { HttpsFront } from './https-front.js'
import { callAs, IssuerActor } from './issuer-setup.js'
import type { LightMyRequestResponse } from 'fastify'
import { createTestApp, type TestApp } from './test-app.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const SCHEMA = {
  name: 'Pass',
  version: '1',
  attributes: [{ name: 'given_name', data_type: 'string', required: true }],
  anonymous_credentials: false,
}

export interface HostedWallet {
  front: HttpsFront
  t: TestApp
  holder: DidClient
  token: string
  /** The vct of the holder's SD-JWT VC (a Pass with given_name "Ada"). */
  vct: string
  answer(body: Json, who?: { holder: DidClient; token: string }): Promise<LightMyRequestResponse>
  send(prepared: Json, who?: { holder: DidClient; token: string }): Promise<LightMyRequestResponse>
  close(): Promise<void>
}

/**
 * One service instance behind HTTPS whose holder holds an SD-JWT VC issued there, with `env` over
 * the test defaults (OUTBOUND_ALLOW_PRIVATE unset: the production policy); `answer`/`send` drive
 * the hosted wallet's presentation routes, the holder signing each prepared JWS with its own key.
 */
export async function hostedWallet(env: Record<string, string> = {}): Promise<HostedWallet> {
  const front = await HttpsFront.open()
  const t = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin, ...env } })
  front.serve(t.app)
  const issuer = new IssuerActor()
  await issuer.setUp(t.app, 'Pass office')
  const schemaId = await issuer.schema(t.app, SCHEMA)
  const holder = new DidClient()
  const token = await holder.login(t.app)
  const issued = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/issue`, issuer.token, {
    credential_type: 'Pass',
    schema_id: schemaId,
    subject_did: holder.did,
    attributes: { given_name: 'Ada' },
    format: 'dc+sd-jwt',
  })
  assert.equal(issued.statusCode, 201, issued.body)
  const self = { holder, token }
  const post = (url: string, who: { holder: DidClient; token: string }, payload: Json) =>
    t.app.inject({ method: 'POST', url, headers: { ...bearer(who.token), 'x-user-did': who.holder.did }, payload })
  return {
    front,
    t,
    holder,
    token,
    vct: `${front.origin}/vct/${encodeURIComponent(schemaId)}`,
    answer: (body, who = self) => post(`/api/wallet/${who.holder.did}/presentation-requests/answer`, who, body),
    send: (prepared, who = self) =>
      post(`/api/wallet/${who.holder.did}/presentation-requests/answer/${prepared.session_id}`, who, {
        signatures: Object.fromEntries(
          (prepared.presentations as Json[]).map((p) => [
            p.query_id,
            `${p.to_sign.signing_input}.${sign(null, Buffer.from(p.to_sign.signing_input), who.holder.privateKey).toString('base64url')}`,
          ]),
        ),
      }),
    close: async () => {
      await t.close()
      await front.close()
    },
  }
}
