/**
 * What the holder's end-to-end test stands on (the small bits of console.e2e.test.ts it needs,
 * copied here): the service behind HTTPS (OpenID4VC is served only when PUBLIC_BASE_URL is
 * https), also listening on plain http on 127.0.0.1 for the browser (a secure context without a
 * certificate to trust, so getUserMedia is allowed), an issuer and a verifier driven over the API,
 * and axe-core run in a page.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import type { Page } from 'playwright-core'
import { bearer, DidClient } from '../../../../test/helpers/did-client.js'
import { HttpsFront } from '../../../../test/helpers/https-front.js'
import { IssuerActor } from '../../../../test/helpers/issuer-setup.js'
import { createTestApp, type TestApp } from '../../../../test/helpers/test-app.js'

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

export const PASS_SCHEMA = {
  name: 'Library pass',
  version: '1',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'member_no', data_type: 'string', required: true },
  ],
  anonymous_credentials: false,
}

export class HolderWorld {
  readonly issuer = new IssuerActor()
  readonly verifier = new DidClient()
  verifierToken = ''
  schemaId = ''

  private constructor(
    readonly front: HttpsFront,
    readonly service: TestApp,
    /** The console's origin for the browser (plain http on loopback). */
    readonly url: string,
  ) {}

  /** Opens everything; whatever was started is closed again if a later step fails. */
  static async open(names: { issuer: string; verifier: string }): Promise<HolderWorld> {
    const front = await HttpsFront.open()
    let service: TestApp | undefined
    try {
      // The hosted wallet fetches the issuer's and verifier's https URLs on loopback: allowed for this test.
      service = await createTestApp({ env: { PUBLIC_BASE_URL: front.origin, OUTBOUND_ALLOW_PRIVATE: 'true' } })
      front.serve(service.app)
      const port = await freePort()
      await service.app.listen({ port, host: '127.0.0.1' })
      const world = new HolderWorld(front, service, `http://127.0.0.1:${port}`)
      await world.issuer.setUp(service.app, names.issuer)
      world.schemaId = await world.issuer.schema(service.app, PASS_SCHEMA)
      world.verifierToken = await world.verifier.login(service.app)
      await world.call('POST', '/api/verifier', world.verifierToken, { name: names.verifier }, 201)
      return world
    } catch (error) {
      await service?.close()
      await front.close()
      throw error
    }
  }

  async call(
    method: 'GET' | 'POST' | 'DELETE',
    url: string,
    token: string,
    payload?: unknown,
    expected = 200,
  ): Promise<Json> {
    const res = await this.service.app.inject({
      method,
      url,
      headers: bearer(token),
      ...(payload === undefined ? {} : { payload: payload as object }),
    })
    assert.equal(res.statusCode, expected, `${method} ${url}: ${res.body}`)
    return res.json() as Json
  }

  /** An SD-JWT VC of the issuer for `holderDid`. */
  issue(holderDid: string, attributes: Json): Promise<Json> {
    return this.call(
      'POST',
      `/api/issuer/${this.issuer.did}/issue`,
      this.issuer.token,
      {
        credential_type: 'LibraryPass',
        schema_id: this.schemaId,
        subject_did: holderDid,
        attributes,
        format: 'dc+sd-jwt',
      },
      201,
    )
  }

  /** A verifier's request for the pass's given_name: the 201 (its openid4vp:// URI and the spec's JSON payload). */
  request(purpose: string): Promise<Json> {
    return this.call(
      'POST',
      '/api/verifier/requests',
      this.verifierToken,
      {
        verifier_did: this.verifier.did,
        presentation_type: 'MembershipCheck',
        required_credentials: [
          { credential_type: 'LibraryPass', schema_id: this.schemaId, required_attributes: ['given_name'] },
        ],
        purpose,
      },
      201,
    )
  }

  /** The verifier's view of its request: `request.status`, `openid4vp.answer` and `holder_response`. */
  requestState(id: string): Promise<Json> {
    return this.call('GET', `/api/verifier/requests/${id}`, this.verifierToken)
  }

  offer(body: Json = {}): Promise<Json> {
    return this.call(
      'POST',
      `/api/issuer/${this.issuer.did}/offers`,
      this.issuer.token,
      {
        credential_type: 'LibraryPass',
        schema_id: this.schemaId,
        attributes: { given_name: 'Ada', member_no: 'L-2000' },
        format: 'dc+sd-jwt',
        ...body,
      },
      201,
    )
  }

  async close(): Promise<void> {
    await this.service.close()
    await this.front.close()
  }
}

interface Violation {
  id: string
  impact: string | null
  help: string
  nodes: Array<{ target: unknown }>
}

/** axe-core in the page (evaluated over the DevTools protocol: the page's CSP allows no injected script). */
export async function assertAccessible(page: Page, axeSource: string, what: string): Promise<void> {
  await page.evaluate(axeSource)
  // A string, not a function: this file is type-checked without the DOM library.
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)",
  )) as Violation[]
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  assert.deepEqual(
    bad.map((v) => `${v.id}: ${v.help} ${JSON.stringify(v.nodes.map((n) => n.target))}`),
    [],
    `${what}: axe violations of serious or critical impact`,
  )
}

/**
 * What sticks out past the viewport's right edge (the page would scroll sideways): the innermost
 * such elements, as tag.class "text", for the failure message; empty when everything fits.
 */
export async function overflowing(page: Page): Promise<string[]> {
  return (await page.evaluate(`(() => {
    const width = document.documentElement.clientWidth
    const out = [...document.querySelectorAll('body *')].filter((el) => el.getBoundingClientRect().right > width + 0.5)
    return out.filter((el) => !out.some((other) => other !== el && el.contains(other)))
      .map((el) => el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') + ' "' + (el.textContent || '').slice(0, 60) + '"')
  })()`)) as string[]
}

export async function signIn(page: Page, role: string): Promise<string> {
  await page.goto(`/app/#/${role}`)
  await page.getByRole('button', { name: "Sign in with this browser's DID" }).click()
  const did = await page.getByTestId(`${role}-did`).textContent()
  assert.match(did ?? '', /^did:key:z6Mk/)
  return did!
}
