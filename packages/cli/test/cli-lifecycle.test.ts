/**
 * The CLI end to end: every step is a `cps` process (packages/cli/bin/cps.js, as `npx cps` runs
 * it) against one real server process on https (the OpenID4VCI offer needs an https
 * PUBLIC_BASE_URL). Issuer, holder and verifier each have their own key file. Real: the server,
 * its database (embedded PGlite), TLS, the CLI processes; nothing is mocked.
 */
import assert from 'node:assert/strict'
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { cps, startHttpsServer, type CpsRun, type HttpsServer } from './helpers/cps.js'

// JSON printed by `cps --json`, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

const ACTORS = ['issuer', 'holder', 'verifier'] as const
type Actor = (typeof ACTORS)[number]

describe('cps: the whole lifecycle against a server process', () => {
  let dir: string
  let server: HttpsServer
  const did: Partial<Record<Actor, string>> = {}

  const env = (actor: Actor): Record<string, string> => ({
    HOME: dir,
    CPS_BASE_URL: server.baseUrl,
    CPS_KEY_FILE: path.join(dir, actor, 'keys.json'),
    NODE_EXTRA_CA_CERTS: server.caFile,
  })
  const keyFile = (actor: Actor) => path.join(dir, actor, 'keys.json')

  /** Runs `cps` as `actor`, expects exit 0, answers its --json output parsed. */
  const json = async (actor: Actor, ...args: string[]): Promise<Json> => {
    const run = await cps([...args, '--json'], env(actor))
    assert.equal(run.code, 0, `cps ${args.join(' ')}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`)
    return JSON.parse(run.stdout) as Json
  }
  const expectExit = (run: CpsRun, code: number) =>
    assert.equal(run.code, code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`)

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cps-test-'))
    server = await startHttpsServer(dir)
  })

  after(async () => {
    await server?.stop()
    await rm(dir, { recursive: true, force: true })
  })

  it('keys: made in a 0600 key file, listed, shown without the private part', async () => {
    const made = await Promise.all(ACTORS.map((actor) => json(actor, 'keys', 'new', '--name', actor)))
    for (const [i, actor] of ACTORS.entries()) {
      assert.match(made[i]!.did, /^did:key:z6Mk/)
      assert.equal(made[i]!.default, true)
      did[actor] = made[i]!.did
      assert.equal((await stat(keyFile(actor))).mode & 0o777, 0o600)
    }
    const [listed, shown] = await Promise.all([json('holder', 'keys', 'list'), json('holder', 'keys', 'show')])
    assert.deepEqual(
      listed.keys.map((k: Json) => [k.name, k.did]),
      [['holder', did.holder]],
    )
    assert.equal(shown.did, did.holder)
    assert.equal(shown.public_jwk.crv, 'Ed25519')
    assert.equal(shown.public_jwk.d, undefined)
  })

  it('login: a session per DID, cached in a 0600 file beside the keys', async () => {
    const logins = await Promise.all(ACTORS.map((actor) => json(actor, 'login')))
    for (const [i, actor] of ACTORS.entries()) {
      assert.equal(logins[i]!.did, did[actor])
      assert.ok(Date.parse(logins[i]!.expires_at) > Date.now())
      assert.equal((await stat(path.join(dir, actor, 'sessions.json'))).mode & 0o777, 0o600)
    }
  })

  let schemaId: string
  let credentialId: string
  let requestId: string
  let presented: Json

  it('issuer: profile, schema and a credential issued to the holder (numbers typed by the schema)', async () => {
    const profile = await json('issuer', 'issuer', 'profile', 'set', '--name', 'Example University')
    assert.equal(profile.issuer.did, did.issuer)
    const [shown, schema] = await Promise.all([
      json('issuer', 'issuer', 'profile', 'show'),
      json(
        'issuer',
        'issuer',
        'schema',
        'create',
        '--name',
        'Degree',
        '--attribute',
        'given_name:string:required',
        '--attribute',
        'birth_date:date:required',
        '--attribute',
        'gpa:number',
      ),
    ])
    assert.equal(shown.issuer.name, 'Example University')
    schemaId = schema.schema.id
    const issued = await json(
      'issuer',
      'issuer',
      'issue',
      '--schema',
      schemaId,
      '--type',
      'UniversityDegree',
      '--subject',
      did.holder!,
      '--attr',
      'given_name=Ada',
      '--attr',
      'birth_date=2001-02-03',
      '--attr',
      'gpa=3.8',
    )
    credentialId = issued.credential.credential.id
    assert.equal(issued.credential.credential.owner_did, did.holder)
    const [wallet, listed] = await Promise.all([
      json('holder', 'wallet', 'list'),
      json('issuer', 'issuer', 'schema', 'list'),
    ])
    const held = wallet.data.find((c: Json) => c.id === credentialId)
    assert.equal(held?.credential_data.gpa, 3.8)
    assert.deepEqual(
      listed.data.map((s: Json) => s.id),
      [schemaId],
    )
  })

  it('verifier asks for gpa >= 3; the holder proves it without the gpa; the verifier waits and verifies', async () => {
    const request = await json(
      'verifier',
      'verifier',
      'request',
      'create',
      '--type',
      'DegreeCheck',
      '--purpose',
      'Hiring',
      '--credential',
      'UniversityDegree:given_name',
      '--predicate',
      'gpa>=3',
    )
    requestId = request.request.id
    assert.equal(request.request.status, 'pending')
    assert.deepEqual(request.request.required_predicates, [{ attribute: 'gpa', operator: '>=', value: 3 }])
    // The verifier starts waiting before the holder answers.
    const waiting = cps(['verifier', 'request', 'wait', requestId, '--timeout', '60', '--json'], env('verifier'))
    presented = await json(
      'holder',
      'wallet',
      'present',
      requestId,
      '--reveal',
      'given_name',
      '--predicate',
      'gpa>=3',
      '--yes',
    )
    assert.deepEqual(presented.credential_ids, [credentialId])
    assert.match(presented.presentation_jwt, /^[\w-]+\.[\w-]+\.[\w-]+$/)
    const waited = await waiting
    expectExit(waited, 0)
    const outcome = JSON.parse(waited.stdout) as Json
    assert.equal(outcome.request.status, 'submitted')
    assert.equal(outcome.presentation.id, presented.presentation_id)
    const verified = await json(
      'verifier',
      'verifier',
      'verify',
      presented.presentation_id,
      '--presentation-jwt',
      presented.presentation_jwt,
    )
    assert.equal(verified.verification_result.is_valid, true, JSON.stringify(verified.verification_result.errors))
    assert.equal(verified.consent_valid, true)
    const disclosed = JSON.stringify(verified.verification_result.credential_subjects)
    assert.match(disclosed, /Ada/)
    assert.doesNotMatch(disclosed, /3\.8/)
    const recorded = await json('verifier', 'verifier', 'verify', presented.presentation_id)
    assert.equal(recorded.presentation.status, 'verified')
  })

  it('wallet: consents and activity show what happened', async () => {
    const [consents, activity] = await Promise.all([
      json('holder', 'wallet', 'consents', 'list'),
      json('holder', 'wallet', 'activity', '--order', 'asc'),
    ])
    assert.ok(consents.data.some((c: Json) => c.verifier_did === did.verifier && c.purpose === 'Hiring'))
    const types = activity.data.map((a: Json) => a.type)
    assert.ok(types.includes('credential_received') && types.includes('presentation_submitted'), types.join(','))
  })

  it('an OpenID4VCI offer with a transaction code, shown as a QR, accepted by the wallet command', async () => {
    const schema = await json(
      'issuer',
      'issuer',
      'schema',
      'create',
      '--name',
      'Resident',
      '--no-bbs',
      '--attribute',
      'given_name',
      '--attribute',
      'family_name',
    )
    const args = [
      'issuer',
      'offer',
      'create',
      '--schema',
      schema.schema.id,
      '--type',
      'Resident',
      '--format',
      'dc+sd-jwt',
      '--tx-code',
      '--attr',
      'given_name=Erika',
      '--attr',
      'family_name=Mustermann',
    ]
    // Two offers: one read as JSON, one as people see it (the QR in block characters, the URI, the code).
    const [offer, human] = await Promise.all([json('issuer', ...args), cps(args, env('issuer'))])
    assert.match(offer.credential_offer_uri, /^openid-credential-offer:\/\//)
    assert.match(offer.tx_code, /^\d+$/)
    expectExit(human, 0)
    assert.match(human.stdout, /[▀▄█]{10}/)
    assert.match(human.stdout, /offer URI \(OpenID4VCI\): openid-credential-offer:\/\//)
    assert.match(human.stdout, /transaction code .*: \d+/)
    const accepted = await json(
      'holder',
      'wallet',
      'accept',
      offer.credential_offer_uri,
      '--tx-code',
      offer.tx_code,
      '--yes',
    )
    assert.equal(accepted.status, 'issued')
    const wallet = await json('holder', 'wallet', 'list', '--type', 'Resident')
    assert.equal(wallet.data.length, 1)
    assert.equal(wallet.data[0].credential_data.family_name, 'Mustermann')
  })

  it("the spec's offer payload becomes a request the issuer approves; an OpenID4VP request is answered and verified on arrival", async () => {
    const specOffer = async () => {
      const offer = await json(
        'issuer',
        'issuer',
        'offer',
        'create',
        '--schema',
        schemaId,
        '--type',
        'UniversityDegree',
        '--attr',
        'given_name=Grace',
        '--attr',
        'birth_date=1906-12-09',
        '--attr',
        'gpa=4',
      )
      const taken = await json('holder', 'wallet', 'accept', offer.qr_code_data, '--yes')
      assert.equal(taken.request.status, 'pending')
      const pending = await json('issuer', 'issuer', 'requests', 'list', '--status', 'pending')
      assert.deepEqual(
        pending.data.map((r: Json) => r.id),
        [taken.request.id],
      )
      // Approval signs the service's step-up challenge with the issuer's key, here.
      const approved = await json('issuer', 'issuer', 'requests', 'approve', taken.request.id)
      assert.equal(approved.request_id, taken.request.id)
      const [wallet, decided] = await Promise.all([
        json('holder', 'wallet', 'list', '--type', 'UniversityDegree'),
        json('issuer', 'issuer', 'requests', 'list', '--status', 'approved'),
      ])
      assert.ok(
        wallet.data.some((c: Json) => c.id === approved.credential.id && c.credential_data.given_name === 'Grace'),
      )
      assert.deepEqual(
        decided.data.map((r: Json) => [r.id, r.credential_id]),
        [[taken.request.id, approved.credential.id]],
      )
    }
    const openid4vp = async () => {
      const request = await json(
        'verifier',
        'verifier',
        'request',
        'create',
        '--type',
        'DegreeCheck',
        '--purpose',
        'Admission',
        '--credential',
        'UniversityDegree:given_name',
      )
      assert.match(request.authorization_request_uri, /^openid4vp:\/\//)
      const answered = await json('holder', 'wallet', 'present', request.authorization_request_uri, '--yes')
      assert.equal(answered.accepted, true)
      const waited = await json('verifier', 'verifier', 'request', 'wait', request.request.id, '--timeout', '30')
      assert.equal(waited.request.status, 'verified')
      assert.equal(waited.presentation.status, 'verified')
    }
    await Promise.all([specOffer(), openid4vp()])
  })

  it('failures: an unknown record exits 1 with the code and message; bad arguments exit 2 with usage', async () => {
    const [unknown, unknownJson, badFlag, missing, badPredicate, unknownCommand] = await Promise.all([
      cps(['issuer', 'revoke', 'aly:00000000-0000-4000-8000-000000000000'], env('issuer')),
      cps(['verifier', 'verify', 'no-such-presentation', '--json'], env('verifier')),
      cps(['issuer', 'issue', '--schema', schemaId, '--colour', 'red'], env('issuer')),
      cps(['issuer', 'revoke'], env('issuer')),
      cps(
        [
          'verifier',
          'request',
          'create',
          '--type',
          'X',
          '--purpose',
          'Y',
          '--credential',
          'Z',
          '--predicate',
          'gpa=>3',
        ],
        env('verifier'),
      ),
      cps(['wallet', 'frobnicate'], env('holder')),
    ])
    expectExit(unknown, 1)
    assert.match(unknown.stderr, /^error: NOT_FOUND: .+ \(HTTP 404\)$/m)
    expectExit(unknownJson, 1)
    const body = JSON.parse(unknownJson.stdout) as Json
    assert.equal(body.success, false)
    assert.equal(body.code, 'NOT_FOUND')
    assert.match(unknownJson.stderr, new RegExp(`^error: NOT_FOUND: ${body.message}`, 'm'))
    expectExit(badFlag, 2)
    assert.match(badFlag.stderr, /--colour/)
    assert.match(badFlag.stderr, /Usage: cps issuer issue/)
    expectExit(missing, 2)
    assert.match(missing.stderr, /missing <credential-id>/)
    expectExit(badPredicate, 2)
    assert.match(badPredicate.stderr, /--predicate takes/)
    expectExit(unknownCommand, 2)
    assert.match(unknownCommand.stderr, /unknown command: cps wallet frobnicate/)
  })

  it('a key file others can read is refused, before anything is sent', async () => {
    await chmod(keyFile('holder'), 0o644)
    const refused = await cps(['wallet', 'list'], env('holder'))
    expectExit(refused, 2)
    assert.match(refused.stderr, /readable or writable by others \(mode 0644\); refusing to use it\. Run: chmod 600/)
    await chmod(keyFile('holder'), 0o600)
    expectExit(await cps(['wallet', 'list'], env('holder')), 0)
  })
})
