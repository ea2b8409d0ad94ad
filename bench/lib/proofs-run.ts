/**
 * BENCH_ONLY=proofs: anonymous-proof derivations/s and BBS-predicate presentation
 * verifications/s over HTTP, beside the raw library cost of one derive and one verify measured in
 * this process (no server running) on the same credential layout and predicate, and with two bounds.
 */
import {
  DISCLOSED_META,
  proofNonce,
  RANGE_PARAMS_LABEL,
  RANGE_PROOF_PROTOCOL,
} from '../../src/crypto/bbs/anonymous-proof-format.js'
import * as core from '../../src/crypto/bbs/bbs-core.js'
import {
  credentialMessages,
  encodeIntegerValue,
  ENCODED_RANGE,
  messageIndex,
  type AnonCredentialContent,
} from '../../src/crypto/bbs/bbs-messages.js'
import { coreCount, type CpuUse } from './cpu.js'
import { measured, noise } from './engine-run.js'
import { JsonClient } from './http-client.js'
import { loginOnce } from './login-load.js'
import type { BenchOptions, Engine } from './options.js'
import type { ServerProcess } from './server-process.js'
import { median, percentile, round } from './stats.js'
import { signPresentation } from './verification-load.js'
import { createVirtualUser, type VirtualUser } from './virtual-user.js'

/** Credentials (one per holder) and presentations the load cycles through. */
export const PROOF_HOLDERS = 8

/** Four attributes: with the nine meta slots, the 13-message credential of the targets. */
export const SCHEMA_ATTRIBUTES = [
  { name: 'given_name', data_type: 'string', required: true },
  { name: 'nationality', data_type: 'string', required: true },
  { name: 'age', data_type: 'number', required: true },
  { name: 'birth_date', data_type: 'date', required: true },
]
const CREDENTIAL_TYPE = 'BenchIdentity'
export const attributes = (n: number) => ({
  given_name: `Holder${n}`,
  nationality: 'GB',
  age: 20 + (n % 50),
  birth_date: `19${50 + (n % 40)}-0${1 + (n % 9)}-1${n % 10}`,
})
export const PREDICATE = { attribute: 'age', operator: '>=', value: 18 } as const

/** Medians of one derive and one verify of the same proof, and its size (the one composite proof). */
export interface ProofCost {
  iterations: number
  deriveMs: number
  verifyMs: number
  proofBytes: number
}

/**
 * The library's Bulletproofs++ on the predicate of the HTTP load (`age >= 18`), the same with a
 * date bound as well (two statements in one composite proof), and the disclosure alone (no bound),
 * all in this run: what each bound costs, on this hour's machine.
 */
export interface RawProofCost extends ProofCost {
  messages: number
  rangeProtocol: typeof RANGE_PROOF_PROTOCOL
  twoBounds: ProofCost
  noBounds: ProofCost
}

