import type { Openid4vpVerifier } from '@openid4vc/openid4vp'
import { ValidationError } from '../../../errors.js'
import type { OpenedPresentation } from '../../credentials/formats/presentation-kind.js'

/** One transaction data item as the verifier gives it (OID4VP 1.0 §5.1): its type-specific fields beside these. */
export interface TransactionDataItem {
  type: string
  credential_ids?: string[]
  transaction_data_hashes_alg?: string[]
  [field: string]: unknown
}

/** An encoded item past this is refused: it travels in the request object, which a wallet fetches whole. */
const MAX_ENCODED = 8_192

/**
 * The request's `transaction_data` (OID4VP 1.0 §5.1): each item base64url-encoded JSON, its
 * `credential_ids` the DCQL query ids that may authorize it (all of the request's when not given;
 * a name that is no query id of the request is a 400).
 */
export function encodeTransactionData(items: TransactionDataItem[], queryIds: string[]): string[] {
  return items.map((item, i) => {
    const field = `transaction_data[${i}]`
    const unknown = item.credential_ids?.find((id) => !queryIds.includes(id))
    if (unknown !== undefined)
      throw new ValidationError(
        `${field}.credential_ids names ${JSON.stringify(unknown)}, which is no credential query of this request (${queryIds.join(', ')})`,
        { details: { field: `${field}.credential_ids` } },
      )
    const encoded = Buffer.from(JSON.stringify({ ...item, credential_ids: item.credential_ids ?? queryIds })).toString(
      'base64url',
    )
    if (encoded.length > MAX_ENCODED)
      throw new ValidationError(`${field} is too large (over ${MAX_ENCODED} characters encoded)`, {
        details: { field },
      })
    return encoded
  })
}

/**
 * Whether the holder proofs bind every transaction data item (OID4VP 1.0 §8.4, Appendix B.3.3):
 * for each item, a presentation answering one of its `credential_ids` whose KB-JWT carries the
 * item's hash in `transaction_data_hashes` (with `transaction_data_hashes_alg` one the item
 * allows, sha-256 by default); the library compares. Undefined when all are bound, else why not.
 */
export async function transactionDataProblem(
  verifier: Openid4vpVerifier,
  transactionData: string[],
  presented: Array<{ id: string; opened: OpenedPresentation | undefined }>,
): Promise<string | undefined> {
  type Hashes = { transaction_data_hashes: string[]; transaction_data_hashes_alg?: string }
  const credentials: Record<string, [Hashes, ...Hashes[]]> = {}
  for (const { id, opened } of presented) {
    const claims = opened?.holderClaims
    if (!claims) continue
    const hashes = Array.isArray(claims.transaction_data_hashes)
      ? claims.transaction_data_hashes.filter((h): h is string => typeof h === 'string')
      : []
    const alg = typeof claims.transaction_data_hashes_alg === 'string' ? claims.transaction_data_hashes_alg : undefined
    const entry: Hashes = { transaction_data_hashes: hashes, ...(alg ? { transaction_data_hashes_alg: alg } : {}) }
    const list = credentials[id]
    if (list) list.push(entry)
    else credentials[id] = [entry]
  }
  try {
    await verifier.verifyTransactionData({ transactionData, credentials })
    return undefined
  } catch (error) {
    const e = error as { errorResponse?: { error_description?: string }; message?: string }
    return `transaction_data: ${e.errorResponse?.error_description ?? e.message ?? 'not bound by the holder proofs'}`
  }
}
