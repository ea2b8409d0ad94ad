import { SD_JWT_VC } from '../modules/credentials/formats/registered-formats.js'

/**
 * Examples for the OpenAPI document's main routes (the spec's flow: sign in, set up an issuer and a
 * schema, issue or offer, request, verify), keyed by `METHOD path` as the document names the
 * route. openapi-document.ts puts `request` on the JSON request body and each `responses[status]`
 * on that response (OpenAPI 3.0 §4.7.10 Media Type Object, `example`). A test checks that every
 * example is valid against the schema it illustrates and that every key names a route.
 */
export interface OperationExamples {
  request?: unknown
  responses?: Record<string, unknown>
}

const HOLDER = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'
const ISSUER = 'did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH'
const VERIFIER = 'did:key:z6MknGc3ocHs3zdPiJbnaaqDi58NGb4pk1Sp9WxWufuXSdxf'
const WHEN = '2026-11-28T12:00:00.000Z'
const LATER = '2026-11-28T12:05:00.000Z'
const SCHEMA_ID = 'b2c7d0e4-3f5a-4c1e-9a8b-2d6f1e0c4a77'
const VP_JWT =
  'eyJhbGciOiJFZERTQSIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJkaWQ6a2V5Ono2TWtoYVhnQlpEdm90RGtMNTI1N2ZhaXp0aUdpQzJRdEtMR3Bibm5FR3RhMmRvSyIsInZwIjp7fX0.c2lnbmF0dXJl'

const ISSUER_RECORD = {
  did: ISSUER,
  name: 'City University',
  description: 'Issues diplomas and student cards',
  website: 'https://university.example',
  logo_url: null,
  email: 'registrar@university.example',
  require_step_up: false,
  created_at: WHEN,
  updated_at: WHEN,
}

const ATTRIBUTES = [
  { name: 'given_name', data_type: 'string', description: 'Given name', required: true },
  { name: 'birth_date', data_type: 'date', description: 'Date of birth', required: true },
  { name: 'degree', data_type: 'string', description: 'Degree awarded', required: true },
]

