import { createHash, randomBytes, sign } from 'node:crypto'
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc'
import type { CpuUse } from './cpu.js'
import { closedLoop, type PhaseResult } from './closed-loop.js'
import { cpuPerOperation, measured, noise } from './engine-run.js'
import { JsonClient } from './http-client.js'
import { benchAttributes, BENCH_CREDENTIAL_TYPE, setUpIssuer, type BenchIssuer } from './issuance-load.js'
import { loginOnce } from './login-load.js'
import type { BenchOptions, Engine } from './options.js'
import type { ServerProcess } from './server-process.js'
import { round } from './stats.js'
import { runVerificationLoad, setUpPresentations, type VerificationSetUp } from './verification-load.js'
import { createVirtualUser, type VirtualUser } from './virtual-user.js'

/** The formats an issuance can name (docs/formats.md), measured side by side on one server. */
export const BENCH_FORMATS = ['jwt_vc_json', 'vc+jwt', 'dc+sd-jwt'] as const
export type BenchFormat = (typeof BENCH_FORMATS)[number]

export interface FormatSummary {
  format: BenchFormat
  issuePerSecond: number
  issueP50Ms: number
  verifyPerSecond: number
  verifyP50Ms: number
  /** Against jwt_vc_json in the same rounds: issue/s and verify/s of this format over those of jwt_vc_json. */
  issueRatio: number
  verifyRatio: number
  errors: number
  issueCpu: CpuUse
  verifyCpu: CpuUse
}

/**
 * What the holder's own wallet sends for a credential of each format: the credential itself, or
 * for SD-JWT VC two of its six claims with a Key Binding JWT (nonce, aud) signed by the holder's
 * key, made with @sd-jwt/sd-jwt-vc like any wallet would.
 */
async function holderForm(
  format: BenchFormat,
  credential: string,
  holder: VirtualUser,
  nonce: string,
  aud: string,
): Promise<string> {
  if (format !== 'dc+sd-jwt') return credential
  const wallet = new SDJwtVcInstance({
    hasher: (data: string | ArrayBuffer, alg: string) =>
      new Uint8Array(
        createHash(alg.replace('-', '').toLowerCase())
          .update(typeof data === 'string' ? data : Buffer.from(data))
          .digest(),
      ),
    kbSigner: (data: string) => sign(null, Buffer.from(data), holder.privateKey).toString('base64url'),
    kbSignAlg: 'EdDSA',
    saltGenerator: () => randomBytes(16).toString('base64url'),
  })
  return wallet.present(
    credential,
    { given_name: true, gpa: true },
    { kb: { payload: { iat: Math.floor(Date.now() / 1000), aud, nonce } } },
  )
}

function issueLoad(
  client: JsonClient,
  issuer: BenchIssuer,
  format: BenchFormat,
  holders: string[],
  connections: number,
  seconds: number,
): Promise<PhaseResult> {
  return closedLoop(connections, seconds, async (i) => {
    const res = await client.post(
      `/api/issuer/${issuer.did}/issue`,
      {
        credential_type: BENCH_CREDENTIAL_TYPE,
        schema_id: issuer.schemaIds.jwt,
        subject_did: holders[i % holders.length],
        attributes: benchAttributes(i),
        format,
      },
      issuer.headers,
    )
    return res.status === 201 ? undefined : `issue ${res.status}`
  })
}

/**
 * Issue 22: each format issued and verified over HTTP on one server, formats interleaved within
 * every round so the machine's drift hits them alike; medians over rounds, and each format's
 * ratio to jwt_vc_json (the target: no format costs more than 1.5x the JWT-VC path).
 */
