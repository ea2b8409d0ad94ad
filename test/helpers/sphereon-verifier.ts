import { createHash, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { readFileSync } from 'node:fs'
import type { IncomingMessage } from 'node:http'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import tls from 'node:tls'
import {
  InMemoryRPSessionManager,
  PassBy,
  ResponseMode,
  ResponseType,
  RevocationVerification,
  RP,
  SupportedVersion,
  type AuthorizationResponsePayload,
} from '@sphereon/did-auth-siop'
import * as jose from 'jose'
import { base58btc } from 'multiformats/bases/base58'

const CERT = readFileSync(new URL('../fixtures/tls/localhost-cert.pem', import.meta.url), 'utf8')
const KEY = readFileSync(new URL('../fixtures/tls/localhost-key.pem', import.meta.url), 'utf8')

/** What reached the response endpoint and what Sphereon's RP made of it. */
export interface ReceivedResponse {
  /** The form as posted (direct_post, OID4VP 1.0 §8.2). */
  form: URLSearchParams
  /** The RP's session for the response's state (InMemoryRPSessionManager: state → correlation id). */
  correlationId: string | undefined
  /** verifyAuthorizationResponse threw (its message), or undefined when it returned. */
  verifyError: string | undefined
}

/**
 * A verifier nobody on the team wrote, and not built on the OpenID4VP library this service uses:
 * Sphereon's @sphereon/did-auth-siop 0.20.1 RP (OID4VP 1.0, DCQL), signing its request object as
 * `decentralized_identifier:<its did:key>` (JAR by reference from its own HTTPS listener), its
 * sessions in its InMemoryRPSessionManager. Its response endpoint hands every direct_post form to
 * the RP's verifyAuthorizationResponse, as a Sphereon-based verifier's backend does, and keeps it.
 */
export class SphereonVerifier {
  readonly did: string
  readonly received: ReceivedResponse[] = []
  readonly sessions: InMemoryRPSessionManager
  private readonly rp: RP
  private readonly requestObjects = new Map<string, string>()

  private constructor(
    private readonly server: Server,
    readonly origin: string,
    dcql: object,
  ) {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519')
    const x = Buffer.from(publicKey.export({ format: 'jwk' }).x!, 'base64url')
    this.did = `did:key:${base58btc.encode(Uint8Array.from([0xed, 0x01, ...x]))}`
    const emitter = new EventEmitter()
    this.sessions = new InMemoryRPSessionManager(emitter)
    this.rp = RP.builder({ requestVersion: SupportedVersion.OID4VP_v1 })
      .withClientId(this.clientId)
      .withResponseMode(ResponseMode.DIRECT_POST)
      .withResponseUri(`${origin}/response`)
      .withResponseType(ResponseType.VP_TOKEN)
      .withDcqlQuery(dcql as never)
      .withSupportedVersions([SupportedVersion.OID4VP_v1])
      .withClientMetadata({
        client_id: this.clientId,
        client_name: 'Sphereon shop',
        passBy: PassBy.VALUE,
        vp_formats_supported: {
          'dc+sd-jwt': { 'sd-jwt_alg_values': ['EdDSA', 'ES256'], 'kb-jwt_alg_values': ['EdDSA', 'ES256'] },
        },
      } as never)
      // The RP's JWT callback: the request object signed with its did:key's Ed25519 key (jose).
      .withCreateJwtCallback((async (
        _issuer: unknown,
        jwt: { header: jose.JWTHeaderParameters; payload: jose.JWTPayload },
      ) => new jose.SignJWT(jwt.payload).setProtectedHeader(jwt.header).sign(privateKey)) as never)
      // Only an error response is expected here: no presentation is ever verified.
      .withVerifyJwtCallback(async () => false)
      .withRevocationVerification(RevocationVerification.NEVER)
      .withHasher(
        ((data: string, alg: string) =>
          new Uint8Array(createHash(alg.replace('-', '').toLowerCase()).update(data).digest())) as never,
      )
      .withEventEmitter(emitter)
      .withSessionManager(this.sessions)
      .build()
  }

  /** Its RP asks for `dcql` (a DCQL query, OID4VP 1.0 §6) in every request. */
  static async open(dcql: object): Promise<SphereonVerifier> {
    tls.setDefaultCACertificates([...tls.getCACertificates('default'), CERT])
    const ref: { verifier?: SphereonVerifier } = {}
    const server = createServer({ cert: CERT, key: KEY }, (req, res) => {
      void readBody(req).then(async (body) => {
        const verifier = ref.verifier!
        const path = new URL(req.url ?? '/', 'https://x').pathname
        if (req.method === 'POST' && path === '/response') {
          const form = new URLSearchParams(body.toString('utf8'))
          const payload = Object.fromEntries(form) as AuthorizationResponsePayload
          let verifyError: string | undefined
          try {
            await verifier.rp.verifyAuthorizationResponse(payload, {} as never)
          } catch (error) {
            verifyError = error instanceof Error ? error.message : String(error)
          }
          const correlationId = await verifier.sessions.getCorrelationIdByState(form.get('state') ?? '', false)
          verifier.received.push({ form, correlationId, verifyError })
          res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
          return
        }
        const jwt = req.method === 'GET' ? verifier.requestObjects.get(path) : undefined
        if (!jwt) return res.writeHead(404).end()
        res.writeHead(200, { 'content-type': 'application/oauth-authz-req+jwt' }).end(jwt)
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    ref.verifier = new SphereonVerifier(server, `https://localhost:${(server.address() as AddressInfo).port}`, dcql)
    return ref.verifier
  }

  get clientId(): string {
    return `decentralized_identifier:${this.did}`
  }

  /** A request made by the RP (its session keyed by a fresh correlation id and state), by reference. */
  async request(): Promise<{ uri: string; correlationId: string; state: string }> {
    const correlationId = randomUUID()
    const state = randomBytes(16).toString('base64url')
    const path = `/request/${correlationId}`
    const uri = await this.rp.createAuthorizationRequestURI({
      correlationId,
      nonce: randomBytes(16).toString('base64url'),
      state,
      requestByReferenceURI: `${this.origin}${path}`,
      jwtIssuer: { method: 'did', didUrl: `${this.did}#${this.did.slice('did:key:'.length)}`, alg: 'EdDSA' } as never,
    })
    if (!uri.requestObjectJwt) throw new Error('Sphereon made no request object')
    this.requestObjects.set(path, uri.requestObjectJwt)
    return { uri: uri.encodedUri, correlationId, state }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
  })
}
