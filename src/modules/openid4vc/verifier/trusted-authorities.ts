import * as x509 from '@peculiar/x509'
import type { DcqlFormat } from '../../credentials/formats/format-registry.js'

/** More roots than this are not listed: the query then names no authorities (any issuer the checks on receipt trust). */
const MAX_AUTHORITIES = 100

/**
 * The `aki` values of trusted roots (OID4VP 1.0 §6.1.1.1): each root's subject key identifier,
 * which the AuthorityKeyIdentifier of the certificates it issued carries (RFC 5280 §4.2.1.1),
 * base64url. A root without one is left out (nothing in a chain could name it).
 */
export function akiValues(roots: readonly Uint8Array[]): string[] {
  const values = new Set<string>()
  for (const der of roots) {
    const ski = new x509.X509Certificate(new Uint8Array(der)).getExtension(x509.SubjectKeyIdentifierExtension)
    if (ski) values.add(Buffer.from(ski.keyId, 'hex').toString('base64url'))
  }
  return [...values]
}

/** The query with `trusted_authorities` on each credential query of a format whose issuers are X.509-anchored. */
export function withTrustedAuthorities<Q extends { credentials: ReadonlyArray<{ format: string }> }>(
  query: Q,
  formats: readonly DcqlFormat[],
  values: string[],
): Q {
  if (values.length === 0 || values.length > MAX_AUTHORITIES) return query
  const anchored = new Set(formats.filter((f) => f.dcql.x509Issuers).map((f) => f.id))
  return {
    ...query,
    credentials: query.credentials.map((c) =>
      anchored.has(c.format) ? { ...c, trusted_authorities: [{ type: 'aki', values }] } : c,
    ),
  }
}

/**
 * The query as the service checks answers against it: without `trusted_authorities`, which the
 * checks on receipt enforce by verifying each chain to the trusted roots themselves.
 */
export function withoutTrustedAuthorities<Q extends { credentials: readonly object[] }>(query: Q): Q {
  return {
    ...query,
    credentials: query.credentials.map((c) => {
      const { trusted_authorities: _, ...rest } = c as { trusted_authorities?: unknown }
      return rest
    }),
  }
}
