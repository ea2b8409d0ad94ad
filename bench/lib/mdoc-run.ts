import {
  createHash,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  sign,
  verify,
  X509Certificate,
  type KeyObject,
} from 'node:crypto'
import { DeviceResponse } from '@auth0/mdl'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import { Decoder, encode, Tag } from 'cbor-x'
import { verifyDeviceResponse } from '../../src/modules/credentials/formats/mdoc/mdoc-verify.js'
import { closedLoop, type PhaseResult } from './closed-loop.js'
import type { CpuUse } from './cpu.js'
import { cpuPerOperation, measured } from './engine-run.js'
import { JsonClient } from './http-client.js'
import { BENCH_ATTRIBUTES, BENCH_CREDENTIAL_TYPE, benchAttributes, setUpIssuer } from './issuance-load.js'
import type { BenchOptions, Engine } from './options.js'
import type { ServerProcess } from './server-process.js'
import { median, round } from './stats.js'

/** SD-JWT VC and mdoc: HAIP 1.0's two formats, measured side by side. */
const PAIR = ['dc+sd-jwt', 'mso_mdoc'] as const
type PairFormat = (typeof PAIR)[number]
const DOCTYPE = 'org.example.bench.degree.1'

export interface MdocSummary {
  format: PairFormat
  issuePerSecond: number
  issueP50Ms: number
  issueCpu: CpuUse
  /** Presentations verified per second on one core, in process (the service's own verification path). */
  verifyPerSecond: number
  verifyMedianMs: number
}

interface Holder {
  did: string
  privateKey: KeyObject
  jwk: Record<string, unknown>
}

function p256Holder(): Holder {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const jwk = publicKey.export({ format: 'jwk' }) as Record<string, unknown>
  return { did: `did:jwk:${Buffer.from(JSON.stringify(jwk)).toString('base64url')}`, privateKey, jwk }
}

function issueLoad(
  client: JsonClient,
  issuer: { did: string; headers: Record<string, string> },
  schemaId: string,
  format: PairFormat,
  holders: Holder[],
  connections: number,
  seconds: number,
): Promise<PhaseResult> {
  return closedLoop(connections, seconds, async (i) => {
    const res = await client.post(
      `/api/issuer/${issuer.did}/issue`,
      {
        credential_type: BENCH_CREDENTIAL_TYPE,
        schema_id: schemaId,
        subject_did: holders[i % holders.length]!.did,
        attributes: benchAttributes(i),
        format,
      },
      issuer.headers,
    )
    return res.status === 201 ? undefined : `issue ${res.status}`
  })
}

/** Median of N timed runs after one warm-up, and the rate it stands for. */
async function timed(n: number, op: () => Promise<unknown>): Promise<{ perSecond: number; medianMs: number }> {
  await op()
  const runs: number[] = []
  for (let i = 0; i < n; i++) {
    const start = performance.now()
    await op()
    runs.push(performance.now() - start)
  }
  const ms = median(runs)
  return { perSecond: 1000 / ms, medianMs: ms }
}

/**
 * Issue 37: mdoc beside SD-JWT VC. Issuance over HTTP through the spec's issue route, the two
 * formats interleaved within every round (medians over rounds); presentation verification in
 * process, one core, median of runs: an mdoc DeviceResponse (made by @auth0/mdl as a wallet would)
 * through the service's verifyDeviceResponse, and an SD-JWT VC with a Key Binding JWT through
 * @sd-jwt/sd-jwt-vc (what the SD-JWT VC format verifies with), both with the issuer's key in hand.
 */
