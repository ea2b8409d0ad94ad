import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { createDiscloseCryptosuite } from '@digitalbazaar/bbs-2023-cryptosuite'
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context'
import { DataIntegrityProof } from '@digitalbazaar/data-integrity'
import { contexts as dataIntegrityContexts } from '@digitalbazaar/data-integrity-context'
import { contexts as multikeyContexts } from '@digitalbazaar/multikey-context'
import * as vc from '@digitalbazaar/vc'
import type { CpuUse } from './cpu.js'
import { closedLoop, type PhaseResult } from './closed-loop.js'
import { cpuPerOperation, measured, noise } from './engine-run.js'
import { expectStatus, JsonClient, type HttpResponse } from './http-client.js'
import { loginOnce } from './login-load.js'
import type { BenchOptions, Engine } from './options.js'
import { projectRoot, type ServerProcess } from './server-process.js'
import { median, round } from './stats.js'
import { createVirtualUser } from './virtual-user.js'

/**
 * The W3C VC API's document-securing formats (src/modules/vc-api/), vc+jwt first: the JOSE
 * reference every other format is compared with, in the same rounds.
 */
export const VC_API_FORMATS = ['vc+jwt', 'eddsa-rdfc-2022', 'eddsa-jcs-2022', 'bbs-2023'] as const
export type VcApiFormat = (typeof VC_API_FORMATS)[number]
const REFERENCE: VcApiFormat = 'vc+jwt'

/** The issuer's signing DID that secures each format (GET /api/issuer/:did/signing `key_type`). */
const KEY_TYPE: Record<VcApiFormat, string> = {
  'vc+jwt': 'Ed25519',
  'eddsa-rdfc-2022': 'Ed25519',
  'eddsa-jcs-2022': 'Ed25519',
  'bbs-2023': 'BBS-BLS12-381-SHA-256',
}

/** Credentials per format the verify phases cycle through, issued (and for bbs-2023 derived) in set-up. */
export const VERIFY_SET = 12
/** What a bbs-2023 verifier is shown: a derived proof disclosing this claim (and the mandatory `/issuer`). */
const DISCLOSED = ['/credentialSubject/name']

const VC_V2 = 'https://www.w3.org/ns/credentials/v2'
const EXAMPLES_V2 = 'https://www.w3.org/ns/credentials/examples/v2'

type Op = 'issue' | 'verify'

type MeasuredPhase = PhaseResult & { cpu: CpuUse }

/** One operation of one format: medians over rounds, and its cost against vc+jwt's in the same rounds. */
export interface VcApiPhaseSummary {
  connections: number
  perSecond: number
  p50Ms: number
  p99Ms: number
  /** Over every round. */
  errors: number
  errorKinds: Record<string, number>
  /** The server process's CPU (all threads) per operation, ms; `mainThread` its event loop alone. */
  serverCpuMsPerOp: number | null
  mainThreadCpuMsPerOp: number | null
  /** PostgreSQL's CPU per operation (PostgreSQL engine only). */
  postgresCpuMsPerOp: number | null
  /** vc+jwt's ops/s over this format's, per round, median: 3 means a third of the throughput. */
  costVsJwt: number
  /** Server CPU per op over vc+jwt's, per round, median. */
  cpuVsJwt: number | null
  /** Busy cores outside the benchmark's parties (other tenants, steal), median over rounds: high means a noisy run. */
  otherLoadCores: number | null
}

export interface VcApiSummary {
  format: VcApiFormat
  issue: VcApiPhaseSummary
  verify: VcApiPhaseSummary
}

interface VcApiIssuer {
  did: string
  /** `Authorization: Bearer <access token>` of the issuer's VC API client. */
  headers: Record<string, string>
  /** Path of each format's issue endpoint (client.endpoints.issue, made relative to the server). */
  issuePaths: Record<VcApiFormat, string>
  verifyPath: string
  signingDids: Record<VcApiFormat, string>
}

/**
 * The VC API's set-up, all over HTTP: a did:key issuer logs in, creates its profile signing with
 * did:keys, creates a VC API client and exchanges it for a bearer token (client credentials,
 * HTTP Basic, form body: RFC 6749 §4.4).
 */