/** One derive and one verify (reveal 1 attribute + the disclosed meta slots), medians, on this thread. */
export async function measureRawProofs(iterations: number, log: (line: string) => void): Promise<RawProofCost> {
  await core.initBbs()
  const content: AnonCredentialContent = {
    meta: {
      id: 'aly:bench',
      type: CREDENTIAL_TYPE,
      issuer: 'did:example:issuer',
      subject: 'did:example:holder',
      schema_id: 's',
      issued_at: '2026-11-22T12:00:00.000Z',
      status: 'http://127.0.0.1/api/status-lists/l#1',
    },
    attributes: attributes(1),
    types: Object.fromEntries(SCHEMA_ATTRIBUTES.map((a) => [a.name, a.data_type])) as AnonCredentialContent['types'],
  }
  const label = 'bench/bbs-params'
  const pair = core.generateKeyPair(label)
  const messages = credentialMessages(content)
  const signature = core.sign(pair.secretKey, label, messages)
  const reveal = [...DISCLOSED_META.map((m) => messageIndex(content, m)), messageIndex(content, 'nationality')]
  const age = {
    index: messageIndex(content, 'age'),
    min: encodeIntegerValue('number', 18),
    maxExclusive: ENCODED_RANGE.number.maxExclusive,
  }
  const birthDate = {
    index: messageIndex(content, 'birth_date'),
    min: ENCODED_RANGE.date.min,
    maxExclusive: encodeIntegerValue('date', '2008-11-22') + 1,
  }
  const nonce = proofNonce('bench-nonce', 'did:example:verifier')
  const rangeParamsLabel = RANGE_PARAMS_LABEL
  const measure = (bounds: core.BoundPredicate[], runs: number): ProofCost => {
    const derive = () =>
      core.deriveProof({
        publicKey: pair.publicKey,
        paramsLabel: label,
        messages,
        signature,
        reveal,
        bounds,
        nonce,
        rangeParamsLabel,
      })
    const check = (proof: ReturnType<typeof derive>) =>
      core.verifyProof({ ...proof, publicKey: pair.publicKey, paramsLabel: label, nonce, rangeParamsLabel })
    // Warm-up: params and the Bulletproofs++ setup are cached, as each server worker keeps them.
    check(derive())
    const deriveTimes: number[] = []
    const verifyTimes: number[] = []
    let proofBytes = 0
    for (let i = 0; i < runs; i++) {
      let began = performance.now()
      const proof = derive()
      deriveTimes.push(performance.now() - began)
      began = performance.now()
      if (!check(proof)) throw new Error(`raw proof with ${bounds.length} bound(s) does not verify`)
      verifyTimes.push(performance.now() - began)
      proofBytes = proof.proof.length
    }
    return {
      iterations: runs,
      deriveMs: round(median(deriveTimes), 1),
      verifyMs: round(median(verifyTimes), 1),
      proofBytes,
    }
  }
  const one = measure([age], iterations)
  // Two bounds take about twice as long a round: fewer rounds, the same medians.
  const twoBounds = measure([age, birthDate], Math.min(iterations, 11))
  const noBounds = measure([], iterations)
  const cost: RawProofCost = {
    messages: messages.length,
    rangeProtocol: RANGE_PROOF_PROTOCOL,
    ...one,
    twoBounds,
    noBounds,
  }
  const line = (what: string, c: ProofCost) =>
    log(
      `  raw ${what}: derive ${c.deriveMs} ms, verify ${c.verifyMs} ms (medians of ${c.iterations}; proof ${c.proofBytes} B)`,
    )
  line(`${RANGE_PROOF_PROTOCOL}, age >= 18 (${messages.length} messages)`, one)
  line(`${RANGE_PROOF_PROTOCOL}, age >= 18 and birth_date <= 2008-11-22, one composite proof`, twoBounds)
  line('no bound (disclosure only)', noBounds)
  return cost
}

interface ProofSetUp {
  verifier: VirtualUser
  verifierHeaders: Record<string, string>
  holders: Array<{ user: VirtualUser; headers: Record<string, string>; credentialId: string }>
  presentations: Array<{ id: string; jwt: string }>
}

