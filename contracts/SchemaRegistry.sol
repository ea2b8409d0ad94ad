// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Schema registry: which issuer published which version of a credential schema.
/// @notice Records live in the registrant's namespace (see CredentialRegistry). A schema id
/// belongs to one issuer; each registered content hash is a version, the latest one is kept.
/// @dev `schemaId` is keccak256 of the schema id text, `issuer` keccak256 of the issuer DID,
/// `schemaHash` the SHA-256 of the schema's RFC 8785 form. Repeats are no-ops.
contract SchemaRegistry {
    struct Schema {
        bytes32 issuer;
        bytes32 latestHash;
        uint64 registeredAt;
        uint32 versions;
    }

    mapping(address => mapping(bytes32 => Schema)) private _schemas;
    /// registrant => keccak256(schemaId, schemaHash) => block time
    mapping(address => mapping(bytes32 => uint64)) private _versionAt;

    event SchemaRegistered(address indexed registrant, bytes32 indexed schemaId, bytes32 indexed issuer, bytes32 schemaHash, uint32 version);

    error ZeroValue();
    error IssuerMismatch();

    function register(bytes32 schemaId, bytes32 issuer, bytes32 schemaHash) external {
        if (schemaId == bytes32(0) || issuer == bytes32(0) || schemaHash == bytes32(0)) revert ZeroValue();
        Schema storage s = _schemas[msg.sender][schemaId];
        if (s.versions != 0 && s.issuer != issuer) revert IssuerMismatch();
        bytes32 version = keccak256(abi.encode(schemaId, schemaHash));
        if (_versionAt[msg.sender][version] != 0) return;
        _versionAt[msg.sender][version] = uint64(block.timestamp);
        s.issuer = issuer;
        s.latestHash = schemaHash;
        s.registeredAt = uint64(block.timestamp);
        s.versions += 1;
        emit SchemaRegistered(msg.sender, schemaId, issuer, schemaHash, s.versions);
    }

    /// @notice The latest version of a schema (all zero if unknown).
    function schema(address registrant, bytes32 schemaId)
        external
        view
        returns (bytes32 issuer, bytes32 latestHash, uint64 registeredAt, uint32 versions)
    {
        Schema memory s = _schemas[registrant][schemaId];
        return (s.issuer, s.latestHash, s.registeredAt, s.versions);
    }

    /// @notice When this exact version was registered (0 = never).
    function versionRegisteredAt(address registrant, bytes32 schemaId, bytes32 schemaHash) external view returns (uint64) {
        return _versionAt[registrant][keccak256(abi.encode(schemaId, schemaHash))];
    }
}