export async function setUpVcApiIssuer(client: JsonClient): Promise<VcApiIssuer> {
  const user = createVirtualUser()
  const session = { authorization: `Bearer ${await loginOnce(client, user)}` }
  const did = encodeURIComponent(user.did)
  expectStatus(
    await client.post('/api/issuer', { name: 'Bench VC API issuer', signing_did_method: 'key' }, session),
    201,
    'POST /api/issuer',
  )
  const signing = expectStatus(
    await client.get(`/api/issuer/${did}/signing`, session),
    200,
    'GET /api/issuer/:did/signing',
  )
  const didOf = (keyType: string): string => {
    const found = (signing.signing_dids as Array<{ did: string; key_type: string | null }>).find(
      (d) => d.key_type === keyType,
    )?.did
    if (!found) throw new Error(`the issuer has no ${keyType} signing DID: ${JSON.stringify(signing.signing_dids)}`)
    return found
  }
  const created = expectStatus(
    await client.post(`/api/issuer/${did}/vc-api/clients`, { name: 'bench' }, session),
    201,
    'POST /api/issuer/:did/vc-api/clients',
  )
  const {
    client_id: clientId,
    client_secret: secret,
    endpoints,
  } = created.client as {
    client_id: string
    client_secret: string
    endpoints: { issue: Record<string, string>; verify: string }
  }
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')
  const token = expectStatus(
    await client.postForm('/oauth2/token', { grant_type: 'client_credentials' }, { authorization: `Basic ${basic}` }),
    200,
    'POST /oauth2/token',
  )
  // The endpoints carry the server's PUBLIC_BASE_URL; the bench calls the paths on its own base URL.
  const pathOf = (url: string | undefined, what: string) => {
    if (!url) throw new Error(`the client's endpoints have no ${what}: ${JSON.stringify(endpoints)}`)
    return new URL(url).pathname
  }
  return {
    did: user.did,
    headers: { authorization: `Bearer ${token.access_token as string}` },
    issuePaths: Object.fromEntries(
      VC_API_FORMATS.map((f) => [f, pathOf(endpoints.issue[f], `issue endpoint for ${f}`)]),
    ) as Record<VcApiFormat, string>,
    verifyPath: pathOf(endpoints.verify, 'verify endpoint'),
    signingDids: Object.fromEntries(VC_API_FORMATS.map((f) => [f, didOf(KEY_TYPE[f])])) as Record<VcApiFormat, string>,
  }
}

/** A caller-built VCDM 2.0 credential, different every time (nothing can be cached per body). */
export function benchCredential(issuer: string, n: number): Record<string, unknown> {
  return {
    '@context': [VC_V2, EXAMPLES_V2],
    id: `urn:uuid:${randomUUID()}`,
    type: ['VerifiableCredential', 'ExampleCredential'],
    issuer,
    credentialSubject: {
      id: `did:example:holder${n}`,
      name: `Holder ${n}`,
      degree: { type: 'ExampleBachelorDegree', name: 'Mathematics' },
      gpa: (200 + (n % 200)) / 100,
      graduated: n % 2 === 0,
    },
  }
}

/** What a 201 of each format must contain: the proof's cryptosuite, or vc+jwt's envelope. */
const ISSUED_MARK: Record<VcApiFormat, string> = {
  'vc+jwt': '"EnvelopedVerifiableCredential"',
  'eddsa-rdfc-2022': '"eddsa-rdfc-2022"',
  'eddsa-jcs-2022': '"eddsa-jcs-2022"',
  'bbs-2023': '"bbs-2023"',
}

async function issueOnce(
  client: JsonClient,
  issuer: VcApiIssuer,
  format: VcApiFormat,
  n: number,
): Promise<HttpResponse> {
  return client.post(
    issuer.issuePaths[format],
    { credential: benchCredential(issuer.signingDids[format], n) },
    issuer.headers,
  )
}

/** The W3C contexts from their npm packages (and the examples context, in none, from the service's copy of the W3C file). */
function contextLoader(): (url: string) => Promise<{ contextUrl: null; documentUrl: string; document: unknown }> {
  const examples = JSON.parse(
    readFileSync(
      path.join(projectRoot, 'src/modules/credentials/formats/shared/contexts/credentials-examples-v2.json'),
      'utf8',
    ),
  ) as unknown
  return async (url) => {
    const document =
      credentialsContexts.get(url) ??
      dataIntegrityContexts.get(url) ??
      multikeyContexts.get(url) ??
      (url === EXAMPLES_V2 ? examples : undefined)
    if (document === undefined) throw new Error(`bench document loader: ${url} is not a bundled context`)
    return { contextUrl: null, documentUrl: url, document }
  }
}

/**
 * What a holder shows a verifier of a bbs-2023 credential: a derived proof disclosing the
 * subject's name, made here with the reference libraries as any holder's wallet would.
 */
async function deriveForVerifier(
  base: Record<string, unknown>,
  documentLoader: ReturnType<typeof contextLoader>,
): Promise<Record<string, unknown>> {
  const suite = new DataIntegrityProof({ cryptosuite: createDiscloseCryptosuite({ selectivePointers: DISCLOSED }) })
  return vc.derive({ verifiableCredential: base, suite, documentLoader })
}