export async function runFormatsAgainstServer(
  server: ServerProcess,
  engine: Engine,
  options: BenchOptions,
  log: (line: string) => void,
): Promise<FormatSummary[]> {
  const connections = options.issuanceConnections
  const client = new JsonClient(server.baseUrl, Math.max(connections, options.connections))
  try {
    const issuer = await setUpIssuer(client)
    const holders = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const holder = createVirtualUser()
        await loginOnce(client, holder)
        return holder.did
      }),
    )
    const setUps = new Map<BenchFormat, VerificationSetUp>()
    for (const format of BENCH_FORMATS)
      setUps.set(
        format,
        await setUpPresentations(client, issuer, {
          format,
          present: (credential, holder, nonce, aud) => holderForm(format, credential, holder, nonce, aud),
        }),
      )
    for (const format of BENCH_FORMATS) {
      if (options.warmupSeconds > 0) {
        await issueLoad(client, issuer, format, holders, connections, options.warmupSeconds)
        await runVerificationLoad(client, setUps.get(format)!, options.connections, options.warmupSeconds)
      }
    }
    const issued = new Map<BenchFormat, Array<PhaseResult & { cpu: CpuUse }>>(BENCH_FORMATS.map((f) => [f, []]))
    const verified = new Map<BenchFormat, Array<PhaseResult & { cpu: CpuUse }>>(BENCH_FORMATS.map((f) => [f, []]))
    for (let i = 1; i <= options.rounds; i++) {
      for (const format of BENCH_FORMATS) {
        const issue = await measured(server.pid, engine === 'postgres', () =>
          issueLoad(client, issuer, format, holders, connections, options.seconds),
        )
        issued.get(format)!.push(issue)
        const verify = await measured(server.pid, engine === 'postgres', async () => {
          const r = await runVerificationLoad(client, setUps.get(format)!, options.connections, options.seconds)
          return { perSecond: r.perSecond, p50Ms: r.p50Ms, p99Ms: r.p99Ms, errors: r.errors, errorKinds: r.errorKinds }
        })
        verified.get(format)!.push(verify)
        const errs = (r: PhaseResult) => (r.errors ? ` errors ${r.errors} ${JSON.stringify(r.errorKinds)}` : '')
        log(
          `  round ${i}: ${format} issue ${Math.round(issue.perSecond)}/s (p50 ${issue.p50Ms.toFixed(1)} ms${errs(issue)}${noise(issue.cpu)}${cpuPerOperation(issue.cpu, issue.perSecond)}); verify ${Math.round(verify.perSecond)}/s (p50 ${verify.p50Ms.toFixed(1)} ms${errs(verify)}${cpuPerOperation(verify.cpu, verify.perSecond)})`,
        )
      }
    }
    const mid = <T extends PhaseResult>(rows: T[]): T =>
      [...rows].sort((a, b) => a.perSecond - b.perSecond)[Math.floor(rows.length / 2)]!
    const base = {
      issue: mid(issued.get('jwt_vc_json')!).perSecond,
      verify: mid(verified.get('jwt_vc_json')!).perSecond,
    }
    return BENCH_FORMATS.map((format) => {
      const issue = mid(issued.get(format)!)
      const verify = mid(verified.get(format)!)
      return {
        format,
        issuePerSecond: round(issue.perSecond, 1),
        issueP50Ms: round(issue.p50Ms, 1),
        verifyPerSecond: round(verify.perSecond, 1),
        verifyP50Ms: round(verify.p50Ms, 1),
        issueRatio: round(base.issue / issue.perSecond, 2),
        verifyRatio: round(base.verify / verify.perSecond, 2),
        errors: issue.errors + verify.errors,
        issueCpu: issue.cpu,
        verifyCpu: verify.cpu,
      }
    })
  } finally {
    client.close()
  }
}

export function formatsMarkdown(engine: Engine, rows: FormatSummary[]): string {
  const lines = [
    `| ${engine} | issue/s | p50 ms | cost vs jwt_vc_json | verify/s | p50 ms | cost vs jwt_vc_json |`,
    '|---|---|---|---|---|---|---|',
  ]
  for (const r of rows)
    lines.push(
      `| ${r.format} | ${r.issuePerSecond} | ${r.issueP50Ms} | ${r.issueRatio}x | ${r.verifyPerSecond} | ${r.verifyP50Ms} | ${r.verifyRatio}x |`,
    )
  return lines.join('\n')
}
