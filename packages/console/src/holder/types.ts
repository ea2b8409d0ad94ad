/** The wallet's records as the console reads them (the routes' JSON; fields the console uses). */
export interface CredentialView {
  id: string
  credential_type: string
  issuer_did: string
  issuer_name: string
  status: string
  signature_type: string
  jwt: string
  credential_data: Record<string, unknown>
  expiration_date: string | null
  expired: boolean
  withdrawn: boolean
  source: 'issued' | 'imported'
  created_at: string
}

export interface RequestView {
  id: string
  verifier_did: string
  /** The verifier profile's name; null or absent when it has none. */
  verifier_name?: string | null
  purpose: string
  presentation_type: string
  required_credentials: Array<{ credential_type: string; required_attributes?: string[] }>
  required_predicates: Array<{ attribute: string; operator: string; value: number | string }>
}