/** Per format, the credentials a verifier is sent: as issued, but for bbs-2023 a derived proof. */
async function setUpVerifySets(
  client: JsonClient,
  issuer: VcApiIssuer,
  log: (line: string) => void,
): Promise<Map<VcApiFormat, unknown[]>> {
  const sets = new Map<VcApiFormat, unknown[]>()
  const documentLoader = contextLoader()
  for (const format of VC_API_FORMATS) {
    const issued = await Promise.all(
      Array.from({ length: VERIFY_SET }, async (_, i) =>
        expectStatus(await issueOnce(client, issuer, format, 1_000_000 + i), 201, `issue ${format} (set-up)`),
      ),
    )
    if (format !== 'bbs-2023') {
      sets.set(format, issued)
      continue
    }
    const began = performance.now()
    const derived: unknown[] = []
    for (const base of issued) derived.push(await deriveForVerifier(base, documentLoader))
    log(
      `  bbs-2023: ${VERIFY_SET} derived proofs (disclosing ${DISCLOSED.join(', ')}) made in this process, ${((performance.now() - began) / VERIFY_SET).toFixed(0)} ms each`,
    )
    sets.set(format, derived)
  }
  // Every credential of the set must verify before anything is measured.
  for (const [format, set] of sets) {
    for (const credential of set)
      expectStatus(
        await client.post(issuer.verifyPath, { verifiableCredential: credential }, issuer.headers),
        200,
        `verify ${format} (set-up)`,
      )
  }
  return sets
}

function issueLoad(
  client: JsonClient,
  issuer: VcApiIssuer,
  format: VcApiFormat,
  connections: number,
  seconds: number,
): Promise<PhaseResult> {
  return closedLoop(connections, seconds, async (n) => {
    const res = await issueOnce(client, issuer, format, n)
    if (res.status !== 201) return `issue ${res.status}`
    return res.body.includes(ISSUED_MARK[format]) ? undefined : "issue 201 without the format's proof"
  })
}

function verifyLoad(
  client: JsonClient,
  issuer: VcApiIssuer,
  set: unknown[],
  connections: number,
  seconds: number,
): Promise<PhaseResult> {
  return closedLoop(connections, seconds, async (n) => {
    const res = await client.post(issuer.verifyPath, { verifiableCredential: set[n % set.length] }, issuer.headers)
    if (res.status !== 200) return `verify ${res.status}`
    return res.body.includes('"verified":true') ? undefined : 'verify 200 without verified: true'
  })
}

const msPerOp = (cores: number | undefined, perSecond: number) =>
  cores === undefined || perSecond <= 0 ? undefined : (cores * 1000) / perSecond

/**
 * The W3C VC API over HTTP on one server: each format issued (POST <issue endpoint>) and verified
 * (POST /vc-api/credentials/verify), formats interleaved inside every round so the machine's drift
 * hits them alike; medians over rounds, and each format's cost against vc+jwt's in the same round.
 * bbs-2023 runs with fewer connections (options.vcApiBbsConnections): its operations take hundreds
 * of milliseconds on the worker pool, so a few in flight per worker keep the pool busy, and more
 * only lengthen the queue.
 */
