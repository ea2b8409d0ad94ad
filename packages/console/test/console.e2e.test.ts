/**
 * The console end to end in real headless Chromium (issue 25 and issue 35 "Done means"): the whole
 * service (buildApp, on a migrated test database) behind an HTTPS listener (OpenID4VCI and
 * OpenID4VP are served over https only), serving the built console; issuer, holder and verifier
 * each have their own browser context (their own IndexedDB, so their own keys). QR codes travel
 * as images only: the test screenshots the rendered QR element and either gives that PNG to the
 * holder's file input (the page decodes it) or decodes it here and hands the text to an
 * independent wallet library (Sphereon's OpenID4VCI client and did-auth-siop), as a phone wallet
 * would. Screenshots of each step go to .tmp/console-e2e/.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readdir, readFile, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { after, afterEach, before, describe, it } from 'node:test'
import { OP } from '@sphereon/did-auth-siop'
import { OpenID4VCIClient } from '@sphereon/oid4vci-client'
import * as jose from 'jose'
import jsQR from 'jsqr'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { chromiumMissing, launchChromium } from '../../../test/helpers/browser.js'
import { HttpsFront } from '../../../test/helpers/https-front.js'
import { resolveDidUrlJwk } from '../../../test/helpers/oid4vc-wallet/wallet-keys.js'
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js'

const root = path.resolve(import.meta.dirname, '../../..')
const shots = path.join(root, '.tmp/console-e2e')
const STEP_MS = 30_000
const SELF_ISSUED_V2 = 'https://self-issued.me/v2'
// pngjs (a dependency of qrcode) has no types of its own: only its synchronous reader is used.
const { PNG } = createRequire(import.meta.url)('pngjs') as {
  PNG: { sync: { read(png: Buffer): { width: number; height: number; data: Buffer } } }
}

interface Violation {
  id: string
  impact: string | null
  help: string
  nodes: Array<{ target: unknown }>
}

/** The text of the QR code in a PNG (a screenshot), read by jsQR as a phone wallet's scanner would. */
function decodeQrPng(png: Buffer): string {
  const image = PNG.sync.read(png)
  const code = jsQR(new Uint8ClampedArray(image.data), image.width, image.height, { inversionAttempts: 'attemptBoth' })
  assert.ok(code, 'a QR code is found in the screenshot')
  return code.data
}

