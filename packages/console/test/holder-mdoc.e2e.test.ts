/**
 * An mDL (ISO/IEC 18013-5 `mso_mdoc`) in the holder's wallet, in Debian's Chromium: the list and
 * the detail name its doctype ("Mobile driving licence", the doctype beside it) and show its data
 * elements as a person reads them (dates, Yes, driving privileges as fields, the portrait as the
 * image it is); the offer preview and the OpenID4VP consent name `[namespace, element]` claims as
 * "Mobile driving licence: age over 18". The mDL is issued over the API to a P-256 did:key and
 * imported into the browser holder's wallet (its own key is Ed25519). Axe and no overflow at 390 px.
 * Screenshots: .tmp/console-e2e/holder-mdoc-*.png.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { after, afterEach, before, describe, it } from 'node:test'
import { PNG } from 'pngjs'
import type { Browser, Page } from 'playwright-core'
import { chromiumMissing, launchChromium } from '../../../test/helpers/browser.js'
import { callAs } from '../../../test/helpers/issuer-setup.js'
import { MDL_DOCTYPE, sampleLicence } from '../../../test/helpers/mdl-sample.js'
import { generateWalletKey } from '../../../test/helpers/oid4vc-wallet/wallet-keys.js'
import { assertAccessible, HolderWorld, overflowing, signIn, type Json } from './support/world.js'

const root = path.resolve(import.meta.dirname, '../../..')
const shots = path.join(root, '.tmp/console-e2e')

/** In the page: whether an <img> loaded and its decoded size (this file is type-checked without the DOM library). */
const decoded = (img: unknown) => {
  const { complete, naturalWidth, naturalHeight } = img as {
    complete: boolean
    naturalWidth: number
    naturalHeight: number
  }
  return [complete, naturalWidth, naturalHeight]
}

/** A small PNG portrait (a face-sized block of colour): bytes a browser decodes. */
function portrait(): Buffer {
  const image = new PNG({ width: 24, height: 32 })
  for (let i = 0; i < image.data.length; i += 4) image.data.set([90, 120, 160, 255], i)
  return PNG.sync.write(image)
}

