// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Credential registry, version 1: the registry deployed before batches moved to
/// OpenZeppelin's standard Merkle tree (docs/decisions.md "Merkle batches on OpenZeppelin").
/// Kept, unchanged but for its name, because deployments hold version-1 batch roots in
/// it: the service reads and revokes them there (BLOCKCHAIN_CREDENTIAL_REGISTRY_V1), and the
/// tests deploy it to check that path. `npm run chain:deploy` never deploys it.
/// @notice Every record lives in the namespace of the account that wrote it (the registrant).
/// A verifier asks about a (registrant, issuer, credential hash) triple, where the registrant is
/// the account it trusts to speak for the issuer: the issuer's own account, or the anchoring
/// account of the service that issues for it (docs/blockchain.md, "Anchoring account"). Nobody
/// else can register, batch or revoke in that namespace, so only the registering party can
/// revoke what it registered.
/// @dev `issuer` is keccak256 of the issuer DID's UTF-8 bytes, `credentialHash` the SHA-256 of
/// the credential's RFC 8785 form. Writes are idempotent (a repeat is a no-op without an
/// event) so an outbox may safely resend a transaction whose fate it does not know.
contract CredentialRegistryV1 {
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

    /// @notice Anchors the Merkle root of `size` credential leaves (see `leaf`).
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
        if (_batches[msg.sender][root].anchoredAt == 0 || processProof(leaf(issuer, credentialHash), proof) != root) {
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
        if (processProof(leaf(issuer, credentialHash), proof) != root) return (0, revokedAt);
        return (_batches[registrant][root].anchoredAt, revokedAt);
    }

    function batch(address registrant, bytes32 root) external view returns (uint64 anchoredAt, uint32 size) {
        Batch memory b = _batches[registrant][root];
        return (b.anchoredAt, b.size);
    }

    function credentialId(bytes32 issuer, bytes32 credentialHash) public pure returns (bytes32) {
        return keccak256(abi.encode(issuer, credentialHash));
    }

    /// @notice Leaf of a credential in a batch tree. The 0x00 / 0x01 prefixes keep leaves and
    /// inner nodes apart (no second-preimage forgery with an inner node posing as a leaf).
    function leaf(bytes32 issuer, bytes32 credentialHash) public pure returns (bytes32) {
        return keccak256(abi.encodePacked(bytes1(0x00), issuer, credentialHash));
    }

    /// @notice Root reached from `node` through `proof`; pairs are hashed in sorted order, so a
    /// proof is the list of siblings alone (no left/right flags).
    function processProof(bytes32 node, bytes32[] calldata proof) public pure returns (bytes32) {
        for (uint256 i = 0; i < proof.length; i++) {
            bytes32 sibling = proof[i];
            node = node < sibling
                ? keccak256(abi.encodePacked(bytes1(0x01), node, sibling))
                : keccak256(abi.encodePacked(bytes1(0x01), sibling, node));
        }
        return node;
    }

    function _revoke(bytes32 id, bytes32 issuer, bytes32 credentialHash) private {
        if (_revokedAt[msg.sender][id] != 0) return;
        _revokedAt[msg.sender][id] = uint64(block.timestamp);
        emit CredentialRevoked(msg.sender, issuer, credentialHash);
    }
}
