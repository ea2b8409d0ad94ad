import type { Kysely } from 'kysely'

/**
 * Proof params: nothing to store. Anonymous proofs use Bulletproofs++ for predicates, whose
 * generators are hashed from a public label (a transparent setup every worker and every outside
 * verifier recomputes), and BBS params hashed from each issuer's label: both labels are published
 * in the issuer's DID document (docs/anonymous-proofs.md, "Trust and setup model"). The slot stays
 * registered so a method with setup params (set-membership range proofs) could store them here.
 */
export async function up(_db: Kysely<any>): Promise<void> {}

export async function down(_db: Kysely<any>): Promise<void> {}
