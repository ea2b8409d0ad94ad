/**
 * bbs-2023 cost per operation (`npx tsx bench/bbs-2023-cost.ts`): base signature, derivation and
 * verification of a VCDM 2.0 credential, on the event loop (inline) and through the worker pool,
 * with the longest event-loop stall seen meanwhile. Figures go to docs/formats.md "bbs-2023".
 */
import { generateIetfBbsKeyPair } from '../src/crypto/ietf-bbs-keys.js'
import { publicKeyToMultibase } from '../src/crypto/did-key.js'
import {
  Bbs2023Pool,
  inlineBbs2023Engine,
  type Bbs2023Engine,
} from '../src/modules/credentials/formats/bbs-2023/bbs-2023-engine.js'

const N = Number(process.env.N ?? 6)
const { publicKey, privateKey } = await generateIetfBbsKeyPair()
const did = `did:key:${publicKeyToMultibase('bls12381g2', publicKey)}`
const vm = `${did}#${did.slice('did:key:'.length)}`
const documents = {
  [vm]: {
    '@context': 'https://w3id.org/security/multikey/v1',
    id: vm,
    type: 'Multikey',
    controller: did,
    publicKeyMultibase: did.slice(8),
  },
  [did]: {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: did,
    assertionMethod: [vm],
    verificationMethod: [{ id: vm, type: 'Multikey', controller: did, publicKeyMultibase: did.slice(8) }],
  },
}
const document = {
  '@context': ['https://www.w3.org/ns/credentials/v2', 'https://www.w3.org/ns/credentials/examples/v2'],
  id: 'urn:uuid:8b6f0c36-1f70-4a43-9f0e-7b0d5d1c2f11',
  type: ['VerifiableCredential', 'ExampleDegreeCredential'],
  issuer: did,
  validFrom: '2026-01-01T00:00:00Z',
  credentialSubject: {
    id: 'did:example:holder',
    name: 'Ada',
    degree: { type: 'ExampleBachelorDegree', name: 'Mathematics' },
    gpa: 3.9,
    graduated: true,
  },
  credentialStatus: {
    id: 'https://example.org/status/1#7',
    type: 'BitstringStatusListEntry',
    statusPurpose: 'revocation',
    statusListIndex: '7',
    statusListCredential: 'https://example.org/status/1',
  },
}
const mandatoryPointers = ['/issuer', '/id', '/type', '/validFrom', '/credentialStatus']

async function measure(engine: Bbs2023Engine, label: string) {
  const base = await engine.signBase({
    document,
    mandatoryPointers,
    verificationMethod: vm,
    publicKey,
    secretKey: privateKey,
    documents,
  })
  const derived = await engine.derive({ credential: base, selectivePointers: ['/credentialSubject/name'], documents })
  // The longest gap between ticks of a 5 ms timer: how long a request would wait for the event loop.
  let last = performance.now()
  let stall = 0
  const probe = setInterval(() => {
    const now = performance.now()
    stall = Math.max(stall, now - last)
    last = now
  }, 5)
  const time = async (op: () => Promise<unknown>) => {
    const start = performance.now()
    for (let i = 0; i < N; i++) await op()
    return ((performance.now() - start) / N).toFixed(0)
  }
  const sign = await time(() =>
    engine.signBase({
      document,
      mandatoryPointers,
      verificationMethod: vm,
      publicKey,
      secretKey: privateKey,
      documents,
    }),
  )
  const derive = await time(() =>
    engine.derive({ credential: base, selectivePointers: ['/credentialSubject/name'], documents }),
  )
  const verify = await time(() => engine.verify({ credential: derived, documents }))
  // Throughput with 4 operations in flight (one per request, as concurrent holders would).
  const start = performance.now()
  await Promise.all(
    Array.from({ length: 4 * N }, () =>
      engine.derive({ credential: base, selectivePointers: ['/credentialSubject/name'], documents }),
    ),
  )
  const concurrent = ((performance.now() - start) / (4 * N)).toFixed(0)
  await new Promise((resolve) => setTimeout(resolve, 20))
  clearInterval(probe)
  console.log(
    `${label}: sign ${sign} ms, derive ${derive} ms, verify ${verify} ms; derive with 4 in flight ${concurrent} ms/op; longest event-loop stall ${stall.toFixed(0)} ms`,
  )
}

await measure(inlineBbs2023Engine, 'inline (event loop)')
const pool = new Bbs2023Pool()
await measure(pool, `pool (${(await import('node:os')).availableParallelism()} workers)`)
await pool.close()
