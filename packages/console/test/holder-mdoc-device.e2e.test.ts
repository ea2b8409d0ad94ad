/**
 * The browser holder's device key (ISO/IEC 18013-5 §9.1.2.4), in Debian's Chromium: accepting an
 * mDL offer makes a P-256 key in the page, non-extractable, kept in IndexedDB beside the holder's
 * Ed25519 key; the mDL the issuer signs binds that key (its MSO's deviceKey, read here with cbor-x),
 * and a second mDL binds the same one. Presented over OpenID4VP for age_over_18 alone, the device
 * signature is made in the page and the service's verifier records the presentation verified with
 * that element only. A holder whose mDL was imported has no device key: the consent says so and
 * Share stays disabled; Decline still answers. Screenshots: .tmp/console-e2e/holder-device-*.png.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { after, afterEach, before, describe, it } from 'node:test'
import { Decoder } from 'cbor-x'
import type { Browser, Page } from 'playwright-core'
import { chromiumMissing, launchChromium } from '../../../test/helpers/browser.js'
import { callAs } from '../../../test/helpers/issuer-setup.js'
import { MDL_DOCTYPE, sampleLicence } from '../../../test/helpers/mdl-sample.js'
import { generateWalletKey } from '../../../test/helpers/oid4vc-wallet/wallet-keys.js'
import { HolderWorld, signIn, type Json } from './support/world.js'

const root = path.resolve(import.meta.dirname, '../../..')
const shots = path.join(root, '.tmp/console-e2e')
const cbor = new Decoder({ mapsAsObjects: false })

/** What the page keeps under an IndexedDB slot of the console's key store: the key's public JWK and its private key's properties. */
function keptKey(page: Page, slot: string): Promise<Json | null> {
  return page.evaluate(`(async () => {
    const db = await new Promise((ok, ko) => { const r = indexedDB.open('credential-service-console', 1); r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error) })
    const key = await new Promise((ok, ko) => { const r = db.transaction('keys').objectStore('keys').get(${JSON.stringify(slot)}); r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error) })
    const slots = await new Promise((ok, ko) => { const r = db.transaction('keys').objectStore('keys').getAllKeys(); r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error) })
    db.close()
    if (!key) return null
    const p = key.privateKey
    return { alg: key.alg, publicJwk: key.publicJwk, extractable: p.extractable, algorithm: p.algorithm, type: p.type, slots }
  })()`) as Promise<Json | null>
}

/** The device key an mdoc's MSO binds (ISO/IEC 18013-5 §9.1.2.4 deviceKeyInfo), as the x and y of its COSE_Key (RFC 9053 §7.1.1). */
function boundDeviceKey(issuerSigned: string): { x: string; y: string } {
  const signed = cbor.decode(Buffer.from(issuerSigned, 'base64url')) as Map<string, unknown>
  const issuerAuth = signed.get('issuerAuth') as unknown[]
  // The COSE_Sign1 payload is MobileSecurityObjectBytes, #6.24(bstr .cbor MSO): past the tag's two bytes, the bstr holds the MSO.
  const payload = Buffer.from(issuerAuth[2] as Uint8Array)
  assert.equal(payload.subarray(0, 2).toString('hex'), 'd818')
  const mso = cbor.decode(cbor.decode(payload.subarray(2)) as Uint8Array) as Map<string, unknown>
  const coseKey = (mso.get('deviceKeyInfo') as Map<string, unknown>).get('deviceKey') as Map<number, unknown>
  assert.equal(coseKey.get(1), 2, 'kty EC2')
  assert.equal(coseKey.get(-1), 1, 'crv P-256')
  return {
    x: Buffer.from(coseKey.get(-2) as Uint8Array).toString('base64url'),
    y: Buffer.from(coseKey.get(-3) as Uint8Array).toString('base64url'),
  }
}

