/**
 * A test wallet for OpenID4VP 1.0 with DCQL, written only with the libraries a standard wallet
 * would use: @openid4vc/openid4vp's Openid4vpClient (parse and resolve the request, verify the
 * signed request object against the verifier's did:web resolved the standard way, create and
 * submit the response, encrypting it for direct_post.jwt), dcql (match the query against the
 * wallet's credentials), @sd-jwt/sd-jwt-vc (present with a KB-JWT) and jose (VP-JWT). Nothing
 * here imports the service.
 */
import { createHash, createPrivateKey, randomBytes, sign } from 'node:crypto'
import { Openid4vpClient } from '@openid4vc/openid4vp'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { DcqlQuery, type DcqlCredential } from 'dcql'
import * as jose from 'jose'
import { walletCallbacks, type WalletKey } from './wallet-keys.js'

type Json = Record<string, unknown>

const hasher = (data: string | ArrayBuffer, alg: string) =>
  new Uint8Array(
    createHash(alg.replace('-', '').toLowerCase())
      .update(typeof data === 'string' ? data : Buffer.from(data))
      .digest(),
  )

/** What a test may change to make the wallet misbehave. */
export interface PresentOptions {
  /** The nonce the KB-JWT or VP-JWT carries instead of the request's. */
  nonce?: string
  /** The audience instead of the client id. */
  audience?: string
  /** Claims not disclosed though the query asks for them. */
  withhold?: string[]
  /** Credentials the wallet must not use (by index in its list). */
  skip?: number[]
  /** Disclose every claim of an SD-JWT VC, not only those the query asks for (data minimisation tests). */
  overDisclose?: boolean
}

export interface WalletAnswer {
  status: number
  body: Json
  /** The resolved request: client, payload, the verified JAR. */
  resolved: Awaited<ReturnType<Openid4vpClient['resolveOpenId4vpAuthorizationRequest']>>
  /** The vp_token sent (credential query id → presentations). */
  vpToken: Record<string, string[]>
  /** Sends the very same response again (a replay). */
  resend: () => Promise<{ status: number; body: Json }>
}

export class PresentationWallet {
  private readonly client: Openid4vpClient

  /**
   * `credentials`: SD-JWT VCs (issued with cnf = the key) and JWT-VCs (issued to key.did), as
   * issued; or the service's Dock BBS derived proofs (JSON objects), which travel like a JWT-VC
   * inside the VP-JWT (docs/openid4vp.md).
   */
  constructor(
    private readonly key: WalletKey,
    readonly credentials: Array<string | Json>,
  ) {
    this.client = new Openid4vpClient({ callbacks: walletCallbacks([key], { fetch }) })
  }

  /** Opens an `openid4vp://` URI: the request resolved (JAR fetched and verified), DCQL matched. */
  async resolve(uri: string) {
    const parsed = this.client.parseOpenid4vpAuthorizationRequest({ authorizationRequest: uri })
    return this.client.resolveOpenId4vpAuthorizationRequest({ authorizationRequestPayload: parsed.params as never })
  }

  /** Resolves the request, presents the matching credentials and submits the response. */
  async answer(uri: string, options: PresentOptions = {}): Promise<WalletAnswer> {
    const { resolved, request, vpToken } = await this.prepare(uri, options)
    const jwt = request.response_mode === 'direct_post.jwt'
    const created = await this.client.createOpenid4vpAuthorizationResponse({
      authorizationRequestPayload: request as never,
      authorizationResponsePayload: { vp_token: vpToken },
      ...(jwt
        ? {
            jarm: {
              encryption: { nonce: randomBytes(16).toString('base64url') },
              serverMetadata: {
                authorization_signing_alg_values_supported: ['ES256'],
                authorization_encryption_alg_values_supported: ['ECDH-ES'],
                authorization_encryption_enc_values_supported: ['A128GCM', 'A256GCM'],
              },
            },
          }
        : {}),
    })
    const submit = async () => {
      const submitted = await this.client.submitOpenid4vpAuthorizationResponse({
        authorizationRequestPayload: request as never,
        authorizationResponsePayload: created.authorizationResponsePayload,
        ...(created.jarm ? { jarm: created.jarm } : {}),
      })
      const response = submitted.response as Response
      const text = await response.text()
      return { status: response.status, body: (text ? JSON.parse(text) : {}) as Json }
    }
    const first = await submit()
    return { ...first, resolved, vpToken, resend: submit }
  }

