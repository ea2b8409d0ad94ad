import { createHash, generateKeyPairSync, randomBytes, randomUUID, type KeyObject } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import tls from 'node:tls'
import { Openid4vpVerifier, type Openid4vpAuthorizationRequest } from '@openid4vc/openid4vp'
import * as jose from 'jose'
import { base58btc } from 'multiformats/bases/base58'

const CERT = readFileSync(new URL('../fixtures/tls/localhost-cert.pem', import.meta.url), 'utf8')
const KEY = readFileSync(new URL('../fixtures/tls/localhost-key.pem', import.meta.url), 'utf8')

// JSON from the wire, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

/** What the verifier answers a response POST with; default 200 `{}`. */
export type ResponseAnswer = { status: number; body: Json; headers?: Record<string, string> }

/**
 * A verifier nobody on the team wrote: @openid4vc/openid4vp's Openid4vpVerifier builds and signs
 * the request object (client_id `decentralized_identifier:<its did:key>`), served by reference from
 * its own HTTPS listener on localhost, which also takes the wallet's direct_post and keeps what
 * arrived. Its clock can run ahead of the service's (`aheadSeconds`), as another machine's may.
 */
export class OutsideVerifier {
  readonly did: string
  /** Every request that reached it (method and path), in order. */
  readonly hits: string[] = []
  readonly received: Array<{
    path: string
    form: URLSearchParams
    request: Openid4vpAuthorizationRequest | undefined
  }> = []
  /** How a POST to the response endpoint is answered. */
  answer: (path: string) => ResponseAnswer | 'hang-up' = () => ({ status: 200, body: {} })
  /** Served bodies by path (request objects, and whatever a test puts there). */
  readonly served = new Map<string, { status: number; body: string; headers?: Record<string, string> }>()
  private readonly requests = new Map<string, Openid4vpAuthorizationRequest>()

  private constructor(
    private readonly server: Server,
    readonly origin: string,
    private readonly privateKey: KeyObject,
    private readonly publicKey: KeyObject,
  ) {
    const x = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url')
    this.did = `did:key:${base58btc.encode(Uint8Array.from([0xed, 0x01, ...x]))}`
  }

  static async open(): Promise<OutsideVerifier> {
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), CERT])
    const { publicKey, privateKey } = generateKeyPairSync('ed25519')
    const ref: { verifier?: OutsideVerifier } = {}
    const server = createServer({ cert: CERT, key: KEY }, (req, res) => {
      void readBody(req).then((body) => {
        const path = new URL(req.url ?? '/', 'https://x').pathname
        const verifier = ref.verifier!
        verifier.hits.push(`${req.method} ${path}`)
        if (req.method === 'POST' && path.startsWith('/response/')) {
          const form = new URLSearchParams(body.toString('utf8'))
          verifier.received.push({ path, form, request: verifier.requests.get(form.get('state') ?? '') })
          const answer = verifier.answer(path)
          if (answer === 'hang-up') return req.socket.destroy()
          res
            .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
            .end(JSON.stringify(answer.body))
          return
        }
        const served = verifier.served.get(path)
        if (!served) return res.writeHead(404).end()
        res
          .writeHead(served.status, { 'content-type': 'application/oauth-authz-req+jwt', ...served.headers })
          .end(served.body)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    ref.verifier = new OutsideVerifier(
      server,
      `https://localhost:${(server.address() as AddressInfo).port}`,
      privateKey,
      publicKey,
    )
    return ref.verifier
  }

  get clientId(): string {
    return `decentralized_identifier:${this.did}`
  }

  /**
   * A signed request (JAR by reference) for `dcql_query`, made by the library with this verifier's
   * clock `aheadSeconds` ahead (its iat, nbf and exp); `payload` overrides request parameters.
   */
  async request(
    dcql: Json,
    options: { aheadSeconds?: number; payload?: Json; responseMode?: 'direct_post' | 'direct_post.jwt' } = {},
  ): Promise<{ uri: string; state: string; nonce: string; jwt: string }> {
    const id = randomUUID()
    const state = randomBytes(12).toString('base64url')
    const nonce = randomBytes(12).toString('base64url')
    const now = Math.floor(Date.now() / 1000) + (options.aheadSeconds ?? 0)
    const verifier = new Openid4vpVerifier({ callbacks: this.callbacks() })
    const payload = {
      response_type: 'vp_token' as const,
      client_id: this.clientId,
      response_mode: options.responseMode ?? ('direct_post' as const),
      response_uri: `${this.origin}/response/${id}`,
      nonce,
      state,
      dcql_query: dcql,
      client_metadata: {
        vp_formats_supported: {
          'dc+sd-jwt': { 'sd-jwt_alg_values': ['EdDSA', 'ES256'], 'kb-jwt_alg_values': ['EdDSA', 'ES256'] },
          jwt_vc_json: { alg_values: ['EdDSA', 'ES256'] },
        },
      },
      ...options.payload,
    }
    const requestUri = `${this.origin}/request/${id}`
    const created = await verifier.createOpenId4vpAuthorizationRequest({
      authorizationRequestPayload: payload as Openid4vpAuthorizationRequest,
      jar: {
        requestUri,
        jwtSigner: { method: 'did', didUrl: `${this.did}#${this.did.slice('did:key:'.length)}`, alg: 'EdDSA' },
        expiresInSeconds: 300,
        additionalJwtPayload: { iat: now, nbf: now, exp: now + 300, aud: 'https://self-issued.me/v2' },
      },
    })
    const jwt = created.jar!.authorizationRequestJwt
    this.served.set(new URL(requestUri).pathname, { status: 200, body: jwt })
    this.requests.set(state, created.authorizationRequestPayload as Openid4vpAuthorizationRequest)
    return { uri: created.authorizationRequest, state, nonce, jwt }
  }

  /** The vp_token of the last answer, parsed and checked against its request by the library (DCQL: query id → presentations). */
  lastVpToken(): Record<string, unknown[]> {
    const last = this.received.at(-1)
    if (!last?.request) throw new Error('no answer to a request of this verifier arrived')
    const verifier = new Openid4vpVerifier({ callbacks: this.callbacks() })
    const validated = verifier.validateOpenid4vpAuthorizationResponsePayload({
      authorizationRequestPayload: last.request,
      authorizationResponsePayload: {
        vp_token: JSON.parse(last.form.get('vp_token') ?? 'null'),
        state: last.form.get('state') ?? undefined,
      },
    })
    if (validated.type !== 'dcql') throw new Error('the answer is not a DCQL vp_token')
    return validated.dcql.presentations as Record<string, unknown[]>
  }

  /** Kept-alive connections would hold close() open: they are dropped. */
  close(): Promise<void> {
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }

  private callbacks() {
    return {
      hash: (data: Uint8Array, alg: string) => createHash(alg.replace('-', '').toLowerCase()).update(data).digest(),
      signJwt: async (_signer: unknown, { header, payload }: { header: Json; payload: Json }) => ({
        jwt: await new jose.SignJWT(payload)
          .setProtectedHeader(header as jose.JWTHeaderParameters)
          .sign(this.privateKey),
        signerJwk: this.publicKey.export({ format: 'jwk' }) as never,
      }),
      verifyJwt: () => Promise.resolve({ verified: false as const }),
      encryptJwe: () => Promise.reject(new Error('not used')),
      decryptJwe: () => Promise.resolve({ decrypted: false as const }),
      fetch,
    } as never
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
  })
}
