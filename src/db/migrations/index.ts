import type { Migration } from 'kysely'
import * as foundation from './20261122T0600-foundation.js'
import * as issuer from './20261122T0730-issuer.js'
import * as templates from './20261122T0800-templates.js'
import * as credentials from './20261122T1000-credentials.js'
import * as wallet from './20261122T1100-wallet.js'
import * as verifier from './20261122T1200-verifier.js'
import * as presentations from './20261123T0900-presentations.js'
import * as callbackOutbox from './20261123T0910-callback-outbox.js'
import * as consents from './20261123T0920-consents.js'
import * as proofParams from './20261123T0930-proof-params.js'
import * as walletActivity from './20261123T0940-wallet-activity.js'
import * as chainAnchoring from './20261123T0950-chain-anchoring.js'
import * as domains from './20261123T0960-domains.js'
import * as walletImportStatus from './20261123T0970-wallet-import-status.js'
import * as sessionStepUps from './20261124T0900-session-step-ups.js'
import * as requestHolder from './20261125T1000-request-holder.js'
import * as signingIdentities from './20261126T0900-signing-identities.js'
import * as issuanceFormats from './20261126T1100-issuance-formats.js'
import * as vcApi from './20261126T1300-vc-api.js'
import * as oid4vci from './20261126T1400-oid4vci.js'
import * as oid4vp from './20261126T1410-oid4vp.js'
import * as oid4vciTxCodeFailures from './20261126T1430-oid4vci-tx-code-failures.js'
import * as instanceSettings from './20261127T2030-instance-settings.js'
import * as credentialCidHashIndex from './20261127T2100-credential-cid-hash-index.js'
import * as statisticsCounters from './20261127T2100-statistics-counters.js'
import * as idempotencyKeys from './20261127T2200-idempotency-keys.js'
import * as idempotencySealedSecret from './20261128T0000-idempotency-sealed-secret.js'
import * as oid4vciDpopProofs from './20261128T1000-oid4vci-dpop-proofs.js'
import * as oid4vciNotifiedEvents from './20261128T1000-oid4vci-notified-events.js'
import * as oid4vpRefusedAttempts from './20261128T1100-oid4vp-refused-attempts.js'
import * as vcApiScopes from './20261128T1200-vc-api-scopes.js'
import * as oid4vpHolderResponse from './20261128T1400-oid4vp-holder-response.js'
import * as oid4vpHolderErrorAt from './20261128T1500-oid4vp-holder-error-at.js'
import * as issuerCertificates from './20261128T1600-issuer-certificates.js'
import * as mdocPlacement from './20261128T1700-mdoc-placement.js'
import * as verifierTrust from './20261128T1800-verifier-trust.js'
import * as issuerCertificateLeaves from './20261128T1930-issuer-certificate-leaves.js'
import * as oid4vciPolicy from './20261128T1930-oid4vci-policy.js'
import * as verifierCertificates from './20261128T1950-verifier-certificates.js'
import * as walletProtocolSessions from './20261126T1420-wallet-protocol-sessions.js'

/**
 * Every migration, in order. Listed by import (not read from disk) so the same set runs from
 * tsx, the compiled build and tests.
 */
export const migrations: Record<string, Migration> = {
  '20261122T0600-foundation': foundation,
  '20261122T0730-issuer': issuer,
  '20261122T0800-templates': templates,
  '20261122T1000-credentials': credentials,
  '20261122T1100-wallet': wallet,
  '20261122T1200-verifier': verifier,
  '20261123T0900-presentations': presentations,
  '20261123T0910-callback-outbox': callbackOutbox,
  '20261123T0920-consents': consents,
  '20261123T0930-proof-params': proofParams,
  '20261123T0940-wallet-activity': walletActivity,
  '20261123T0950-chain-anchoring': chainAnchoring,
  '20261123T0960-domains': domains,
  '20261123T0970-wallet-import-status': walletImportStatus,
  '20261124T0900-session-step-ups': sessionStepUps,
  '20261125T1000-request-holder': requestHolder,
  '20261126T0900-signing-identities': signingIdentities,
  '20261126T1100-issuance-formats': issuanceFormats,
  '20261126T1300-vc-api': vcApi,
  '20261126T1400-oid4vci': oid4vci,
  '20261126T1410-oid4vp': oid4vp,
  '20261126T1420-wallet-protocol-sessions': walletProtocolSessions,
  '20261126T1430-oid4vci-tx-code-failures': oid4vciTxCodeFailures,
  '20261127T2030-instance-settings': instanceSettings,
  '20261127T2100-credential-cid-hash-index': credentialCidHashIndex,
  '20261127T2100-statistics-counters': statisticsCounters,
  '20261127T2200-idempotency-keys': idempotencyKeys,
  '20261128T0000-idempotency-sealed-secret': idempotencySealedSecret,
  '20261128T1000-oid4vci-dpop-proofs': oid4vciDpopProofs,
  '20261128T1000-oid4vci-notified-events': oid4vciNotifiedEvents,
  '20261128T1100-oid4vp-refused-attempts': oid4vpRefusedAttempts,
  '20261128T1200-vc-api-scopes': vcApiScopes,
  '20261128T1400-oid4vp-holder-response': oid4vpHolderResponse,
  '20261128T1500-oid4vp-holder-error-at': oid4vpHolderErrorAt,
  '20261128T1600-issuer-certificates': issuerCertificates,
  '20261128T1700-mdoc-placement': mdocPlacement,
  '20261128T1800-verifier-trust': verifierTrust,
  '20261128T1930-issuer-certificate-leaves': issuerCertificateLeaves,
  '20261128T1930-oid4vci-policy': oid4vciPolicy,
  '20261128T1950-verifier-certificates': verifierCertificates,
}