  /** Resolves the request and presents the matching credentials, without submitting: the request and the vp_token. */
  async prepare(uri: string, options: PresentOptions = {}) {
    const resolved = await this.resolve(uri)
    type Request = Json & { nonce: string; client_id: string; response_mode?: string; client_metadata?: Json }
    const request = resolved.authorizationRequestPayload as Request
    const query = DcqlQuery.parse(resolved.dcql!.query as DcqlQuery.Input)
    DcqlQuery.validate(query)
    const usable = this.credentials.map((c, i) => ({ c, i })).filter(({ i }) => !options.skip?.includes(i))
    const result = DcqlQuery.query(query, await Promise.all(usable.map(({ c }) => this.dcqlCredential(c))))
    const chosen = this.choose(query, result)
    const vpToken: Record<string, string[]> = {}
    for (const [queryId, index] of Object.entries(chosen)) {
      const credentialQuery = query.credentials.find((c) => c.id === queryId)!
      const credential = usable[index]!.c
      vpToken[queryId] = [await this.present(credential, credentialQuery, request, options)]
    }
    return { resolved, request, vpToken }
  }

  /** For each required credential set, the first option whose every credential query matched; the credential chosen for each query. */
  private choose(query: DcqlQuery, result: ReturnType<typeof DcqlQuery.query>): Record<string, number> {
    const chosen: Record<string, number> = {}
    const pick = (id: string) => {
      const match = result.credential_matches[id]
      if (!match?.success) return false
      chosen[id] = match.valid_credentials[0]!.input_credential_index
      return true
    }
    if (!query.credential_sets) {
      for (const c of query.credentials) pick(c.id)
      return chosen
    }
    for (const set of query.credential_sets) {
      const option = set.options.find((ids) => ids.every((id) => result.credential_matches[id]?.success))
      if (option) option.forEach(pick)
    }
    return chosen
  }

  /** A credential as DCQL matches it (OID4VP 1.0 §6; dcql's credential models). */
  private async dcqlCredential(credential: string | Json): Promise<DcqlCredential> {
    if (typeof credential !== 'string') {
      // A derived proof: its type, what it reveals, and the attributes its predicates are proven on.
      const proven = Object.fromEntries(
        ((credential.predicates ?? []) as Json[]).map((p) => [
          String(p.attribute),
          `${String(p.operator)} ${String(p.value)}`,
        ]),
      )
      return {
        credential_format: 'jwt_vc_json',
        type: ['VerifiableCredential', String(credential.credential_type)],
        claims: { credentialSubject: { ...proven, ...(credential.revealed as Json) } } as never,
        cryptographic_holder_binding: true,
      }
    }
    if (credential.includes('~')) {
      const claims = (await new SDJwtVcInstance({ hasher }).getClaims(credential)) as Json
      return {
        credential_format: 'dc+sd-jwt',
        vct: String(claims.vct),
        claims: claims as never,
        cryptographic_holder_binding: true,
      }
    }
    const vc = jose.decodeJwt(credential).vc as Json
    return {
      credential_format: 'jwt_vc_json',
      type: vc.type as string[],
      claims: vc as never,
      cryptographic_holder_binding: true,
    }
  }

  /** SD-JWT VC with the asked claims disclosed and a KB-JWT (§B.3.5); a JWT-VC inside a VP-JWT signed by the wallet's DID key (§B.1.3.1). */
  private async present(
    credential: string | Json,
    query: DcqlQuery['credentials'][number],
    request: { nonce: string; client_id: string },
    options: PresentOptions,
  ): Promise<string> {
    const nonce = options.nonce ?? request.nonce
    const aud = options.audience ?? request.client_id
    const asked = (query.claims ?? []).map((c) =>
      (c as { path: Array<string | number | null> }).path.filter((p): p is string => typeof p === 'string'),
    )
    if (typeof credential === 'string' && credential.includes('~')) {
      const everything = options.overDisclose
        ? Object.keys((await new SDJwtVcInstance({ hasher }).getClaims(credential)) as Json)
        : []
      const disclosed = [...asked.map((p) => p[0]!), ...everything].filter((name) => !options.withhold?.includes(name))
      const frame = Object.fromEntries(disclosed.map((name) => [name, true]))
      const privateKey = createPrivateKey({ key: this.key.privateJwk as never, format: 'jwk' })
      const holder = new SDJwtVcInstance({
        hasher,
        kbSignAlg: this.key.alg,
        kbSigner: async (data: string) =>
          (this.key.alg === 'ES256'
            ? sign('sha256', Buffer.from(data), { key: privateKey, dsaEncoding: 'ieee-p1363' })
            : sign(null, Buffer.from(data), privateKey)
          ).toString('base64url'),
      })
      return holder.present(credential, frame, { kb: { payload: { iat: Math.floor(Date.now() / 1000), aud, nonce } } })
    }
    // A JWT-VC discloses everything: withholding a claim means not presenting the credential.
    return new jose.SignJWT({
      nonce,
      vp: {
        '@context': ['https://www.w3.org/2018/credentials/v1'],
        type: ['VerifiablePresentation'],
        holder: this.key.did,
        verifiableCredential: [credential],
      },
    })
      .setProtectedHeader({ alg: this.key.alg, typ: 'JWT', kid: this.key.didUrl })
      .setIssuer(this.key.did)
      .setAudience(aud)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(await jose.importJWK(this.key.privateJwk, this.key.alg))
  }
}
