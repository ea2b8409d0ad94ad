/**
 * The holder decides (issue 35 item 1): `cps wallet accept` and `cps wallet present` show what
 * would be taken or disclosed and ask `Accept? [y/N]`; `y` goes on, `n` declines (the verifier
 * hears access_denied, the refusal is recorded), `--yes` skips the question, and without a
 * terminal and without --yes nothing is sent (exit 2). The answers are typed into the CLI's input
 * stream (helpers/cli-driver.ts); the --yes and no-terminal cases run the real `cps` binary with
 * stdin piped. One https server process (OpenID4VCI and OpenID4VP are served on https only).
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { cps, cpsAnswering, startHttpsServer, type CpsRun, type HttpsServer } from './helpers/cps.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>
type Actor = 'issuer' | 'holder' | 'verifier'

describe('cps: the holder sees and decides before anything leaves the wallet', () => {
  let dir: string
  let server: HttpsServer
  let schemaId: string
  let degreeSchemaId: string
  const did: Partial<Record<Actor, string>> = {}

  const env = (actor: Actor): Record<string, string> => ({
    HOME: dir,
    CPS_BASE_URL: server.baseUrl,
    CPS_KEY_FILE: path.join(dir, actor, 'keys.json'),
    NODE_EXTRA_CA_CERTS: server.caFile,
  })
  const json = async (actor: Actor, ...args: string[]): Promise<Json> => {
    const run = await cps([...args, '--json'], env(actor))
    assert.equal(run.code, 0, `cps ${args.join(' ')}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`)
    return JSON.parse(run.stdout) as Json
  }
  const exit = (run: CpsRun, code: number) =>
    assert.equal(run.code, code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`)
  const offer = async (type: string) =>
    json(
      'issuer',
      'issuer',
      'offer',
      'create',
      '--schema',
      schemaId,
      '--type',
      type,
      '--format',
      'dc+sd-jwt',
      '--attr',
      'given_name=Erika',
      '--attr',
      'family_name=Mustermann',
    )
  const request = () =>
    json(
      'verifier',
      'verifier',
      'request',
      'create',
      '--type',
      'ResidentCheck',
      '--purpose',
      'Check residence',
      '--credential',
      'Resident:given_name',
    )
  const activityTypes = async () =>
    (await json('holder', 'wallet', 'activity')).data.map((a: Json) => a.type) as string[]

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cps-consent-'))
    server = await startHttpsServer(dir)
    for (const actor of ['issuer', 'holder', 'verifier'] as const)
      did[actor] = (await json(actor, 'keys', 'new', '--name', actor)).did
    await json('issuer', 'issuer', 'profile', 'set', '--name', 'Town hall')
    schemaId = (
      await json(
        'issuer',
        'issuer',
        'schema',
        'create',
        '--name',
        'Resident',
        '--no-bbs',
        '--attribute',
        'given_name:string:required',
        '--attribute',
        'family_name:string:required',
      )
    ).schema.id
    degreeSchemaId = (
      await json(
        'issuer',
        'issuer',
        'schema',
        'create',
        '--name',
        'Degree',
        '--attribute',
        'given_name:string:required',
        '--attribute',
        'gpa:number',
      )
    ).schema.id
  })

  after(async () => {
    await server?.stop()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('an offer: without a terminal and without --yes nothing is taken (exit 2); n declines and is recorded; y takes it', async () => {
    const made = await offer('Resident')
    const uri = made.credential_offer_uri as string
    const refused = await cps(['wallet', 'accept', uri], env('holder'))
    exit(refused, 2)
    assert.match(refused.stderr, /Credential offer from Town hall \(127\.0\.0\.1:\d+\)/)
    assert.match(
      refused.stderr,
      /error: nothing was sent: taking an offer needs the holder's answer, and there is no terminal to ask on\. .*--yes/,
    )
    assert.equal(refused.stdout, '')

    const declined = await cpsAnswering('n\n', ['wallet', 'accept', uri], env('holder'))
    exit(declined, 3)
    assert.match(declined.stderr, /credential: {2}Resident \(https:\/\/127\.0\.0\.1:\d+\/vct\/.+\), format dc\+sd-jwt/)
    assert.match(declined.stderr, /claims: {6}.*given_name \(required\), .*family_name \(required\)/)
    assert.match(declined.stderr, /Accept\? \[y\/N\] $/)
    assert.match(declined.stdout, /^declined: nothing was taken/)
    assert.ok((await activityTypes()).includes('credential_offer_declined'))
    assert.equal((await json('holder', 'wallet', 'list', '--type', 'Resident')).data.length, 0)

    // Neither refusal spent the pre-authorized code: the same offer is still taken with y.
    const taken = await cpsAnswering('y\n', ['wallet', 'accept', uri], env('holder'))
    exit(taken, 0)
    assert.match(taken.stdout, new RegExp(`received 1 credential\\(s\\) into the wallet of ${did.holder}`))
    assert.equal((await json('holder', 'wallet', 'list', '--type', 'Resident')).data.length, 1)
  })

  it('an empty answer (Enter) or end of input is no', async () => {
    const made = await offer('ResidentEnter')
    for (const answer of ['\n', '']) {
      const run = await cpsAnswering(answer, ['wallet', 'accept', made.credential_offer_uri], env('holder'))
      exit(run, 3)
    }
    assert.equal((await json('holder', 'wallet', 'list', '--type', 'ResidentEnter')).data.length, 0)
  })

  it('an openid4vp:// request: the preview names the verifier, how it was verified, the purpose and each disclosed value; n tells the verifier', async () => {
    const asked = await request()
    const shown = await cpsAnswering('n\n', ['wallet', 'present', asked.authorization_request_uri], env('holder'))
    exit(shown, 3)
    assert.match(shown.stderr, new RegExp(`verifier: {4}decentralized_identifier:did:web:`))
    assert.match(shown.stderr, /identity: {4}verified: /)
    assert.match(shown.stderr, /^ {2}purpose: {5}Check residence$/m)
    assert.match(
      shown.stderr,
      /would disclose:\n {4}Resident \(dc\+sd-jwt, aly:[\w-]+\) from .+:\n(?: {6}.+\n)*? {6}given_name: Erika\n/,
    )
    assert.match(shown.stderr, /and the credential's own issuer, dates, key binding and status \(.*cnf.*\)/)
    assert.doesNotMatch(shown.stderr, /Mustermann/)
    assert.match(shown.stdout, /^declined: the verifier was told \(access_denied, HTTP 200\)/)
    // The verifier's wait ends on the refusal (a request to anyone stays open to others); the holder's log has it.
    const waited = await cps(
      ['verifier', 'request', 'wait', asked.request.id, '--timeout', '30', '--json'],
      env('verifier'),
    )
    exit(waited, 1)
    const seen = JSON.parse(waited.stdout)
    assert.equal(seen.holder_response.error, 'access_denied', waited.stdout)
    assert.equal(seen.request.status, 'pending')
    assert.ok((await activityTypes()).includes('presentation_declined'))
  })

  it('an openid4vp:// request through the real binary: without --yes exit 2 and the verifier still waits; with --yes and stdin piped it is answered', async () => {
    const asked = await request()
    const refused = await cps(['wallet', 'present', asked.authorization_request_uri], env('holder'), 'y\n')
    exit(refused, 2)
    assert.match(refused.stderr, /Presentation request from /)
    assert.match(refused.stderr, /nothing was sent: answering a presentation request needs the holder's answer/)
    // Still unanswered: the verifier's wait finds nothing to report.
    const pending = await cps(['verifier', 'request', 'wait', asked.request.id, '--timeout', '0'], env('verifier'))
    exit(pending, 1)
    assert.match(pending.stderr, /error: timeout: no answer to/)
    const answered = await cps(['wallet', 'present', asked.authorization_request_uri, '--yes'], env('holder'), '')
    exit(answered, 0)
    assert.match(answered.stderr, /given_name: Erika/)
    assert.match(answered.stdout, /^accepted by the verifier \(HTTP 200\)/)
    const waited = await json('verifier', 'verifier', 'request', 'wait', asked.request.id, '--timeout', '30')
    assert.equal(waited.request.status, 'verified')
  })

  it("the spec's request: the preview shows the verifier, purpose and the disclosed attributes; n rejects it, y presents", async () => {
    await json(
      'issuer',
      'issuer',
      'issue',
      '--schema',
      degreeSchemaId,
      '--type',
      'UniversityDegree',
      '--subject',
      did.holder!,
      '--attr',
      'given_name=Ada',
      '--attr',
      'gpa=3.8',
    )
    const create = () =>
      json(
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
      )
    const first = await create()
    const declined = await cpsAnswering(
      'no\n',
      ['wallet', 'present', first.request.id, '--reveal', 'given_name', '--predicate', 'gpa>=3'],
      env('holder'),
    )
    exit(declined, 3)
    assert.match(
      declined.stderr,
      new RegExp(`verifier: {4}${did.verifier} \\(signed in to this service with that DID\\)`),
    )
    assert.match(declined.stderr, /purpose: {5}Hiring/)
    assert.match(declined.stderr, /given_name: Ada\n {6}proves gpa >= 3 \(the value itself stays hidden\)/)
    assert.doesNotMatch(declined.stderr, /3\.8/)
    assert.match(declined.stdout, /^declined: request .+ rejected/)
    // A request to anyone stays open; the verifier's wait ends on this holder's refusal.
    const waited = await cps(['verifier', 'request', 'wait', first.request.id, '--timeout', '30'], env('verifier'))
    exit(waited, 1)
    assert.match(
      waited.stdout,
      new RegExp(`^request ${first.request.id}: declined by ${did.holder} \\(declined by the holder\\)`),
    )

    const second = await create()
    const presented = await cpsAnswering('Y\n', ['wallet', 'present', second.request.id, '--json'], env('holder'))
    exit(presented, 0)
    // Without --reveal a JWT-VC goes whole: the preview says so by listing every attribute.
    assert.match(presented.stderr, /^ {6}given_name: Ada$/m)
    assert.match(presented.stderr, /^ {6}gpa: 3\.8$/m)
    assert.match(JSON.parse(presented.stdout).presentation_jwt, /^[\w-]+\.[\w-]+\.[\w-]+$/)
  })
})
