/**
 * The client side of the crash test (test/process/crash-safety.test.ts): the service's API over
 * real HTTP, and a small world of parties (an issuer, a verifier, holders) that drives a mixed
 * load and remembers what every 2xx answered.
 */
import { DidClient } from './did-client.js'
import { signPresentation } from './holder-wallet.js'
import { JWT_DEGREE_SCHEMA } from './issuer-setup.js'

// Decoded JSON from the wire, read field by field in assertions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = Record<string, any>

// ---------------------------------------------------------------------------------------------
// HTTP as a client sees it

export interface Reply {
  status: number
  body: Json
}

export class Api {
  inFlight = 0
  constructor(public base: string) {}

  async call(method: 'GET' | 'POST', url: string, token?: string, payload?: unknown): Promise<Reply> {
    this.inFlight++
    try {
      const res = await fetch(`${this.base}${url}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      })
      // A reply counts once its whole body arrived.
      return { status: res.status, body: (await res.json()) as Json }
    } finally {
      this.inFlight--
    }
  }

  async ok(method: 'GET' | 'POST', url: string, token?: string, payload?: unknown): Promise<Json> {
    const res = await this.call(method, url, token, payload)
    if (res.status < 200 || res.status > 299)
      throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body
  }

  async login(client: DidClient): Promise<string> {
    const { challenge } = await this.ok('POST', '/api/auth/challenge', undefined, { did: client.did })
    return (
      await this.ok('POST', '/api/auth/verify-challenge', undefined, {
        did: client.did,
        challenge,
        signature: client.sign(challenge),
      })
    ).token
  }

  /** Every item of a keyset-paginated list. */
  async all(url: string, token: string, field = 'data'): Promise<Json[]> {
    const items: Json[] = []
    let cursor: string | null = null
    do {
      const page: Json = await this.ok(
        'GET',
        `${url}?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        token,
      )
      items.push(...(page[field] as Json[]))
      cursor = page.next_cursor
    } while (cursor)
    return items
  }
}

// ---------------------------------------------------------------------------------------------
// The world: one issuer, one verifier, a few holders

export interface Party {
  client: DidClient
  did: string
  token: string
}

/** What a 2xx answered, per kind: the checks look each one up after the restart. */
export interface Answered {
  issued: Array<{ id: string; hash: string; holder: string }>
  revoked: Array<{ id: string; revoked_at: string }>
  /** Revocations sent, answered or not: one the kill cut off may have committed unanswered. */
  revokeAsked: string[]
  granted: Array<{ id: string; holder: string }>
  consentRevoked: Array<{ id: string; revoked_at: string }>
  requests: string[]
  approved: Array<{ request: string; presentation: string }>
  rejected: string[]
  verified: Array<{ presentation: string; status: string }>
}

export class World {
  issuer!: Party
  verifier!: Party
  holders: Party[] = []
  schemaId = ''
  answered: Answered = {
    issued: [],
    revoked: [],
    revokeAsked: [],
    granted: [],
    consentRevoked: [],
    requests: [],
    approved: [],
    rejected: [],
    verified: [],
  }
  /** 2xx answers the world has had so far (set-up included: the test subtracts the set-up's count). */
  okCount = 0
  /** Pools the load draws from. */
  toRevoke: string[] = []
  consentsToRevoke: Array<{ holder: Party; id: string }> = []
  toVerify: Array<{ id: string; jwt: string }> = []
  private n = 0

  constructor(
    public api: Api,
    private readonly receiverUrl: string,
    private readonly onOk: () => void,
  ) {}

  private async party(): Promise<Party> {
    const client = new DidClient()
    return { client, did: client.did, token: await this.api.login(client) }
  }

  private counted<T>(value: T): T {
    this.okCount++
    this.onOk()
    return value
  }

  private async ok(method: 'GET' | 'POST', url: string, token?: string, payload?: unknown): Promise<Json> {
    return this.counted(await this.api.ok(method, url, token, payload))
  }

  async setUp(): Promise<void> {
    this.issuer = await this.party()
    this.verifier = await this.party()
    this.holders = await Promise.all(Array.from({ length: 4 }, () => this.party()))
    await this.api.ok('POST', '/api/issuer', this.issuer.token, { name: 'Crash University' })
    this.schemaId = (
      await this.api.ok('POST', `/api/issuer/${this.issuer.did}/schemas`, this.issuer.token, JWT_DEGREE_SCHEMA)
    ).schema.id
    await Promise.all([
      ...Array.from({ length: 12 }, async () => this.toRevoke.push((await this.issue()).id)),
      ...Array.from({ length: 10 }, async () => this.consentsToRevoke.push(await this.grant())),
      ...Array.from({ length: 8 }, () => this.approve()),
    ])
  }

  private holder(): Party {
    return this.holders[this.n++ % this.holders.length]!
  }

