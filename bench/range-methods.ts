/**
 * `npx tsx bench/range-methods.ts [runs]`: what each bound-check protocol of
 * @docknetwork/crypto-wasm-ts costs for one predicate over a BBS credential laid out as the service
 * signs it (13 messages: the 9 meta slots of layout v2 + 4 attributes), two revealed, and what the
 * service's own derivation (bbs-core.ts: Bulletproofs++, one composite proof) costs for one and two
 * bounds. Derive and verify medians, with every param already decoded (as a worker keeps them),
 * and the proof size. The evidence behind the method choice in docs/anonymous-proofs.md; run on
 * an idle machine for stable figures (medians over `runs`, default 25, after 3 warm-up runs).
 * `SKIP_LIBRARY=1` measures only the service's derivation.
 */
import dock from '@docknetwork/crypto-wasm-ts'
import { RANGE_PARAMS_LABEL } from '../src/crypto/bbs/anonymous-proof-format.js'
import * as core from '../src/crypto/bbs/bbs-core.js'
import {
  credentialMessages,
  ENCODED_RANGE,
  encodeIntegerValue,
  messageIndex,
  type AnonCredentialContent,
} from '../src/crypto/bbs/bbs-messages.js'

const {
  initializeWasm,
  BBSSignatureParams,
  BBSSecretKey,
  BBSSignature,
  BoundCheckBppParams,
  BoundCheckSmcParams,
  BoundCheckSmcWithKVSetup,
  BoundCheckSnarkSetup,
  CompositeProof,
  MetaStatements,
  QuasiProofSpec,
  SetupParam,
  Statement,
  Statements,
  Witness,
  WitnessEqualityMetaStatement,
  Witnesses,
} = dock

const RUNS = Number(process.argv[2] ?? 25)
const utf8 = (s: string) => new TextEncoder().encode(s)
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

const content: AnonCredentialContent = {
  meta: {
    id: 'aly:00000000-0000-4000-8000-000000000000',
    type: 'Identity',
    issuer: 'did:key:z6MkIssuer',
    subject: 'did:key:z6MkHolder',
    schema_id: 'schema-1',
    issued_at: '2026-11-22T12:00:00.000Z',
  },
  attributes: { given_name: 'Ada', age: 36, birth_date: '1990-12-10', nationality: 'GB' },
  types: { given_name: 'string', age: 'number', birth_date: 'date', nationality: 'string' },
}

interface Method {
  name: string
  /** Setup params the proof spec references (index 0), already decoded. */
  prover: InstanceType<typeof SetupParam>
  verifier: InstanceType<typeof SetupParam>
  proverStmt: (min: number, max: number) => Uint8Array
  verifierStmt: (min: number, max: number) => Uint8Array
  witness: (m: Uint8Array) => Uint8Array
  paramsBytes: number
  setupMs: number
}

