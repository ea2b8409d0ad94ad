import { createHmac } from 'node:crypto'
import { encodeAbiParameters, keccak256, stringToBytes, type Hex } from 'viem'
import { canonicalize } from '../../crypto/jcs.js'
import { ValidationError } from '../../errors.js'
import { normalizeDid } from '../did/did-normalize.js'
import type { BatchValue } from './merkle.js'

/**
 * How service records become on-chain keys (docs/blockchain.md "What goes on chain"). Only
 * hashes go on chain (DESIGN.md principle 4).
 */

/** keccak256 of the canonical DID's UTF-8 bytes. Issuer DIDs are public; the hash only fixes the width. */
export function didKey(did: string): Hex {
  return keccak256(stringToBytes(normalizeDid(did)))
}

/** keccak256 of a schema id's UTF-8 bytes. */
export function schemaKey(schemaId: string): Hex {
  return keccak256(stringToBytes(schemaId))
}

/** A SHA-256 hex digest (credential_hash), with or without 0x, in the stored form: lower case, no prefix. */
export function normalizeHash(hash: string, field = 'credential_hash'): string {
  const match = /^(?:0x)?([0-9a-fA-F]{64})$/.exec(hash.trim())
  if (!match) throw new ValidationError(`${field} must be a SHA-256 digest: 64 hex characters`, { details: { field } })
  return match[1]!.toLowerCase()
}

export const asBytes32 = (hash: string): Hex => `0x${normalizeHash(hash)}`

/** A credential's value in a batch tree (merkle.ts): [keccak256(issuer DID), credential hash]. */
export const batchValue = (issuerDid: string, credentialHash: string): BatchValue => [
  didKey(issuerDid),
  asBytes32(credentialHash),
]

/** The on-chain id of a credential, as CredentialRegistry.credentialId computes it. */
export function credentialChainId(issuerDid: string, credentialHash: string): Hex {
  return keccak256(
    encodeAbiParameters([{ type: 'bytes32' }, { type: 'bytes32' }], [didKey(issuerDid), asBytes32(credentialHash)]),
  )
}

/** The on-chain id of one schema version, as SchemaRegistry computes it. */
export function schemaVersionKey(schemaId: string, schemaHash: string): Hex {
  return keccak256(
    encodeAbiParameters([{ type: 'bytes32' }, { type: 'bytes32' }], [schemaKey(schemaId), asBytes32(schemaHash)]),
  )
}

export interface ConsentTriple {
  holderDid: string
  verifierDid: string
  purpose: string
}

/**
 * The consent key: keccak256(abi.encode(salt, holder DID, verifier DID, purpose)), with
 * salt = HMAC-SHA256(pepper, JCS([holder, verifier, purpose])) and the pepper derived from the
 * service's master key. Without the salt, DIDs and purposes (a small, guessable space) could be
 * confirmed by hashing guesses against the chain; with it, only someone who asks the service
 * about a triple they already know learns its salt (the check route returns it, so that party
 * can verify on chain alone).
 */
export function consentKey(pepper: Uint8Array, triple: ConsentTriple): { key: Hex; salt: Hex } {
  const holder = normalizeDid(triple.holderDid)
  const verifier = normalizeDid(triple.verifierDid)
  const salt: Hex = `0x${createHmac('sha256', pepper)
    .update(canonicalize([holder, verifier, triple.purpose]))
    .digest('hex')}`
  const key = keccak256(
    encodeAbiParameters(
      [{ type: 'bytes32' }, { type: 'string' }, { type: 'string' }, { type: 'string' }],
      [salt, holder, verifier, triple.purpose],
    ),
  )
  return { key, salt }
}
