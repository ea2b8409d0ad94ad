/**
 * Where the VC API's Data Integrity cost goes (`npx tsx bench/vc-api-cost.ts`), on the credential
 * `BENCH_ONLY=vc-api npm run bench` issues, measured alone on the event loop, medians of N runs:
 * RDFC-1.0 canonicalization of the credential, JCS of it, one Ed25519 signature, and for bbs-2023
 * the whole base signature / derivation / verification (the service's own bbs-2023 core, as the
 * worker pool runs it). Figures go to bench/README.md "W3C VC API".
 */
import { generateKeyPairSync, sign } from 'node:crypto'
import canonicalize from 'canonicalize'
import jsonld from 'jsonld'
import { publicKeyToMultibase } from '../src/crypto/did-key.js'
import { generateIetfBbsKeyPair } from '../src/crypto/ietf-bbs-keys.js'
import { inlineBbs2023Engine as engine } from '../src/modules/credentials/formats/bbs-2023/bbs-2023-engine.js'
import { STATIC_CONTEXTS } from '../src/modules/credentials/formats/shared/document-loader.js'
import { benchCredential } from './lib/vc-api-run.js'
import { median } from './lib/stats.js'

const N = Number(process.env.N ?? 15)
const { publicKey, privateKey } = await generateIetfBbsKeyPair()
const did = `did:key:${publicKeyToMultibase('bls12381g2', publicKey)}`
const vm = `${did}#${did.slice('did:key:'.length)}`
const method = { id: vm, type: 'Multikey', controller: did, publicKeyMultibase: did.slice('did:key:'.length) }
const documents = {
  [vm]: { '@context': 'https://w3id.org/security/multikey/v1', ...method },
  [did]: {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: did,
    assertionMethod: [vm],
    verificationMethod: [method],
  },
}
const document = benchCredential(did, 7)
const documentLoader = async (url: string) => {
  const found = STATIC_CONTEXTS.get(url)
  if (found === undefined) throw new Error(`not bundled: ${url}`)
  return { contextUrl: null, documentUrl: url, document: found }
}

async function time(label: string, op: () => Promise<unknown> | unknown): Promise<number> {
  await op()
  const runs: number[] = []
  for (let i = 0; i < N; i++) {
    const start = performance.now()
    await op()
    runs.push(performance.now() - start)
  }
  const ms = median(runs)
  console.log(`${label.padEnd(58)} ${ms.toFixed(ms < 1 ? 3 : 1)} ms`)
  return ms
}

const nquads = (await jsonld.canonize(
  document as never,
  { algorithm: 'RDFC-1.0', format: 'application/n-quads', documentLoader, safe: true } as never,
)) as unknown as string
const messages = nquads
  .trim()
  .split('\n')
  .map((q) => new TextEncoder().encode(q))
console.log(
  `credential: ${messages.length} N-Quads, ${JSON.stringify(document).length} bytes of JSON; ${N} runs each, medians\n`,
)

await time('RDFC-1.0 canonicalization of the credential (jsonld)', () =>
  jsonld.canonize(document, {
    algorithm: 'RDFC-1.0',
    format: 'application/n-quads',
    documentLoader,
    safe: true,
  } as never),
)
await time('JCS (RFC 8785) of the credential', () => canonicalize(document))
const ed = generateKeyPairSync('ed25519')
await time('one Ed25519 signature (node:crypto)', () => sign(null, Buffer.from(nquads), ed.privateKey))

const base = await engine.signBase({
  document,
  mandatoryPointers: ['/issuer'],
  verificationMethod: vm,
  publicKey,
  secretKey: privateKey,
  documents,
})
const derived = await engine.derive({ credential: base, selectivePointers: ['/credentialSubject/name'], documents })
console.log('')
await time('bbs-2023 base signature, whole (vc.issue)', () =>
  engine.signBase({
    document,
    mandatoryPointers: ['/issuer'],
    verificationMethod: vm,
    publicKey,
    secretKey: privateKey,
    documents,
  }),
)
await time('bbs-2023 derivation, whole (vc.derive)', () =>
  engine.derive({ credential: base, selectivePointers: ['/credentialSubject/name'], documents }),
)
await time('bbs-2023 verification of a derived proof, whole', () => engine.verify({ credential: derived, documents }))
