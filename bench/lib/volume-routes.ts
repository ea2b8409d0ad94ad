/**
 * The timed part of one volume level: every listing and statistics route, verification of a
 * presentation and revocation, each sequentially and with a few requests in flight, then
 * issuance under load. Every answer's status is checked; a wrong one fails the run (a fast
 * error would pass for a fast route).
 */
import { expectStatus, type HttpResponse, type JsonClient } from './http-client.js'
import { runIssuanceLoad } from './issuance-load.js'
import { percentile, round } from './stats.js'
import { issueToSubjects, logInAgain, type VolumeParties } from './volume-parties.js'

export interface Latency {
  p50: number
  p90: number
}

export interface RouteTiming {
  route: string
  sequential: Latency
  concurrent: Latency
}

export interface LevelTimings {
  routes: RouteTiming[]
  issuance: { perSecond: number; p50: number; p99: number; errors: number }
}

/** Requests per route before timing (connections, prepared statements, caches). */
const WARM_UP = 3

export async function timeLevel(
  client: JsonClient,
  parties: VolumeParties,
  options: {
    samples: number
    concurrency: number
    bigCursor: string | null
    issuanceConnections: number
    issuanceSeconds: number
  },
): Promise<LevelTimings> {
  const h = await logInAgain(client, parties)
  const issuerDid = parties.issuer.did
  const { big, small } = parties
  const presentations = parties.verification.presentations
  // Revocation needs a fresh credential per request: issued through the API now, to the issuance-phase holders.
  const revocable = options.samples * 2 + WARM_UP * 2
  const targets = await issueToSubjects(
    client,
    parties.issuer,
    'jwt',
    Array.from({ length: revocable }, (_, i) => parties.issuanceHolders[i % parties.issuanceHolders.length]!),
    1_000_000,
  )
  let nextTarget = 0
  const get = (path: string, headers: Record<string, string>) => () => client.get(path, headers)
  const routes: [string, (i: number) => Promise<HttpResponse>][] = [
    ['wallet listing, first page, small holder', get(`/api/wallet/${small.did}/credentials`, h.small)],
    ['wallet listing, first page, big holder', get(`/api/wallet/${big.did}/credentials`, h.big)],
    [
      'wallet listing, middle page by cursor, big holder',
      get(
        `/api/wallet/${big.did}/credentials${options.bigCursor ? `?cursor=${encodeURIComponent(options.bigCursor)}` : ''}`,
        h.big,
      ),
    ],
    ['issuer credentials, first page', get(`/api/issuer/${issuerDid}/credentials`, h.issuer)],
    ['issuer offers, first page', get(`/api/issuer/${issuerDid}/offers`, h.issuer)],
    ['issuer requests, first page', get(`/api/issuer/${issuerDid}/requests`, h.issuer)],
    ['wallet credential requests, first page', get(`/api/wallet/${small.did}/credential-requests`, h.small)],
    [
      'verifier presentations, first page',
      get(`/api/verifier/${parties.verification.verifier.did}/presentations`, h.verifier),
    ],
    ['wallet activity, first page, big holder', get(`/api/wallet/${big.did}/activities`, h.big)],
    ['issuer statistics', get(`/api/issuer/${issuerDid}/statistics`, h.issuer)],
    ['wallet statistics, big holder', get(`/api/wallet/${big.did}/statistics`, h.big)],
    [
      'verification of a presentation',
      (i) => {
        const p = presentations[i % presentations.length]!
        return client.post(`/api/verifier/presentations/${p.id}/verify`, { presentation_jwt: p.jwt }, h.verifier)
      },
    ],
    [
      'revocation',
      () => client.post(`/api/issuer/${issuerDid}/credentials/${targets[nextTarget++]!}/revoke`, {}, h.issuer),
    ],
  ]
  const timings: RouteTiming[] = []
  for (const [route, request] of routes) {
    const call = async (i: number) => {
      const began = performance.now()
      const res = await request(i)
      const ms = performance.now() - began
      expectStatus(res, 200, route)
      return ms
    }
    for (let i = 0; i < WARM_UP; i++) await call(i)
    const sequential: number[] = []
    for (let i = 0; i < options.samples; i++) sequential.push(await call(i))
    const concurrent: number[] = []
    let next = 0
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        for (let i = next++; i < options.samples; i = next++) concurrent.push(await call(i))
      }),
    )
    timings.push({ route, sequential: latency(sequential), concurrent: latency(concurrent) })
  }
  const load = await runIssuanceLoad(
    client,
    parties.issuer,
    'jwt',
    parties.issuanceHolders,
    options.issuanceConnections,
    options.issuanceSeconds,
  )
  return {
    routes: timings,
    issuance: {
      perSecond: round(load.credentialsPerSecond, 1),
      p50: round(load.p50Ms, 1),
      p99: round(load.p99Ms, 1),
      errors: load.errors,
    },
  }
}

function latency(ms: number[]): Latency {
  const sorted = Float64Array.from(ms).sort()
  return { p50: round(percentile(sorted, 50), 2), p90: round(percentile(sorted, 90), 2) }
}