const expect = (what: string, res: { status: number; body: string }, status: number) => {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.body.slice(0, 300)}`)
  return JSON.parse(res.body) as Record<string, Record<string, unknown>>
}

const proofBody = (nonce: string, verifierDid: string) => ({
  reveal: ['nationality'],
  predicates: [PREDICATE],
  nonce,
  verifier_did: verifierDid,
})

/** Issuer, holders with one BBS credential each, and one verified-ready presentation per holder (a derived proof in a VP-JWT). */
async function setUp(client: JsonClient): Promise<ProofSetUp> {
  const issuer = createVirtualUser()
  const issuerHeaders = { authorization: `Bearer ${await loginOnce(client, issuer)}` }
  expect('issuer profile', await client.post('/api/issuer', { name: 'Bench Registry' }, issuerHeaders), 201)
  const schema = expect(
    'schema',
    await client.post(
      `/api/issuer/${issuer.did}/schemas`,
      { name: 'Bench identity', version: '1.0', attributes: SCHEMA_ATTRIBUTES },
      issuerHeaders,
    ),
    201,
  ).schema!.id as string
  const verifier = createVirtualUser()
  const verifierHeaders = { authorization: `Bearer ${await loginOnce(client, verifier)}` }
  const holders: ProofSetUp['holders'] = []
  const presentations: ProofSetUp['presentations'] = []
  for (let n = 0; n < PROOF_HOLDERS; n++) {
    const user = createVirtualUser()
    const headers = { authorization: `Bearer ${await loginOnce(client, user)}` }
    const issued = expect(
      'issue',
      await client.post(
        `/api/issuer/${issuer.did}/issue`,
        { credential_type: CREDENTIAL_TYPE, schema_id: schema, subject_did: user.did, attributes: attributes(n) },
        issuerHeaders,
      ),
      201,
    )
    const credentialId = issued.credential!.id as string
    holders.push({ user, headers, credentialId })
    const request = expect(
      'request',
      await client.post(
        '/api/verifier/requests',
        {
          verifier_did: verifier.did,
          presentation_type: 'BenchAgeCheck',
          purpose: 'Benchmark',
          required_credentials: [
            { credential_type: CREDENTIAL_TYPE, issuer_did: issuer.did, required_attributes: ['nationality'] },
          ],
          required_predicates: [PREDICATE],
        },
        verifierHeaders,
      ),
      201,
    ).request!
    const nonce = request.nonce as string
    expect('inbox', await client.post('/api/wallet/presentation-requests', { request_id: request.id }, headers), 201)
    const { proof } = expect(
      'derive',
      await client.post(
        `/api/wallet/${user.did}/credentials/${credentialId}/anonymous-proof`,
        proofBody(nonce, verifier.did),
        headers,
      ),
      200,
    )
    const jwt = signPresentation(user, verifier.did, nonce, [proof as never])
    const approved = expect(
      'approve',
      await client.post(
        `/api/wallet/presentation-requests/${request.id}/approve`,
        { credential_ids: [credentialId], presentation_jwt: jwt },
        headers,
      ),
      201,
    )
    presentations.push({ id: approved.presentation!.id as string, jwt })
  }
  return { verifier, verifierHeaders, holders, presentations }
}

interface LoadResult {
  perSecond: number
  p50Ms: number
  p99Ms: number
  errors: number
  errorKinds: Record<string, number>
}

/** `connections` loops, each with one request in flight, until the deadline; only complete, correct answers count. */
async function load(
  connections: number,
  seconds: number,
  once: (n: number) => Promise<string | undefined>,
): Promise<LoadResult> {
  const deadline = performance.now() + seconds * 1000
  const latencies: number[] = []
  const errorKinds: Record<string, number> = {}
  let next = 0
  const loop = async () => {
    while (performance.now() < deadline) {
      const began = performance.now()
      let kind: string | undefined
      try {
        kind = await once(next++)
      } catch (error) {
        kind = `network ${(error as NodeJS.ErrnoException).code ?? String(error)}`
      }
      if (kind) errorKinds[kind] = (errorKinds[kind] ?? 0) + 1
      else if (performance.now() <= deadline) latencies.push(performance.now() - began)
    }
  }
  await Promise.all(Array.from({ length: connections }, loop))
  const sorted = Float64Array.from(latencies).sort()
  return {
    perSecond: latencies.length / seconds,
    p50Ms: percentile(sorted, 50),
    p99Ms: percentile(sorted, 99),
    errors: Object.values(errorKinds).reduce((a, b) => a + b, 0),
    errorKinds,
  }
}

export interface ProofPartSummary {
  perSecond: number
  /** What the raw cost allows with every core busy: cores × 1000 / raw median ms. */
  ceilingPerSecond: number
  ratio: number
  p50Ms: number
  p99Ms: number
  errors: number
  errorKinds: Record<string, number>
  perRound: number[]
  cpu: CpuUse
}

export interface ProofsSummary {
  engine: Engine
  connections: number
  derive: ProofPartSummary
  verify: ProofPartSummary
}

export async function runProofsAgainstServer(
  server: ServerProcess,
  engine: Engine,
  options: BenchOptions,
  raw: RawProofCost,
  log: (line: string) => void,
): Promise<ProofsSummary> {
  const connections = options.proofConnections
  const client = new JsonClient(server.baseUrl, connections + 2, 60_000)
  try {
    log(`  setting up ${PROOF_HOLDERS} holders, credentials and presentations with derived proofs ...`)
    const s = await setUp(client)
    const deriveOnce = async (n: number) => {
      const holder = s.holders[n % s.holders.length]!
      const res = await client.post(
        `/api/wallet/${holder.user.did}/credentials/${holder.credentialId}/anonymous-proof`,
        proofBody(`bench-${n}`, s.verifier.did),
        holder.headers,
      )
      return res.status === 200 ? undefined : `derive ${res.status}`
    }
    const verifyOnce = async (n: number) => {
      const p = s.presentations[n % s.presentations.length]!
      const res = await client.post(
        `/api/verifier/presentations/${p.id}/verify`,
        { presentation_jwt: p.jwt },
        s.verifierHeaders,
      )
      if (res.status !== 200) return `verify ${res.status}`
      return (JSON.parse(res.body) as { verification_result?: { is_valid?: boolean } }).verification_result
        ?.is_valid === true
        ? undefined
        : 'is_valid false'
    }
    if (options.warmupSeconds > 0) {
      await load(connections, options.warmupSeconds, deriveOnce)
      await load(connections, options.warmupSeconds, verifyOnce)
    }
    const derives: Array<LoadResult & { cpu: CpuUse }> = []
    const verifies: Array<LoadResult & { cpu: CpuUse }> = []
    for (let i = 1; i <= options.rounds; i++) {
      const d = await measured(server.pid, engine === 'postgres', () => load(connections, options.seconds, deriveOnce))
      log(
        `  round ${i}: anonymous-proof derivations ${d.perSecond.toFixed(2)}/s, p50 ${d.p50Ms.toFixed(0)} ms (errors ${d.errors}${d.errors ? ` ${JSON.stringify(d.errorKinds)}` : ''}${noise(d.cpu)})`,
      )
      derives.push(d)
      const v = await measured(server.pid, engine === 'postgres', () => load(connections, options.seconds, verifyOnce))
      log(
        `  round ${i}: BBS-predicate presentation verifications ${v.perSecond.toFixed(2)}/s, p50 ${v.p50Ms.toFixed(0)} ms (errors ${v.errors}${v.errors ? ` ${JSON.stringify(v.errorKinds)}` : ''}${noise(v.cpu)})`,
      )
      verifies.push(v)
    }
    return {
      engine,
      connections,
      derive: summarizePart(derives, raw.deriveMs),
      verify: summarizePart(verifies, raw.verifyMs),
    }
  } finally {
    client.close()
  }
}

function summarizePart(rounds: Array<LoadResult & { cpu: CpuUse }>, rawMs: number): ProofPartSummary {
  const mid = [...rounds].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(rounds.length / 2)]!
  const ceilingPerSecond = (coreCount() * 1000) / rawMs
  return {
    perSecond: round(mid.perSecond, 2),
    ceilingPerSecond: round(ceilingPerSecond, 2),
    ratio: round(mid.perSecond / ceilingPerSecond, 3),
    p50Ms: round(mid.p50Ms, 1),
    p99Ms: round(mid.p99Ms, 1),
    errors: mid.errors,
    errorKinds: mid.errorKinds,
    perRound: rounds.map((r) => round(r.perSecond, 2)),
    cpu: mid.cpu,
  }
}

export function printProofs(raw: RawProofCost, s: ProofsSummary): void {
  console.log(
    `\n${s.engine} anonymous proofs (BBS + one ${raw.rangeProtocol} bound, age >= 18, ${raw.messages} messages; medians over rounds, ${s.connections} connections)`,
  )
  console.log(`  raw derive / verify, one bound  ${raw.deriveMs} ms / ${raw.verifyMs} ms; proof ${raw.proofBytes} B`)
  console.log(
    `  same, two bounds (one proof)    ${raw.twoBounds.deriveMs} ms / ${raw.twoBounds.verifyMs} ms; proof ${raw.twoBounds.proofBytes} B`,
  )
  console.log(
    `  no bound (disclosure only)      ${raw.noBounds.deriveMs} ms / ${raw.noBounds.verifyMs} ms; proof ${raw.noBounds.proofBytes} B`,
  )
  const line = (name: string, p: ProofPartSummary) =>
    console.log(
      `  ${name.padEnd(31)} ${p.perSecond}/s, ratio ${p.ratio} of the raw ceiling ${p.ceilingPerSecond}/s (${coreCount()} cores); p50 ${p.p50Ms} ms, p99 ${p.p99Ms} ms; errors ${p.errors}; per round ${p.perRound.join(', ')}`,
    )
  line('derivations over HTTP', s.derive)
  line('verifications over HTTP', s.verify)
}