export async function runVcApiAgainstServer(
  server: ServerProcess,
  engine: Engine,
  options: BenchOptions,
  log: (line: string) => void,
): Promise<VcApiSummary[]> {
  const ownPostgres = engine === 'postgres'
  const connectionsOf = (format: VcApiFormat, op: Op) =>
    format === 'bbs-2023'
      ? options.vcApiBbsConnections
      : op === 'issue'
        ? options.issuanceConnections
        : options.connections
  // bbs-2023 waits in the pool's queue: give its requests the room their queue needs.
  const client = new JsonClient(
    server.baseUrl,
    Math.max(options.issuanceConnections, options.connections, options.vcApiBbsConnections),
    30_000,
  )
  try {
    const issuer = await setUpVcApiIssuer(client)
    log(
      `  issuer ${issuer.did.slice(0, 32)}…: VC API client and token ready; signing DIDs ${[...new Set(Object.values(issuer.signingDids))].map((d) => `${d.slice(0, 20)}…`).join(', ')}`,
    )
    const sets = await setUpVerifySets(client, issuer, log)
    if (options.warmupSeconds > 0) {
      log(`  warm-up ${options.warmupSeconds} s issue + ${options.warmupSeconds} s verify per format`)
      for (const format of VC_API_FORMATS) {
        await issueLoad(client, issuer, format, connectionsOf(format, 'issue'), options.warmupSeconds)
        await verifyLoad(client, issuer, sets.get(format)!, connectionsOf(format, 'verify'), options.warmupSeconds)
      }
    }
    const rounds = new Map<string, MeasuredPhase[]>()
    const key = (format: VcApiFormat, op: Op) => `${format} ${op}`
    for (let i = 1; i <= options.rounds; i++) {
      for (const format of VC_API_FORMATS) {
        const issue = await measured(server.pid, ownPostgres, () =>
          issueLoad(client, issuer, format, connectionsOf(format, 'issue'), options.seconds),
        )
        const verify = await measured(server.pid, ownPostgres, () =>
          verifyLoad(client, issuer, sets.get(format)!, connectionsOf(format, 'verify'), options.seconds),
        )
        rounds.set(key(format, 'issue'), [...(rounds.get(key(format, 'issue')) ?? []), issue])
        rounds.set(key(format, 'verify'), [...(rounds.get(key(format, 'verify')) ?? []), verify])
        const errs = (r: PhaseResult) => (r.errors ? ` errors ${r.errors} ${JSON.stringify(r.errorKinds)}` : '')
        const line = (r: MeasuredPhase) =>
          `${r.perSecond.toFixed(1)}/s (p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms${errs(r)}${noise(r.cpu)}${cpuPerOperation(r.cpu, r.perSecond)})`
        log(`  round ${i}: ${format} issue ${line(issue)}`)
        log(`  round ${i}: ${format} verify ${line(verify)}`)
      }
    }
    const summarize = (format: VcApiFormat, op: Op): VcApiPhaseSummary => {
      const mine = rounds.get(key(format, op))!
      const reference = rounds.get(key(REFERENCE, op))!
      const mid = [...mine].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(mine.length / 2)]!
      const cpu = (r: MeasuredPhase) => msPerOp(r.cpu.serverCores, r.perSecond)
      const defined = (values: Array<number | undefined>) =>
        values.filter((v): v is number => v !== undefined && Number.isFinite(v))
      const orNull = (values: number[], digits: number) => (values.length ? round(median(values), digits) : null)
      const errorKinds: Record<string, number> = {}
      for (const r of mine)
        for (const [kind, n] of Object.entries(r.errorKinds)) errorKinds[kind] = (errorKinds[kind] ?? 0) + n
      return {
        connections: connectionsOf(format, op),
        perSecond: round(median(mine.map((r) => r.perSecond)), 1),
        p50Ms: round(mid.p50Ms, 1),
        p99Ms: round(mid.p99Ms, 1),
        errors: mine.reduce((sum, r) => sum + r.errors, 0),
        errorKinds,
        serverCpuMsPerOp: orNull(defined(mine.map(cpu)), 2),
        mainThreadCpuMsPerOp: orNull(defined(mine.map((r) => msPerOp(r.cpu.serverMainThreadCores, r.perSecond))), 2),
        postgresCpuMsPerOp: orNull(defined(mine.map((r) => msPerOp(r.cpu.postgresCores, r.perSecond))), 2),
        costVsJwt: round(median(mine.map((r, i) => reference[i]!.perSecond / r.perSecond)), 2),
        cpuVsJwt: orNull(
          defined(
            mine.map((r, i) => {
              const a = cpu(r)
              const b = cpu(reference[i]!)
              return a === undefined || b === undefined ? undefined : a / b
            }),
          ),
          2,
        ),
        otherLoadCores: orNull(defined(mine.map((r) => r.cpu.otherCores)), 2),
      }
    }
    return VC_API_FORMATS.map((format) => ({
      format,
      issue: summarize(format, 'issue'),
      verify: summarize(format, 'verify'),
    }))
  } finally {
    client.close()
  }
}

const thousands = (v: number) => (v >= 1000 ? Math.round(v).toLocaleString('en-US') : String(v))

export function vcApiMarkdown(engine: Engine, rows: VcApiSummary[]): string {
  const name = engine === 'pglite' ? 'PGlite' : 'PostgreSQL'
  const lines = [
    `| ${name} | op | conns | ops/s | p50 ms | p99 ms | errors | server CPU ms/op | cost vs vc+jwt | CPU vs vc+jwt |`,
    '|---|---|---|---|---|---|---|---|---|---|',
  ]
  for (const r of rows) {
    for (const op of ['issue', 'verify'] as const) {
      const p = r[op]
      lines.push(
        `| ${r.format} | ${op} | ${p.connections} | ${thousands(p.perSecond)} | ${p.p50Ms} | ${p.p99Ms} | ${p.errors} | ${p.serverCpuMsPerOp ?? '?'} | ${p.costVsJwt}x | ${p.cpuVsJwt === null ? '?' : `${p.cpuVsJwt}x`} |`,
      )
    }
  }
  return lines.join('\n')
}
