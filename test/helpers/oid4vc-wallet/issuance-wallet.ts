/**
 * A wallet receiving credentials over OpenID4VCI 1.0, written only with @openid4vc/openid4vci's
 * Openid4vciClient, @openid4vc/oauth2's Oauth2Client and wallet-keys.ts (jose): nothing here
 * imports the service, so what it accepts is what a standard wallet would. Each step is a method,
 * so tests can replay, skip or tamper with one.
 */
import { Oauth2Client, type RequestDpopOptions } from '@openid4vc/oauth2'
import { Openid4vciClient, type CredentialOfferObject, type IssuerMetadataResult } from '@openid4vc/openid4vci'
import { generateWalletKey, walletCallbacks, type WalletAlg, type WalletKey } from './wallet-keys.js'

export interface TokenResult {
  accessToken: string
  dpop?: RequestDpopOptions
  response: Record<string, unknown>
}

export interface Resolved {
  offer: CredentialOfferObject
  metadata: IssuerMetadataResult
  configurationId: string
}

const WALLET_CLIENT_ID = 'test-wallet'

export class IssuanceWallet {
  readonly client: Openid4vciClient
  readonly oauth2: Oauth2Client

  private constructor(
    readonly keys: WalletKey[],
    readonly dpopKey: WalletKey,
  ) {
    const callbacks = walletCallbacks([...keys, dpopKey], { fetch, clientId: WALLET_CLIENT_ID })
    this.client = new Openid4vciClient({ callbacks })
    this.oauth2 = new Oauth2Client({ callbacks })
  }

  /** A wallet with one holder key per alg given, and an ES256 DPoP key. */
  static async create(algs: WalletAlg[] = ['ES256']): Promise<IssuanceWallet> {
    return new IssuanceWallet(
      await Promise.all(algs.map((alg) => generateWalletKey(alg))),
      await generateWalletKey('ES256'),
    )
  }

  /** A wallet holding the given keys (say, one of a did:key the holder also signs in with). */
  static async withKeys(keys: WalletKey[]): Promise<IssuanceWallet> {
    return new IssuanceWallet(keys, await generateWalletKey('ES256'))
  }

  /** The offer behind an `openid-credential-offer://` URI, and its issuer's metadata. */
  async resolve(offerUri: string): Promise<Resolved> {
    const offer = await this.client.resolveCredentialOffer(offerUri)
    const metadata = await this.client.resolveIssuerMetadata(offer.credential_issuer)
    return { offer, metadata, configurationId: offer.credential_configuration_ids[0]! }
  }

  /** The pre-authorized code grant, DPoP-bound when the authorization server supports it (unless `dpop: false`). */
  async token(resolved: Resolved, options: { txCode?: string; dpop?: boolean } = {}): Promise<TokenResult> {
    const server = resolved.metadata.authorizationServers[0]!
    const dpop =
      options.dpop !== false && this.oauth2.isDpopSupported({ authorizationServerMetadata: server }).supported
    const result = await this.client.retrievePreAuthorizedCodeAccessTokenFromOffer({
      credentialOffer: resolved.offer,
      issuerMetadata: resolved.metadata,
      ...(options.txCode !== undefined ? { txCode: options.txCode } : {}),
      ...(dpop ? { dpop: { signer: { method: 'jwk', alg: 'ES256', publicJwk: this.dpopKey.publicJwk } } } : {}),
    })
    return {
      accessToken: result.accessTokenResponse.access_token,
      dpop: result.dpop,
      response: result.accessTokenResponse as Record<string, unknown>,
    }
  }

  /** Authorization code flow, step 1: the authorization request URL (issuer_state, PKCE S256) the user agent opens. */
  async authorizationRequest(resolved: Resolved, redirectUri: string): Promise<{ url: string; codeVerifier: string }> {
    const { authorizationRequestUrl, pkce } = await this.client.createAuthorizationRequestUrlFromOffer({
      clientId: WALLET_CLIENT_ID,
      issuerMetadata: resolved.metadata,
      credentialOffer: resolved.offer,
      redirectUri,
    })
    if (!pkce) throw new Error('the authorization server announced no PKCE method')
    return { url: authorizationRequestUrl, codeVerifier: pkce.codeVerifier }
  }

