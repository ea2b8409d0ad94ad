import { sign } from 'node:crypto'
import type { JsonClient } from './http-client.js'
import { benchAttributes, BENCH_CREDENTIAL_TYPE, type BenchIssuer } from './issuance-load.js'
import { loginOnce } from './login-load.js'
import { percentile } from './stats.js'
import { createVirtualUser, type VirtualUser } from './virtual-user.js'

/** Presentations the load cycles through (each verified again and again: verification is repeatable). */
export const PRESENTATION_COUNT = 50

export interface BenchPresentation {
  id: string
  jwt: string
}

export interface VerificationSetUp {
  verifier: VirtualUser
  headers: Record<string, string>
  presentations: BenchPresentation[]
}

/** A VP-JWT as a holder's wallet signs it (DESIGN.md "Presentation"), independently of src/. */
export function signPresentation(holder: VirtualUser, aud: string, nonce: string, credentials: string[]): string {
  const now = Math.floor(Date.now() / 1000)
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
  const input = `${b64({ alg: 'EdDSA', typ: 'JWT', kid: `${holder.did}#${holder.did.slice('did:key:'.length)}` })}.${b64(
    {
      iss: holder.did,
      aud,
      nonce,
      iat: now,
      exp: now + 3600,
      vp: { type: ['VerifiablePresentation'], holder: holder.did, verifiableCredential: credentials },
    },
  )}`
  return `${input}.${sign(null, Buffer.from(input), holder.privateKey).toString('base64url')}`
}

/**
 * The whole holder flow, PRESENTATION_COUNT times, each by its own holder with one JWT-VC:
 * issue to the holder, the verifier's request (one required credential with one attribute, one
 * predicate on a disclosed number), inbox, approval. What is then measured is verification only.
 */
export async function setUpPresentations(
  client: JsonClient,
  issuer: BenchIssuer,
  // The format issued in, and what the holder's wallet makes of the credential for the request (as is, by default).
  holderSide: {
    format?: string
    present?: (credential: string, holder: VirtualUser, nonce: string, aud: string) => Promise<string>
  } = {},
): Promise<VerificationSetUp> {
  const verifier = createVirtualUser()
  const headers = { authorization: `Bearer ${await loginOnce(client, verifier)}` }
  const expect = (what: string, res: { status: number; body: string }, status: number) => {
    if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.body.slice(0, 300)}`)
    return JSON.parse(res.body) as Record<string, Record<string, string>>
  }
  const presentations = await Promise.all(
    Array.from({ length: PRESENTATION_COUNT }, async (_, n) => {
      const holder = createVirtualUser()
      const holderHeaders = { authorization: `Bearer ${await loginOnce(client, holder)}` }
      const body = {
        credential_type: BENCH_CREDENTIAL_TYPE,
        schema_id: issuer.schemaIds.jwt,
        subject_did: holder.did,
        attributes: benchAttributes(n),
        ...(holderSide.format ? { format: holderSide.format } : {}),
      }
      const issued = expect('issue', await client.post(`/api/issuer/${issuer.did}/issue`, body, issuer.headers), 201)
      const request = expect(
        'request',
        await client.post(
          '/api/verifier/requests',
          {
            verifier_did: verifier.did,
            presentation_type: 'BenchCheck',
            purpose: 'Benchmark',
            required_credentials: [
              { credential_type: BENCH_CREDENTIAL_TYPE, issuer_did: issuer.did, required_attributes: ['given_name'] },
            ],
            required_predicates: [{ attribute: 'gpa', operator: '>=', value: 1 }],
          },
          headers,
        ),
        201,
      ).request!
      expect(
        'inbox',
        await client.post('/api/wallet/presentation-requests', { request_id: request.id }, holderHeaders),
        201,
      )
      const credential = holderSide.present
        ? await holderSide.present(issued.credential!.jwt!, holder, request.nonce!, verifier.did)
        : issued.credential!.jwt!
      const jwt = signPresentation(holder, verifier.did, request.nonce!, [credential])
      const approved = expect(
        'approve',
        await client.post(
          `/api/wallet/presentation-requests/${request.id}/approve`,
          { credential_ids: [issued.credential!.id], presentation_jwt: jwt },
          holderHeaders,
        ),
        201,
      )
      return { id: approved.presentation!.id!, jwt }
    }),
  )
  return { verifier, headers, presentations }
}

export interface VerificationLoadResult {
  verifications: number
  seconds: number
  perSecond: number
  errors: number
  errorKinds: Record<string, number>
  p50Ms: number
  p99Ms: number
}

/** `connections` loops each keep one verification in flight, cycling through the presentations; each must answer is_valid true. */
export async function runVerificationLoad(
  client: JsonClient,
  setUp: VerificationSetUp,
  connections: number,
  seconds: number,
): Promise<VerificationLoadResult> {
  const deadline = performance.now() + seconds * 1000
  const latencies: number[] = []
  const errorKinds: Record<string, number> = {}
  let next = 0
  const loop = async () => {
    while (performance.now() < deadline) {
      const p = setUp.presentations[next++ % setUp.presentations.length]!
      const began = performance.now()
      try {
        const res = await client.post(
          `/api/verifier/presentations/${p.id}/verify`,
          { presentation_jwt: p.jwt },
          setUp.headers,
        )
        const kind =
          res.status !== 200
            ? `verify ${res.status}`
            : (JSON.parse(res.body) as { verification_result?: { is_valid?: boolean } }).verification_result
                  ?.is_valid !== true
              ? 'is_valid false'
              : undefined
        if (kind) {
          errorKinds[kind] = (errorKinds[kind] ?? 0) + 1
          continue
        }
        const ended = performance.now()
        if (ended <= deadline) latencies.push(ended - began)
      } catch (error) {
        const kind = `network ${(error as NodeJS.ErrnoException).code ?? String(error)}`
        errorKinds[kind] = (errorKinds[kind] ?? 0) + 1
      }
    }
  }
  await Promise.all(Array.from({ length: connections }, loop))
  const sorted = Float64Array.from(latencies).sort()
  return {
    verifications: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    errors: Object.values(errorKinds).reduce((a, b) => a + b, 0),
    errorKinds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
  }
}