/** A date `days` from now as a datetime-local field's value (local time). */
function localDateTime(days: number): string {
  const d = new Date(Date.now() + days * 86_400_000)
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`
}

describe('web console in Chromium: issuer, holder and verifier', { timeout: 300_000, skip: chromiumMissing() }, () => {
  let service: TestApp
  let front: HttpsFront
  let origin: string
  let browser: Browser
  let axeSource: string
  const contexts: BrowserContext[] = []
  const cspViolations: string[] = []
  let issuer: Page
  let holder: Page
  let verifier: Page
  let holderDid: string
  let step = 0

  const shot = async (page: Page, name: string) => {
    step += 1
    await page.screenshot({ path: path.join(shots, `${String(step).padStart(2, '0')}-${name}.png`), fullPage: true })
  }

  async function newPage(role: string): Promise<Page> {
    // The front's certificate is the test fixture's (trusted by this process, not by Chromium).
    const context = await browser.newContext({
      baseURL: origin,
      viewport: { width: 1280, height: 900 },
      ignoreHTTPSErrors: true,
    })
    contexts.push(context)
    const page = await context.newPage()
    page.setDefaultTimeout(STEP_MS)
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(`${role}: ${message.text()}`)
    })
    return page
  }

  /** axe-core in the page (evaluated over the DevTools protocol: the page's CSP allows no injected script). */
  async function seriousViolations(page: Page): Promise<Violation[]> {
    await page.evaluate(axeSource)
    // Strings, not functions: this file is type-checked without the DOM library.
    const violations = (await page.evaluate(
      "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
    )) as Violation[]
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  }

  async function assertAccessible(page: Page, role: string) {
    const bad = await seriousViolations(page)
    assert.deepEqual(
      bad.map((v) => `${v.id}: ${v.help} ${JSON.stringify(v.nodes.map((n) => n.target))}`),
      [],
      `${role} page: axe violations of serious or critical impact`,
    )
  }

  /** axe at a phone's width (390 px) and a laptop's (1280 px); at 390 px nothing is wider than the screen. */
  async function assertFits(page: Page, role: string) {
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      await assertAccessible(page, `${role} at ${width} px`)
      const overflow = Number(
        await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'),
      )
      if (overflow > 0)
        assert.fail(
          `${role} at ${width} px: the page is ${overflow} px wider than the window, past its edge: ${String(await page.evaluate(WIDE_ELEMENTS))}`,
        )
      if (width === 390) await shot(page, `${role}-390px`)
    }
  }

  async function signIn(page: Page, role: string) {
    await page.goto(`/app/#/${role}`)
    await page.getByRole('button', { name: "Sign in with this browser's DID" }).click()
    const did = await page.getByTestId(`${role}-did`).textContent()
    assert.match(did ?? '', /^did:key:z6Mk/)
    return did!
  }

  /** The QR element as a PNG, as a phone camera would see it. */
  const qrPng = (locator: Locator) => locator.screenshot({ type: 'png' })

  /** The verifier makes a request with this purpose; resolves once the new request's panel (its QR codes loaded) replaced the last one's. */
  async function createRequest(purpose: string) {
    const created = "document.querySelector('[data-testid=request-created]')?.dataset.requestId ?? ''"
    const last = String(await verifier.evaluate(created))
    const create = verifier.locator('#verifier-create')
    await create.getByLabel('Purpose').fill(purpose)
    await create.getByRole('button', { name: 'Create request' }).click()
    await until(verifier, `(${created}) !== ${JSON.stringify(last)}`)
  }

  /** The request's QR code in the chosen tab, as a PNG. */
  async function requestQrPng(tab: 'Wallet QR (OpenID4VP)' | "This service's JSON"): Promise<Buffer> {
    await verifier.getByTestId('request-created').getByRole('tab', { name: tab }).click()
    const testId = tab === "This service's JSON" ? 'request-qr-json' : 'request-qr'
    await until(
      verifier,
      `(() => { const img = document.querySelector('[data-testid=${testId}]'); return Boolean(img && img.complete && img.naturalWidth > 0) })()`,
    )
    return qrPng(verifier.getByTestId(testId))
  }

  // ---- The holder's steps (its wallet page is another helper's; these follow its controls). ----

  async function holderScan(png: Buffer, name: string) {
    await holder.getByTestId('qr-file').setInputFiles({ name, mimeType: 'image/png', buffer: png })
    await holder.getByText('QR code read').waitFor()
  }

  /** The offer's preview (issuer by name, nothing taken yet), then Accept with the transaction code. */
  async function holderAcceptOffer(png: Buffer, txCode: string) {
    await holderScan(png, 'offer.png')
    await holder.getByRole('button', { name: 'Use this code' }).click()
    const consent = holder.getByTestId('offer-consent')
    await consent.getByRole('heading', { name: 'Example University offers you a credential' }).waitFor()
    await shot(holder, 'holder-offer-preview')
    await consent.getByLabel(/Transaction code/).fill(txCode)
    await consent.getByRole('button', { name: 'Accept' }).click()
    const outcome = holder.getByTestId('holder-notice').or(consent.locator('[role="alert"]'))
    await outcome.waitFor()
    assert.match((await outcome.textContent()) ?? '', /Received 1 credential/)
  }

  /** An openid4vp:// request's consent screen: who asks, why, what leaves; nothing sent yet. */
  async function holderOpenConsent(png: Buffer, purpose: string): Promise<Locator> {
    await holderScan(png, 'request.png')
    await holder.getByRole('button', { name: 'Use this code' }).click()
    const consent = holder.getByTestId('request-consent')
    await consent.getByText(`Purpose: ${purpose}`).waitFor()
    return consent
  }

  /** The spec's request (the verifier's "This service's JSON" QR) into the inbox. */
  async function holderOpenRequest(png: Buffer) {
    await holderScan(png, 'request.png')
    await holder.getByRole('button', { name: 'Use this code' }).click()
    await holder.getByText('Presentation request added to your inbox').waitFor()
  }

  before(async () => {
    if (!existsSync(path.join(root, 'packages/console/dist/index.html'))) {
      const built = spawnSync(process.execPath, ['scripts/build-console.ts'], { cwd: root, stdio: 'inherit' })
      assert.equal(built.status, 0, 'the console builds')
    }
    // Only this file's screenshots are replaced: the holder's test writes holder-*.png beside them.
    await mkdir(shots, { recursive: true })
    for (const name of await readdir(shots))
      if (/^(\d\d-|failure-portal-)/.test(name)) await rm(path.join(shots, name), { force: true })
    axeSource = await readFile(path.join(root, 'node_modules/axe-core/axe.min.js'), 'utf8')
    front = await HttpsFront.open()
    origin = front.origin
    // The hosted wallet fetches offers and requests from this same service, on localhost.
    service = await createTestApp({ env: { PUBLIC_BASE_URL: origin, OUTBOUND_ALLOW_PRIVATE: 'true' } })
    front.serve(service.app)
    browser = await launchChromium()
    issuer = await newPage('issuer')
    holder = await newPage('holder')
    verifier = await newPage('verifier')
  })

  afterEach(async (t) => {
    // What each role saw when a step failed.
    if (!(t as unknown as { passed?: boolean }).passed) {
      for (const [role, page] of [
        ['issuer', issuer],
        ['holder', holder],
        ['verifier', verifier],
      ] as const) {
        await page?.screenshot({ path: path.join(shots, `failure-portal-${role}.png`), fullPage: true }).catch(() => {})
      }
    }
  })

  after(async () => {
    for (const context of contexts) await context.close().catch(() => {})
    await browser?.close().catch(() => {})
    await service?.close().catch(() => {})
    await front?.close().catch(() => {})
  })

  it('serves /app with its CSP, hashed assets cached as immutable and a favicon', async () => {
    const page = await fetch(`${origin}/app/`)
    assert.equal(page.status, 200)
    const csp = page.headers.get('content-security-policy') ?? ''
    assert.match(csp, /script-src 'self'(;|$)/)
    assert.match(csp, /connect-src 'self'(;|$)/)
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/)
    const html = await page.text()
    const asset = /src="(\/app\/assets\/[^"]+\.js)"/.exec(html)?.[1]
    assert.ok(asset, 'the page loads a hashed script')
    const script = await fetch(`${origin}${asset}`)
    assert.equal(script.status, 200)
    assert.match(script.headers.get('cache-control') ?? '', /immutable/)
    // No 404 for the favicon: the page names its own icon, and it is served.
    const icon = /<link rel="icon"[^>]*href="([^"]+)"/.exec(html)?.[1]
    assert.ok(icon, 'the page names a favicon')
    const served = await fetch(`${origin}${icon}`)
    assert.equal(served.status, 200)
    assert.match(served.headers.get('content-type') ?? '', /^image\//)
  })

  it('the issuer builds a schema, a template and an offer from typed forms; a standard wallet reads the openid-credential-offer QR; the holder takes it', async () => {
    await signIn(issuer, 'issuer')
    await assertAccessible(issuer, 'issuer')
    await shot(issuer, 'issuer-signed-in')
    await issuer.getByLabel('Organisation name').fill('Example University')
    await issuer.getByRole('button', { name: 'Create profile' }).click()
    await issuer.getByText('Issuing as').waitFor()
    // The DID is on hover, the name is what shows.
    assert.equal(
      await issuer.getByTestId('issuer-profile').locator('[title]').first().getAttribute('title'),
      await issuer.getByTestId('issuer-did').textContent(),
    )

    // A schema as rows: one attribute of each type.
    const schemas = issuer.locator('#issuer-schemas')
    await schemas.getByLabel('Schema name').fill('Degree')
    const rows: Array<[string, string, boolean]> = [
      ['gpa', 'number', true],
      ['graduated', 'boolean', false],
      ['graduation_date', 'date', false],
      ['email', 'email', false],
      ['homepage', 'url', false],
    ]
    for (const [i, [name, type, required]] of rows.entries()) {
      await schemas.getByRole('button', { name: 'Add an attribute' }).click()
      await schemas.getByLabel(`Attribute ${i + 2} name`, { exact: true }).fill(name)
      await schemas.getByLabel(`Attribute ${i + 2} type`).selectOption(type)
      if (required) await schemas.getByLabel(`Attribute ${i + 2} required`, { exact: true }).check()
    }
    await schemas.getByRole('button', { name: 'Create schema' }).click()
    await schemas.locator('td').getByText('Degree', { exact: true }).waitFor()
    // A second schema, for transcripts (its own SD-JWT VC type, so no wallet takes a degree for a transcript).
    await schemas.getByLabel('Schema name').fill('Transcript record')
    await schemas.getByRole('button', { name: 'Add an attribute' }).click()
    await schemas.getByLabel('Attribute 2 name', { exact: true }).fill('gpa')
    await schemas.getByLabel('Attribute 2 type').selectOption('number')
    await schemas.getByLabel('Attribute 2 required', { exact: true }).check()
    await schemas.getByRole('button', { name: 'Create schema' }).click()
    await schemas.locator('td').getByText('Transcript record', { exact: true }).waitFor()

    // A template fixes the homepage; issue and offer then start from it.
    const templates = issuer.locator('#issuer-templates')
    await templates.getByLabel('Template name').fill('Degree 2026')
    await templates.getByRole('combobox', { name: /^Schema/ }).selectOption({ label: 'Degree 1.0' })
    await templates.getByLabel('Credential type').fill('UniversityDegree')
    await templates.locator('input[name="homepage"]').fill('https://example.edu/')
    await templates.getByRole('button', { name: 'Create template' }).click()
    await templates.locator('td').getByText('Degree 2026', { exact: true }).waitFor()
    // A second template, for the transcripts issued below.
    await templates.getByLabel('Template name').fill('Transcript')
    await templates.getByRole('combobox', { name: /^Schema/ }).selectOption({ label: 'Transcript record 1.0' })
    await templates.getByLabel('Credential type').fill('Transcript')
    await templates.getByRole('button', { name: 'Create template' }).click()
    await templates.locator('td').getByText('Transcript', { exact: true }).first().waitFor()

    // The offer form is built from the template's schema: a typed input per attribute, required ones marked.
    const offers = issuer.locator('#issuer-offers')
    await offers.getByRole('combobox', { name: /^Template/ }).selectOption({ label: 'Degree 2026' })
    assert.equal(
      await offers.getByLabel('Credential type').inputValue(),
      'UniversityDegree',
      'the template fills the type',
    )
    const field = (name: string) => offers.locator(`[name="${name}"]`)
    const expected: Record<string, string> = {
      given_name: 'text',
      gpa: 'number',
      graduated: 'checkbox',
      graduation_date: 'date',
      email: 'email',
      homepage: 'url',
    }
    for (const [name, type] of Object.entries(expected))
      assert.equal(await field(name).getAttribute('type'), type, `${name} is an input of type ${type}`)
    for (const name of ['given_name', 'gpa']) {
      assert.notEqual(await field(name).getAttribute('required'), null, `${name} is required`)
      assert.match(
        (await offers.locator(`label[for="${await field(name).getAttribute('id')}"]`).textContent()) ?? '',
        /\*/,
        `${name} is marked required`,
      )
    }
    assert.equal(await field('email').getAttribute('required'), null, 'email is optional')
    assert.equal(await field('homepage').inputValue(), 'https://example.edu/', "the template's fixed value is shown")
    assert.notEqual(await field('homepage').getAttribute('readonly'), null, 'and cannot be changed')
    assert.equal(await offers.locator('textarea').count(), 0, 'no raw JSON to type')
    await field('given_name').fill('Ada')
    await field('gpa').fill('3.8')
    await field('graduated').check()
    await field('graduation_date').fill('2024-06-30')
    await field('email').fill('ada@example.edu')
    await offers.getByLabel('Format').selectOption('dc+sd-jwt')
    await offers.getByLabel(/^Offer expires/).fill(localDateTime(2))
    await offers.getByLabel(/^Ask for a transaction code/).check()
    await shot(issuer, 'issuer-offer-form')
    await offers.getByRole('button', { name: 'Create offer' }).click()
    const offerQr = issuer.getByTestId('offer-qr')
    await offerQr.waitFor()
    const txCode = (await issuer.getByTestId('offer-tx-code').textContent())!.trim()
    assert.match(txCode, /^\d{6}$/, 'the transaction code to give the holder apart')
    await shot(issuer, 'issuer-offer-qr')

    // A standard wallet library scans the QR: an OpenID4VCI offer by reference, resolved with the issuer's metadata.
    const offerPng = await qrPng(offerQr)
    const offerUri = decodeQrPng(offerPng)
    assert.match(offerUri, /^openid-credential-offer:\/\/\?credential_offer_uri=https/)
    const wallet = await OpenID4VCIClient.fromURI({ uri: offerUri, retrieveServerMetadata: true })
    const offered = wallet.credentialOffer!
    assert.ok(offered.txCode, 'the offer asks the wallet for the transaction code')
    const metadata = wallet.endpointMetadata.credentialIssuerMetadata as unknown as {
      display?: Array<{ name?: string }>
      credential_configurations_supported: Record<string, { format: string }>
    }
    assert.equal(metadata.display?.[0]?.name, 'Example University', 'the wallet shows the issuer by name')
    const configurationIds = (offered.credential_offer as unknown as { credential_configuration_ids: string[] })
      .credential_configuration_ids
    assert.equal(
      metadata.credential_configurations_supported[configurationIds[0]!]?.format,
      'dc+sd-jwt',
      'the chosen format',
    )

    // The spec's JSON is one tab away.
    await issuer.getByRole('tab', { name: "This service's JSON" }).click()
    const specJson = JSON.parse(await issuer.getByTestId('offer-qr-json-text').inputValue()) as Record<string, unknown>
    assert.equal(specJson.type, 'credential-offer')
    await issuer.getByRole('tab', { name: 'Wallet QR (OpenID4VCI)' }).click()

    holderDid = await signIn(holder, 'holder')
    await holderAcceptOffer(offerPng, txCode)
    await shot(holder, 'holder-offer-taken')
    const credentials = holder.getByTestId('holder-credentials')
    await credentials.getByText('UniversityDegree').waitFor()
    await assertFits(issuer, 'issuer')
  })

  it('the issuer issues from a template to a DID, and revoking asks for confirmation first', async () => {
    const issue = issuer.locator('#issuer-issue')
    await issue.getByLabel('Holder DID').fill(holderDid)
    await issue.getByRole('combobox', { name: /^Template/ }).selectOption({ label: 'Transcript' })
    assert.equal(await issue.getByLabel('Credential type').inputValue(), 'Transcript', 'the template fills the type')
    await issue.locator('[name="given_name"]').fill('Ada')
    await issue.locator('[name="gpa"]').fill('3.8')
    await issue.getByRole('button', { name: 'Issue credential' }).click()
    await issue.getByText(/^Issued Transcript/).waitFor()
    const table = issuer.getByTestId('issuer-issued-table')
    await table.getByRole('button', { name: 'Revoke Transcript' }).waitFor()
    // The holder by its DID shortened, the whole DID on hover.
    assert.ok((await table.locator(`[title="${holderDid}"]`).count()) >= 1)

    // The SD-JWT VC the holder took from the offer is revoked; the transcript stays.
    const revoke = table.getByRole('button', { name: 'Revoke UniversityDegree' })
    await revoke.click()
    const dialog = issuer.getByRole('dialog', { name: 'Revoke this UniversityDegree?' })
    await dialog.waitFor()
    await shot(issuer, 'issuer-revoke-confirm')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    assert.equal(await table.locator('.badge.revoked').count(), 0, 'cancelled: nothing revoked')
    await revoke.click()
    await dialog.getByLabel('Reason (optional)').fill('Issued in error')
    await dialog.getByRole('button', { name: 'Revoke credential' }).click()
    await issuer.getByText(/^Revoked UniversityDegree/).waitFor()
    assert.equal(await table.locator('.badge.revoked').count(), 1)

    // Statistics read as labels and numbers.
    const stats = issuer.locator('#issuer-statistics')
    await stats.getByText('Revoked').waitFor()
    const text = (await stats.textContent()) ?? ''
    assert.doesNotMatch(text, /requests_pending|offers_active|by_type/, 'no raw keys')
    await shot(issuer, 'issuer-issued-and-revoked')
  })

  it('the verifier asks by an openid4vp QR (made with the keyboard only) that a standard wallet library resolves; the holder sees who asks and declines, and the verifier sees the refusal', async () => {
    await verifier.goto('/app/')
    // Keyboard only: Tab to the role link, Enter; Tab to sign-in, Space; fill and submit the request.
    await tabTo(verifier, 'Verifier')
    await verifier.keyboard.press('Enter')
    await verifier.getByRole('heading', { name: 'Verifier portal' }).waitFor()
    await tabTo(verifier, "Sign in with this browser's DID")
    assert.notEqual(
      await verifier.evaluate('getComputedStyle(document.activeElement).outlineStyle'),
      'none',
      'the focused control shows a focus ring',
    )
    await verifier.keyboard.press('Space')
    await verifier.getByTestId('verifier-did').waitFor()
    await assertAccessible(verifier, 'verifier')
    await tabTo(verifier, 'Verifier name')
    await verifier.keyboard.type('Acme Hiring')
    await verifier.keyboard.press('Enter')
    await verifier.getByText('Verifying as').waitFor()
    await tabTo(verifier, 'Credential type')
    await verifier.keyboard.press('ControlOrMeta+A')
    await verifier.keyboard.type('Transcript')
    await tabTo(verifier, 'Purpose')
    await verifier.keyboard.type('Hiring')
    await tabTo(verifier, 'Create request')
    await verifier.keyboard.press('Enter')
    const requestQr = verifier.getByTestId('request-qr')
    await requestQr.waitFor()
    await verifier.getByText('waiting for the holder').waitFor()
    await shot(verifier, 'verifier-request-qr')

    // A standard wallet library resolves the openid4vp:// request from the screenshot and verifies its signature.
    const requestPng = await qrPng(requestQr)
    const requestUri = decodeQrPng(requestPng)
    assert.match(requestUri, /^openid4vp:\/\/\?/)
    const verified = await sphereonOp().verifyAuthorizationRequest(requestUri)
    assert.match(String(jose.decodeJwt(verified.jwt!).client_id), /^decentralized_identifier:did:web:/)
    const dcql = JSON.stringify(verified.dcqlQuery)
    assert.match(dcql, /given_name/)
    assert.match(dcql, /gpa/, "the predicate's attribute is asked")

    // The holder scans the same QR image: its wallet shows who asks (by name), why and what would leave; it declines.
    const consent = await holderOpenConsent(requestPng, 'Hiring')
    await consent.getByRole('heading', { name: 'Acme Hiring asks you to share information' }).waitFor()
    await shot(holder, 'holder-request-consent')
    await consent.getByRole('button', { name: 'Decline' }).click()
    await holder.getByTestId('holder-notice').getByText('Declined: Acme Hiring was told you refused').waitFor()

    // The verifier's page shows the refusal (OID4VP 1.0 §8.5 access_denied), no longer "pending".
    const result = verifier.getByTestId('verifier-result')
    await result.getByTestId('declined').waitFor()
    assert.match((await result.textContent()) ?? '', /Declined.*access_denied/)
    assert.equal(await result.getByTestId('is-valid').count(), 0, 'nothing verified')
    await shot(verifier, 'verifier-declined-openid4vp')
  })

  it('the holder declines a request in its inbox; the verifier sees the refusal and who refused', async () => {
    await createRequest('Background check')
    await holderOpenRequest(await requestQrPng("This service's JSON"))
    const entry = holder.locator('#holder-inbox article').filter({ hasText: 'Background check' })
    await entry.getByRole('button', { name: 'Decline' }).click()
    await entry.getByText('Declined').first().waitFor()
    await shot(holder, 'holder-declined')

    const result = verifier.getByTestId('verifier-result')
    await result.getByTestId('declined').waitFor()
    assert.match((await result.textContent()) ?? '', /Declined/)
    assert.equal(await result.locator(`[title="${holderDid}"]`).count(), 1, 'the holder who refused, its DID on hover')
    await shot(verifier, 'verifier-declined-inbox')
  })

  it('the holder accepts another request; the verifier sees verified, the disclosed claims and the proven predicate, and both in its history', async () => {
    await createRequest('Second interview')
    const navigations: string[] = []
    verifier.on('framenavigated', (frame) => navigations.push(frame.url()))
    await holderOpenRequest(await requestQrPng("This service's JSON"))
    const entry = holder.locator('#holder-inbox article').filter({ hasText: 'Second interview' })
    await entry.getByRole('button', { name: 'Present' }).click()
    await holder.getByText('Presented:').waitFor()
    await shot(holder, 'holder-presented')

    const result = verifier.getByTestId('verifier-result')
    await result.getByTestId('is-valid').waitFor()
    const text = (await result.textContent()) ?? ''
    assert.match(text, /Verified: is_valid true/)
    assert.match(text, /Given name/)
    assert.match(text, /Ada/)
    assert.doesNotMatch(text, /3\.8/, 'the gpa itself stays with the holder')
    assert.match((await result.getByTestId('predicates').textContent()) ?? '', /Proven: Gpa ≥ 3/)
    assert.deepEqual(navigations, [], 'no reload or navigation on the verifier page')
    await shot(verifier, 'verifier-verified-inbox')

    // Another request over OpenID4VP: the holder sees it and shares; the verifier shows the answer as received and verified.
    await createRequest('Reference check')
    const consent = await holderOpenConsent(await requestQrPng('Wallet QR (OpenID4VP)'), 'Reference check')
    await consent.getByRole('button', { name: 'Share' }).click()
    await holder
      .getByTestId('holder-notice')
      .getByText('Shared with Acme Hiring: the verifier accepted the presentation')
      .waitFor()
    const shared = verifier.getByTestId('verifier-result')
    await shared.getByText('Verified: is_valid true').waitFor()
    assert.match((await shared.textContent()) ?? '', /Given name\s*Ada/)
    assert.match((await shared.getByTestId('predicates').textContent()) ?? '', /Proven: Gpa ≥ 3/)
    await shot(verifier, 'verifier-verified-openid4vp')

    const history = verifier.getByTestId('verifier-history')
    await history.getByText('Verified', { exact: true }).nth(1).waitFor()
    assert.equal(
      await history.getByText('Declined by the holder', { exact: true }).count(),
      2,
      'both refusals, OpenID4VP and inbox',
    )
    assert.equal(await history.getByText('Verified', { exact: true }).count(), 2, 'both answers, inbox and OpenID4VP')
    await shot(verifier, 'verifier-history')
    await assertFits(verifier, 'verifier')
    assert.deepEqual(cspViolations, [], 'the pages run under their CSP without a violation')
  })
})

