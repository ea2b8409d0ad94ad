/**
 * The SDK inside a real Chromium page (Debian's chromium through playwright-core), against the
 * service on a real port from another origin (CORS_ORIGINS): WebCrypto keys, challenge login,
 * a ServiceError read across origins, signVpJwt, and presentToRequest end to end. What the page
 * signed is checked in Node with did-jwt-vc, and the verifier's verdict comes from the service.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { createServiceClient, generateHolderKey, type HolderKey, type ServiceClient } from '@credential-service/sdk'
import { chromiumMissing, launchChromium } from '../../../test/helpers/browser.js'
import { bundleSdk, servePage } from './support/browser-page.js'
import { verifyVpJwt } from './support/independent.js'
import { startService, type LiveService } from './support/live-service.js'

type Sdk = typeof import('@credential-service/sdk')
/** The SDK the page loaded (support/browser-page.ts). */
declare const sdk: Sdk

const SCHEMA = {
  name: 'Degree',
  version: '1.0',
  anonymous_credentials: false,
  attributes: [{ name: 'given_name', data_type: 'string' as const, required: true }],
}

describe('the SDK in Chromium', { skip: chromiumMissing() }, () => {
  let page: { origin: string; close(): Promise<void> }
  let svc: LiveService
  let browser: Browser
  let tab: Page
  const parties = {} as Record<'issuer' | 'verifier', { key: HolderKey; client: ServiceClient }>

  before(async () => {
    const [bundle, launched] = await Promise.all([bundleSdk(), launchChromium()])
    browser = launched
    page = await servePage(bundle)
    svc = await startService({ CORS_ORIGINS: page.origin })
    for (const name of ['issuer', 'verifier'] as const) {
      const key = await generateHolderKey()
      const client = createServiceClient({ baseUrl: svc.baseUrl })
      await client.login(key)
      parties[name] = { key, client }
    }
    await parties.issuer.client.api.POST('/api/issuer', { body: { name: 'Browser University' } })
    tab = await browser.newPage()
    await tab.goto(`${page.origin}/`)
    await tab.waitForFunction(() => document.title === 'ready')
  })
  after(async () => {
    await browser?.close()
    await svc?.close()
    await page?.close()
  })

  it('makes keys with WebCrypto, signs in, reads a ServiceError, signs a VP-JWT did-jwt-vc verifies', async () => {
    const out = await tab.evaluate(async (baseUrl) => {
      const holder = await sdk.generateHolderKey()
      const p256 = await sdk.generateHolderKey({ alg: 'ES256' })
      const client = sdk.createServiceClient({ baseUrl })
      const anonymous = await client.api.GET('/api/auth/me').then(
        () => undefined,
        (error: unknown) =>
          error instanceof sdk.ServiceError
            ? { status: error.status, code: error.code, message: error.message }
            : { other: String(error) },
      )
      await client.login(holder)
      const me = await client.api.GET('/api/auth/me')
      const vp = await sdk.signVpJwt(p256, { audience: holder.did, nonce: 'browser-nonce', credentials: [] })
      return {
        did: holder.did,
        p256: p256.did,
        extractable: holder.privateKey.extractable,
        anonymous,
        me: me.data?.user.did,
        vp,
      }
    }, svc.baseUrl)
    assert.match(out.did, /^did:key:z6Mk/)
    assert.match(out.p256, /^did:key:zDn/)
    assert.equal(out.extractable, false)
    assert.deepEqual(
      out.anonymous && 'status' in out.anonymous ? [out.anonymous.status, out.anonymous.code] : out.anonymous,
      [401, 'UNAUTHENTICATED'],
    )
    assert.equal(out.me, out.did)
    const verified = await verifyVpJwt(out.vp, out.did)
    assert.equal(verified.issuer, out.p256)
    assert.equal(verified.payload.nonce, 'browser-nonce')
  })

  it('presentToRequest in the page: the verifier verifies what the browser signed (is_valid)', async () => {
    const { issuer, verifier } = parties
    const holderDid = await tab.evaluate(async (baseUrl) => {
      const key = await sdk.generateHolderKey()
      const client = sdk.createServiceClient({ baseUrl })
      await client.login(key)
      Object.assign(globalThis, { holder: { key, client } })
      return key.did
    }, svc.baseUrl)
    const schemaId = (
      await issuer.client.api.POST('/api/issuer/{did}/schemas', {
        params: { path: { did: issuer.key.did } },
        body: SCHEMA,
      })
    ).data!.schema.id
    const { data: issued } = await issuer.client.api.POST('/api/issuer/{did}/issue', {
      params: { path: { did: issuer.key.did } },
      body: {
        credential_type: 'UniversityDegree',
        schema_id: schemaId,
        subject_did: holderDid,
        attributes: { given_name: 'Ada' },
      },
    })
    const { data: created } = await verifier.client.api.POST('/api/verifier/requests', {
      body: {
        verifier_did: verifier.key.did,
        presentation_type: 'DegreeCheck',
        purpose: 'Browser check',
        required_credentials: [{ credential_type: 'UniversityDegree', required_attributes: ['given_name'] }],
      },
    })
    const presented = await tab.evaluate(
      async ({ qr, credentialId }) => {
        const { key, client } = (globalThis as unknown as { holder: { key: HolderKey; client: ServiceClient } }).holder
        return sdk.presentToRequest(client, key, {
          requestId: sdk.parseQrPayload(qr).value,
          credentialIds: [credentialId],
        })
      },
      { qr: created!.qr_code_data, credentialId: issued!.credential.id },
    )
    assert.equal((await verifyVpJwt(presented.presentationJwt, verifier.key.did)).issuer, holderDid)
    const { data: verdict } = await verifier.client.api.POST('/api/verifier/presentations/{id}/verify', {
      params: { path: { id: presented.presentationId } },
      body: { presentation_jwt: presented.presentationJwt },
    })
    assert.equal(verdict!.verification_result.is_valid, true, JSON.stringify(verdict!.verification_result.errors))
  })
})