describe('the browser holder accepts an mDL bound to its own device key and presents it over OpenID4VP', {
  timeout: 300_000,
  skip: chromiumMissing(),
}, () => {
  let world: HolderWorld
  let browser: Browser
  let holder: Page
  let holderDid: string
  let schemaId: string

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(shots, `holder-device-${name}.png`), fullPage: true })
  const use = async (page: Page, text: string) => {
    await page.getByTestId('qr-text').fill(text)
    await page.getByRole('button', { name: 'Use this code' }).click()
  }
  const mdlOffer = async () =>
    (
      await world.call(
        'POST',
        `/api/issuer/${world.issuer.did}/offers`,
        world.issuer.token,
        { credential_type: 'DrivingLicence', schema_id: schemaId, attributes: sampleLicence, format: 'mso_mdoc' },
        201,
      )
    ).credential_offer_uri as string
  const ageRequest = () =>
    world.call(
      'POST',
      '/api/verifier/requests',
      world.verifierToken,
      {
        verifier_did: world.verifier.did,
        presentation_type: 'AgeCheck',
        purpose: 'Rent a car',
        required_credentials: [
          { credential_type: 'DrivingLicence', required_attributes: ['age_over_18'], format: 'mso_mdoc' },
        ],
      },
      201,
    )
  /** The wallet's mDLs (their IssuerSigned), read over the API with a token signed in the page. */
  const walletMdls = async (page: Page, did: string) => {
    const listed = await world.call('GET', `/api/wallet/${did}/credentials?limit=100`, await tokenOf(page, did))
    return (listed.data as Json[]).filter(
      (c) => c.credential_type === MDL_DOCTYPE || c.credential_type === 'DrivingLicence',
    )
  }
  const acceptOffer = async () => {
    await use(holder, await mdlOffer())
    const consent = holder.getByTestId('offer-consent')
    await consent.getByRole('heading', { name: 'Kraftfahrt-Bundesamt offers you a credential' }).waitFor()
    assert.match((await consent.getByTestId('device-key-note').textContent()) ?? '', /device key/)
    await consent.getByRole('button', { name: 'Accept' }).click()
    await holder.getByTestId('holder-notice').getByText('Received 1 credential(s): they are in your wallet').waitFor()
  }

  before(async () => {
    if (!existsSync(path.join(root, 'packages/console/dist/index.html'))) {
      const built = spawnSync(process.execPath, ['scripts/build-console.ts'], { cwd: root, stdio: 'inherit' })
      assert.equal(built.status, 0, 'the console builds')
    }
    await mkdir(shots, { recursive: true })
    world = await HolderWorld.open({ issuer: 'Kraftfahrt-Bundesamt', verifier: 'Car Rental' })
    const { app } = world.service
    const country = await callAs(app, 'PUT', `/api/issuer/${world.issuer.did}/update`, world.issuer.token, {
      country: 'DE',
    })
    assert.equal(country.statusCode, 200, country.body)
    const presets = (await app.inject({ method: 'GET', url: '/api/schema-presets' })).json().presets as Json[]
    schemaId = await world.issuer.schema(app, presets.find((p) => p.id === MDL_DOCTYPE)!.schema as object)

    browser = await launchChromium()
    const context = await browser.newContext({ baseURL: world.url, viewport: { width: 1280, height: 900 } })
    holder = await context.newPage()
    holder.setDefaultTimeout(30_000)
    holderDid = await signIn(holder, 'holder')
  })

  afterEach(async (t) => {
    if (!(t as unknown as { passed?: boolean }).passed)
      await holder?.screenshot({ path: path.join(shots, 'holder-device-failure.png'), fullPage: true }).catch(() => {})
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await world?.close()
  })

  it('accepting an mDL offer makes a non-extractable P-256 device key in the page; the mDL binds it, and a second mDL binds the same key', async () => {
    assert.equal(await keptKey(holder, `device:${holderDid}`), null, 'no device key before an mdoc is accepted')
    await acceptOffer()
    const device = await keptKey(holder, `device:${holderDid}`)
    assert.ok(device, 'a device key is kept')
    assert.equal(device.alg, 'ES256')
    assert.equal(device.type, 'private')
    assert.equal(device.extractable, false)
    assert.deepEqual(device.algorithm, { name: 'ECDSA', namedCurve: 'P-256' })
    assert.equal(device.publicJwk.d, undefined)
    const holderKey = await keptKey(holder, 'holder')
    assert.equal(holderKey?.alg, 'EdDSA', 'the holder key stays the Ed25519 one it signs in with')

    const [first] = await walletMdls(holder, holderDid)
    assert.ok(first, 'the mDL is in the wallet')
    assert.deepEqual(boundDeviceKey(first.jwt as string), { x: device.publicJwk.x, y: device.publicJwk.y })

    await acceptOffer()
    const again = await keptKey(holder, `device:${holderDid}`)
    assert.deepEqual(again?.publicJwk, device.publicJwk, 'the device key is reused')
    const mdls = await walletMdls(holder, holderDid)
    assert.equal(mdls.length, 2)
    for (const mdl of mdls)
      assert.deepEqual(boundDeviceKey(mdl.jwt as string), { x: device.publicJwk.x, y: device.publicJwk.y })
    await shot(holder, 'accepted')
  })

  it('presents the mDL for age_over_18 alone, the device signature made in the page; the verifier records it verified with that element only', async () => {
    const created = await ageRequest()
    await use(holder, created.authorization_request_uri as string)
    const consent = holder.getByTestId('request-consent')
    await consent.getByText('Purpose: Rent a car').waitFor()
    assert.deepEqual(await consent.getByTestId('disclosed-claims').locator(':scope > div > dt').allTextContents(), [
      'Mobile driving licence: age over 18',
    ])
    assert.equal(await consent.getByTestId('device-key-missing').count(), 0)
    await shot(holder, 'consent')
    await consent.getByRole('button', { name: 'Share' }).click()
    await holder
      .getByTestId('holder-notice')
      .getByText('Shared with Car Rental: the verifier accepted the presentation')
      .waitFor()

    const state = await world.requestState(created.request.id as string)
    assert.equal(state.request.status, 'verified', JSON.stringify(state))
    assert.equal(state.openid4vp.answer, 'accepted')
    const list = await world.call(
      'GET',
      `/api/verifier/${world.verifier.did}/presentations?limit=100`,
      world.verifierToken,
    )
    const kept = ((list.presentations ?? list.items ?? list.data) as Json[]).find(
      (p) => p.request_id === created.request.id,
    )
    assert.ok(kept, JSON.stringify(list))
    assert.equal(kept.status, 'verified')
    assert.deepEqual(kept.provided_attributes, ['age_over_18'])
    const subject = kept.verification_result.credential_subjects[0] as Json
    assert.equal(subject.age_over_18, true)
    for (const element of Object.keys(sampleLicence).filter((e) => e !== 'age_over_18'))
      assert.equal(subject[element], undefined, `${element} stays in the wallet`)
  })

  it('a holder whose mDL was imported has no device key: the consent says so, Share stays disabled, nothing is signed; Decline answers', async () => {
    const context = await browser.newContext({ baseURL: world.url, viewport: { width: 1280, height: 900 } })
    const other = await context.newPage()
    other.setDefaultTimeout(30_000)
    try {
      const otherDid = await signIn(other, 'holder')
      // An mDL issued over the API to a P-256 key held elsewhere, then imported: no device key in this browser.
      const elsewhere = await generateWalletKey('ES256')
      const issued = await world.call(
        'POST',
        `/api/issuer/${world.issuer.did}/issue`,
        world.issuer.token,
        {
          credential_type: 'DrivingLicence',
          schema_id: schemaId,
          subject_did: elsewhere.did,
          attributes: sampleLicence,
          format: 'mso_mdoc',
        },
        201,
      )
      await world.call(
        'POST',
        `/api/wallet/${otherDid}/credentials/import`,
        await tokenOf(other, otherDid),
        { credential_jwt: issued.credential.jwt },
        201,
      )
      await other.getByTestId('credential-item').filter({ hasText: 'Mobile driving licence' }).waitFor()

      const created = await ageRequest()
      await use(other, created.authorization_request_uri as string)
      const consent = other.getByTestId('request-consent')
      await consent.getByText('Purpose: Rent a car').waitFor()
      assert.match(
        (await consent.getByTestId('device-key-missing').textContent()) ?? '',
        /cannot share the mdoc asked for.*device key it was accepted with.*imported/,
      )
      assert.equal(await consent.getByRole('button', { name: 'Share' }).isDisabled(), true)
      assert.equal(await keptKey(other, `device:${otherDid}`), null, 'no device key was made by a request')
      await shot(other, 'missing')
      const before = await world.requestState(created.request.id as string)
      assert.equal(before.request.status, 'pending')

      await consent.getByRole('button', { name: 'Decline' }).click()
      await other.getByTestId('holder-notice').getByText('Declined: Car Rental was told you refused').waitFor()
      const state = await world.requestState(created.request.id as string)
      assert.equal(state.openid4vp.holder_response?.error, 'access_denied', JSON.stringify(state.openid4vp))
    } finally {
      await context.close()
    }
  })

  it("deleting the browser's holder key deletes its device key too", async () => {
    assert.ok(await keptKey(holder, `device:${holderDid}`))
    await holder.getByRole('button', { name: 'Sign out' }).click()
    await holder.getByRole('button', { name: "Delete this browser's holder key" }).click()
    await holder.getByText('The holder key of this browser is deleted.').waitFor()
    assert.equal(await keptKey(holder, `device:${holderDid}`), null)
    assert.equal(await keptKey(holder, 'holder'), null)
  })

  /** A session token of the page's holder: its key is not extractable, so the challenge is signed in the page. */
  async function tokenOf(page: Page, did: string): Promise<string> {
    const res = await world.service.app.inject({ method: 'POST', url: '/api/auth/challenge', payload: { did } })
    assert.equal(res.statusCode, 200)
    return String(
      await page.evaluate(`(async () => {
      const db = await new Promise((ok, ko) => { const r = indexedDB.open('credential-service-console', 1); r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error) })
      const key = await new Promise((ok, ko) => { const r = db.transaction('keys').objectStore('keys').get('holder'); r.onsuccess = () => ok(r.result); r.onerror = () => ko(r.error) })
      db.close()
      const challenge = ${JSON.stringify(res.json().challenge)}
      const signature = new Uint8Array(await crypto.subtle.sign({ name: 'Ed25519' }, key.privateKey, new TextEncoder().encode(challenge)))
      const b64 = btoa(String.fromCharCode(...signature)).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '')
      const answer = await fetch('/api/auth/verify-challenge', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ did: key.did, challenge, signature: b64 }) })
      return (await answer.json()).token
    })()`),
    )
  }
})