async function main(): Promise<void> {
  await initializeWasm()
  const messages = credentialMessages(content)
  const encoded = messages.map((m) =>
    m.encoding === 'integer'
      ? BBSSignature.encodePositiveNumberForSigning(m.value as number)
      : BBSSignature.encodeMessageForSigningConstantTime(utf8(m.value as string)),
  )
  const params = BBSSignatureParams.generate(messages.length, utf8('bench/bbs-params'))
  const sk = BBSSecretKey.generate()
  const pk = sk.generatePublicKey(params)
  const sig = BBSSignature.generate(encoded, sk, params, false)
  const reveal = [messageIndex(content, '@issuer'), messageIndex(content, 'nationality')]
  const revealed = new Map<number, Uint8Array>()
  const hidden = new Map<number, Uint8Array>()
  encoded.forEach((m, i) => (reveal.includes(i) ? revealed : hidden).set(i, m))
  const nonce = utf8('bench nonce')

  const time = <T>(fn: () => T): [T, number] => {
    const t = performance.now()
    const r = fn()
    return [r, performance.now() - t]
  }

  const methods: Method[] = []
  if (process.env.SKIP_LIBRARY !== '1') {
    {
      const [p, setupMs] = time(() => new BoundCheckBppParams(utf8('bench/bpp')).decompress())
      const sp = SetupParam.bppSetupParamsUncompressed(p)
      methods.push({
        name: 'Bulletproofs++ (base 2, 64-bit, fixed by the library)',
        prover: sp,
        verifier: sp,
        proverStmt: (a, b) => Statement.boundCheckBppFromSetupParamRefs(a, b, 0),
        verifierStmt: (a, b) => Statement.boundCheckBppFromSetupParamRefs(a, b, 0),
        witness: Witness.boundCheckBpp,
        paramsBytes: new BoundCheckBppParams(utf8('bench/bpp')).bytes.length,
        setupMs,
      })
    }
    for (const base of [2, 4, 8, 16, 32, 64]) {
      const [compressed, setupMs] = time(() => new BoundCheckSmcParams(utf8('bench/smc'), base))
      const sp = SetupParam.smcSetupParamsUncompressed(compressed.decompress())
      methods.push({
        name: `set-membership (CLS sumset), base ${base}`,
        prover: sp,
        verifier: sp,
        proverStmt: (a, b) => Statement.boundCheckSmcFromSetupParamRefs(a, b, 0),
        verifierStmt: (a, b) => Statement.boundCheckSmcFromSetupParamRefs(a, b, 0),
        witness: Witness.boundCheckSmc,
        paramsBytes: compressed.bytes.length,
        setupMs,
      })
    }
    {
      const [[pp, vp], setupMs] = time(() => BoundCheckSmcWithKVSetup(utf8('bench/smc-kv'), 16))
      const p = SetupParam.smcSetupParamsUncompressed(pp.decompress())
      const v = SetupParam.smcSetupParamsWithSkUncompressed(vp.decompress())
      methods.push({
        name: 'set-membership, keyed verification (designated verifier), base 16',
        prover: p,
        verifier: v,
        proverStmt: (a, b) => Statement.boundCheckSmcWithKVProverFromSetupParamRefs(a, b, 0),
        verifierStmt: (a, b) => Statement.boundCheckSmcWithKVVerifierFromSetupParamRefs(a, b, 0),
        witness: Witness.boundCheckSmcWithKV,
        paramsBytes: pp.bytes.length,
        setupMs,
      })
    }
    if (process.env.SKIP_LEGO !== '1') {
      const [pk2, setupMs] = time(() => BoundCheckSnarkSetup())
      const p = SetupParam.legosnarkProvingKeyUncompressed(pk2.decompress())
      const v = SetupParam.legosnarkVerifyingKeyUncompressed(pk2.getVerifyingKeyUncompressed())
      methods.push({
        name: 'LegoGroth16 (circuit-specific trusted setup)',
        prover: p,
        verifier: v,
        proverStmt: (a, b) => Statement.boundCheckLegoProverFromSetupParamRefs(a, b, 0),
        verifierStmt: (a, b) => Statement.boundCheckLegoVerifierFromSetupParamRefs(a, b, 0),
        witness: Witness.boundCheckLegoGroth16,
        paramsBytes: pk2.bytes.length,
        setupMs,
      })
    }
  }

  const numberIndex = messageIndex(content, 'age')
  const dateIndex = messageIndex(content, 'birth_date')
  const cases = [
    {
      label: 'age >= 18 (number domain, ~50 bits)',
      index: numberIndex,
      min: encodeIntegerValue('number', 18),
      max: ENCODED_RANGE.number.maxExclusive,
    },
    {
      label: 'birth_date <= 2008-11-22 (date domain, ~22 bits)',
      index: dateIndex,
      min: ENCODED_RANGE.date.min,
      max: encodeIntegerValue('date', '2008-11-22') + 1,
    },
  ]

  const spec = (
    statements: InstanceType<typeof Statements>,
    stmt: Uint8Array,
    index: number,
    setup: InstanceType<typeof SetupParam>,
  ) => {
    const s = statements.add(stmt)
    const eq = new WitnessEqualityMetaStatement()
    eq.addWitnessRef(0, index)
    eq.addWitnessRef(s, 0)
    const metas = new MetaStatements()
    metas.addWitnessEquality(eq)
    return new QuasiProofSpec(statements, metas, [setup])
  }

  // Baseline: the signature proof of knowledge alone, and the signature check deriveProof does first.
  {
    const derive: number[] = []
    const verify: number[] = []
    const sigCheck: number[] = []
    let size = 0
    for (let i = 0; i < RUNS + 3; i++) {
      const [proof, d] = time(() =>
        CompositeProof.generateUsingQuasiProofSpec(
          new QuasiProofSpec(new Statements(Statement.bbsSignatureProverConstantTime(params, revealed, false))),
          new Witnesses(Witness.bbsSignatureConstantTime(sig, hidden, false)),
          nonce,
        ),
      )
      const [ok, v] = time(
        () =>
          proof.verifyUsingQuasiProofSpec(
            new QuasiProofSpec(new Statements(Statement.bbsSignatureVerifierConstantTime(params, pk, revealed, false))),
            nonce,
          ).verified,
      )
      const [, s] = time(() => sig.verify(encoded, pk, params, false))
      if (!ok) throw new Error('baseline proof does not verify')
      size = proof.bytes.length
      if (i >= 3) {
        derive.push(d)
        verify.push(v)
        sigCheck.push(s)
      }
    }
    console.log(
      `baseline, no predicate: derive ${median(derive).toFixed(1)} ms, verify ${median(verify).toFixed(1)} ms, proof ${size} B; signature check ${median(sigCheck).toFixed(1)} ms`,
    )
  }

  for (const method of methods) {
    for (const c of cases) {
      const runs = method.name.startsWith('LegoGroth16')
        ? Math.min(RUNS, 7)
        : method.name.includes('base 2,') || method.name.endsWith('base 2')
          ? Math.min(RUNS, 9)
          : RUNS
      const derive: number[] = []
      const verify: number[] = []
      let size = 0
      for (let i = 0; i < runs + 2; i++) {
        const [proof, d] = time(() => {
          const witnesses = new Witnesses(Witness.bbsSignatureConstantTime(sig, hidden, false))
          witnesses.add(method.witness(encoded[c.index]!))
          const statements = new Statements(Statement.bbsSignatureProverConstantTime(params, revealed, false))
          return CompositeProof.generateUsingQuasiProofSpec(
            spec(statements, method.proverStmt(c.min, c.max), c.index, method.prover),
            witnesses,
            nonce,
          )
        })
        const [ok, v] = time(() => {
          const statements = new Statements(Statement.bbsSignatureVerifierConstantTime(params, pk, revealed, false))
          return proof.verifyUsingQuasiProofSpec(
            spec(statements, method.verifierStmt(c.min, c.max), c.index, method.verifier),
            nonce,
          ).verified
        })
        if (!ok) throw new Error(`${method.name}: proof does not verify`)
        size = proof.bytes.length
        if (i >= 2) {
          derive.push(d)
          verify.push(v)
        }
      }
      console.log(
        `${method.name} | ${c.label}: derive ${median(derive).toFixed(1)} ms, verify ${median(verify).toFixed(1)} ms, proof ${size} B (n=${runs}); params ${method.paramsBytes} B compressed, setup ${method.setupMs.toFixed(0)} ms`,
      )
    }
  }

  // The service's derivation on the same cases, one bound each and both in one composite proof.
  await core.initBbs()
  const label = 'bench/bbs-params'
  const pair = core.generateKeyPair(label)
  const signature = core.sign(pair.secretKey, label, messages)
  const serviceCases = [
    ...cases.map((c) => ({ label: c.label, bounds: [{ index: c.index, min: c.min, maxExclusive: c.max }] })),
    {
      label: 'both bounds in one proof',
      bounds: cases.map((c) => ({ index: c.index, min: c.min, maxExclusive: c.max })),
    },
  ]
  for (const c of serviceCases) {
    const runs = Math.min(RUNS, 11)
    const derive: number[] = []
    const verify: number[] = []
    let size = 0
    for (let i = 0; i < runs + 2; i++) {
      const [proof, d] = time(() =>
        core.deriveProof({
          publicKey: pair.publicKey,
          paramsLabel: label,
          messages,
          signature,
          reveal,
          bounds: c.bounds,
          nonce,
          rangeParamsLabel: RANGE_PARAMS_LABEL,
        }),
      )
      const [ok, v] = time(() =>
        core.verifyProof({
          ...proof,
          publicKey: pair.publicKey,
          paramsLabel: label,
          nonce,
          rangeParamsLabel: RANGE_PARAMS_LABEL,
        }),
      )
      if (!ok) throw new Error('service derivation: proof does not verify')
      size = proof.proof.length
      if (i >= 2) {
        derive.push(d)
        verify.push(v)
      }
    }
    console.log(
      `the service (bbs-core: Bulletproofs++, signature pre-check included) | ${c.label}: derive ${median(derive).toFixed(1)} ms, verify ${median(verify).toFixed(1)} ms, proof ${size} B (n=${runs})`,
    )
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
