/**
 * `npm run bench:crypto`: the CPU a login flow's cryptography costs on this machine, measured
 * in isolation. Every flow needs one Ed25519 check of the challenge signature, one EdDSA JWT
 * signature, two HMAC-SHA256 (challenge MAC when issued and when checked) and a random nonce.
 * Decoding the did:key (curve point check) and importing its KeyObject can be cached per DID.
 * The sum is compared with the budget the issue's target leaves a flow: 6 floor requests'
 * worth of server CPU (from bench/results/latest-login.json, if present).
 */
import { createHmac, createPrivateKey, randomBytes, sign, verify } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { SignJWT } from 'jose'
import { decodeDidKey } from '../src/crypto/did-key.js'
import { ed25519PublicKeyObject, generateEd25519 } from '../src/crypto/ed25519.js'
import { projectRoot } from './lib/server-process.js'
import { createVirtualUser } from './lib/virtual-user.js'

/** Mean µs per call after a warm-up, over about `ms` of wall time. */
async function cost(fn: () => unknown, ms = 1000): Promise<number> {
  for (let i = 0; i < 200; i++) await fn()
  let n = 0
  const start = performance.now()
  while (performance.now() - start < ms) {
    await fn()
    n++
  }
  return ((performance.now() - start) * 1000) / n
}

type Kind = 'required' | 'cacheable per DID'

async function main(): Promise<void> {
  const user = createVirtualUser()
  const challenge = `v1.${randomBytes(16).toString('base64url')}.1900000000.${randomBytes(32).toString('base64url')}`
  const message = Buffer.from(challenge, 'utf8')
  const signature = sign(null, message, user.privateKey)
  const rawKey = decodeDidKey(user.did).publicKey
  const publicKey = ed25519PublicKeyObject(rawKey)
  const macKey = randomBytes(32)
  const service = generateEd25519()
  const jwtKey = createPrivateKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      d: Buffer.from(service.privateKey).toString('base64url'),
      x: Buffer.from(service.publicKey).toString('base64url'),
    },
    format: 'jwk',
  })
  const jwt = () =>
    new SignJWT({})
      .setProtectedHeader({ alg: 'EdDSA', typ: 'JWT', kid: 'k' })
      .setIssuer('i')
      .setSubject(user.did)
      .setIssuedAt()
      .setExpirationTime('1h')
      .setJti('j')
      .sign(jwtKey)

  const rows: [string, Kind, number][] = [
    [
      'Ed25519 verify of the challenge (node:crypto)',
      'required',
      await cost(() => verify(null, message, publicKey, signature)),
    ],
    ['EdDSA JWT sign (jose, WebCrypto)', 'required', await cost(jwt)],
    [
      'HMAC-SHA256 x2 (challenge MAC)',
      'required',
      await cost(() => [1, 2].map(() => createHmac('sha256', macKey).update(challenge).digest())),
    ],
    ['random nonce, 16 bytes', 'required', await cost(() => randomBytes(16))],
    [
      'did:key decode + curve point check (@noble/curves)',
      'cacheable per DID',
      await cost(() => decodeDidKey(user.did)),
    ],
    ['KeyObject import of the raw key', 'cacheable per DID', await cost(() => ed25519PublicKeyObject(rawKey))],
  ]
  const width = Math.max(...rows.map(([name]) => name.length))
  for (const [name, kind, us] of rows) console.log(`${name.padEnd(width)}  ${us.toFixed(1).padStart(7)} µs  ${kind}`)
  const required = rows.filter(([, kind]) => kind === 'required').reduce((sum, [, , us]) => sum + us, 0)
  console.log(`${'required crypto per flow'.padEnd(width)}  ${required.toFixed(1).padStart(7)} µs`)

  const latest = await readFile(path.join(projectRoot, 'bench/results/latest-login.json'), 'utf8').catch(
    () => undefined,
  )
  if (!latest) return
  const engines = (
    JSON.parse(latest) as { engines: { engine: string; cpu: { serverUsPerFloorRequest: number | null } }[] }
  ).engines
  for (const { engine, cpu } of engines) {
    if (cpu.serverUsPerFloorRequest === null) continue
    // flows >= floor/6 on a saturated single-threaded server means a flow may cost 6 floor requests.
    const budget = 6 * cpu.serverUsPerFloorRequest
    console.log(
      `${engine}: target budget per flow ≈ 6 × ${cpu.serverUsPerFloorRequest} µs = ${budget} µs of server CPU, of which 2 floor requests are the HTTP round trips themselves`,
    )
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
