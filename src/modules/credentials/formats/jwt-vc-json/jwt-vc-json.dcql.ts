import type { DcqlCredentialPresentation } from 'dcql'
import type { DcqlCredentialQuery, DcqlFace } from '../credential-format.js'

const FORMAT = 'jwt_vc_json'

/**
 * `jwt_vc_json` asked for over OpenID4VP (OID4VP 1.0 §B.1.3.1): a VP-JWT whose credentials are
 * JWT-VCs of the type (`meta.type_values`), the claims being members of `credentialSubject`. A Dock
 * BBS derived proof answers it too, inside the same VP-JWT: DCQL has no format identifier for
 * those, and the VP-JWT carries the nonce and audience.
 */
export const jwtVcJsonDcql: DcqlFace = {
  querySuffix: 'jwt_vc',

  vpFormatSupported: (algs) => ({ alg_values: [...algs] }),

  query({ type, claims }) {
    if (!type) return undefined
    return {
      format: FORMAT,
      meta: { type_values: [[type]] },
      ...(claims.length ? { claims: claims.map((n) => ({ path: ['credentialSubject', n] })) } : {}),
    } as DcqlCredentialQuery
  },

  claimOf(path) {
    const name = path[0] === 'credentialSubject' ? path[1] : path[0]
    return typeof name === 'string' ? name : undefined
  },

  presented(c) {
    // A derived proof answers a claim it proves a predicate on without disclosing it (the value is checked by presentation-requirements.ts).
    const proven = Object.fromEntries(
      (c.proven?.predicates ?? [])
        .filter((p) => !Object.hasOwn(c.attributes, p.attribute))
        .map((p) => [p.attribute, `${p.operator} ${p.value}`]),
    )
    return {
      credential_format: FORMAT,
      type: c.types,
      claims: { credentialSubject: { ...proven, ...c.attributes } },
      cryptographic_holder_binding: true,
    } as DcqlCredentialPresentation
  },
}
