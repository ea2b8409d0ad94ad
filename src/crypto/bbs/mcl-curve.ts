import mcl from 'mcl-wasm'

/**
 * mcl's BLS12-381 in WebAssembly (herumi/mcl), for the range proofs and derivation's signature
 * check: one instance per thread, set up once. Points cross to noble and to the library
 * (arkworks) as ZCash-compressed bytes; scalars live as bigints and enter mcl through `fr`.
 */
export type G1 = InstanceType<typeof mcl.G1>
export type G2 = InstanceType<typeof mcl.G2>
export type Scalar = InstanceType<typeof mcl.Fr>

let ready: Promise<void> | undefined
export function initMcl(): Promise<void> {
  ready ??= mcl.init(mcl.BLS12_381).then(() => {
    // ZCash's compressed encoding, the one noble, arkworks (Dock) and the IETF drafts use.
    mcl.setETHserialization(true)
    // G1 subgroup membership is checked where it matters (isValidOrder: the range proof's
    // commitment, every point of a signature check), not on every decode. The setting is per
    // thread: the modules of this folder are mcl's only users in the service.
    mcl.verifyOrderG1(false)
  })
  return ready
}

/** A scalar below r as mcl's Fr. */
export function fr(value: bigint): Scalar {
  const out = new mcl.Fr()
  out.setStr(value.toString(16), 16)
  return out
}
