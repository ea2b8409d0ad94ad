import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto'
import * as bbsCore from '../../src/crypto/bbs/bbs-core.js'
import {
  credentialMessages,
  type AnonCredentialContent,
  type AttributeDataType,
} from '../../src/crypto/bbs/bbs-messages.js'
import { createBbsPool } from '../../src/crypto/bbs/bbs-pool.js'
import { signCompactJws } from '../../src/crypto/jws.js'
import dock from '@docknetwork/crypto-wasm-ts'
import { generateMlKem768KeyPair } from '../../src/crypto/ml-kem-keys.js'
import { hpkeSealer } from '../../src/crypto/sealed-envelope.js'
import { coreCount, cpuSnapshot, otherLoadBetween } from './cpu.js'
import { BENCH_ATTRIBUTES, BENCH_CREDENTIAL_TYPE, benchAttributes, type IssuancePhase } from './issuance-load.js'
import { median, round } from './stats.js'
import { createVirtualUser } from './virtual-user.js'

/** Issue target: one BBS signature at most 10 ms (median). */
/** Workers of the pool measured here: the machine's cores, as the server's default BBS_WORKERS. */
const POOL_WORKERS = 2

/** Medians in ms of the cryptography one issuance needs, measured alone in this process. */
export interface RawCryptoCost {
  iterations: number
  cores: number
  bbsMessages: number
  /** bbs-core sign on this thread (messages encoded to scalars + the library's signature): its CPU cost. */
  bbsSignDirectMs: number
  /** One BBS sign through the pool, one at a time: the worker's work plus the round trip. */
  bbsSignPoolMs: number
  bbsPoolWorkers: number
  /** Signs/s with every pool worker kept busy. */
  bbsPoolSignsPerSecond: number
  /** One EdDSA compact JWS of a JWT-VC-sized payload, as the service signs it (jose, one at a time). */
  ed25519SignMs: number
  /** One HPKE seal (ML-KEM-768, HKDF-SHA256, AES-256-GCM) of a credential-sized plaintext as the service does it: the time until it resolves. */
  kemSealMs: number
  /** The CPU one seal costs the process (every thread: WebCrypto runs on libuv's), with 16 in flight: what the ceiling counts. */
  kemSealCpuMs: number
  /**
   * Decoding the BBS params (one compressed G1 point per message, checked) inside the library:
   * every sign call repeats it, since the WASM API takes params as bytes each time.
   */
  bbsParamsDecodeMs: number
  /** What a BBS signature costs in the formulas below (the direct call; issue 21 withdrew the signing target). */
  bbsSignMs: number
  /** CPU ms of crypto per credential, and credentials/s the crypto alone allows on all cores. */
  perCredentialMs: Record<IssuancePhase, number>
  ceilingPerSecond: Record<IssuancePhase, number>
  /** CPU used by other processes while measuring: above ~0.25 cores the medians are inflated. */
  otherLoadCores: number | null
}

function medianSync(iterations: number, fn: () => unknown): number {
  for (let i = 0; i < Math.min(20, iterations); i++) fn()
  const times: number[] = []
  for (let i = 0; i < iterations; i++) {
    const began = performance.now()
    fn()
    times.push(performance.now() - began)
  }
  return median(times)
}

async function medianAsync(iterations: number, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(20, iterations); i++) await fn()
  const times: number[] = []
  for (let i = 0; i < iterations; i++) {
    const began = performance.now()
    await fn()
    times.push(performance.now() - began)
  }
  return median(times)
}

/** Process CPU (all threads) per call with `inFlight` calls running at once. */
async function cpuPerCall(count: number, inFlight: number, fn: () => Promise<unknown>): Promise<number> {
  const before = process.cpuUsage()
  let started = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (started++ < count) await fn()
    }),
  )
  const used = process.cpuUsage(before)
  return (used.user + used.system) / 1000 / count
}

/** What the service signs for one bench credential (issuance.service.ts signAnonymous). */
function benchContent(issuerDid: string, n: number): AnonCredentialContent {
  return {
    meta: {
      id: `aly:${randomUUID()}`,
      type: BENCH_CREDENTIAL_TYPE,
      issuer: issuerDid,
      subject: createVirtualUser().did,
      schema_id: randomUUID(),
      issued_at: new Date().toISOString(),
    },
    attributes: benchAttributes(n),
    types: Object.fromEntries(BENCH_ATTRIBUTES.map((a) => [a.name, a.data_type as AttributeDataType])),
  }
}

/**
 * The raw cost of the three signatures/encryptions of an issuance, each measured alone (no
 * server running): BBS sign of the bench credential's messages (on this thread, and through a
 * pool of two workers like the server's), Ed25519 sign, ML-KEM seal.
 * The ceiling is cores / per-credential CPU: what the crypto alone would allow if nothing else
 * (HTTP, JSON, validation, content store, database) cost anything.
 */
