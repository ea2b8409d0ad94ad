import assert from 'node:assert/strict'
import { HttpsFront } from './https-front.js'
import { callAs, type IssuerActor } from './issuer-setup.js'
import { createTestApp, type TestApp } from './test-app.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

/**
 * The app behind a real HTTPS front (OpenID4VC is served on https only), with `issuer` signed in,
 * its profile made and `schema` defined: what every OpenID4VCI test starts from.
 */
export async function openHttpsIssuer(
  issuer: IssuerActor,
  name: string,
  schema: object,
  options: Parameters<typeof createTestApp>[0] = {},
): Promise<{ front: HttpsFront; t: TestApp; schemaId: string }> {
  const front = await HttpsFront.open()
  let t: TestApp | undefined
  try {
    t = await createTestApp({ ...options, env: { PUBLIC_BASE_URL: front.origin, ...options.env } })
    front.serve(t.app)
    await issuer.setUp(t.app, name)
    return { front, t, schemaId: await issuer.schema(t.app, schema) }
  } catch (error) {
    // Whatever was opened is closed: a failed set-up must not keep the test file running.
    await t?.close().catch(() => undefined)
    await front.close()
    throw error
  }
}

export async function closeHttpsIssuer(opened: { front: HttpsFront; t: TestApp }): Promise<void> {
  await opened.t.close()
  await opened.front.close()
}

/** POST /api/issuer/:did/offers with `defaults` and `body` over them: the 201's JSON. */
export async function makeOffer(t: TestApp, issuer: IssuerActor, defaults: Json, body: Json = {}): Promise<Json> {
  const res = await callAs(t.app, 'POST', `/api/issuer/${issuer.did}/offers`, issuer.token, { ...defaults, ...body })
  assert.equal(res.statusCode, 201, res.body)
  return res.json() as Json
}

/** Two instances behind their own HTTPS fronts: `home` may call `foreign` on loopback (OUTBOUND_ALLOW_PRIVATE), not the reverse. */
export interface TwoInstances {
  homeFront: HttpsFront
  foreignFront: HttpsFront
  home: TestApp
  foreign: TestApp
}

export async function openTwoInstances(): Promise<TwoInstances> {
  const homeFront = await HttpsFront.open()
  const foreignFront = await HttpsFront.open()
  const home = await createTestApp({ env: { PUBLIC_BASE_URL: homeFront.origin, OUTBOUND_ALLOW_PRIVATE: 'true' } })
  const foreign = await createTestApp({ env: { PUBLIC_BASE_URL: foreignFront.origin } })
  homeFront.serve(home.app)
  foreignFront.serve(foreign.app)
  return { homeFront, foreignFront, home, foreign }
}

export async function closeTwoInstances(two: TwoInstances): Promise<void> {
  await two.home.close()
  await two.foreign.close()
  await two.homeFront.close()
  await two.foreignFront.close()
}
