/** A schema as an OpenID4VCI credential configuration describes it. */
export interface Oid4vciSchema {
  id: string
  name: string
  description: string
  attributes: Array<{ name: string; data_type: string; description: string; required: boolean }>
}

/**
 * What a format means to OpenID4VCI 1.0: the format identifier it is served under (Appendix A),
 * the members of a credential configuration that are its own, and how a credential response
 * carries it. The issuer adds what every configuration has (scope, proof types, display, claims).
 */
export interface Oid4vciFace {
  /** Its OpenID4VCI format identifier, also the suffix of its configuration ids (`<schema_id>.<format>`). */
  readonly format: string
  /** Its members of a schema's credential configuration: `format` first, then its type (`vct`, `credential_definition`), binding methods and signing algorithms. */
  configuration(schema: Oid4vciSchema, publicBaseUrl: string): Record<string, unknown>
  /** The claims path of a schema attribute in its credentials (Appendix B.2). */
  claimPath(attribute: string): string[]
  /** The stored credential as a credential response carries it (§8.3); without it, the stored string. */
  wireForm?(stored: string): string | Record<string, unknown>
}