/** Sphereon's OP (did-auth-siop), a wallet's side: it fetches the request object and verifies it with the verifier's did:web key (OID4VP 1.0 §5.8 audience). */
function sphereonOp() {
  const hasher = (data: string | ArrayBuffer, alg: string) =>
    new Uint8Array(
      createHash(alg.replace('-', '').toLowerCase())
        .update(typeof data === 'string' ? data : Buffer.from(data))
        .digest(),
    )
  return OP.builder()
    .withVerifyJwtCallback(async (verifierInfo, jwt) => {
      if (verifierInfo.method !== 'did')
        throw new Error(`a did-signed request object was expected, not ${verifierInfo.method}`)
      const jwk = await resolveDidUrlJwk(verifierInfo.didUrl)
      await jose.jwtVerify(jwt.raw, await jose.importJWK(jwk as jose.JWK, verifierInfo.alg), {
        audience: SELF_ISSUED_V2,
        typ: 'oauth-authz-req+jwt',
      })
      return true
    })
    .withCreateJwtCallback(async () => {
      throw new Error('not used: the request is only resolved')
    })
    .withHasher(hasher as never)
    .build()
}

/**
 * Polls an expression in the page until it is true (page.waitForFunction would compile it in the
 * page, which its CSP forbids; page.evaluate goes through the DevTools protocol). Bounded by
 * attempts, not by a clock reading.
 */
