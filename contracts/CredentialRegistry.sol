// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {MerkleProof} from "@openzeppelin/contracts/utils/cryptography/MerkleProof.sol";

/// @title Credential registry: credential hashes anchored one by one or as Merkle batches.
/// @notice Every record lives in the namespace of the account that wrote it (the registrant).
/// A verifier asks about a (registrant, issuer, credential hash) triple, where the registrant is
/// the account it trusts to speak for the issuer: the issuer's own account, or the anchoring
/// account of the service that issues for it (docs/blockchain.md, "Anchoring account"). Nobody
/// else can register, batch or revoke in that namespace, so only the registering party can
/// revoke what it registered.
/// @dev `issuer` is keccak256 of the issuer DID's UTF-8 bytes, `credentialHash` the SHA-256 of
/// the credential's RFC 8785 form. Batches are OpenZeppelin standard Merkle trees
/// (StandardMerkleTree of OpenZeppelin's merkle-tree npm package, leaf encoding ['bytes32',
/// 'bytes32'] of (issuer, credentialHash)) checked with OpenZeppelin's MerkleProof, so
/// standard tools check an inclusion. Batches of the version-1 tree live in contracts/legacy/CredentialRegistryV1.sol.
/// Writes are idempotent (a repeat is a no-op without an event) so an outbox may safely resend
/// a transaction whose fate it does not know.
contract CredentialRegistry {
    struct Batch {
        uint64 anchoredAt;
        uint32 size;
    }

    /// registrant => credential id => block time of a single registration
    mapping(address => mapping(bytes32 => uint64)) private _registeredAt;
    /// registrant => credential id => block time of the revocation
    mapping(address => mapping(bytes32 => uint64)) private _revokedAt;
    /// registrant => Merkle root => batch
    mapping(address => mapping(bytes32 => Batch)) private _batches;

    event CredentialRegistered(address indexed registrant, bytes32 indexed issuer, bytes32 indexed credentialHash);
    event BatchAnchored(address indexed registrant, bytes32 indexed root, uint32 size);
    event CredentialRevoked(address indexed registrant, bytes32 indexed issuer, bytes32 indexed credentialHash);

    error ZeroValue();
    error NotRegistered();

    /// @notice Registers one credential hash.
    function register(bytes32 issuer, bytes32 credentialHash) external {
        if (issuer == bytes32(0) || credentialHash == bytes32(0)) revert ZeroValue();
        bytes32 id = credentialId(issuer, credentialHash);
        if (_registeredAt[msg.sender][id] != 0) return;
        _registeredAt[msg.sender][id] = uint64(block.timestamp);
        emit CredentialRegistered(msg.sender, issuer, credentialHash);
    }

    /// @notice Anchors the root of a standard Merkle tree of `size` credential leaves (see `leaf`).
    function anchorBatch(bytes32 root, uint32 size) external {
        if (root == bytes32(0) || size == 0) revert ZeroValue();
        if (_batches[msg.sender][root].anchoredAt != 0) return;
        _batches[msg.sender][root] = Batch(uint64(block.timestamp), size);
        emit BatchAnchored(msg.sender, root, size);
    }

    /// @notice Revokes a credential registered singly by the caller.
    function revoke(bytes32 issuer, bytes32 credentialHash) external {
        bytes32 id = credentialId(issuer, credentialHash);
        if (_registeredAt[msg.sender][id] == 0) revert NotRegistered();
        _revoke(id, issuer, credentialHash);
    }

    /// @notice Revokes a credential the caller anchored in batch `root`; `proof` shows it is in it.
    function revokeBatched(bytes32 issuer, bytes32 credentialHash, bytes32 root, bytes32[] calldata proof) external {
        if (_batches[msg.sender][root].anchoredAt == 0 || !verifyInclusion(root, issuer, credentialHash, proof)) {
            revert NotRegistered();
        }
        _revoke(credentialId(issuer, credentialHash), issuer, credentialHash);
    }

    /// @notice State of a singly registered credential (0 = never).
    function status(address registrant, bytes32 issuer, bytes32 credentialHash)
        external
        view
        returns (uint64 registeredAt, uint64 revokedAt)
    {
        bytes32 id = credentialId(issuer, credentialHash);
        return (_registeredAt[registrant][id], _revokedAt[registrant][id]);
    }

    /// @notice State of a batched credential: anchoredAt is 0 unless `root` was anchored by
    /// `registrant` and `proof` leads from the credential's leaf to it.
    function batchedStatus(
        address registrant,
        bytes32 issuer,
        bytes32 credentialHash,
        bytes32 root,
        bytes32[] calldata proof
    ) external view returns (uint64 anchoredAt, uint64 revokedAt) {
        revokedAt = _revokedAt[registrant][credentialId(issuer, credentialHash)];
        if (!verifyInclusion(root, issuer, credentialHash, proof)) return (0, revokedAt);
        return (_batches[registrant][root].anchoredAt, revokedAt);
    }

    function batch(address registrant, bytes32 root) external view returns (uint64 anchoredAt, uint32 size) {
        Batch memory b = _batches[registrant][root];
        return (b.anchoredAt, b.size);
    }

    function credentialId(bytes32 issuer, bytes32 credentialHash) public pure returns (bytes32) {
        return keccak256(abi.encode(issuer, credentialHash));
    }

    /// @notice Leaf of a credential in a batch tree: StandardMerkleTree's leaf of the value
    /// (issuer, credentialHash), double-hashed so no 64-byte inner node can pass for a leaf.
    function leaf(bytes32 issuer, bytes32 credentialHash) public pure returns (bytes32) {
        return keccak256(bytes.concat(keccak256(abi.encode(issuer, credentialHash))));
    }

    /// @notice Whether `proof` (StandardMerkleTree `getProof`) leads from the credential's leaf to
    /// `root`; says nothing about whether `root` was anchored (see `batchedStatus`).
    function verifyInclusion(bytes32 root, bytes32 issuer, bytes32 credentialHash, bytes32[] calldata proof)
        public
        pure
        returns (bool)
    {
        return MerkleProof.verifyCalldata(proof, root, leaf(issuer, credentialHash));
    }

    function _revoke(bytes32 id, bytes32 issuer, bytes32 credentialHash) private {
        if (_revokedAt[msg.sender][id] != 0) return;
        _revokedAt[msg.sender][id] = uint64(block.timestamp);
        emit CredentialRevoked(msg.sender, issuer, credentialHash);
    }
}
