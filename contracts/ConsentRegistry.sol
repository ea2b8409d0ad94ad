// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Consent registry: grants and revocations of a holder's consent to a verifier.
/// @notice Only an opaque key is stored: keccak256 over a secret salt, the holder DID, the
/// verifier DID and the purpose (docs/blockchain.md, "Consent keys"). Neither DID nor the
/// purpose appears on chain, and the salt stops anyone from confirming a guessed triple.
/// Records live in the registrant's namespace (see CredentialRegistry).
contract ConsentRegistry {
    struct Consent {
        uint64 grantedAt;
        uint64 expiresAt;
        uint64 revokedAt;
    }

    mapping(address => mapping(bytes32 => Consent)) private _consents;

    event ConsentGranted(address indexed registrant, bytes32 indexed consentKey, uint64 expiresAt);
    event ConsentRevoked(address indexed registrant, bytes32 indexed consentKey);

    error ZeroValue();
    error NotGranted();

    /// @notice Grants (or grants again after a revocation) consent `consentKey` until
    /// `expiresAt` (unix seconds; 0 = no expiry). Repeating an active identical grant is a no-op.
    function grant(bytes32 consentKey, uint64 expiresAt) external {
        if (consentKey == bytes32(0)) revert ZeroValue();
        Consent storage c = _consents[msg.sender][consentKey];
        if (c.grantedAt != 0 && c.revokedAt == 0 && c.expiresAt == expiresAt) return;
        c.grantedAt = uint64(block.timestamp);
        c.expiresAt = expiresAt;
        c.revokedAt = 0;
        emit ConsentGranted(msg.sender, consentKey, expiresAt);
    }

    function revoke(bytes32 consentKey) external {
        Consent storage c = _consents[msg.sender][consentKey];
        if (c.grantedAt == 0) revert NotGranted();
        if (c.revokedAt != 0) return;
        c.revokedAt = uint64(block.timestamp);
        emit ConsentRevoked(msg.sender, consentKey);
    }

    /// @notice valid: granted, not revoked, not expired at the current block time.
    function check(address registrant, bytes32 consentKey)
        external
        view
        returns (bool valid, uint64 grantedAt, uint64 expiresAt, uint64 revokedAt)
    {
        Consent memory c = _consents[registrant][consentKey];
        valid = c.grantedAt != 0 && c.revokedAt == 0 && (c.expiresAt == 0 || block.timestamp < c.expiresAt);
        return (valid, c.grantedAt, c.expiresAt, c.revokedAt);
    }
}
