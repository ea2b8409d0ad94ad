import { generateKeyPairSync, createHash, randomBytes, sign, type KeyObject } from 'node:crypto'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { makeLocalTls } from '../../scripts/lib/local-ca.js'
import { closedLoop, type PhaseResult } from './closed-loop.js'
import { mainThreadProfile, printProfileSections, summarizeProfile } from './cpuprofile.js'
import type { CpuUse } from './cpu.js'
import { cpuPerOperation, measured, noise } from './engine-run.js'
import { expectStatus, JsonClient, type Json } from './http-client.js'
import { loginOnce } from './login-load.js'
import type { BenchOptions, Engine } from './options.js'
import { createBenchDatabase } from './postgres.js'
import { startServer, type ServerBuild } from './server-process.js'
import { median, round } from './stats.js'
import { createVirtualUser } from './virtual-user.js'

/**
 * The standard protocols over HTTPS (docs/openid4vc.md), as a wallet drives them:
 * - OpenID4VCI: one flow is token (pre-authorized code) + nonce + credential (a key proof
 *   signed by the wallet, ES256), issuing an SD-JWT VC; offers are made before each phase;
 * - OpenID4VP: one flow is the signed request object (request_uri) + direct_post of an SD-JWT VC
 *   with its KB-JWT + the verification whose verdict is the answer's status; requests are made
 *   before each phase.
 * Beside them, in the same rounds: the spec's own issue route for the same SD-JWT VC.
 * The server runs its own TLS (a throw-away local CA): OpenID4VC is served on https only.
 */

const PRE_AUTHORIZED = 'urn:ietf:params:oauth:grant-type:pre-authorized_code'
/** The smallest pool a phase gets, in flows per second of the phase. */
const POOL_FLOOR_PER_S = 400
/** A connection whose pool ran dry waits this long before it tries again (no busy loop on the shared cores). */
const DRY_WAIT_MS = 20
const dry = () => new Promise<string>((resolve) => setTimeout(() => resolve('pool exhausted'), DRY_WAIT_MS))
const SCHEMA = {
  name: 'Bench membership',
  version: '1',
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'member_no', data_type: 'string', required: true },
  ],
  anonymous_credentials: false,
}

export type Oid4vcPhase = 'oid4vci' | 'oid4vp' | 'spec-issue'