export async function runMdocAgainstServer(
  server: ServerProcess,
  engine: Engine,
  options: BenchOptions,
  log: (line: string) => void,
): Promise<MdocSummary[]> {
  const connections = options.issuanceConnections
  const client = new JsonClient(server.baseUrl, connections)
  try {
    const issuer = await setUpIssuer(client)
    const schema = await client.post(
      `/api/issuer/${issuer.did}/schemas`,
      {
        name: 'Bench degree (mdoc)',
        version: '1.0',
        attributes: BENCH_ATTRIBUTES,
        anonymous_credentials: false,
        mdoc: { doctype: DOCTYPE },
      },
      issuer.headers,
    )
    if (schema.status !== 201) throw new Error(`mdoc schema: ${schema.status} ${schema.body.slice(0, 300)}`)
    const schemaId = (JSON.parse(schema.body) as { schema: { id: string } }).schema.id
    const holders = Array.from({ length: 50 }, p256Holder)

    if (options.warmupSeconds > 0)
      for (const format of PAIR)
        await issueLoad(client, issuer, schemaId, format, holders, connections, options.warmupSeconds)
    const issued = new Map<PairFormat, Array<PhaseResult & { cpu: CpuUse }>>(PAIR.map((f) => [f, []]))
    for (let i = 1; i <= options.rounds; i++)
      for (const format of PAIR) {
        const phase = await measured(server.pid, engine === 'postgres', () =>
          issueLoad(client, issuer, schemaId, format, holders, connections, options.seconds),
        )
        issued.get(format)!.push(phase)
        log(
          `  round ${i}: ${format} issue ${Math.round(phase.perSecond)}/s (p50 ${phase.p50Ms.toFixed(1)} ms${phase.errors ? ` errors ${phase.errors} ${JSON.stringify(phase.errorKinds)}` : ''}${cpuPerOperation(phase.cpu, phase.perSecond)})`,
        )
      }

    const verification = await verificationCosts(client, issuer, schemaId, holders[0]!)
    const mid = (rows: Array<PhaseResult & { cpu: CpuUse }>) =>
      [...rows].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(rows.length / 2)]!
    return PAIR.map((format) => {
      const issue = mid(issued.get(format)!)
      return {
        format,
        issuePerSecond: round(issue.perSecond, 1),
        issueP50Ms: round(issue.p50Ms, 1),
        issueCpu: issue.cpu,
        verifyPerSecond: round(verification[format].perSecond, 1),
        verifyMedianMs: round(verification[format].medianMs, 2),
      }
    })
  } finally {
    client.close()
  }
}

