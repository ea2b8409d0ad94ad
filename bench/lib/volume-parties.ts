/**
 * The parties of the volume benchmark and what they make through the public API: one issuer
 * (a BBS schema, the default kind, and a JWT-only one), a big and a small holder, a verifier with
 * presentations to verify, offers and credential requests to list. Everything here goes over
 * HTTP exactly as a client would; only bench/lib/volume-fill.ts touches SQL.
 */
import { expectStatus, type JsonClient } from './http-client.js'
import {
  benchAttributes,
  BENCH_ATTRIBUTES,
  BENCH_CREDENTIAL_TYPE,
  enrollHolders,
  HOLDER_COUNT,
  type BenchIssuer,
  type IssuancePhase,
} from './issuance-load.js'
import { loginOnce } from './login-load.js'
import { setUpPresentations, type VerificationSetUp } from './verification-load.js'
import { createVirtualUser, type VirtualUser } from './virtual-user.js'

export interface VolumeParties {
  issuerUser: VirtualUser
  issuer: BenchIssuer
  big: VirtualUser
  small: VirtualUser
  verification: VerificationSetUp
  /** Subjects of the issuance phase (their ML-KEM keys made before measuring). */
  issuanceHolders: string[]
}

/** Offers and holder credential requests created once, so their listings have pages to answer. */
const OFFERS = 60
const REQUESTS = 60
/** Issuances in flight while seeding through the API, as in the issuance phase. */
const SEED_IN_FLIGHT = 32

export async function setUpParties(client: JsonClient): Promise<VolumeParties> {
  const issuerUser = createVirtualUser()
  const headers = { authorization: `Bearer ${await loginOnce(client, issuerUser)}` }
  expectStatus(await client.post('/api/issuer', { name: 'Volume University' }, headers), 201, 'POST /api/issuer')
  const schema = async (phase: IssuancePhase) => {
    const body = {
      name: `Volume degree (${phase})`,
      version: '1.0',
      attributes: BENCH_ATTRIBUTES,
      anonymous_credentials: phase === 'bbs',
    }
    return expectStatus(
      await client.post(`/api/issuer/${issuerUser.did}/schemas`, body, headers),
      201,
      `schema (${phase})`,
    ).schema.id as string
  }
  const issuer: BenchIssuer = {
    did: issuerUser.did,
    headers,
    schemaIds: { bbs: await schema('bbs'), jwt: await schema('jwt') },
  }
  const big = createVirtualUser()
  const small = createVirtualUser()
  const smallHeaders = { authorization: `Bearer ${await loginOnce(client, small)}` }
  for (let i = 0; i < OFFERS; i++) {
    const body = {
      credential_type: BENCH_CREDENTIAL_TYPE,
      schema_id: issuer.schemaIds.bbs,
      attributes: benchAttributes(i),
      description: `Offer ${i}`,
    }
    expectStatus(await client.post(`/api/issuer/${issuer.did}/offers`, body, headers), 201, 'POST offers')
  }
  for (let i = 0; i < REQUESTS; i++) {
    const body = {
      issuer_did: issuer.did,
      schema_id: issuer.schemaIds.bbs,
      credential_type: BENCH_CREDENTIAL_TYPE,
      attributes: benchAttributes(i),
      message: `Request ${i}`,
    }
    expectStatus(
      await client.post('/api/wallet/credential-request', body, smallHeaders),
      201,
      'POST credential-request',
    )
  }
  const verification = await setUpPresentations(client, issuer)
  const issuanceHolders = Array.from({ length: HOLDER_COUNT }, () => createVirtualUser().did)
  await enrollHolders(client, issuer, issuanceHolders)
  return { issuerUser, issuer, big, small, verification, issuanceHolders }
}

/** Fresh session tokens for every party (after a restart, and so no token outlives its lifetime). */
export async function logInAgain(
  client: JsonClient,
  parties: VolumeParties,
): Promise<Record<'issuer' | 'big' | 'small' | 'verifier', Record<string, string>>> {
  const bearer = async (user: VirtualUser) => ({ authorization: `Bearer ${await loginOnce(client, user)}` })
  const issuer = await bearer(parties.issuerUser)
  parties.issuer.headers = issuer
  const verifier = await bearer(parties.verification.verifier)
  parties.verification.headers = verifier
  return { issuer, big: await bearer(parties.big), small: await bearer(parties.small), verifier }
}

/** One credential through POST /api/issuer/:did/issue; its id. */
export async function issueForId(
  client: JsonClient,
  issuer: BenchIssuer,
  phase: IssuancePhase,
  subjectDid: string,
  n: number,
): Promise<string> {
  const body = {
    credential_type: BENCH_CREDENTIAL_TYPE,
    schema_id: issuer.schemaIds[phase],
    subject_did: subjectDid,
    attributes: benchAttributes(n),
  }
  return expectStatus(await client.post(`/api/issuer/${issuer.did}/issue`, body, issuer.headers), 201, 'issue')
    .credential.id as string
}

/**
 * Issues through the API to the given subjects in order (SEED_IN_FLIGHT at a time): the seed of
 * the fill, and where a level is small enough, the whole fill.
 */
export async function issueToSubjects(
  client: JsonClient,
  issuer: BenchIssuer,
  phase: IssuancePhase,
  subjects: string[],
  first: number,
): Promise<string[]> {
  const ids: string[] = new Array(subjects.length)
  let next = 0
  const loop = async () => {
    for (let i = next++; i < subjects.length; i = next++)
      ids[i] = await issueForId(client, issuer, phase, subjects[i]!, first + i)
  }
  await Promise.all(Array.from({ length: SEED_IN_FLIGHT }, loop))
  return ids
}
