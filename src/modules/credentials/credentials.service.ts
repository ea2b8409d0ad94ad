/**
 * What the credentials module offers the issuer and presentation modules: issued credentials
 * stored, found, listed, revoked and counted. Each takes the caller's `db`: its transaction
 * when the write must commit with the caller's own (issuance with its chain anchor, revocation
 * with its chain job).
 */
export {
  findCredentialByCid,
  findCredentialOwner,
  findIssuedCredential,
  insertCredentialsWithActivity,
  listIssuedCredentials,
  markRevoked,
} from './credentials.repository.js'