/** One credential of each format to the holder, presented once as a wallet would, then verified N times. */
async function verificationCosts(
  client: JsonClient,
  issuer: { did: string; headers: Record<string, string> },
  schemaId: string,
  holder: Holder,
): Promise<Record<PairFormat, { perSecond: number; medianMs: number }>> {
  const issue = async (format: PairFormat) => {
    const res = await client.post(
      `/api/issuer/${issuer.did}/issue`,
      {
        credential_type: BENCH_CREDENTIAL_TYPE,
        schema_id: schemaId,
        subject_did: holder.did,
        attributes: benchAttributes(7),
        format,
      },
      issuer.headers,
    )
    if (res.status !== 201) throw new Error(`issue ${format}: ${res.status} ${res.body.slice(0, 300)}`)
    return (JSON.parse(res.body) as { credential: { jwt: string } }).credential.jwt
  }
  const certificates = JSON.parse((await client.get(`/api/issuer/${issuer.did}/certificates`)).body) as {
    certificates: Array<{ use: string; pem: string }>
  }
  const iaca = certificates.certificates.find((c) => c.use === 'iaca')!.pem
  const mdoc = await issue('mso_mdoc')
  const transcript = encode([null, null, ['OpenID4VPHandover', createHash('sha256').update('bench').digest()]])
  const cbor = new Decoder({ mapsAsObjects: false })
  const response = await DeviceResponse.from(
    encode(
      new Map<string, unknown>([
        ['version', '1.0'],
        [
          'documents',
          [
            new Map<string, unknown>([
              ['docType', DOCTYPE],
              ['issuerSigned', cbor.decode(Buffer.from(mdoc, 'base64url'))],
            ]),
          ],
        ],
        ['status', 0],
      ]),
    ),
  )
    .usingPresentationDefinition({
      id: 'bench',
      input_descriptors: [
        {
          id: DOCTYPE,
          format: { mso_mdoc: { alg: ['ES256'] } },
          constraints: {
            limit_disclosure: 'required',
            fields: ['given_name', 'gpa'].map((e) => ({ path: [`$['${DOCTYPE}']['${e}']`], intent_to_retain: false })),
          },
        },
      ],
    })
    .usingSessionTranscriptBytes(Buffer.from(encode(new Tag(transcript, 24))))
    .authenticateWithSignature(holder.privateKey.export({ format: 'jwk' }) as Record<string, unknown>, 'ES256')
    .sign()
  const deviceResponse = response.encode()
  const trustAnchors = [new Uint8Array(new X509Certificate(iaca).raw)]
  const mdocCheck = await verifyDeviceResponse(deviceResponse, { trustAnchors, sessionTranscript: transcript })
  if (mdocCheck.problems.length) throw new Error(`mdoc presentation: ${JSON.stringify(mdocCheck.problems)}`)

  const sdJwt = await issue('dc+sd-jwt')
  const issuerKey = await sdJwtIssuerKey(client, sdJwt)
  const hasher = (data: string | ArrayBuffer, alg: string) =>
    new Uint8Array(
      createHash(alg.replace('-', '').toLowerCase())
        .update(typeof data === 'string' ? data : Buffer.from(data))
        .digest(),
    )
  const wallet = new SDJwtVcInstance({
    hasher,
    kbSigner: (data: string) =>
      sign('sha256', Buffer.from(data), { key: holder.privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url'),
    kbSignAlg: 'ES256',
    saltGenerator: () => randomBytes(16).toString('base64url'),
  })
  const presented = await wallet.present(
    sdJwt,
    { given_name: true, gpa: true },
    { kb: { payload: { iat: Math.floor(Date.now() / 1000), aud: 'bench', nonce: 'bench' } } },
  )
  const jwsVerifies = (key: KeyObject) => (data: string, signature: string) =>
    verify('sha256', Buffer.from(data), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'))
  const verifier = new SDJwtVcInstance({
    hasher,
    verifier: jwsVerifies(issuerKey),
    kbVerifier: async (data, signature, payload) => {
      const cnf = (payload as { cnf?: { jwk?: Record<string, unknown> } }).cnf?.jwk
      return jwsVerifies(createPublicKey({ key: cnf as never, format: 'jwk' }))(data, signature)
    },
  })
  // As the service's SD-JWT VC format does: the status is read by its own checker, not the library.
  const sdJwtCheck = { keyBindingNonce: 'bench', requiredClaimKeys: ['given_name'], disableStatusVerification: true }
  await verifier.verify(presented, sdJwtCheck)
  return {
    mso_mdoc: await timed(200, () =>
      verifyDeviceResponse(deviceResponse, { trustAnchors, sessionTranscript: transcript }),
    ),
    'dc+sd-jwt': await timed(200, () => verifier.verify(presented, sdJwtCheck)),
  }
}

/** The SD-JWT VC issuer's signing key, from its JWT VC Issuer Metadata (the `iss` is an https URL hosted by the service). */
async function sdJwtIssuerKey(client: JsonClient, sdJwt: string): Promise<KeyObject> {
  const [header, payload] = sdJwt
    .split('~')[0]!
    .split('.')
    .slice(0, 2)
    .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()))
  const iss = new URL(payload.iss as string)
  const metadata = JSON.parse((await client.get(`/.well-known/jwt-vc-issuer${iss.pathname}`)).body) as {
    jwks: { keys: Array<Record<string, unknown>> }
  }
  const jwk = metadata.jwks.keys.find((k) => k.kid === header.kid) ?? metadata.jwks.keys.find((k) => k.crv === 'P-256')
  if (!jwk) throw new Error('no issuer key for the SD-JWT VC')
  return createPublicKey({ key: jwk as never, format: 'jwk' })
}

export function mdocMarkdown(engine: Engine, rows: MdocSummary[]): string {
  const lines = [
    `| ${engine} | issue/s (HTTP) | p50 ms | verify presentation/s (one core) | median ms |`,
    '|---|---|---|---|---|',
  ]
  for (const r of rows)
    lines.push(`| ${r.format} | ${r.issuePerSecond} | ${r.issueP50Ms} | ${r.verifyPerSecond} | ${r.verifyMedianMs} |`)
  return lines.join('\n')
}