async function until(page: Page, expression: string, attempts = 300): Promise<void> {
  for (let i = 0; i < attempts; i += 1) {
    if ((await page.evaluate(expression)) === true) return
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  assert.fail(`never true in the page: ${expression}`)
}

/** The elements that end past the window's right edge (the innermost ones), named for a failure message. */
const WIDE_ELEMENTS = `(() => {
  const edge = document.documentElement.clientWidth
  const wide = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > edge + 0.5)
  const innermost = wide.filter((el) => !wide.some((other) => other !== el && el.contains(other)))
  return innermost.slice(0, 8).map((el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ' ' + Math.round(el.getBoundingClientRect().right)).join(', ')
})()`

/** The focused element's name: its aria-label, its text (buttons, links), or its label's text. */
const FOCUSED_NAME = `(() => {
  const el = document.activeElement
  if (!el) return ''
  const label = el.id ? document.querySelector('label[for="' + el.id + '"]') : el.closest('label')
  return (el.getAttribute('aria-label') ?? (el.tagName === 'BUTTON' || el.tagName === 'A' ? el.textContent : label?.textContent) ?? '').trim()
})()`

/** Presses Tab until the focused element's accessible name starts with `name` (keyboard reachability). */
async function tabTo(page: Page, name: string, max = 80): Promise<void> {
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press('Tab')
    const focused = String(await page.evaluate(FOCUSED_NAME))
    if (focused.startsWith(name)) return
  }
  assert.fail(`"${name}" is not reachable with Tab`)
}