export async function measureRawCrypto(iterations: number, log: (line: string) => void): Promise<RawCryptoCost> {
  const cores = coreCount()
  const before = cpuSnapshot(process.pid)
  const issuerDid = createVirtualUser().did

  const { privateKey: edKey } = generateKeyPairSync('ed25519')
  // A JWT-VC signing input of the bench credential is about 1.2 kB of base64url.
  const jwtPayload = { vc: randomBytes(650).toString('base64url') }
  const ed25519SignMs = await medianAsync(iterations, () => signCompactJws({ typ: 'JWT', kid: 'k' }, jwtPayload, edKey))

  const holder = generateMlKem768KeyPair()
  // The sealed material (JWT + BBS credential + attributes) is 2-3 kB of JSON.
  const material = randomBytes(2500)
  const sealOne = () =>
    hpkeSealer.seal({
      publicKey: holder.publicKey,
      plaintext: material,
      binding: { recipient: issuerDid, recordId: `aly:${randomUUID()}` },
    })
  const kemSealMs = await medianAsync(iterations, sealOne)
  const kemSealCpuMs = await cpuPerCall(iterations * 5, 16, sealOne)

  const messages = Array.from({ length: 16 }, (_, i) => credentialMessages(benchContent(issuerDid, i)))
  const paramsLabel = `bench/bbs-params/${issuerDid}`
  // One thread, no pool: the signature's CPU cost (params built once, as in every worker).
  await bbsCore.initBbs()
  const direct = bbsCore.generateKeyPair(paramsLabel)
  const params = dock.BBSSignatureParams.generate(messages[0]!.length, new TextEncoder().encode(paramsLabel))
  const bbsParamsDecodeMs = medianSync(Math.min(iterations, 50), () => params.toBytes())
  let d = 0
  const bbsSignDirectMs = medianSync(iterations, () =>
    bbsCore.sign(direct.secretKey, paramsLabel, messages[d++ % messages.length]!),
  )

  const pool = createBbsPool({ size: POOL_WORKERS })
  try {
    const { secretKey } = await pool.generateKeyPair(paramsLabel)
    let k = 0
    const signOne = () => pool.sign({ secretKey, paramsLabel, messages: messages[k++ % messages.length]! })
    const saturate = async (count: number) => {
      let started = 0
      await Promise.all(
        Array.from({ length: POOL_WORKERS * 2 }, async () => {
          while (started++ < count) await signOne()
        }),
      )
    }
    // Workers start on demand: this starts every one (WASM init, params for this label).
    await saturate(POOL_WORKERS * 10)
    const bbsSignPoolMs = await medianAsync(iterations, signOne)
    const began = performance.now()
    await saturate(iterations)
    const bbsPoolSignsPerSecond = iterations / ((performance.now() - began) / 1000)

    const bbsSignMs = bbsSignDirectMs
    const otherLoad = otherLoadBetween(before, cpuSnapshot(process.pid))
    const perCredentialMs = { bbs: bbsSignMs + ed25519SignMs + kemSealCpuMs, jwt: ed25519SignMs + kemSealCpuMs }
    const cost: RawCryptoCost = {
      iterations,
      cores,
      bbsMessages: messages[0]!.length,
      bbsSignDirectMs: round(bbsSignDirectMs, 3),
      bbsSignPoolMs: round(bbsSignPoolMs, 3),
      bbsPoolWorkers: POOL_WORKERS,
      bbsPoolSignsPerSecond: round(bbsPoolSignsPerSecond),
      ed25519SignMs: round(ed25519SignMs, 3),
      kemSealMs: round(kemSealMs, 3),
      kemSealCpuMs: round(kemSealCpuMs, 3),
      bbsParamsDecodeMs: round(bbsParamsDecodeMs, 3),
      bbsSignMs: round(bbsSignMs, 3),
      perCredentialMs: { bbs: round(perCredentialMs.bbs, 3), jwt: round(perCredentialMs.jwt, 3) },
      ceilingPerSecond: {
        bbs: round((cores * 1000) / perCredentialMs.bbs),
        jwt: round((cores * 1000) / perCredentialMs.jwt),
      },
      otherLoadCores: otherLoad === undefined ? null : round(otherLoad, 2),
    }
    log(
      `  BBS sign (${cost.bbsMessages} messages) ${cost.bbsSignDirectMs} ms on this thread, ${cost.bbsSignPoolMs} ms through the pool (of which the library's decoding of the params ${cost.bbsParamsDecodeMs} ms); Ed25519 sign ${cost.ed25519SignMs} ms, HPKE seal ${cost.kemSealMs} ms (CPU ${cost.kemSealCpuMs} ms); pool of ${POOL_WORKERS}: ${cost.bbsPoolSignsPerSecond} signs/s (other load ${cost.otherLoadCores ?? 'n/a'} cores)`,
    )
    return cost
  } finally {
    await pool.close()
  }
}
