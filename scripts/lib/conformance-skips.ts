/**
 * W3C suite tests that cannot pass for a reason outside this project, each skipped by its exact
 * full title with the reason (issue 23: "skip exactly that test by name in one list"). The runner
 * turns this list into mocha's --grep/--invert; everything else in each suite runs.
 */
export interface SkippedTest {
  suite: string
  /** The test's full title as mocha reports it (describe titles and test title joined by spaces). */
  title: string
  /** 'group': every test under the describe block of this full title (a group whose set-up fails for everyone). */
  kind?: 'test' | 'group'
  reason: string
}

export const SKIPPED_TESTS: readonly SkippedTest[] = [
  {
    suite: 'vcdm2',
    title:
      'Advanced Concepts credential-service If the digest provided by the issuer does not match the digest computed for the retrieved resource, the conforming verifier implementation MUST produce an error.',
    reason:
      'needs the live bytes of https://www.w3.org/ns/credentials/v2 to compute the digest: the run is offline, and the bundled copy of that context (the W3C npm package) is formatted differently, so its digest differs',
  },
  {
    suite: 'vc-api-verifier',
    title: 'Verify Credential - Data Integrity credential-service MUST verify a valid VC.',
    reason:
      "the suite's vector names issuer https://vc.example/issuers/5678 but is signed by a did:key that issuer does not control; verifying it would accept a credential from someone other than its issuer (@digitalbazaar/vc's own CredentialIssuancePurpose refuses it too)",
  },
  {
    suite: 'di-eddsa',
    title:
      'Data Integrity (eddsa-rdfc-2022 verifiers) credential-service An OPTIONAL string value (proof.previousProof) or unordered list of string values. Each value identifies another data integrity proof that MUST verify before the current proof is processed.',
    reason:
      "the suite's proof-chain fixture (1.1-previousProofStringOk-SimpleSigned2.json) does not verify with @digitalbazaar/vc and @digitalbazaar/data-integrity 2.5.0, the libraries the suite itself is built on: its chained proof fails the signature check, and its first proof is by a key the issuer does not control",
  },
  {
    suite: 'di-bbs',
    kind: 'group',
    title: 'Data Integrity (bbs-2023 verifiers) VC 2.0',
    reason:
      'its "before all" hook fails for every implementation: the assertion library generates the test credentials with its own document loader, which lacks the https://w3id.org/vdl/v1 context the credentials use (jsonld.InvalidUrl), so none of its 12 tests can run (../shared/conformance/README.md, "BBS verifier tests")',
  },
]
