import { parseAbi } from 'viem'

/**
 * The registries' interfaces, typed for viem. Hand-written so the service needs no compiler at
 * run time; test/integration/chain-contracts.test.ts checks them against what solc compiles
 * from contracts/*.sol, so the two cannot drift apart unnoticed. The version-1 credential
 * registry (contracts/legacy/) has the same `batchedStatus` and `revokeBatched`, so this ABI
 * also reads and revokes the batches it holds.
 */
export const credentialRegistryAbi = parseAbi([
  'event CredentialRegistered(address indexed registrant, bytes32 indexed issuer, bytes32 indexed credentialHash)',
  'event BatchAnchored(address indexed registrant, bytes32 indexed root, uint32 size)',
  'event CredentialRevoked(address indexed registrant, bytes32 indexed issuer, bytes32 indexed credentialHash)',
  'error ZeroValue()',
  'error NotRegistered()',
  'function register(bytes32 issuer, bytes32 credentialHash)',
  'function anchorBatch(bytes32 root, uint32 size)',
  'function revoke(bytes32 issuer, bytes32 credentialHash)',
  'function revokeBatched(bytes32 issuer, bytes32 credentialHash, bytes32 root, bytes32[] proof)',
  'function status(address registrant, bytes32 issuer, bytes32 credentialHash) view returns (uint64 registeredAt, uint64 revokedAt)',
  'function batchedStatus(address registrant, bytes32 issuer, bytes32 credentialHash, bytes32 root, bytes32[] proof) view returns (uint64 anchoredAt, uint64 revokedAt)',
  'function batch(address registrant, bytes32 root) view returns (uint64 anchoredAt, uint32 size)',
  'function credentialId(bytes32 issuer, bytes32 credentialHash) pure returns (bytes32)',
  'function leaf(bytes32 issuer, bytes32 credentialHash) pure returns (bytes32)',
  'function verifyInclusion(bytes32 root, bytes32 issuer, bytes32 credentialHash, bytes32[] proof) pure returns (bool)',
])

export const schemaRegistryAbi = parseAbi([
  'event SchemaRegistered(address indexed registrant, bytes32 indexed schemaId, bytes32 indexed issuer, bytes32 schemaHash, uint32 version)',
  'error ZeroValue()',
  'error IssuerMismatch()',
  'function register(bytes32 schemaId, bytes32 issuer, bytes32 schemaHash)',
  'function schema(address registrant, bytes32 schemaId) view returns (bytes32 issuer, bytes32 latestHash, uint64 registeredAt, uint32 versions)',
  'function versionRegisteredAt(address registrant, bytes32 schemaId, bytes32 schemaHash) view returns (uint64)',
])

export const consentRegistryAbi = parseAbi([
  'event ConsentGranted(address indexed registrant, bytes32 indexed consentKey, uint64 expiresAt)',
  'event ConsentRevoked(address indexed registrant, bytes32 indexed consentKey)',
  'error ZeroValue()',
  'error NotGranted()',
  'function grant(bytes32 consentKey, uint64 expiresAt)',
  'function revoke(bytes32 consentKey)',
  'function check(address registrant, bytes32 consentKey) view returns (bool valid, uint64 grantedAt, uint64 expiresAt, uint64 revokedAt)',
])