export interface Oid4vcPhaseSummary {
  phase: Oid4vcPhase
  connections: number
  perSecond: number
  p50Ms: number
  p99Ms: number
  errors: number
  errorKinds: Record<string, number>
  serverCpuMsPerOp: number | null
  otherLoadCores: number | null
  /** Requests per flow (the per-request rate is perSecond times this). */
  requestsPerFlow: number
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
/** ES256 JWS (RFC 7518 §3.4: the raw r||s signature). */
function es256(header: Json, payload: Json, key: KeyObject): string {
  const input = `${b64(header)}.${b64(payload)}`
  return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`
}

interface WalletKey {
  privateKey: KeyObject
  jwk: Json
}
function walletKey(): WalletKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  return { privateKey, jwk: publicKey.export({ format: 'jwk' }) as Json }
}

interface Issuer {
  did: string
  session: Record<string, string>
  schemaId: string
  credentialIssuer: string
  paths: { token: string; nonce: string; credential: string }
}

async function setUpIssuer(client: JsonClient): Promise<Issuer> {
  const user = createVirtualUser()
  const session = { authorization: `Bearer ${await loginOnce(client, user)}` }
  const did = encodeURIComponent(user.did)
  expectStatus(await client.post('/api/issuer', { name: 'Bench OpenID4VCI issuer' }, session), 201, 'POST /api/issuer')
  const schemaId = expectStatus(await client.post(`/api/issuer/${did}/schemas`, SCHEMA, session), 201, 'POST schemas')
    .schema.id as string
  // One offer shows where the issuer's endpoints are (its metadata, as a wallet reads them).
  const first = expectStatus(
    await client.post(`/api/issuer/${did}/offers`, offerBody(schemaId), session),
    201,
    'POST offers',
  )
  const credentialIssuer = first.credential_offer.credential_issuer as string
  const pathOf = (url: string) => new URL(url).pathname
  const issuerPath = pathOf(credentialIssuer)
  const metadata = expectStatus(
    await client.get(`/.well-known/openid-credential-issuer${issuerPath}`),
    200,
    'issuer metadata',
  )
  const as = expectStatus(
    await client.get(`/.well-known/oauth-authorization-server${issuerPath}`),
    200,
    'authorization server metadata',
  )
  return {
    did: user.did,
    session,
    schemaId,
    credentialIssuer,
    paths: {
      token: pathOf(as.token_endpoint),
      nonce: pathOf(metadata.nonce_endpoint),
      credential: pathOf(metadata.credential_endpoint),
    },
  }
}

function offerBody(schemaId: string): Json {
  return {
    credential_type: 'BenchMembership',
    schema_id: schemaId,
    attributes: { given_name: 'Ada', member_no: randomBytes(4).toString('hex') },
    format: 'dc+sd-jwt',
  }
}

/** Offers made ahead of a phase: each holds one single-use pre-authorized code. */
async function makeOffers(
  client: JsonClient,
  issuer: Issuer,
  count: number,
  parallel: number,
): Promise<Array<{ code: string; configurationId: string }>> {
  const out: Array<{ code: string; configurationId: string }> = []
  let next = 0
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        next++
        const offer = expectStatus(
          await client.post(
            `/api/issuer/${encodeURIComponent(issuer.did)}/offers`,
            offerBody(issuer.schemaId),
            issuer.session,
          ),
          201,
          'POST offers',
        ).credential_offer as Json
        out.push({
          code: offer.grants[PRE_AUTHORIZED]['pre-authorized_code'] as string,
          configurationId: offer.credential_configuration_ids[0] as string,
        })
      }
    }),
  )
  return out
}

/** token + nonce + credential; undefined when the SD-JWT VC came back, else the error kind. */
async function vciFlow(
  client: JsonClient,
  issuer: Issuer,
  offer: { code: string; configurationId: string },
  key: WalletKey,
): Promise<string | Json> {
  const token = await client.postForm(issuer.paths.token, {
    grant_type: PRE_AUTHORIZED,
    'pre-authorized_code': offer.code,
  })
  if (token.status !== 200) return `token ${token.status}`
  const accessToken = (JSON.parse(token.body) as Json).access_token as string
  const nonce = await client.post(issuer.paths.nonce, {})
  if (nonce.status !== 200) return `nonce ${nonce.status}`
  const proof = es256(
    { alg: 'ES256', typ: 'openid4vci-proof+jwt', jwk: key.jwk },
    {
      aud: issuer.credentialIssuer,
      iat: Math.floor(Date.now() / 1000),
      nonce: (JSON.parse(nonce.body) as Json).c_nonce,
    },
    key.privateKey,
  )
  const credential = await client.post(
    issuer.paths.credential,
    { credential_configuration_id: offer.configurationId, proofs: { jwt: [proof] } },
    { authorization: `Bearer ${accessToken}` },
  )
  if (credential.status !== 200) return `credential ${credential.status}`
  return JSON.parse(credential.body) as Json
}

const hasher = (data: string | ArrayBuffer) =>
  new Uint8Array(
    createHash('sha256')
      .update(typeof data === 'string' ? data : Buffer.from(data))
      .digest(),
  )

interface Verifier {
  did: string
  session: Record<string, string>
}

/** Requests made ahead of a phase: the request_uri and response_uri paths a wallet reads from each. */
async function makeRequests(
  client: JsonClient,
  verifier: Verifier,
  count: number,
  parallel: number,
): Promise<Array<{ requestPath: string }>> {
  const out: Array<{ requestPath: string }> = []
  let next = 0
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) {
        next++
        const created = expectStatus(
          await client.post(
            '/api/verifier/requests',
            {
              verifier_did: verifier.did,
              presentation_type: 'MemberCheck',
              purpose: 'Bench',
              required_credentials: [{ credential_type: 'BenchMembership', required_attributes: ['given_name'] }],
            },
            verifier.session,
          ),
          201,
          'POST /api/verifier/requests',
        )
        const uri = new URL(created.authorization_request_uri as string)
        out.push({ requestPath: new URL(uri.searchParams.get('request_uri')!).pathname })
      }
    }),
  )
  return out
}

/** The request object + direct_post of an SD-JWT VC disclosing given_name with its KB-JWT. */
async function vpFlow(
  client: JsonClient,
  request: { requestPath: string },
  holder: { credential: string; key: WalletKey },
): Promise<string | undefined> {
  const object = await client.get(request.requestPath, { accept: 'application/oauth-authz-req+jwt' })
  if (object.status !== 200) return `request object ${object.status}`
  const payload = JSON.parse(Buffer.from(object.body.split('.')[1]!, 'base64url').toString()) as Json
  const queryId = payload.dcql_query.credentials[0].id as string
  const sdjwt = new SDJwtVcInstance({
    hasher,
    kbSignAlg: 'ES256',
    kbSigner: (data: string) =>
      sign('sha256', Buffer.from(data), { key: holder.key.privateKey, dsaEncoding: 'ieee-p1363' }).toString(
        'base64url',
      ),
  })
  const presentation = await sdjwt.present(holder.credential, { given_name: true } as never, {
    kb: {
      payload: { iat: Math.floor(Date.now() / 1000), aud: payload.client_id as string, nonce: payload.nonce as string },
    },
  })
  const answered = await client.postForm(new URL(payload.response_uri as string).pathname, {
    vp_token: JSON.stringify({ [queryId]: [presentation] }),
    ...(payload.state ? { state: payload.state as string } : {}),
  })
  return answered.status === 200 ? undefined : `direct_post ${answered.status} ${answered.body.slice(0, 120)}`
}

type Measured = PhaseResult & { cpu: CpuUse }

/**
 * One engine: a TLS server process of its own (fresh database), set-up over HTTP, then rounds
 * of the three phases, each phase's pool made just before it (pool made, then measured).
 */
export async function runOid4vcOnEngine(
  engine: Engine,
  options: BenchOptions,
  build: ServerBuild,
  log: (line: string) => void,
): Promise<Oid4vcPhaseSummary[]> {
  const tlsDir = await mkdtemp(path.join(os.tmpdir(), 'bench-tls-'))
  const tls = makeLocalTls(tlsDir)
  const ca = await readFile(tls.caFile, 'utf8')
  const database = engine === 'postgres' ? await createBenchDatabase(options.postgresUrl) : undefined
  // BENCH_OID4VC_PROFILE_DIR: the server runs under --cpu-prof; each phase's first round is summarised.
  const profileDir = process.env.BENCH_OID4VC_PROFILE_DIR
  const windows = new Map<Oid4vcPhase, [number, number]>()
  const nowUs = () => Number(process.hrtime.bigint() / 1000n)
  if (profileDir) await rm(path.resolve(profileDir, engine), { recursive: true, force: true })
  const server = await startServer({
    build,
    databaseUrl: database?.url,
    tls: { certFile: tls.certFile, keyFile: tls.keyFile, ca },
    ...(profileDir ? { nodeArgs: ['--cpu-prof', '--cpu-prof-dir', path.resolve(profileDir, engine)] } : {}),
  })
  const connections = options.issuanceConnections
  const client = new JsonClient(server.baseUrl, connections + 16, 30_000, ca)
  try {
    const issuer = await setUpIssuer(client)
    const verifierUser = createVirtualUser()
    const verifier = {
      did: verifierUser.did,
      session: { authorization: `Bearer ${await loginOnce(client, verifierUser)}` },
    }
    // Each connection is one wallet with its own key and one SD-JWT VC bound to it (received by OpenID4VCI).
    const wallets = await Promise.all(
      Array.from({ length: connections }, async () => {
        const key = walletKey()
        const [offer] = await makeOffers(client, issuer, 1, 1)
        const answer = await vciFlow(client, issuer, offer!, key)
        if (typeof answer === 'string') throw new Error(`set-up issuance: ${answer}`)
        return { key, credential: answer.credentials[0].credential as string }
      }),
    )
    const holderDid = `did:jwk:${b64(wallets[0]!.key.jwk)}`
    const flows: Record<
      Oid4vcPhase,
      { requests: number; make: (n: number) => Promise<(i: number) => Promise<string | undefined>> }
    > = {
      oid4vci: {
        requests: 3,
        make: async (n) => {
          const pool = await makeOffers(client, issuer, n, 32)
          return async (i) => {
            const offer = pool[i]
            if (!offer) return dry()
            const answer = await vciFlow(client, issuer, offer, wallets[i % connections]!.key)
            return typeof answer === 'string' ? answer : undefined
          }
        },
      },
      oid4vp: {
        requests: 2,
        make: async (n) => {
          const pool = await makeRequests(client, verifier, n, 32)
          return async (i) => {
            const request = pool[i]
            if (!request) return dry()
            return vpFlow(client, request, wallets[i % connections]!)
          }
        },
      },
      'spec-issue': {
        requests: 1,
        make: async () => async () => {
          const res = await client.post(
            `/api/issuer/${encodeURIComponent(issuer.did)}/issue`,
            {
              credential_type: 'BenchMembership',
              schema_id: issuer.schemaId,
              subject_did: holderDid,
              attributes: { given_name: 'Ada', member_no: '1' },
              format: 'dc+sd-jwt',
            },
            issuer.session,
          )
          return res.status === 201 ? undefined : `issue ${res.status}`
        },
      },
    }
    const results = new Map<Oid4vcPhase, Measured[]>()
    // The pools are sized from a short calibration: what one phase can use, with room to spare.
    const rate = new Map<Oid4vcPhase, number>()
    for (const phase of Object.keys(flows) as Oid4vcPhase[]) {
      const op = await flows[phase].make(2000)
      const warm = await closedLoop(connections, Math.min(2, options.seconds), op)
      rate.set(phase, Math.max(50, warm.perSecond))
      log(`  ${engine} ${phase}: warm-up ${round(warm.perSecond)} flows/s`)
    }
    for (let r = 0; r < options.rounds; r++) {
      for (const phase of Object.keys(flows) as Oid4vcPhase[]) {
        // At least POOL_FLOOR_PER_S flows a second: a warm-up slowed by JIT must not cap the phase.
        const op = await flows[phase].make(
          Math.ceil(Math.max(rate.get(phase)! * 1.6, POOL_FLOOR_PER_S) * options.seconds) + connections,
        )
        const began = nowUs()
        const result = await measured(server.pid, engine === 'postgres', () =>
          closedLoop(connections, options.seconds, op),
        )
        if (r === 0) windows.set(phase, [began, nowUs()])
        results.set(phase, [...(results.get(phase) ?? []), result])
        log(
          `  ${engine} round ${r + 1} ${phase}: ${round(result.perSecond)} flows/s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms${result.errors ? `, ${result.errors} errors ${JSON.stringify(result.errorKinds)}` : ''}; ${cpuPerOperation(result.cpu, result.perSecond)}${noise(result.cpu)}`,
        )
      }
    }
    return [...results].map(([phase, runs]) => summarize(phase, runs, connections, flows[phase].requests))
  } finally {
    client.close()
    await server.stop()
    if (profileDir) {
      const file = await mainThreadProfile(path.resolve(profileDir, engine))
      for (const [phase, [from, to]] of windows) {
        log(`\n  ${engine} ${phase}: main-thread profile of round 1`)
        printProfileSections(summarizeProfile(file, from, to))
      }
    }
    await database?.drop()
    await rm(tlsDir, { recursive: true, force: true })
  }
}

function summarize(
  phase: Oid4vcPhase,
  runs: Measured[],
  connections: number,
  requestsPerFlow: number,
): Oid4vcPhaseSummary {
  const errorKinds: Record<string, number> = {}
  for (const run of runs)
    for (const [kind, n] of Object.entries(run.errorKinds)) errorKinds[kind] = (errorKinds[kind] ?? 0) + n
  const cpu = runs
    .map((r) => (r.cpu.serverCores !== undefined && r.perSecond > 0 ? (r.cpu.serverCores * 1000) / r.perSecond : NaN))
    .filter(Number.isFinite)
  const other = runs.map((r) => r.cpu.otherCores).filter((v): v is number => v !== undefined)
  return {
    phase,
    connections,
    perSecond: round(median(runs.map((r) => r.perSecond))),
    p50Ms: round(median(runs.map((r) => r.p50Ms)), 1),
    p99Ms: round(median(runs.map((r) => r.p99Ms)), 1),
    errors: runs.reduce((a, r) => a + r.errors, 0),
    errorKinds,
    serverCpuMsPerOp: cpu.length ? round(median(cpu), 2) : null,
    otherLoadCores: other.length ? round(median(other), 2) : null,
    requestsPerFlow,
  }
}

const LABEL: Record<Oid4vcPhase, string> = {
  oid4vci: 'OpenID4VCI flow (token + nonce + credential), SD-JWT VC',
  oid4vp: 'OpenID4VP flow (request object + direct_post + verification), SD-JWT VC + KB-JWT',
  'spec-issue': "the spec's issue route, same SD-JWT VC",
}

export function oid4vcMarkdown(byEngine: Array<{ engine: Engine; rows: Oid4vcPhaseSummary[] }>): string {
  const lines = [
    '| engine | flow | flows/s | p50 ms | p99 ms | server CPU ms/flow | errors |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const { engine, rows } of byEngine) {
    for (const row of rows)
      lines.push(
        `| ${engine} | ${LABEL[row.phase]} | ${row.perSecond} | ${row.p50Ms} | ${row.p99Ms} | ${row.serverCpuMsPerOp ?? 'n/a'} | ${row.errors} |`,
      )
  }
  return lines.join('\n')
}