  async issue(holder = this.holder()): Promise<{ id: string; jwt: string }> {
    const body = await this.ok('POST', `/api/issuer/${this.issuer.did}/issue`, this.issuer.token, {
      credential_type: 'UniversityDegree',
      schema_id: this.schemaId,
      subject_did: holder.did,
      attributes: { given_name: `Holder ${this.n}`, gpa: 3.5 },
    })
    this.answered.issued.push({ id: body.credential.id, hash: body.credential.credential_hash, holder: holder.did })
    return { id: body.credential.id, jwt: body.credential.jwt }
  }

  async revoke(id: string): Promise<void> {
    this.answered.revokeAsked.push(id)
    const body = await this.ok('POST', `/api/issuer/${this.issuer.did}/credentials/${id}/revoke`, this.issuer.token)
    this.answered.revoked.push({ id, revoked_at: body.credential.revoked_at })
  }

  async grant(holder = this.holder()): Promise<{ holder: Party; id: string }> {
    // A verifier DID of its own per consent: each consent is its own (holder, verifier, purpose)
    // key on chain, and none of them takes part in the presentations' verification.
    const body = await this.ok('POST', `/api/wallet/${holder.did}/consents`, holder.token, {
      verifier_did: new DidClient().did,
      purpose: `Crash test ${this.n++}`,
    })
    this.answered.granted.push({ id: body.consent.id, holder: holder.did })
    return { holder, id: body.consent.id }
  }

  async revokeConsent(consent: { holder: Party; id: string }): Promise<void> {
    const body = await this.ok(
      'POST',
      `/api/wallet/${consent.holder.did}/consents/${consent.id}/revoke`,
      consent.holder.token,
    )
    this.answered.consentRevoked.push({ id: consent.id, revoked_at: body.consent.revoked_at })
  }

  /**
   * A request of the verifier with the receiver as callback_url, in a holder's inbox; addressed
   * to that holder, so its rejection closes the request too.
   */
  private async openRequest(holder: Party): Promise<Json> {
    const created = await this.ok('POST', '/api/verifier/requests', this.verifier.token, {
      verifier_did: this.verifier.did,
      holder_did: holder.did,
      presentation_type: 'DegreeCheck',
      required_credentials: [{ credential_type: 'UniversityDegree', issuer_did: this.issuer.did }],
      purpose: 'Hiring',
      callback_url: this.receiverUrl,
    })
    this.answered.requests.push(created.request.id)
    await this.ok('POST', '/api/wallet/presentation-requests', holder.token, { request_id: created.request.id })
    return created.request
  }

  async approve(): Promise<void> {
    const holder = this.holder()
    // The credential it presents is issued for it, so revocations of the load never touch it.
    const credential = await this.issue(holder)
    const request = await this.openRequest(holder)
    const iat = Math.floor(Date.now() / 1000)
    const jwt = signPresentation(holder.client, {
      aud: this.verifier.did,
      nonce: request.nonce,
      credentials: [credential.jwt],
      iat,
      exp: iat + 7200,
    })
    const body = await this.ok('POST', `/api/wallet/presentation-requests/${request.id}/approve`, holder.token, {
      credential_ids: [credential.id],
      presentation_jwt: jwt,
    })
    this.answered.approved.push({ request: request.id, presentation: body.presentation.id })
    this.toVerify.push({ id: body.presentation.id, jwt })
  }

  async reject(): Promise<void> {
    const holder = this.holder()
    const request = await this.openRequest(holder)
    await this.ok('POST', `/api/wallet/presentation-requests/${request.id}/reject`, holder.token, { reason: 'not now' })
    this.answered.rejected.push(request.id)
  }

  async verify(presentation: { id: string; jwt: string }): Promise<void> {
    const body = await this.ok('POST', `/api/verifier/presentations/${presentation.id}/verify`, this.verifier.token, {
      presentation_jwt: presentation.jwt,
    })
    this.answered.verified.push({ presentation: presentation.id, status: body.status })
  }

  private static readonly CYCLE = [
    'issue',
    'grant',
    'approve',
    'revoke',
    'issue',
    'consent-revoke',
    'verify',
    'reject',
    'grant',
    'issue',
  ] as const

  /** The next operation of the load; a kind whose pool ran dry issues instead. */
  nextOp(i: number): () => Promise<void> {
    const kind = World.CYCLE[i % World.CYCLE.length]!
    if (kind === 'revoke' && this.toRevoke.length) {
      const id = this.toRevoke.shift()!
      return () => this.revoke(id)
    }
    if (kind === 'consent-revoke' && this.consentsToRevoke.length) {
      const consent = this.consentsToRevoke.shift()!
      return () => this.revokeConsent(consent)
    }
    if (kind === 'verify' && this.toVerify.length) {
      const presentation = this.toVerify.shift()!
      return () => this.verify(presentation)
    }
    if (kind === 'grant') return async () => void (await this.grant())
    if (kind === 'approve') return () => this.approve()
    if (kind === 'reject') return () => this.reject()
    return async () => void (await this.issue())
  }
}
