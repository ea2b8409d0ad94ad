/**
 * The holder's wallet end to end in Debian's Chromium (issue 35 items 1-3, holder side): nothing
 * leaves the wallet before the holder decides. An OpenID4VP request shows the verifier, the
 * purpose and each claim with its value while the verifier still waits; Decline reaches the
 * verifier as a refusal, Share as a presentation. An OpenID4VCI offer is previewed (issuer, type,
 * claims, a transaction code only when asked) and accepted or declined. A QR code is read by the
 * camera (Chromium's fake capture device playing a Y4M video of the code). The credential's
 * detail, share link and delete (after a confirmation). axe at 390 px and 1280 px.
 * The service runs behind HTTPS for OpenID4VC and on http://127.0.0.1 for the browser.
 * Screenshots: .tmp/console-e2e/holder-*.png.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, afterEach, before, describe, it } from 'node:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { chromiumMissing, launchChromium } from '../../../test/helpers/browser.js'
import { assertAccessible, HolderWorld, overflowing, signIn, type Json } from './support/world.js'
import { qrVideo } from './support/y4m.js'

const root = path.resolve(import.meta.dirname, '../../..')
const shots = path.join(root, '.tmp/console-e2e')
const STEP_MS = 30_000
const FAKE_CAMERA = ['--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']

describe('the holder wallet in Chromium: consent before disclosure, offers, camera, credentials', {
  timeout: 300_000,
  skip: chromiumMissing(),
}, () => {
  let world: HolderWorld
  const browsers: Browser[] = []
  const contexts: BrowserContext[] = []
  const cspViolations: string[] = []
  let axeSource: string
  let holder: Page
  let holderDid: string
  /** The request the fake camera shows: made before the browser starts, since the video file is named at launch. */
  let cameraRequest: Json
  /** The fake camera's video files (a few MB each): removed in after(). */
  let videos: string | undefined

  const shot = (page: Page, name: string) =>
    page.screenshot({ path: path.join(shots, `holder-${name}.png`), fullPage: true })

  async function newPage(browser: Browser, name: string, options: { width?: number } = {}): Promise<Page> {
    const context = await browser.newContext({
      baseURL: world.url,
      viewport: { width: options.width ?? 1280, height: 900 },
    })
    contexts.push(context)
    const page = await context.newPage()
    page.setDefaultTimeout(STEP_MS)
    page.on('console', (message) => {
      if (/Content.Security.Policy/i.test(message.text())) cspViolations.push(`${name}: ${message.text()}`)
    })
    return page
  }

  /** Pastes a QR code's text (what a scan would read) and uses it. */
  async function use(page: Page, text: string) {
    await page.getByTestId('qr-text').fill(text)
    await page.getByRole('button', { name: 'Use this code' }).click()
  }

  const notice = () => holder.getByTestId('holder-notice')

  before(async () => {
    if (!existsSync(path.join(root, 'packages/console/dist/index.html'))) {
      const built = spawnSync(process.execPath, ['scripts/build-console.ts'], { cwd: root, stdio: 'inherit' })
      assert.equal(built.status, 0, 'the console builds')
    }
    await mkdir(shots, { recursive: true })
    for (const old of (await readdir(shots)).filter((f) => f.startsWith('holder-')))
      await rm(path.join(shots, old), { force: true })
    axeSource = await readFile(path.join(root, 'node_modules/axe-core/axe.min.js'), 'utf8')
    world = await HolderWorld.open({ issuer: 'Example University', verifier: 'City Library' })
    cameraRequest = await world.request('Check your library pass at the desk')
    videos = await mkdtemp(path.join(os.tmpdir(), 'holder-camera-'))
    const video = path.join(videos, 'qr.y4m')
    await writeFile(video, qrVideo(cameraRequest.authorization_request_uri as string))
    browsers.push(await launchChromium({ args: [...FAKE_CAMERA, `--use-file-for-fake-video-capture=${video}`] }))
    holder = await newPage(browsers[0]!, 'holder')
    holderDid = await signIn(holder, 'holder')
    await world.issue(holderDid, { given_name: 'Ada', member_no: 'L-1815' })
    await holder.getByTestId('holder-credentials').getByText('LibraryPass').waitFor()
  })

  afterEach(async (t) => {
    if (!(t as unknown as { passed?: boolean }).passed)
      await holder?.screenshot({ path: path.join(shots, 'holder-failure.png'), fullPage: true }).catch(() => {})
  })

  after(async () => {
    for (const context of contexts) await context.close().catch(() => {})
    for (const browser of browsers) await browser.close().catch(() => {})
    await world?.close()
    if (videos) await rm(videos, { recursive: true, force: true })
  })

  it('an OpenID4VP request shows the verifier, the purpose and each claim before anything is sent; Decline reaches the verifier as a refusal', async () => {
    const created = await world.request('Check your library membership')
    const id = created.request.id as string
    await use(holder, created.authorization_request_uri as string)
    const consent = holder.getByTestId('request-consent')
    await consent.waitFor()
    await consent.getByRole('heading', { name: 'City Library asks you to share information' }).waitFor()
    const identity = (await consent.getByTestId('verifier-identity').textContent()) ?? ''
    assert.match(identity, /City Library/)
    assert.match(identity, /decentralized_identifier:did:web:/, 'the verifier’s client identifier')
    assert.match(identity, /Verified: /, 'how the wallet checked who asks')
    await consent.getByText('Purpose: Check your library membership').waitFor()
    const claims = consent.getByTestId('disclosed-claims')
    assert.equal(
      await claims
        .locator('dt')
        .allTextContents()
        .then((t) => t.join(',')),
      'given_name',
      'only the asked claim is disclosed',
    )
    assert.equal(await claims.locator('dd').first().textContent(), 'Ada')
    assert.doesNotMatch((await consent.textContent()) ?? '', /L-1815/, 'the member number stays in the wallet')
    await shot(holder, 'request-consent')

    // The preview sent nothing: the verifier still waits.
    const waiting = await world.requestState(id)
    assert.equal(waiting.request.status, 'pending')
    assert.equal(waiting.openid4vp.answer, null)
    assert.equal(waiting.openid4vp.holder_response, null)

    await consent.getByRole('button', { name: 'Decline' }).click()
    await notice().getByText('Declined: City Library was told you refused').waitFor()
    assert.equal(await consent.count(), 0, 'the consent screen closes')
    const declined = await world.requestState(id)
    assert.equal(declined.openid4vp.holder_response?.error, 'access_denied', JSON.stringify(declined.openid4vp))
    // A request to anyone stays open to other holders: the refusal is recorded, not an answer that closes it.
    assert.equal(declined.request.status, 'pending')
    assert.equal(declined.openid4vp.answer, null)
    await holder.getByTestId('holder-activity').getByText("Declined City Library's request").waitFor()
    await shot(holder, 'request-declined')
  })

  it('another request: Share sends the presentation and the verifier verifies it; the activity says what was shared with whom', async () => {
    const created = await world.request('Borrow a book')
    await use(holder, created.authorization_request_uri as string)
    const consent = holder.getByTestId('request-consent')
    await consent.getByText('Purpose: Borrow a book').waitFor()
    await consent.getByRole('button', { name: 'Share' }).click()
    await notice().getByText('Shared with City Library: the verifier accepted the presentation').waitFor()
    const shared = await world.requestState(created.request.id as string)
    assert.equal(shared.request.status, 'verified')
    assert.equal(shared.openid4vp.answer, 'accepted')
    await holder.getByTestId('holder-activity').getByText('Shared given_name with City Library').waitFor()
    await shot(holder, 'request-shared')
  })

  it('an OpenID4VCI offer is previewed (issuer, type, claims, the transaction code it asks) and accepted; another is declined', async () => {
    const withCode = await world.offer({
      tx_code: { length: 6, input_mode: 'numeric', description: 'Sent to you by e-mail' },
    })
    await use(holder, withCode.credential_offer_uri as string)
    const consent = holder.getByTestId('offer-consent')
    await consent.getByRole('heading', { name: 'Example University offers you a credential' }).waitFor()
    const text = (await consent.textContent()) ?? ''
    // The issuer's metadata names the credential by its schema; an SD-JWT VC's type is its vct (a URL).
    await consent.getByRole('heading', { name: 'Library pass' }).waitFor()
    assert.match(text, new RegExp(`Type${world.front.origin}/vct/`))
    assert.match(text, /SD-JWT VC \(dc\+sd-jwt\)/)
    assert.match((await consent.getByTestId('offered-claims').textContent()) ?? '', /given_name[\s\S]*member_no/)
    const code = consent.getByLabel(/Transaction code/)
    assert.match(
      (await consent.locator('label').filter({ hasText: 'Transaction code' }).textContent()) ?? '',
      /6 digits.*Sent to you by e-mail/s,
    )
    await shot(holder, 'offer-preview')
    const before = await holder.getByTestId('credential-item').count()
    await code.fill(withCode.tx_code as string)
    await consent.getByRole('button', { name: 'Accept' }).click()
    await notice().getByText('Received 1 credential(s)').waitFor()
    await holder.getByTestId('credential-item').nth(before).waitFor()
    await holder
      .getByTestId('holder-activity')
      .getByText('Accepted a LibraryPass offered by Example University')
      .waitFor()

    const plain = await world.offer()
    await use(holder, plain.credential_offer_uri as string)
    await consent.getByRole('heading', { name: 'Example University offers you a credential' }).waitFor()
    assert.equal(
      await consent.getByLabel(/Transaction code/).count(),
      0,
      'no transaction code field when the offer asks none',
    )
    await shot(holder, 'offer-preview-no-code')
    await consent.getByRole('button', { name: 'Decline' }).click()
    await notice().getByText('Declined: nothing was taken from Example University').waitFor()
    await holder
      .getByTestId('holder-activity')
      .getByText('Declined a credential offer from Example University')
      .waitFor()
    assert.equal(await holder.getByTestId('credential-item').count(), before + 1, 'the declined offer added nothing')
    await shot(holder, 'offer-declined')
  })

  it('the camera reads a QR code (a fake capture device playing a video of it) and the request opens its consent screen', async () => {
    await holder.getByRole('button', { name: 'Scan with the camera' }).click()
    await holder.getByText('QR code read from the camera').waitFor()
    assert.equal(
      await holder.getByTestId('qr-text').inputValue(),
      cameraRequest.authorization_request_uri,
      'the decoded text is the request URI',
    )
    assert.equal(await holder.getByTestId('camera-video').count(), 0, 'the camera stops once a code is read')
    await shot(holder, 'camera-read')
    await holder.getByRole('button', { name: 'Use this code' }).click()
    const consent = holder.getByTestId('request-consent')
    await consent.getByText('Purpose: Check your library pass at the desk').waitFor()
    await consent.getByRole('button', { name: 'Share' }).click()
    await notice().getByText('Shared with City Library').waitFor()
    assert.equal((await world.requestState(cameraRequest.request.id as string)).request.status, 'verified')
  })

  it('a camera that shows no code keeps looking until Stop; without a camera the page says so', async () => {
    const blank = path.join(videos!, 'blank.y4m')
    await writeFile(blank, qrVideo(null))
    browsers.push(await launchChromium({ args: [...FAKE_CAMERA, `--use-file-for-fake-video-capture=${blank}`] }))
    const page = await newPage(browsers.at(-1)!, 'blank camera')
    await signIn(page, 'holder')
    await page.getByRole('button', { name: 'Scan with the camera' }).click()
    await page.getByText('Looking for a QR code').waitFor()
    await page.getByTestId('camera-video').waitFor()
    await page.getByRole('button', { name: 'Stop the camera' }).click()
    await page.getByRole('button', { name: 'Scan with the camera' }).waitFor()
    assert.equal(await page.getByTestId('camera-video').count(), 0)
    assert.equal(await page.getByTestId('qr-text').inputValue(), '')

    // No fake device: a headless Chromium has no camera at all.
    browsers.push(await launchChromium())
    const none = await newPage(browsers.at(-1)!, 'no camera')
    await signIn(none, 'holder')
    await none.getByRole('button', { name: 'Scan with the camera' }).click()
    const alert = none.locator('.camera [role="alert"]')
    await alert.waitFor()
    assert.match((await alert.textContent()) ?? '', /No camera was found|Camera permission was denied/)
    assert.match((await alert.textContent()) ?? '', /upload an image/)
    await shot(none, 'no-camera')
  })

  it('a credential’s detail, a share link that opens it, and delete after a confirmation', async () => {
    const issued = await world.issue(holderDid, { given_name: 'Ada', member_no: 'L-9999' })
    const item = holder.locator(
      `[data-testid="credential-item"][data-credential-id="${issued.credential.id as string}"]`,
    )
    await item.waitFor()
    await item.getByRole('button', { name: 'Details of LibraryPass' }).click()
    const detail = item.getByTestId('credential-detail')
    const text = (await detail.textContent()) ?? ''
    assert.match(text, /given_name\s*Ada/)
    assert.match(text, /member_no\s*L-9999/)
    assert.match(text, /SD-JWT VC/)
    assert.match(text, /Statusactive/)
    assert.equal(
      await item.getByTestId('credential-issuer').getAttribute('title'),
      world.issuer.did,
      'the issuer’s DID on hover',
    )
    assert.equal(await item.getByTestId('credential-issuer').textContent(), 'Example University')
    await shot(holder, 'credential-detail')

    await item.getByRole('button', { name: 'Share LibraryPass' }).click()
    const panel = item.getByTestId('share-panel')
    await panel.getByLabel('Purpose (optional)').fill('Landlord')
    await panel.getByLabel('Maximum opens (optional)').fill('1')
    await panel.getByRole('button', { name: 'Make a share link' }).click()
    const link = await panel.getByTestId('share-link').inputValue()
    const opened = await fetch(link)
    assert.equal(opened.status, 200)
    const body = (await opened.json()) as Json
    assert.equal(body.holder_did, holderDid)
    assert.equal(body.credential.credential_type, 'LibraryPass')
    await panel.getByText(/Landlord: used_up, opened 1 of 1/).waitFor()
    await shot(holder, 'credential-share')

    const count = await holder.getByTestId('credential-item').count()
    const listed = async () =>
      ((await world.call('GET', `/api/wallet/${holderDid}/credentials`, await holderToken())).data as Json[]).length
    assert.equal(await listed(), count)
    await item.getByRole('button', { name: 'Delete LibraryPass' }).click()
    const dialog = holder.getByRole('dialog', { name: 'Delete LibraryPass?' })
    await dialog.waitFor()
    await shot(holder, 'credential-delete-confirm')
    await dialog.getByRole('button', { name: 'Cancel' }).click()
    await dialog.waitFor({ state: 'hidden' })
    assert.equal(
      await holder.evaluate("document.activeElement?.getAttribute('aria-label')"),
      'Delete LibraryPass',
      'the focus returns to the Delete button',
    )
    await item.getByRole('button', { name: 'Delete LibraryPass' }).click()
    await dialog.waitFor()
    await holder.keyboard.press('Escape')
    await dialog.waitFor({ state: 'hidden' })
    assert.equal(await listed(), count, 'Cancel and Escape delete nothing')
    await item.getByRole('button', { name: 'Delete LibraryPass' }).click()
    await dialog.getByRole('button', { name: 'Delete' }).click()
    await holder.getByText('LibraryPass from Example University deleted from your wallet').waitFor()
    await holder
      .getByTestId('credential-item')
      .nth(count - 1)
      .waitFor({ state: 'detached' })
    assert.equal(await holder.getByTestId('credential-item').count(), count - 1)
    assert.equal(await listed(), count - 1)
    await holder
      .getByTestId('holder-activity')
      .getByText(/Deleted a LibraryPass from Example University/)
      .waitFor()
  })

  it('axe finds nothing serious at 390 px and 1280 px with a credential, an open request and an inbox entry; nothing overflows at 390 px', async () => {
    const spec = await world.request('Show your pass at the reading room')
    await use(holder, spec.qr_code_data as string)
    await holder.getByText('Presentation request added to your inbox').waitFor()
    const entry = holder.locator('#holder-inbox article')
    assert.match((await entry.getByTestId('inbox-verifier').textContent()) ?? '', /City Library/)
    await entry.getByTestId('inbox-summary').getByText('City Library will see: given_name = Ada').waitFor()
    const open = await world.request('Renew your membership')
    await use(holder, open.authorization_request_uri as string)
    await holder.getByTestId('request-consent').waitFor()
    await holder.getByTestId('credential-item').first().getByRole('button', { name: 'Details of LibraryPass' }).click()
    for (const width of [390, 1280]) {
      await holder.setViewportSize({ width, height: 900 })
      await assertAccessible(holder, axeSource, `holder page at ${width} px`)
      assert.deepEqual(await overflowing(holder), [], `nothing sticks out of ${width} px`)
      await shot(holder, `page-${width}`)
    }
    assert.deepEqual(cspViolations, [], 'the pages run under their CSP without a violation')
  })

  /** The holder's session token, as the page holds it (the test reads the wallet through the API too). */
  async function holderToken(): Promise<string> {
    const res = await world.service.app.inject({
      method: 'POST',
      url: '/api/auth/challenge',
      payload: { did: holderDid },
    })
    assert.equal(res.statusCode, 200)
    // The page's key is not extractable: sign the challenge in the page, as its login does.
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
