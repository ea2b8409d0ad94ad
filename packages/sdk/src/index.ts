/** @credential-service/sdk: a typed client of the credential service and the holder's cryptography (Node and browser). */
export type { paths, components } from './generated/schema.js'
export { ServiceError } from './errors.js'
export { createServiceClient, type ServiceClient, type ServiceClientOptions, type Session } from './client.js'
export { takesIdempotencyKey, type RetryOptions } from './retry.js'
export {
  generateHolderKey,
  exportHolderKey,
  importHolderKey,
  holderDidJwk,
  type HolderKey,
  type HolderAlg,
} from './keys.js'
export {
  completeJws,
  completePrepared,
  completePreparedFor,
  signVpJwt,
  createKeyProof,
  signKbJwt,
  type PreparedToSign,
} from './jws.js'
export { acceptOffer, type AcceptOfferResult } from './flows/accept-offer.js'
export { answerPresentationRequest, type AnswerResult } from './flows/answer-presentation-request.js'
export {
  resolveOffer,
  declineOffer,
  previewedOf,
  type OfferPreview,
  type DeclineOfferResult,
} from './flows/preview-offer.js'
export { resolveRequest, type RequestPreview, type DeclineResult } from './flows/preview-request.js'
export { presentToRequest, type Predicate } from './flows/present-to-request.js'
export { mdocSummary, type MdocSummary, type WalletCredentialFields } from './mdoc-summary.js'
export { parseQrPayload, resolveQrPayload, type QrPayload, type QrPayloadKind } from './qr.js'
export { signIn } from './sign-in.js'
export {
  createIssuerClient,
  type IssuerClient,
  type CreatedOffer,
  type IssuerProfileInput,
  type IssuerProfile,
  type SchemaInput,
  type CredentialSchema,
  type IssueInput,
  type IssuedCredential,
  type OfferInput,
  type RevokedCredential,
} from './issuer/issuer-client.js'
export {
  createVerifierClient,
  type VerifierClient,
  type CreatedPresentationRequest,
  type RequestResult,
  type WaitOptions,
  type VerifierProfileInput,
  type VerifierProfile,
  type PresentationRequestInput,
  type PresentationRequest,
  type Presentation,
  type VerificationOutcome,
} from './verifier/verifier-client.js'
