import assert from 'node:assert/strict'
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context'
import { contexts as dataIntegrityContexts } from '@digitalbazaar/data-integrity-context'
import { contexts as multikeyContexts } from '@digitalbazaar/multikey-context'
import type { FastifyInstance, LightMyRequestResponse } from 'fastify'
import { bearer } from './did-client.js'
import { callAs, type IssuerActor } from './issuer-setup.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>

export const VC_V1 = 'https://www.w3.org/2018/credentials/v1'
export const VC_V2 = 'https://www.w3.org/ns/credentials/v2'
const MULTIKEY_V1 = 'https://w3id.org/security/multikey/v1'

/** A VC API client as its issuer gets it: the id, the secret (shown once) and where to call. */
export interface VcApiClient {
  client_id: string
  client_secret: string
  endpoints: {
    token: string
    issue: Record<string, string>
    status: string
    verify: string
    presentations_verify: string
  }
}

/** The path of a URL the service handed out (the test app's base is http://service.test). */
export const pathOf = (url: string): string => {
  const { pathname, search } = new URL(url)
  return pathname + search
}

export async function createClient(
  app: FastifyInstance,
  actor: IssuerActor,
  name = 'CI pipeline',
  token = actor.token,
): Promise<VcApiClient> {
  const res = await callAs(app, 'POST', `/api/issuer/${actor.did}/vc-api/clients`, token, { name })
  assert.equal(res.statusCode, 201, res.body)
  return res.json().client
}

/** RFC 6749 §2.3.1: the id and secret form-urlencoded, joined by a colon, base64. */
export const basicAuth = (id: string, secret: string) => ({
  authorization: `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`,
})

/** A token request as RFC 6749 §4.4.2 sends it: application/x-www-form-urlencoded. */
export const tokenRequest = (
  app: FastifyInstance,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> =>
  app.inject({
    method: 'POST',
    url: '/oauth2/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    payload: new URLSearchParams(fields).toString(),
  })

export async function accessToken(app: FastifyInstance, client: VcApiClient): Promise<string> {
  const res = await tokenRequest(
    app,
    { grant_type: 'client_credentials' },
    basicAuth(client.client_id, client.client_secret),
  )
  assert.equal(res.statusCode, 200, res.body)
  return res.json().access_token
}

export const vcApiPost = (
  app: FastifyInstance,
  url: string,
  token: string | undefined,
  payload: unknown,
): Promise<LightMyRequestResponse> =>
  app.inject({ method: 'POST', url: pathOf(url), headers: token ? bearer(token) : {}, payload: payload as object })

/**
 * A document loader of the verifier's own: the contexts from their npm packages, a did:key's
 * document built from the key in it (did:key v0.7, Multikey form, any key type), and anything the
 * service publishes (status lists) fetched from it over HTTP. Nothing else resolves.
 */
export function libraryDocumentLoader(app: FastifyInstance, publicBaseUrl: string) {
  const contexts = new Map<string, unknown>([...credentialsContexts, ...dataIntegrityContexts, ...multikeyContexts])
  const didKeyDocument = (did: string): Json => {
    const multibase = did.slice('did:key:'.length)
    const id = `${did}#${multibase}`
    return {
      '@context': ['https://www.w3.org/ns/did/v1', MULTIKEY_V1],
      id: did,
      verificationMethod: [{ id, type: 'Multikey', controller: did, publicKeyMultibase: multibase }],
      assertionMethod: [id],
      authentication: [id],
    }
  }
  return async (url: string) => {
    const known = contexts.get(url)
    if (known) return { contextUrl: null, documentUrl: url, document: structuredClone(known) }
    if (url.startsWith('did:key:')) {
      const [did, fragment] = url.split('#')
      const doc = didKeyDocument(did!)
      if (!fragment) return { contextUrl: null, documentUrl: url, document: doc }
      const method = doc.verificationMethod.find((m: Json) => m.id === url)
      assert.ok(method, `${url} is in its DID document`)
      return { contextUrl: null, documentUrl: url, document: { '@context': MULTIKEY_V1, ...method } }
    }
    if (url.startsWith(`${publicBaseUrl}/`)) {
      const res = await app.inject({ method: 'GET', url: pathOf(url) })
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
      return { contextUrl: null, documentUrl: url, document: res.json() }
    }
    throw new Error(`the test's document loader does not know ${url}`)
  }
}

/** An object nested `depth` levels deep (`{}` is one level). */
export function nested(depth: number): Json {
  let value: Json = { leaf: true }
  for (let i = 1; i < depth; i++) value = { next: value }
  return value
}