describe('an mDL in the holder wallet in Chromium: doctype by name, elements readable, claims named in consents', {
  timeout: 240_000,
  skip: chromiumMissing(),
}, () => {
  let world: HolderWorld
  let browser: Browser
  let holder: Page
  let holderDid: string
  let schemaId: string
  let axeSource: string
  const cspViolations: string[] = []
  const licence = { ...sampleLicence, portrait: `data:image/png;base64,${portrait().toString('base64')}` }

  const shot = (name: string) =>
    holder.screenshot({ path: path.join(shots, `holder-mdoc-${name}.png`), fullPage: true })
  const use = async (text: string) => {
    await holder.getByTestId('qr-text').fill(text)
    await holder.getByRole('button', { name: 'Use this code' }).click()
  }
  const mdlItem = () => holder.getByTestId('credential-item').filter({ hasText: 'Mobile driving licence' })

  before(async () => {
    if (!existsSync(path.join(root, 'packages/console/dist/index.html'))) {
      const built = spawnSync(process.execPath, ['scripts/build-console.ts'], { cwd: root, stdio: 'inherit' })
      assert.equal(built.status, 0, 'the console builds')
    }
    await mkdir(shots, { recursive: true })
    axeSource = await readFile(path.join(root, 'node_modules/axe-core/axe.min.js'), 'utf8')
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
    holder.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(message.text())
    })
    holderDid = await signIn(holder, 'holder')

    // An mDL is bound to a P-256 device key (ISO/IEC 18013-5 §9.1.2.4): issued to one, then imported here.
    const device = await generateWalletKey('ES256')
    const issued = await world.call(
      'POST',
      `/api/issuer/${world.issuer.did}/issue`,
      world.issuer.token,
      {
        credential_type: 'DrivingLicence',
        schema_id: schemaId,
        subject_did: device.did,
        attributes: licence,
        format: 'mso_mdoc',
      },
      201,
    )
    await world.call(
      'POST',
      `/api/wallet/${holderDid}/credentials/import`,
      await holderToken(),
      { credential_jwt: issued.credential.jwt },
      201,
    )
    await mdlItem().waitFor()
  })

  afterEach(async (t) => {
    if (!(t as unknown as { passed?: boolean }).passed)
      await holder?.screenshot({ path: path.join(shots, 'holder-mdoc-failure.png'), fullPage: true }).catch(() => {})
  })

  after(async () => {
    await browser?.close().catch(() => {})
    await world?.close()
  })

  it('lists the mDL by its doctype’s name with the doctype beside it; the detail shows its elements readable and its portrait as an image', async () => {
    const item = mdlItem()
    assert.equal(await item.getByRole('heading', { level: 4 }).textContent(), 'Mobile driving licence')
    assert.match((await item.getByTestId('credential-doctype').textContent()) ?? '', /org\.iso\.18013\.5\.1\.mDL/)
    await item.getByRole('button', { name: 'Details of Mobile driving licence' }).click()
    const detail = item.getByTestId('credential-detail')
    const text = (await detail.textContent()) ?? ''
    assert.match(text, /Formatmdoc \(mso_mdoc\)/)
    assert.match(text, /Doctypeorg\.iso\.18013\.5\.1\.mDL/)

    const elements = detail.getByTestId('mdoc-elements')
    const value = (name: string) => elements.locator('div').filter({ has: holder.locator(`dt[title="${name}"]`) })
    assert.equal(await value('family_name').locator('dt').textContent(), 'Family name')
    assert.equal(await value('family_name').locator('dd').textContent(), 'Mustermann')
    assert.equal(await value('age_over_18').locator('dd').textContent(), 'Yes')
    assert.equal(await value('un_distinguishing_sign').locator('dt').textContent(), 'UN distinguishing sign')
    // A full-date in a <time>, written as this browser writes dates, not as the ISO text.
    const birth = value('birth_date').locator('dd time')
    assert.equal(await birth.getAttribute('datetime'), '1990-08-12')
    assert.notEqual(await birth.textContent(), '1990-08-12')
    assert.match((await birth.textContent()) ?? '', /1990/)
    // driving_privileges: one entry with its labelled fields, its dates as dates.
    const privileges = value('driving_privileges').locator(':scope > dd')
    assert.equal(await privileges.locator('.element-list > li').count(), 1)
    assert.deepEqual((await privileges.locator('dt').allTextContents()).sort(), [
      'Expiry date',
      'Issue date',
      'Vehicle category',
    ])
    assert.equal(await privileges.locator('time').first().getAttribute('datetime'), '2008-05-01')
    // The portrait's bytes as the image they are: decoded by the browser at its own size.
    const image = value('portrait').getByTestId('element-image')
    assert.equal(await image.getAttribute('alt'), 'Portrait')
    assert.deepEqual(await image.evaluate(decoded), [true, 24, 32])
    assert.doesNotMatch((await elements.textContent()) ?? '', /[{}"]|\[|\]/, 'no JSON shown')
    await holder
      .getByTestId('holder-activity')
      .getByText('Added a Mobile driving licence from Kraftfahrt-Bundesamt to your wallet (verified)')
      .waitFor()
    await shot('credential-detail')
  })

  it('an mDL offer is previewed with its doctype named and each [namespace, element] claim as an element of the licence', async () => {
    const created = await world.call(
      'POST',
      `/api/issuer/${world.issuer.did}/offers`,
      world.issuer.token,
      { credential_type: 'DrivingLicence', schema_id: schemaId, attributes: licence, format: 'mso_mdoc' },
      201,
    )
    await use(created.credential_offer_uri as string)
    const consent = holder.getByTestId('offer-consent')
    await consent.getByRole('heading', { name: 'Kraftfahrt-Bundesamt offers you a credential' }).waitFor()
    const text = (await consent.textContent()) ?? ''
    assert.match(text, /DoctypeMobile driving licence org\.iso\.18013\.5\.1\.mDL/)
    assert.match(text, /mdoc \(mso_mdoc\)/)
    const claims = await consent.getByTestId('offered-claims').locator('li').allTextContents()
    assert.ok(
      claims.some((c) => c.startsWith('Mobile driving licence: family name')),
      claims.join(' | '),
    )
    assert.ok(
      claims.some((c) => c.startsWith('Mobile driving licence: age over 18')),
      claims.join(' | '),
    )
    assert.ok(
      claims.some((c) => c.startsWith('Mobile driving licence: UN distinguishing sign')),
      claims.join(' | '),
    )
    assert.ok(!claims.some((c) => c.includes('org.iso.18013.5.1')), 'no raw namespace in the claim names')
    await shot('offer-preview')
    await consent.getByRole('button', { name: 'Decline' }).click()
    await holder
      .getByTestId('holder-notice')
      .getByText('Declined: nothing was taken from Kraftfahrt-Bundesamt')
      .waitFor()
  })

  it('an OpenID4VP request for mDL elements names each as an element of the licence with its readable value; Decline tells the verifier', async () => {
    const created = await world.call(
      'POST',
      '/api/verifier/requests',
      world.verifierToken,
      {
        verifier_did: world.verifier.did,
        presentation_type: 'RentalCheck',
        purpose: 'Rent a car',
        required_credentials: [
          {
            credential_type: MDL_DOCTYPE,
            schema_id: schemaId,
            issuer_did: world.issuer.did,
            required_attributes: ['age_over_18', 'driving_privileges', 'portrait'],
          },
        ],
      },
      201,
    )
    await use(created.authorization_request_uri as string)
    const consent = holder.getByTestId('request-consent')
    await consent.getByText('Purpose: Rent a car').waitFor()
    assert.match((await consent.locator('article h5').textContent()) ?? '', /^Mobile driving licence /)
    const claims = consent.getByTestId('disclosed-claims')
    assert.deepEqual((await claims.locator(':scope > div > dt').allTextContents()).sort(), [
      'Mobile driving licence: age over 18',
      'Mobile driving licence: driving privileges',
      'Mobile driving licence: portrait',
    ])
    const row = (name: string) => claims.locator(':scope > div').filter({ hasText: `Mobile driving licence: ${name}` })
    assert.equal(await row('age over 18').locator(':scope > dd').textContent(), 'Yes')
    assert.match((await row('driving privileges').locator(':scope > dd').textContent()) ?? '', /Vehicle categoryB/)
    assert.deepEqual(await row('portrait').getByTestId('element-image').evaluate(decoded), [true, 24, 32])
    assert.doesNotMatch((await consent.textContent()) ?? '', /Mustermann/, 'the family name stays in the wallet')

    for (const width of [390, 1280]) {
      await holder.setViewportSize({ width, height: 900 })
      await assertAccessible(holder, axeSource, `mDL consent and detail at ${width} px`)
      assert.deepEqual(await overflowing(holder), [], `nothing sticks out of ${width} px`)
      await shot(`consent-${width}`)
    }

    await consent.getByRole('button', { name: 'Decline' }).click()
    await holder.getByTestId('holder-notice').getByText('Declined: Car Rental was told you refused').waitFor()
    const state = await world.requestState(created.request.id as string)
    assert.equal(state.openid4vp.holder_response?.error, 'access_denied', JSON.stringify(state.openid4vp))
    assert.deepEqual(cspViolations, [], 'the page runs under its CSP (the portrait is a data: image)')
  })

  /** The holder's session token: the page's key is not extractable, so the challenge is signed in the page. */
  async function holderToken(): Promise<string> {
    const res = await world.service.app.inject({
      method: 'POST',
      url: '/api/auth/challenge',
      payload: { did: holderDid },
    })
    assert.equal(res.statusCode, 200)
    return String(
      await holder.evaluate(`(async () => {
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
