/** The base JSON-LD contexts of the W3C Verifiable Credentials Data Model, 1.1 (§4.1) and 2.0 (§4.3). */
export const VC_V1 = 'https://www.w3.org/2018/credentials/v1'
export const VC_V2 = 'https://www.w3.org/ns/credentials/v2'
