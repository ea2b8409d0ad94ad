import { bbsVerificationMethodFields } from '../../crypto/bbs/bbs-key-text.js'
import { publicKeyToMultibase } from '../../crypto/did-key.js'
import type { KeyStore } from '../keys/key-store.js'

/**
 * Key-store purposes of the keys issuers signed with before signing identities: held under the
 * login DID and, then, added to its DID document by this service. No new key gets them.
 */
const LEGACY_ED25519 = 'issuer-ed25519'
const LEGACY_BBS = 'issuer-bbs'
const MEMO_MAX = 10_000

/**
 * The verification method `<login DID>#<kid>` of such a key, so credentials, status lists and
 * anonymous proofs signed before the change still verify here (docs/decisions.md "Issuer
 * identity"); undefined for every other id. Public halves never change and no legacy key is made
 * any more, so answers, misses included, are kept.
 */
export function legacyIssuerKeyLookup(keys: KeyStore): (kid: string) => Promise<Record<string, unknown> | undefined> {
  const memo = new Map<string, Record<string, unknown> | null>()
  return async (kid) => {
    const hash = kid.indexOf('#')
    const fragment = kid.slice(hash + 1)
    if (hash < 0 || !fragment.startsWith('key-')) return undefined
    let method = memo.get(kid)
    if (method === undefined) {
      const did = kid.slice(0, hash)
      const info = await keys.publicKey(fragment)
      method = null
      if (info?.owner === did && info.purpose === LEGACY_ED25519)
        method = {
          id: kid,
          controller: did,
          type: 'Multikey',
          publicKeyMultibase: publicKeyToMultibase('ed25519', info.publicKey),
        }
      if (info?.owner === did && info.purpose === LEGACY_BBS)
        method = {
          id: kid,
          controller: did,
          ...bbsVerificationMethodFields(info.publicKey, `credential-service/bbs-params/v1/${did}`),
        }
      if (memo.size >= MEMO_MAX) memo.delete(memo.keys().next().value!)
      memo.set(kid, method)
    }
    return method ?? undefined
  }
}
