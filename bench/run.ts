/**
 * `npm run bench`: login throughput against the framework floor, and credential issuance
 * against the raw cost of its cryptography, per database engine.
 * The raw crypto (BBS sign, Ed25519 sign, HPKE seal) is measured first in this process, with
 * no server running. Then for each engine one server process is started; against it,
 * interleaved rounds measure the req/s of a trivial route (the floor) and complete login
 * flows/s (challenge + verify-challenge, one did:key per virtual user), then interleaved rounds
 * of issuance (JWT + BBS schema, JWT-only schema). Prints summaries, Markdown tables for the
 * README, and writes bench/results/latest-login.json and latest-issuance.json. Settings:
 * BENCH_SECONDS, BENCH_CONNECTIONS, BENCH_ISSUANCE_CONNECTIONS, BENCH_ROUNDS, BENCH_WARMUP_SECONDS,
 * BENCH_CRYPTO_ITERATIONS, BENCH_ENGINES=pglite,postgres, BENCH_DATABASE_URL,
 * BENCH_SERVER=tsx|build (default tsx), BENCH_ONLY=login|issuance|verification|proofs|anchoring|formats|vc-api|oid4vc|mdoc (default all).
 * The formats part issues and verifies every credential format over HTTP side by side.
 * The vc-api part does the same through the W3C VC API (OAuth client, issue per cryptosuite,
 * /vc-api/credentials/verify), against vc+jwt; BENCH_VC_API_BBS_CONNECTIONS for its bbs-2023 phases
 * (bench/results/latest-vc-api.json).
 * The anchoring part runs JWT-only issuance on two servers per engine, one with a local dev chain
 * configured and one without, and reports the ratio (bench/results/latest-anchoring.json).
 * The proofs part (anonymous-proof derivation and BBS-predicate verification over HTTP beside the
 * raw derive/verify cost) also reads BENCH_PROOF_CONNECTIONS and BENCH_PROOF_ITERATIONS.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { installAbortHandlers, onAbort } from './lib/cleanup.js'
import { coreCount } from './lib/cpu.js'
import { runAgainstServer } from './lib/engine-run.js'
import { formatsMarkdown, runFormatsAgainstServer, type FormatSummary } from './lib/formats-run.js'
import { mdocMarkdown, runMdocAgainstServer, type MdocSummary } from './lib/mdoc-run.js'
import { runVcApiAgainstServer, vcApiMarkdown, VERIFY_SET, type VcApiSummary } from './lib/vc-api-run.js'
import { oid4vcMarkdown, runOid4vcOnEngine, type Oid4vcPhaseSummary } from './lib/oid4vc-run.js'
import { measureRawCrypto, type RawCryptoCost } from './lib/issuance-crypto.js'
import {
  issuanceMarkdown,
  printIssuance,
  printRawCrypto,
  summarizeIssuance,
  TARGET_CEILING_RATIO,
  TARGET_JWT_PER_SECOND,
  type IssuanceEngineSummary,
} from './lib/issuance-report.js'
import { runIssuanceAgainstServer } from './lib/issuance-run.js'
import { runAnchoringBench, type AnchoringSummary } from './lib/anchoring-run.js'
import { readOptions, type BenchOptions, type Engine } from './lib/options.js'
import { PRESENTATION_COUNT } from './lib/verification-load.js'
import {
  measureRawProofs,
  printProofs,
  runProofsAgainstServer,
  type ProofsSummary,
  type RawProofCost,
} from './lib/proofs-run.js'
import {
  printVerification,
  runVerificationAgainstServer,
  TARGET_VERIFY_PER_SECOND,
  TARGET_VERIFY_RATIO,
  type VerificationSummary,
} from './lib/verification-run.js'
import { createBenchDatabase, postgresReachable } from './lib/postgres.js'
import { markdownTable, printEngine, summarize, TARGET_RATIO, type EngineSummary } from './lib/report.js'
import { codeVersion, prepareServer, projectRoot, startServer, type ServerBuild } from './lib/server-process.js'

const log = (line: string) => console.log(line)

interface EngineResult {
  login?: EngineSummary
  issuance?: IssuanceEngineSummary
  verification?: VerificationSummary
  proofs?: ProofsSummary
  formats?: { engine: Engine; rows: FormatSummary[] }
  vcApi?: { engine: Engine; rows: VcApiSummary[] }
  mdoc?: { engine: Engine; rows: MdocSummary[] }
}

/**
 * Issuance runs against the same server process as the login rounds, after them: it is warmed
 * up already, one start-up less keeps the run bounded, and the rows the login part leaves (50
 * users, their sessions) are nothing next to the credentials issued.
 */
