import { ALGORITHMS, generateBbsKeyPair } from '@digitalbazaar/bls12-381-multikey'

/** The IETF BBS ciphersuite the bbs-2023 cryptosuite signs with (draft-irtf-cfrg-bbs-signatures §7.2). */
export const IETF_BBS_ALGORITHM = ALGORITHMS.BBS_BLS12381_SHA256

/**
 * A key pair of the IETF BBS ciphersuite BLS12-381-SHA-256 (KeyGen §3.4.1): a 32-byte secret
 * scalar and the 96-byte compressed G2 public key, through @digitalbazaar/bls12-381-multikey.
 * Dock's BBS keys (crypto/bbs) are points of the same group but pair with other generators.
 */
export async function generateIetfBbsKeyPair(): Promise<{ publicKey: Uint8Array; privateKey: Uint8Array }> {
  const pair = await generateBbsKeyPair({ algorithm: IETF_BBS_ALGORITHM })
  return { publicKey: pair.publicKey, privateKey: pair.secretKey }
}
