/** A schema as an OpenID4VCI credential configuration describes it. */
export interface Oid4vciSchema {
  id: string
  name: string
  description: string
  attributes: Array<{ name: string; data_type: string; description: string; required: boolean }>
  /** ISO/IEC 18013-5: the doctype and namespace of its mdocs; null or absent when it has none. */
  mdoc?: { doctype: string; namespace: string } | null
}

/**
 * What a format means to OpenID4VCI 1.0: the format identifier it is served under (Appendix A),
 * the members of a credential configuration that are its own, and how a credential response
 * carries it. The issuer adds what every configuration has (scope, proof types, display, claims).
 */
export interface Oid4vciFace {
  /** Its OpenID4VCI format identifier, also the suffix of its configuration ids (`<schema_id>.<format>`). */
  readonly format: string
  /**
   * Its members of a schema's credential configuration: `format` first, then its type (`vct`,
   * `credential_definition`, `doctype`), binding methods and signing algorithms; undefined when
   * the schema cannot be issued in it (an mdoc of a schema naming no doctype).
   */
  configuration(schema: Oid4vciSchema, publicBaseUrl: string): Record<string, unknown> | undefined
  /** The claims path of a schema attribute in its credentials (Appendix B.2; an mdoc's `[namespace, element]`). */
  claimPath(attribute: string, schema: Oid4vciSchema): string[]
  /**
   * The JWS algorithms of the key proofs it can bind (§12.2.4 `proof_signing_alg_values_supported`);
   * without it, every proof algorithm the issuer accepts. A proof in another is `invalid_proof`.
   */
  readonly proofAlgs?: readonly string[]
  /** Why a key proof in another algorithm cannot be bound, for the `invalid_proof` description. */
  readonly proofAlgsReason?: string
  /** The stored credential as a credential response carries it (§8.3); without it, the stored string. */
  wireForm?(stored: string): string | Record<string, unknown>
}
