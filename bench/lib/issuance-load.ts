import type { JsonClient } from './http-client.js'
import { loginOnce } from './login-load.js'
import { percentile } from './stats.js'
import { createVirtualUser } from './virtual-user.js'

/** The two kinds of issuance measured: JWT-VC + BBS (the default) and JWT-VC only (schema opted out). */
export type IssuancePhase = 'bbs' | 'jwt'
export const ISSUANCE_PHASES: readonly IssuancePhase[] = ['bbs', 'jwt']

/**
 * Six attributes of the common scalar kinds. With the credential's nine fixed messages (id,
 * type, issuer, subject, schema, issue and expiry times, status entry, layout digest: message
 * layout v2) a BBS signature covers 15 messages.
 */
export const BENCH_ATTRIBUTES = [
  { name: 'given_name', data_type: 'string', required: true },
  { name: 'family_name', data_type: 'string', required: true },
  { name: 'birth_date', data_type: 'date', required: true },
  { name: 'gpa', data_type: 'number' },
  { name: 'graduated', data_type: 'boolean' },
  { name: 'email', data_type: 'email' },
] as const

export const BENCH_CREDENTIAL_TYPE = 'BenchDegree'
/** Subjects the load cycles through; each gets its ML-KEM key on its first credential (warm-up). */
export const HOLDER_COUNT = 50

export interface BenchIssuer {
  did: string
  headers: Record<string, string>
  schemaIds: Record<IssuancePhase, string>
}

/** Different values for every credential, as in real use: nothing can be cached per body. */
export function benchAttributes(n: number): Record<string, unknown> {
  return {
    given_name: `Holder${n}`,
    family_name: 'Benchmark',
    birth_date: `19${50 + (n % 50)}-${String(1 + (n % 12)).padStart(2, '0')}-${String(1 + (n % 28)).padStart(2, '0')}`,
    // Two decimals exactly (228 / 100 is the double printed 2.28; 2 + 0.28 would be 2.2800000000000002).
    gpa: (200 + (n % 200)) / 100,
    graduated: n % 2 === 0,
    email: `holder${n}@example.org`,
  }
}

/** One issuer (login, profile) with one BBS schema and one JWT-only schema. */
export async function setUpIssuer(client: JsonClient): Promise<BenchIssuer> {
  const user = createVirtualUser()
  const headers = { authorization: `Bearer ${await loginOnce(client, user)}` }
  const profile = await client.post('/api/issuer', { name: 'Bench University' }, headers)
  if (profile.status !== 201) throw new Error(`POST /api/issuer: ${profile.status} ${profile.body.slice(0, 500)}`)
  const schema = async (phase: IssuancePhase) => {
    const body = {
      name: `Bench degree (${phase})`,
      version: '1.0',
      attributes: BENCH_ATTRIBUTES,
      anonymous_credentials: phase === 'bbs',
    }
    const res = await client.post(`/api/issuer/${user.did}/schemas`, body, headers)
    if (res.status !== 201)
      throw new Error(`POST /api/issuer/:did/schemas (${phase}): ${res.status} ${res.body.slice(0, 500)}`)
    return (JSON.parse(res.body) as { schema: { id: string } }).schema.id
  }
  return { did: user.did, headers, schemaIds: { bbs: await schema('bbs'), jwt: await schema('jwt') } }
}

/** An issuance that did not end in 201 with the expected record; `kind` says what was wrong. */
class IssueError extends Error {
  constructor(readonly kind: string) {
    super(kind)
  }
}

interface IssueAnswer {
  code?: string
  credential?: { jwt?: unknown; ipfs_hash?: unknown; credential?: { bbs_signature?: unknown } }
}

export async function issueOnce(
  client: JsonClient,
  issuer: BenchIssuer,
  phase: IssuancePhase,
  subjectDid: string,
  n: number,
): Promise<void> {
  const body = {
    credential_type: BENCH_CREDENTIAL_TYPE,
    schema_id: issuer.schemaIds[phase],
    subject_did: subjectDid,
    attributes: benchAttributes(n),
  }
  const res = await client.post(`/api/issuer/${issuer.did}/issue`, body, issuer.headers)
  let answer: IssueAnswer
  try {
    answer = JSON.parse(res.body) as IssueAnswer
  } catch {
    throw new IssueError(`issue ${res.status} (not JSON)`)
  }
  if (res.status !== 201) throw new IssueError(`issue ${res.status}${answer.code ? ` ${answer.code}` : ''}`)
  const credential = answer.credential
  if (typeof credential?.jwt !== 'string' || credential.jwt.split('.').length !== 3)
    throw new IssueError('201 without credential.jwt')
  if (typeof credential.ipfs_hash !== 'string' || !credential.ipfs_hash)
    throw new IssueError('201 without credential.ipfs_hash')
  const bbs = credential.credential?.bbs_signature
  if (phase === 'bbs' && (typeof bbs !== 'string' || !bbs))
    throw new IssueError('201 without bbs_signature (BBS schema)')
  if (phase === 'jwt' && bbs !== null) throw new IssueError('201 with a bbs_signature (JWT-only schema)')
}

/**
 * The subjects' first credentials, one per holder in parallel: this is where the service makes
 * each holder's ML-KEM pair, a one-off cost that the measured phases must not include.
 */
export async function enrollHolders(client: JsonClient, issuer: BenchIssuer, holders: string[]): Promise<void> {
  try {
    await Promise.all(holders.map((did, i) => issueOnce(client, issuer, 'jwt', did, i)))
  } catch (error) {
    throw new Error(
      `first credential of each holder (before measuring): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    )
  }
}

export interface IssuanceLoadResult {
  phase: IssuancePhase
  credentials: number
  seconds: number
  credentialsPerSecond: number
  errors: number
  errorKinds: Record<string, number>
  p50Ms: number
  p99Ms: number
}

/**
 * `connections` loops each keep one issuance in flight until the deadline, cycling through the
 * holders as subjects. Only issuances completed inside the window count.
 */
export async function runIssuanceLoad(
  client: JsonClient,
  issuer: BenchIssuer,
  phase: IssuancePhase,
  holders: string[],
  connections: number,
  seconds: number,
): Promise<IssuanceLoadResult> {
  const start = performance.now()
  const deadline = start + seconds * 1000
  const latencies: number[] = []
  const errorKinds: Record<string, number> = {}
  let next = 0
  const loop = async () => {
    while (performance.now() < deadline) {
      const n = next++
      const began = performance.now()
      try {
        await issueOnce(client, issuer, phase, holders[n % holders.length]!, n)
        const ended = performance.now()
        if (ended <= deadline) latencies.push(ended - began)
      } catch (error) {
        const kind =
          error instanceof IssueError ? error.kind : `network ${(error as NodeJS.ErrnoException).code ?? String(error)}`
        errorKinds[kind] = (errorKinds[kind] ?? 0) + 1
      }
    }
  }
  await Promise.all(Array.from({ length: connections }, loop))
  const sorted = Float64Array.from(latencies).sort()
  return {
    phase,
    credentials: latencies.length,
    seconds,
    credentialsPerSecond: latencies.length / seconds,
    errors: Object.values(errorKinds).reduce((a, b) => a + b, 0),
    errorKinds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
  }
}
