import type { ReadCredential } from '../../credentials/formats/credential-format.js'
import type { VerificationOutcome } from '../../presentation/presentation-verifier.js'

/** What a credential subject of the spec's verification result always says (who issued what), beside its attributes. */
const IDENTIFYING = ['credential_id', 'issuer', 'type']

/**
 * Data minimisation (GDPR Art. 5(1)(c); OID4VP 1.0 §6: the verifier asks for what it needs): the
 * verdict's credential subjects and attribute lists keep only the claims the credential query
 * each credential answered asked for. The checks already ran on everything received.
 * `credentials` lists, in the outcome's order, each read credential with its query id.
 */
export function minimisedOutcome<T extends VerificationOutcome>(
  outcome: T,
  credentials: Array<{ queryId: string; credential: ReadCredential }>,
  asked: Record<string, Set<string>>,
): T {
  const keep = (k: number) => asked[credentials[k]?.queryId ?? ''] ?? new Set<string>()
  const provided = new Set<string>()
  const revoked = new Set<string>()
  credentials.forEach(({ credential }, k) => {
    for (const name of Object.keys(credential.attributes))
      if (keep(k).has(name)) (credential.revoked ? revoked : provided).add(name)
  })
  return {
    ...outcome,
    credentialSubjects: outcome.credentialSubjects.map((subject, k) =>
      Object.fromEntries(Object.entries(subject).filter(([name]) => IDENTIFYING.includes(name) || keep(k).has(name))),
    ),
    providedAttributes: [...provided].sort(),
    revokedAttributes: [...revoked].sort(),
  }
}