export const OPENAPI_EXAMPLES: Record<string, OperationExamples> = {
  'POST /api/auth/challenge': {
    request: { did: HOLDER, purpose: 'login' },
    responses: {
      200: {
        success: true,
        did: HOLDER,
        purpose: 'login',
        challenge: 'Sign in to the credential service: 5f0c1a3e9b7d4e2a8c6f1b0d3e5a7c9f',
        expires_at: LATER,
      },
    },
  },
  'POST /api/auth/verify-challenge': {
    request: {
      did: HOLDER,
      challenge: 'Sign in to the credential service: 5f0c1a3e9b7d4e2a8c6f1b0d3e5a7c9f',
      signature: 'q1Vb1gk9yIPl5ZQHqDAoNcfnQkGm1b3x0A8c_zq0tC2H9m8wUQ1kN3Qw6m1fXh7yL2cJmZp0e4s9t8u7v6w5Bg',
    },
    responses: {
      200: {
        success: true,
        message: 'Authenticated',
        user: {
          did: HOLDER,
          public_key: 'z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
          name: 'Alice',
          email: 'alice@example.org',
        },
        token: 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJkaWQ6a2V5In0.c2lnbmF0dXJl',
        token_type: 'Bearer',
        expires_at: '2026-11-28T13:00:00.000Z',
      },
    },
  },
  'POST /api/issuer': {
    request: {
      name: 'City University',
      description: 'Issues diplomas and student cards',
      website: 'https://university.example',
      email: 'registrar@university.example',
    },
    responses: { 201: { success: true, message: 'Issuer created', issuer: ISSUER_RECORD } },
  },
  'POST /api/issuer/{did}/schemas': {
    request: {
      name: 'University Degree',
      description: 'A degree awarded by the university',
      version: '1.0',
      attributes: ATTRIBUTES.map(({ name, data_type, required }) => ({ name, data_type, required })),
    },
    responses: {
      201: {
        success: true,
        message: 'Schema created',
        schema: {
          id: SCHEMA_ID,
          issuer_did: ISSUER,
          name: 'University Degree',
          description: 'A degree awarded by the university',
          version: '1.0',
          attributes: ATTRIBUTES,
          extensions_allowed: false,
          allowed_extensions: [],
          evidence_allowed: false,
          allowed_evidence: [],
          ipfs_hash: 'bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku',
          on_chain: false,
          blockchain_tx: '',
          anonymous_credentials: true,
          created_at: WHEN,
          updated_at: WHEN,
        },
      },
    },
  },
  'POST /api/issuer/{did}/issue': {
    request: {
      credential_type: 'UniversityDegreeCredential',
      schema_id: SCHEMA_ID,
      subject_did: HOLDER,
      attributes: { given_name: 'Alice', birth_date: '2001-04-12', degree: 'BSc Computer Science' },
      expiration_date: '2031-11-28T00:00:00.000Z',
      format: SD_JWT_VC,
    },
  },
  'POST /api/issuer/{did}/offers': {
    request: {
      credential_type: 'UniversityDegreeCredential',
      schema_id: SCHEMA_ID,
      attributes: { given_name: 'Alice', birth_date: '2001-04-12', degree: 'BSc Computer Science' },
      description: 'Your degree, ready to collect',
      max_uses: 1,
      expires_at: '2026-12-05T12:00:00.000Z',
      format: SD_JWT_VC,
      tx_code: { length: 6, input_mode: 'numeric', description: 'The code we sent you by e-mail' },
    },
  },
  'POST /api/wallet/credential-request': {
    request: {
      issuer_did: ISSUER,
      schema_id: SCHEMA_ID,
      credential_type: 'UniversityDegreeCredential',
      attributes: { given_name: 'Alice', birth_date: '2001-04-12', degree: 'BSc Computer Science' },
      message: 'Please issue my degree',
    },
    responses: {
      201: {
        success: true,
        message: 'Credential request sent',
        request: {
          id: '0f8e2d4c-6b1a-4e3f-8d2c-9a7b5e1f3c60',
          holder_did: HOLDER,
          issuer_did: ISSUER,
          schema_id: SCHEMA_ID,
          offer_id: null,
          credential_type: 'UniversityDegreeCredential',
          attributes: { given_name: 'Alice', birth_date: '2001-04-12', degree: 'BSc Computer Science' },
          message: 'Please issue my degree',
          status: 'pending',
          format: null,
          credential_id: null,
          reason: null,
          decided_at: null,
          created_at: WHEN,
          updated_at: WHEN,
        },
      },
    },
  },
  'POST /api/wallet/{did}/offers/accept': {
    request: {
      offer_uri:
        'openid-credential-offer://?credential_offer_uri=https%3A%2F%2Fservice.example%2Fissuers%2F3f2a9c%2Foid4vci%2Foffers%2Fh7Kq2',
      tx_code: '493817',
    },
  },
  'POST /api/verifier/requests': {
    request: {
      verifier_did: VERIFIER,
      purpose: 'Check that you hold a degree and are over 18',
      required_credentials: [
        { credential_type: 'UniversityDegreeCredential', issuer_did: ISSUER, required_attributes: ['degree'] },
      ],
      required_predicates: [
        { attribute: 'birth_date', operator: '<=', value: '2008-11-28', credential_type: 'UniversityDegreeCredential' },
      ],
      expires_at: '2026-11-28T13:00:00.000Z',
    },
  },
  'POST /api/verifier/presentations': {
    request: { presentation_jwt: VP_JWT, request_id: '7c1d9e3b-2a4f-4b6c-8e0d-5f3a1b9c7e21' },
  },
  'POST /api/verifier/presentations/{id}/verify': {
    request: { presentation_jwt: VP_JWT },
  },
}