async function benchEngine(
  engine: Engine,
  options: BenchOptions,
  build: ServerBuild,
  crypto: RawCryptoCost | undefined,
  rawProofs: RawProofCost | undefined,
): Promise<EngineResult | undefined> {
  if (!options.parts.some((part) => part !== 'anchoring' && part !== 'oid4vc')) return undefined
  if (engine === 'postgres' && !(await postgresReachable(options.postgresUrl))) {
    log(`\npostgres: not reachable at ${options.postgresUrl}; skipped`)
    return undefined
  }
  log(`\n${engine}: starting one server process (${options.server})`)
  const database = engine === 'postgres' ? await createBenchDatabase(options.postgresUrl) : undefined
  const forgetDatabase = database ? onAbort(() => database.drop()) : () => false
  try {
    const server = await startServer({ build, databaseUrl: database?.url })
    const forgetServer = onAbort(() => server.stop())
    try {
      const result: EngineResult = {}
      if (options.parts.includes('login'))
        result.login = summarize(engine, await runAgainstServer(server, engine, options, log))
      if (crypto)
        result.issuance = summarizeIssuance(
          engine,
          await runIssuanceAgainstServer(server, engine, options, log),
          crypto,
        )
      if (options.parts.includes('verification'))
        result.verification = await runVerificationAgainstServer(server, engine, options, log)
      if (rawProofs) result.proofs = await runProofsAgainstServer(server, engine, options, rawProofs, log)
      if (options.parts.includes('formats')) {
        log(
          `\n${engine}: credential formats, issued and verified over HTTP (${options.issuanceConnections} issuing, ${options.connections} verifying connections)`,
        )
        result.formats = { engine, rows: await runFormatsAgainstServer(server, engine, options, log) }
      }
      if (options.parts.includes('vc-api')) {
        log(
          `\n${engine}: W3C VC API, issued and verified per cryptosuite over HTTP (${options.issuanceConnections} issuing, ${options.connections} verifying connections; bbs-2023 ${options.vcApiBbsConnections})`,
        )
        result.vcApi = { engine, rows: await runVcApiAgainstServer(server, engine, options, log) }
      }
      if (options.parts.includes('mdoc')) {
        log(
          `\n${engine}: mdoc beside SD-JWT VC, issued over HTTP (${options.issuanceConnections} connections), presentations verified in process`,
        )
        result.mdoc = { engine, rows: await runMdocAgainstServer(server, engine, options, log) }
      }
      return result
    } finally {
      await server.stop()
      forgetServer()
    }
  } finally {
    await database?.drop()
    forgetDatabase()
  }
}

