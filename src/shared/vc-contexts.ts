/** The base JSON-LD contexts of the W3C Verifiable Credentials Data Model, 1.1 (§4.1) and 2.0 (§4.3). */
export const VC_V1 = 'https://www.w3.org/2018/credentials/v1'
export const VC_V2 = 'https://www.w3.org/ns/credentials/v2'
/** The Bitstring Status List context (Bitstring Status List v1.0 §2.1): what a VCDM 1.1 credential names to use its terms. */
export const BITSTRING_STATUS_V1 = 'https://www.w3.org/ns/credentials/status/v1'