  /** Authorization code flow, step 2: the code from the redirect for an access token (DPoP-bound unless `dpop: false`). */
  async tokenFromCode(
    resolved: Resolved,
    code: string,
    codeVerifier: string,
    redirectUri: string,
    options: { dpop?: boolean } = {},
  ): Promise<TokenResult> {
    const result = await this.client.retrieveAuthorizationCodeAccessTokenFromOffer({
      issuerMetadata: resolved.metadata,
      credentialOffer: resolved.offer,
      authorizationCode: code,
      pkceCodeVerifier: codeVerifier,
      redirectUri,
      ...(options.dpop !== false
        ? { dpop: { signer: { method: 'jwk', alg: 'ES256', publicJwk: this.dpopKey.publicJwk } } }
        : {}),
    })
    return {
      accessToken: result.accessTokenResponse.access_token,
      dpop: result.dpop,
      response: result.accessTokenResponse as Record<string, unknown>,
    }
  }

  async nonce(resolved: Resolved): Promise<string> {
    return (await this.client.requestNonce({ issuerMetadata: resolved.metadata })).c_nonce
  }

  /**
   * One jwt key proof per holder key: with `jwk` in the header, or `kid` = the key's did:jwk URL
   * (`useDid`). `audience` stands in another credential issuer (a proof for someone else).
   */
  async proofs(
    resolved: Resolved,
    nonce: string,
    options: { keys?: WalletKey[]; useDid?: boolean; audience?: string; issuedAt?: Date } = {},
  ): Promise<string[]> {
    const metadata = options.audience
      ? {
          ...resolved.metadata,
          credentialIssuer: { ...resolved.metadata.credentialIssuer, credential_issuer: options.audience },
        }
      : resolved.metadata
    const jwts: string[] = []
    for (const key of options.keys ?? this.keys) {
      const signer = options.useDid
        ? { method: 'did' as const, didUrl: key.didUrl, alg: key.alg }
        : { method: 'jwk' as const, publicJwk: key.publicJwk, alg: key.alg }
      const { jwt } = await this.client.createCredentialRequestJwtProof({
        issuerMetadata: metadata,
        credentialConfigurationId: resolved.configurationId,
        signer,
        nonce,
        ...(options.issuedAt ? { issuedAt: options.issuedAt } : {}),
      })
      jwts.push(jwt)
    }
    return jwts
  }

  /** The credential request; answers the library's result (ok or not) with the HTTP response. */
  async credentials(
    resolved: Resolved,
    token: TokenResult,
    proofs: string[],
    configurationId = resolved.configurationId,
  ) {
    return this.client.retrieveCredentials({
      issuerMetadata: resolved.metadata,
      accessToken: token.accessToken,
      credentialConfigurationId: configurationId,
      ...(token.dpop ? { dpop: token.dpop } : {}),
      proofs: { jwt: proofs },
    })
  }

  async deferred(resolved: Resolved, token: TokenResult, transactionId: string) {
    return this.client.retrieveDeferredCredentials({
      issuerMetadata: resolved.metadata,
      accessToken: token.accessToken,
      transactionId,
      ...(token.dpop ? { dpop: token.dpop } : {}),
    })
  }

  async notify(
    resolved: Resolved,
    token: TokenResult,
    notificationId: string,
    event: 'credential_accepted' | 'credential_failure' | 'credential_deleted',
  ) {
    return this.client.sendNotification({
      issuerMetadata: resolved.metadata,
      accessToken: token.accessToken,
      notification: { notificationId, event },
      ...(token.dpop ? { dpop: token.dpop } : {}),
    })
  }

  /** The whole pre-authorized flow: offer, metadata, token, nonce, one proof per key, credentials. */
  async receive(offerUri: string, options: { txCode?: string; dpop?: boolean; useDid?: boolean } = {}) {
    const resolved = await this.resolve(offerUri)
    const token = await this.token(resolved, options)
    const nonce = await this.nonce(resolved)
    const proofs = await this.proofs(resolved, nonce, { useDid: options.useDid })
    const answer = await this.credentials(resolved, token, proofs)
    return { resolved, token, answer }
  }
}