async function main(): Promise<void> {
  const options = readOptions()
  const withLogin = options.parts.includes('login')
  const withIssuance = options.parts.includes('issuance')
  // Every phase is bounded; this bounds the whole run too (start-up, build, set-up, cleanup included).
  const loginPhases = withLogin ? options.rounds * 2 * options.seconds + 2 * options.warmupSeconds : 0
  const issuancePhases = withIssuance ? options.rounds * 2 * options.seconds + 2 * options.warmupSeconds + 60 : 0
  const verificationPhases = options.parts.includes('verification') ? (options.rounds + 1) * options.seconds + 120 : 0
  const withProofs = options.parts.includes('proofs')
  const proofPhases = withProofs ? options.rounds * 2 * options.seconds + 2 * options.warmupSeconds + 180 : 0
  const formatPhases = options.parts.includes('formats') ? (options.rounds + 1) * 6 * options.seconds + 180 : 0
  const vcApiPhases = options.parts.includes('vc-api') ? (options.rounds + 1) * 8 * options.seconds + 240 : 0
  const mdocPhases = options.parts.includes('mdoc') ? (options.rounds + 1) * 2 * options.seconds + 120 : 0
  const oid4vcPhases = options.parts.includes('oid4vc') ? (options.rounds * 3 + 3) * options.seconds + 600 : 0
  const anchoringPhases = options.parts.includes('anchoring')
    ? options.rounds * 2 * options.seconds + 2 * options.warmupSeconds + 240
    : 0
  const cryptoBudget =
    (withIssuance ? options.cryptoIterations * 0.3 + 60 : 0) + (withProofs ? options.proofIterations * 3 + 30 : 0)
  installAbortHandlers(
    (options.engines.length *
      (loginPhases +
        issuancePhases +
        verificationPhases +
        proofPhases +
        anchoringPhases +
        formatPhases +
        vcApiPhases +
        mdocPhases +
        oid4vcPhases +
        180) +
      cryptoBudget +
      240) *
      1000,
  )

  if (withLogin)
    log(
      `login throughput vs framework floor: ${options.connections} connections, ${options.seconds} s per phase, ${options.rounds} rounds, engines ${options.engines.join(', ')}`,
    )
  if (withIssuance)
    log(
      `issuance throughput vs raw crypto: ${options.issuanceConnections} connections, ${options.seconds} s per phase, ${options.rounds} rounds, engines ${options.engines.join(', ')}`,
    )
  const code = codeVersion()
  log(`machine: ${coreCount()} cores (${os.cpus()[0]?.model ?? 'unknown'}), node ${process.version}, code ${code}`)
  log('note: the load generator runs on the same cores as the server (and PostgreSQL): fair to every phase, but noisy.')
  let crypto: RawCryptoCost | undefined
  if (withIssuance) {
    log(
      `\nraw issuance crypto, measured alone in this process (no server running), ${options.cryptoIterations} iterations each ...`,
    )
    crypto = await measureRawCrypto(options.cryptoIterations, log)
  }
  let rawProofs: RawProofCost | undefined
  if (withProofs) {
    log(
      `\nraw anonymous-proof crypto, measured alone in this process (no server running), ${options.proofIterations} iterations ...`,
    )
    rawProofs = await measureRawProofs(options.proofIterations, log)
  }
  if (options.server === 'build') log('compiling src/ with tsc into a temporary directory ...')
  const build = await prepareServer(options.server)
  const forgetBuild = onAbort(() => build.dispose())
  const results: EngineResult[] = []
  const anchorings: AnchoringSummary[] = []
  const oid4vcs: Array<{ engine: Engine; rows: Oid4vcPhaseSummary[] }> = []
  try {
    for (const engine of options.engines) {
      const result = await benchEngine(engine, options, build, crypto, rawProofs)
      if (result) results.push(result)
    }
    if (options.parts.includes('anchoring')) {
      for (const engine of options.engines) {
        if (engine === 'postgres' && !(await postgresReachable(options.postgresUrl))) continue
        log(
          `\n${engine}: anchored issuance, two server processes (chain configured / not), JWT-only, ${options.issuanceConnections} connections each`,
        )
        anchorings.push(await runAnchoringBench(engine, options, build, log))
      }
    }
    if (options.parts.includes('oid4vc')) {
      for (const engine of options.engines) {
        if (engine === 'postgres' && !(await postgresReachable(options.postgresUrl))) continue
        log(
          `\n${engine}: OpenID4VCI and OpenID4VP flows over HTTPS, ${options.issuanceConnections} wallets in flight, beside the spec's issue route`,
        )
        oid4vcs.push({ engine, rows: await runOid4vcOnEngine(engine, options, build, log) })
      }
    }
  } finally {
    await build.dispose()
    forgetBuild()
  }
  const logins = results.flatMap((r) => (r.login ? [r.login] : []))
  const issuances = results.flatMap((r) => (r.issuance ? [r.issuance] : []))
  for (const s of logins) printEngine(s)
  if (crypto) printRawCrypto(crypto)
  for (const s of issuances) printIssuance(s)
  const verifications = results.flatMap((r) => (r.verification ? [r.verification] : []))
  for (const s of verifications) printVerification(s)
  const proofs = results.flatMap((r) => (r.proofs ? [r.proofs] : []))
  if (rawProofs) for (const s of proofs) printProofs(rawProofs, s)

  const resultsDir = path.join(projectRoot, 'bench/results')
  await mkdir(resultsDir, { recursive: true })
  const machine = { cores: coreCount(), cpu: os.cpus()[0]?.model, node: process.version }
  if (withLogin) {
    log(`\nMarkdown for the README's performance section (login):\n\n${markdownTable(logins, options, code)}\n`)
    const json = {
      date: new Date().toISOString(),
      code,
      machine,
      settings: {
        connections: options.connections,
        seconds: options.seconds,
        rounds: options.rounds,
        server: options.server,
        targetRatio: round3(TARGET_RATIO),
      },
      engines: logins,
    }
    await writeFile(path.join(resultsDir, 'latest-login.json'), `${JSON.stringify(json, null, 2)}\n`)
    log('written: bench/results/latest-login.json')
  }
  if (crypto) {
    log(
      `\nMarkdown for the README's performance section (issuance):\n\n${issuanceMarkdown(issuances, crypto, options, code)}\n`,
    )
    const json = {
      date: new Date().toISOString(),
      code,
      machine,
      settings: {
        connections: options.issuanceConnections,
        seconds: options.seconds,
        rounds: options.rounds,
        server: options.server,
        targets: { ceilingRatio: TARGET_CEILING_RATIO, jwtPerSecondPglite: TARGET_JWT_PER_SECOND },
      },
      rawCrypto: crypto,
      engines: issuances,
    }
    await writeFile(path.join(resultsDir, 'latest-issuance.json'), `${JSON.stringify(json, null, 2)}\n`)
    log('written: bench/results/latest-issuance.json')
  }
  if (verifications.length) {
    const json = {
      date: new Date().toISOString(),
      code,
      machine,
      settings: {
        connections: options.connections,
        seconds: options.seconds,
        rounds: options.rounds,
        presentations: PRESENTATION_COUNT,
        targets: { perSecond: TARGET_VERIFY_PER_SECOND, ceilingRatio: TARGET_VERIFY_RATIO },
      },
      engines: verifications,
    }
    await writeFile(path.join(resultsDir, 'latest-verification.json'), `${JSON.stringify(json, null, 2)}\n`)
    log('written: bench/results/latest-verification.json')
  }
  if (anchorings.length) {
    for (const a of anchorings) {
      log(`\n${a.engine} anchored issuance (JWT-only, median over rounds)`)
      log(
        `  with a chain configured     ${a.withChainPerSecond}/s; without ${a.withoutChainPerSecond}/s; ratio ${a.ratio}`,
      )
      log(
        `  chain outbox at the end     ${a.anchored.jobsMined} chain jobs mined, ${a.anchored.jobsFailed} failed, ${a.anchored.unbatched} hashes waiting; errors ${a.errors}`,
      )
    }
    const json = {
      date: new Date().toISOString(),
      code,
      machine,
      settings: {
        connections: options.issuanceConnections,
        seconds: options.seconds,
        rounds: options.rounds,
        batchWaitMs: 1000,
      },
      engines: anchorings,
    }
    await writeFile(path.join(resultsDir, 'latest-anchoring.json'), `${JSON.stringify(json, null, 2)}\n`)
    log('written: bench/results/latest-anchoring.json')
  }
  const formats = results.flatMap((r) => (r.formats ? [r.formats] : []))
  if (formats.length) {
    for (const f of formats)
      log(
        `\nMarkdown for bench/README.md (credential formats, ${f.engine}, medians over rounds):\n\n${formatsMarkdown(f.engine, f.rows)}\n`,
      )
    const json = {
      date: new Date().toISOString(),
      code,
      machine,
      settings: {
        issuingConnections: options.issuanceConnections,
        verifyingConnections: options.connections,
        seconds: options.seconds,
        rounds: options.rounds,
      },
      engines: formats,
    }
    await writeFile(path.join(resultsDir, 'latest-formats.json'), `${JSON.stringify(json, null, 2)}\n`)
    log('written: bench/results/latest-formats.json')
  }
  const mdocs = results.flatMap((r) => (r.mdoc ? [r.mdoc] : []))
  if (mdocs.length) {
    for (const m of mdocs)
      log(`\nMarkdown for bench/README.md (mdoc beside SD-JWT VC, ${m.engine}):\n\n${mdocMarkdown(m.engine, m.rows)}\n`)
    const json = {
      date: new Date().toISOString(),
      code,
      machine,
      settings: { issuingConnections: options.issuanceConnections, seconds: options.seconds, rounds: options.rounds },
      engines: mdocs,
    }
    await writeFile(path.join(resultsDir, 'latest-mdoc.json'), `${JSON.stringify(json, null, 2)}\n`)
    log('written: bench/results/latest-mdoc.json')
  }
  const vcApis = results.flatMap((r) => (r.vcApi ? [r.vcApi] : []))
  if (vcApis.length) {
    for (const v of vcApis)
      log(
        `\nMarkdown for bench/README.md (W3C VC API, ${v.engine}, medians over rounds):\n\n${vcApiMarkdown(v.engine, v.rows)}\n`,
      )
    const json = {
      date: new Date().toISOString(),
      code,
      machine,
      settings: {
        issuingConnections: options.issuanceConnections,
        verifyingConnections: options.connections,
        bbsConnections: options.vcApiBbsConnections,
        seconds: options.seconds,
        rounds: options.rounds,
        warmupSeconds: options.warmupSeconds,
        verifySet: VERIFY_SET,
        server: options.server,
      },
      engines: vcApis,
    }
    await writeFile(path.join(resultsDir, 'latest-vc-api.json'), `${JSON.stringify(json, null, 2)}\n`)
    log('written: bench/results/latest-vc-api.json')
  }
  if (oid4vcs.length) {
    log(`\nMarkdown for bench/README.md (OpenID4VC flows, medians over rounds):\n\n${oid4vcMarkdown(oid4vcs)}\n`)
    const json = {
      date: new Date().toISOString(),
      code,
      machine,
      settings: {
        connections: options.issuanceConnections,
        seconds: options.seconds,
        rounds: options.rounds,
        server: options.server,
        targets: { flowsPerSecondPglite: 300 },
      },
      engines: oid4vcs,
    }
    await writeFile(path.join(resultsDir, 'latest-oid4vc.json'), `${JSON.stringify(json, null, 2)}\n`)
    log('written: bench/results/latest-oid4vc.json')
  }
  if (rawProofs) {
    const json = {
      date: new Date().toISOString(),
      code,
      machine,
      settings: {
        connections: options.proofConnections,
        seconds: options.seconds,
        rounds: options.rounds,
        rawIterations: options.proofIterations,
        rangeProof: rawProofs.rangeProtocol,
      },
      rawCrypto: rawProofs,
      engines: proofs,
    }
    await writeFile(path.join(resultsDir, 'latest-proofs.json'), `${JSON.stringify(json, null, 2)}\n`)
    log('written: bench/results/latest-proofs.json')
  }
}

const round3 = (v: number) => Math.round(v * 1000) / 1000

main().catch((error) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error)
  process.exitCode = 1
})
