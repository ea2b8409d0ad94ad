/**
 * The console end to end in real headless Chromium (issue 25 "Done means"): the whole service
 * (buildApp, on a migrated test database) listens on a real port and serves the built console; issuer, holder and verifier each have
 * their own browser context (their own IndexedDB, so their own keys). QR codes travel as images
 * only: the test screenshots the rendered QR element and gives that PNG to the holder's file
 * input, and the page decodes it; the test never reads a payload out of the DOM.
 * Screenshots of each step go to .tmp/console-e2e/.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, readFile, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import path from 'node:path'
import { after, afterEach, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { chromiumMissing, launchChromium } from '../../../test/helpers/browser.js'
import { createTestApp, type TestApp } from '../../../test/helpers/test-app.js'

const root = path.resolve(import.meta.dirname, '../../..')
const shots = path.join(root, '.tmp/console-e2e')
const STEP_MS = 30_000

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

interface Violation { id: string; impact: string | null; help: string; nodes: Array<{ target: unknown }> }

describe('web console in Chromium: issuer, holder and verifier', { timeout: 180_000, skip: chromiumMissing() }, () => {
  let service: TestApp
  let server: { url: string }
  let browser: Browser
  let axeSource: string
  const contexts: BrowserContext[] = []
  const cspViolations: string[] = []
  let issuer: Page
  let holder: Page
  let verifier: Page
  let step = 0

  const shot = async (page: Page, name: string) => {
    step += 1
    await page.screenshot({ path: path.join(shots, `${String(step).padStart(2, '0')}-${name}.png`), fullPage: true })
  }

  async function newPage(role: string): Promise<Page> {
    const context = await browser.newContext({ baseURL: server.url, viewport: { width: 1280, height: 900 } })
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
    const violations = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)")) as Violation[]
    return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  }

  async function assertAccessible(page: Page, role: string) {
    const bad = await seriousViolations(page)
    assert.deepEqual(bad.map((v) => `${v.id}: ${v.help} ${JSON.stringify(v.nodes.map((n) => n.target))}`), [], `${role} page: axe violations of serious or critical impact`)
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

  async function scan(png: Buffer, name: string) {
    await holder.getByTestId('qr-file').setInputFiles({ name, mimeType: 'image/png', buffer: png })
    await holder.getByText('QR code read').waitFor()
    await holder.getByRole('button', { name: 'Use this code' }).click()
  }

  before(async () => {
    if (!existsSync(path.join(root, 'packages/console/dist/index.html'))) {
      const built = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/build-console.ts'], { cwd: root, stdio: 'inherit' })
      assert.equal(built.status, 0, 'the console builds')
    }
    await rm(shots, { recursive: true, force: true })
    await mkdir(shots, { recursive: true })
    axeSource = await readFile(path.join(root, 'node_modules/axe-core/axe.min.js'), 'utf8')
    const port = await freePort()
    service = await createTestApp({ env: { PUBLIC_BASE_URL: `http://127.0.0.1:${port}` } })
    await service.app.listen({ port, host: '127.0.0.1' })
    server = { url: `http://127.0.0.1:${port}` }
    browser = await launchChromium()
    issuer = await newPage('issuer')
    holder = await newPage('holder')
    verifier = await newPage('verifier')
  })

  afterEach(async (t) => {
    // What each role saw when a step failed.
    if (!(t as unknown as { passed?: boolean }).passed) {
      for (const [role, page] of [['issuer', issuer], ['holder', holder], ['verifier', verifier]] as const) {
        await page?.screenshot({ path: path.join(shots, `failure-${role}.png`), fullPage: true }).catch(() => {})
      }
    }
  })

  after(async () => {
    for (const context of contexts) await context.close().catch(() => {})
    await browser?.close()
    await service?.close()
  })

  it('serves /app with its CSP and hashed assets cached as immutable', async () => {
    const page = await fetch(`${server.url}/app/`)
    assert.equal(page.status, 200)
    const csp = page.headers.get('content-security-policy') ?? ''
    assert.match(csp, /script-src 'self'(;|$)/)
    assert.match(csp, /connect-src 'self'(;|$)/)
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/)
    const asset = /src="(\/app\/assets\/[^"]+\.js)"/.exec(await page.text())?.[1]
    assert.ok(asset, 'the page loads a hashed script')
    const script = await fetch(`${server.url}${asset}`)
    assert.equal(script.status, 200)
    assert.match(script.headers.get('cache-control') ?? '', /immutable/)
  })

  it('an issuer defines a schema and makes an offer; the holder takes it from the QR image; the issuer approves', async () => {
    await signIn(issuer, 'issuer')
    await assertAccessible(issuer, 'issuer')
    await shot(issuer, 'issuer-signed-in')
    await issuer.getByLabel('Organisation name').fill('Example University')
    await issuer.getByRole('button', { name: 'Create profile' }).click()
    await issuer.getByText('Issuing as').waitFor()
    const schemas = issuer.locator('#issuer-schemas')
    await schemas.getByLabel('Schema name').fill('Degree')
    await schemas.getByLabel(/^Attributes/).fill('given_name: string required\ngpa: number required')
    await schemas.getByRole('button', { name: 'Create schema' }).click()
    await schemas.getByRole('cell', { name: 'Degree' }).waitFor()
    const offers = issuer.locator('#issuer-offers')
    await offers.getByLabel('Schema').selectOption({ label: 'Degree 1.0' })
    await offers.getByLabel('Credential type').fill('UniversityDegree')
    await offers.getByLabel(/^Attributes offered/).fill('{"given_name": "Ada", "gpa": 3.8}')
    await offers.getByRole('button', { name: 'Create offer' }).click()
    const offerQr = issuer.getByTestId('offer-qr')
    await offerQr.waitFor()
    await shot(issuer, 'issuer-offer-qr')
    const offerPng = await qrPng(offerQr)

    await signIn(holder, 'holder')
    await assertAccessible(holder, 'holder')
    await scan(offerPng, 'offer.png')
    await holder.getByText('Offer taken').waitFor()
    await shot(holder, 'holder-offer-taken')

    // The spec's offer is a credential request the issuer approves with a step-up signature made in its browser.
    await issuer.getByRole('button', { name: 'Approve request UniversityDegree' }).click()
    await issuer.getByText('Approved: the credential is issued to the holder').waitFor()
    await shot(issuer, 'issuer-approved')

    const credentials = holder.getByTestId('holder-credentials')
    await credentials.getByText('UniversityDegree').waitFor()
    assert.match((await credentials.textContent()) ?? '', /active/)
    await shot(holder, 'holder-credential')
  })

  it('the verifier asks for gpa >= 3 by QR (made with the keyboard only); the holder proves it; the result appears without a reload', async () => {
    await verifier.goto('/app/')
    // Keyboard only: Tab to the role link, Enter; Tab to sign-in, Space; fill and submit the request.
    await tabTo(verifier, 'Verifier')
    await verifier.keyboard.press('Enter')
    await verifier.getByRole('heading', { name: 'Verifier portal' }).waitFor()
    await tabTo(verifier, "Sign in with this browser's DID")
    assert.notEqual(await verifier.evaluate('getComputedStyle(document.activeElement).outlineStyle'), 'none', 'the focused control shows a focus ring')
    await verifier.keyboard.press('Space')
    await verifier.getByTestId('verifier-did').waitFor()
    await assertAccessible(verifier, 'verifier')
    await tabTo(verifier, 'Purpose')
    await verifier.keyboard.type('Hiring')
    await tabTo(verifier, 'Create request')
    await verifier.keyboard.press('Enter')
    const requestQr = verifier.getByTestId('request-qr')
    await requestQr.waitFor()
    await verifier.getByText('waiting for the holder').waitFor()
    await shot(verifier, 'verifier-request-qr')
    const requestPng = await qrPng(requestQr)
    const navigations: string[] = []
    verifier.on('framenavigated', (frame) => navigations.push(frame.url()))

    await scan(requestPng, 'request.png')
    await holder.getByText('Presentation request added to your inbox').waitFor()
    const entry = holder.locator('#holder-inbox article')
    const box = (name: string) => entry.getByRole('checkbox', { name, exact: true })
    await box('given_name (asked)').waitFor()
    assert.equal(await box('given_name (asked)').isChecked(), true)
    assert.equal(await box('gpa').isChecked(), false, 'gpa is proven, not disclosed')
    assert.equal(await box('gpa >= 3').isChecked(), true)
    await assertAccessible(holder, 'holder (inbox entry)')
    await shot(holder, 'holder-inbox')
    await entry.getByRole('button', { name: 'Present' }).click()
    await holder.getByText('Presented:').waitFor()
    await shot(holder, 'holder-presented')

    const result = verifier.getByTestId('verifier-result')
    await verifier.getByTestId('is-valid').waitFor()
    const text = (await result.textContent()) ?? ''
    assert.match(text, /Verified: is_valid true/)
    assert.match(text, /given_name/)
    assert.match(text, /Ada/)
    assert.doesNotMatch(text, /3\.8/, 'the gpa itself stays with the holder')
    assert.deepEqual(navigations, [], 'no reload or navigation on the verifier page')
    await assertAccessible(verifier, 'verifier (result)')
    await shot(verifier, 'verifier-verified')
    assert.deepEqual(cspViolations, [], 'the pages run under their CSP without a violation')
  })
})

/** The focused element's name: its aria-label, its text (buttons, links), or its label's text. */
const FOCUSED_NAME = `(() => {
  const el = document.activeElement
  if (!el) return ''
  const label = el.id ? document.querySelector('label[for="' + el.id + '"]') : el.closest('label')
  return (el.getAttribute('aria-label') ?? (el.tagName === 'BUTTON' || el.tagName === 'A' ? el.textContent : label?.textContent) ?? '').trim()
})()`

/** Presses Tab until the focused element's accessible name starts with `name` (keyboard reachability). */
async function tabTo(page: Page, name: string, max = 60): Promise<void> {
  for (let i = 0; i < max; i += 1) {
    await page.keyboard.press('Tab')
    const focused = String(await page.evaluate(FOCUSED_NAME))
    if (focused.startsWith(name)) return
  }
  assert.fail(`"${name}" is not reachable with Tab`)
}
