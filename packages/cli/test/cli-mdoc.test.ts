/**
 * An mDL (ISO/IEC 18013-5, `mso_mdoc`) with `cps` only, each step a `cps` process against one
 * server process on https: the issuer's country, a schema from the service's preset, an offer
 * with typed attributes from a file, the holder's accept bound to a P-256 device key that cps
 * keeps beside the holder key (made on first need, in the same 0600 file), the wallet showing the
 * doctype and elements. Failure paths: an unknown preset, a malformed attributes file, a country
 * that is not alpha-2, an unknown credential, a holder key given inline (no key file to keep a device key in).
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { cps, startHttpsServer, type CpsRun, type HttpsServer } from './helpers/cps.js'

// JSON printed by `cps --json`, read at named fields.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

type Actor = 'issuer' | 'holder' | 'verifier'
const MDL = 'org.iso.18013.5.1.mDL'

/** A German mDL's attributes, typed as the preset asks: full-dates as text, booleans, the driving_privileges array. */
const LICENCE = {
  family_name: 'Mustermann',
  given_name: 'Erika',
  birth_date: '1990-08-12',
  issue_date: '2026-01-01',
  expiry_date: '2036-01-01',
  issuing_country: 'DE',
  issuing_authority: 'Kraftfahrt-Bundesamt',
  document_number: 'DE-0001',
  portrait: 'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ==',
  driving_privileges: [{ vehicle_category_code: 'B', issue_date: '2008-05-01', expiry_date: '2036-01-01' }],
  un_distinguishing_sign: 'D',
}

describe('cps with an mDL', () => {
  let dir: string
  let server: HttpsServer
  let schemaId: string
  let credentialId: string

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
  const expectExit = (run: CpsRun, code: number) =>
    assert.equal(run.code, code, `stdout: ${run.stdout}\nstderr: ${run.stderr}`)
  const keyFile = async (actor: Actor) => JSON.parse(await readFile(path.join(dir, actor, 'keys.json'), 'utf8')) as Json
  const offer = async (...extra: string[]) =>
    json(
      'issuer',
      ...[
        'issuer',
        'offer',
        'create',
        '--schema',
        schemaId,
        '--type',
        'DrivingLicence',
        '--format',
        'mso_mdoc',
        '--attributes-file',
        path.join(dir, 'licence.json'),
        '--attr',
        'age_over_18=true',
        ...extra,
      ],
    )

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cps-mdoc-'))
    server = await startHttpsServer(dir)
    await Promise.all(
      (['issuer', 'holder', 'verifier'] as const).map((actor) => json(actor, 'keys', 'new', '--name', actor)),
    )
    await writeFile(path.join(dir, 'licence.json'), JSON.stringify(LICENCE))
  })

  after(async () => {
    await server?.stop()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('issuer profile set --country: an alpha-2 code is kept and shown; anything else exits 2 before the service is asked', async () => {
    const bad = await cps(['issuer', 'profile', 'set', '--name', 'KBA', '--country', 'de'], env('issuer'))
    expectExit(bad, 2)
    assert.match(bad.stderr, /--country takes an ISO 3166-1 alpha-2 code/)
    const created = await json('issuer', 'issuer', 'profile', 'set', '--name', 'Kraftfahrt-Bundesamt')
    assert.equal(created.issuer.country ?? null, null)
    const human = await cps(['issuer', 'profile', 'set', '--country', 'DE'], env('issuer'))
    expectExit(human, 0)
    assert.match(human.stdout, /country: DE/)
    assert.equal((await json('issuer', 'issuer', 'profile', 'show')).issuer.country, 'DE')
  })

  it('issuer schema presets and create --preset: the mDL schema as the service offers it; an unknown preset exits 2 naming the known ones', async () => {
    const presets = await json('issuer', 'issuer', 'schema', 'presets')
    assert.deepEqual(
      presets.presets.map((p: Json) => p.id),
      [MDL, 'eu.europa.ec.eudi.pid.1'],
    )
    const unknown = await cps(['issuer', 'schema', 'create', '--preset', 'org.example.none'], env('issuer'))
    expectExit(unknown, 2)
    assert.match(
      unknown.stderr,
      /no schema preset "org\.example\.none".*org\.iso\.18013\.5\.1\.mDL, eu\.europa\.ec\.eudi\.pid\.1/,
    )
    const both = await cps(
      ['issuer', 'schema', 'create', '--preset', MDL, '--body-file', path.join(dir, 'licence.json')],
      env('issuer'),
    )
    expectExit(both, 2)

    const human = await cps(['issuer', 'schema', 'create', '--preset', MDL], env('issuer'))
    expectExit(human, 0)
    assert.match(human.stdout, /mdoc: org\.iso\.18013\.5\.1\.mDL \(namespace org\.iso\.18013\.5\.1\)/)
    const created = await json('issuer', 'issuer', 'schema', 'create', '--preset', MDL, '--name', 'mDL (Germany)')
    assert.equal(created.schema.name, 'mDL (Germany)')
    assert.ok(created.schema.attributes.some((a: Json) => a.name === 'driving_privileges' && a.data_type === 'array'))
    schemaId = created.schema.id
  })

  it('issuer offer create: a malformed attributes file exits 2 before anything is made', async () => {
    const broken = path.join(dir, 'broken.json')
    await writeFile(broken, '{"family_name": "Mustermann",')
    const notJson = await cps(
      [
        'issuer',
        'offer',
        'create',
        '--schema',
        schemaId,
        '--type',
        'DrivingLicence',
        '--format',
        'mso_mdoc',
        '--attributes-file',
        broken,
      ],
      env('issuer'),
    )
    expectExit(notJson, 2)
    assert.match(notJson.stderr, /attributes file .*broken\.json is not JSON/)
    const list = path.join(dir, 'list.json')
    await writeFile(list, JSON.stringify([LICENCE]))
    const notObject = await cps(
      [
        'issuer',
        'offer',
        'create',
        '--schema',
        schemaId,
        '--type',
        'DrivingLicence',
        '--format',
        'mso_mdoc',
        '--attributes-file',
        list,
      ],
      env('issuer'),
    )
    expectExit(notObject, 2)
    assert.match(notObject.stderr, /must hold a JSON object/)
  })

  it('wallet accept of an mso_mdoc offer: a P-256 device key is made beside the holder key (0600), the mDL is bound to it; the next accept uses the same key', async () => {
    const holderBefore = await keyFile('holder')
    assert.equal(holderBefore.keys[0].device_jwk, undefined)
    const first = await offer()
    const accepted = await cps(['wallet', 'accept', first.credential_offer_uri, '--yes'], env('holder'))
    expectExit(accepted, 0)
    assert.match(accepted.stdout, /received 1 credential\(s\)/)
    // The preview goes to the terminal's stderr, the result to stdout.
    assert.match(accepted.stderr, /format mso_mdoc/)
    assert.match(accepted.stderr, /doctype org\.iso\.18013\.5\.1\.mDL, namespace org\.iso\.18013\.5\.1/)

    const file = path.join(dir, 'holder', 'keys.json')
    assert.equal((await stat(file)).mode & 0o777, 0o600)
    const device = (await keyFile('holder')).keys[0].device_jwk as Json
    assert.equal(device.kty, 'EC')
    assert.equal(device.crv, 'P-256')
    assert.equal(typeof device.d, 'string')
    const shown = await json('holder', 'keys', 'show')
    assert.deepEqual(shown.device_public_jwk, { kty: 'EC', crv: 'P-256', x: device.x, y: device.y })
    assert.equal(shown.alg, 'EdDSA', 'the holder key itself is unchanged')

    const second = await offer()
    await json('holder', 'wallet', 'accept', second.credential_offer_uri, '--yes')
    assert.deepEqual((await keyFile('holder')).keys[0].device_jwk, device, 'the same device key')
  })

  it('wallet list and show: the doctype and the elements of the mDL', async () => {
    const listed = await json('holder', 'wallet', 'list')
    assert.equal(listed.mdocs.length, 2)
    const mdoc = listed.mdocs[0] as Json
    assert.equal(mdoc.doctype, MDL)
    assert.deepEqual([...mdoc.elements].sort(), [...Object.keys(LICENCE), 'age_over_18'].sort())
    credentialId = mdoc.id
    const human = await cps(['wallet', 'list'], env('holder'))
    expectExit(human, 0)
    assert.match(
      human.stdout,
      new RegExp(`${credentialId}: mdoc org\\.iso\\.18013\\.5\\.1\\.mDL, elements .*age_over_18`),
    )

    const show = await cps(['wallet', 'show', credentialId], env('holder'))
    expectExit(show, 0)
    assert.match(show.stdout, /format: +mso_mdoc, doctype org\.iso\.18013\.5\.1\.mDL/)
    assert.match(show.stdout, /elements: .*driving_privileges/)
    assert.match(show.stdout, /age_over_18: true/)
    const shownJson = await json('holder', 'wallet', 'show', credentialId)
    assert.equal(shownJson.mdoc.doctype, MDL)

    const unknown = await cps(['wallet', 'show', 'aly:00000000-0000-4000-8000-000000000000'], env('holder'))
    expectExit(unknown, 2)
    assert.match(unknown.stderr, /no credential aly:00000000-0000-4000-8000-000000000000 in the wallet/)
  })

  it('verifier request create --format mso_mdoc; wallet present signs the device signature with the device key; the verifier received age_over_18 only', async () => {
    const request = async () =>
      json(
        'verifier',
        ...[
          'verifier',
          'request',
          'create',
          '--type',
          'AgeCheck',
          '--purpose',
          'Age over 18',
          '--credential',
          'DrivingLicence:age_over_18',
          '--format',
          'mso_mdoc',
        ],
      )
    // A copy of the holder's key file without its device key: the mdoc cannot be presented (exit 2), nothing is sent.
    const created = await request()
    assert.equal(created.request.required_credentials[0].format, 'mso_mdoc')
    const holder = await keyFile('holder')
    const withoutDevice = path.join(dir, 'holder-copy', 'keys.json')
    await mkdir(path.dirname(withoutDevice), { recursive: true, mode: 0o700 })
    const { device_jwk: _device, ...bare } = holder.keys[0] as Json
    await writeFile(withoutDevice, JSON.stringify({ ...holder, keys: [bare] }), { mode: 0o600 })
    const refused = await cps(['wallet', 'present', created.authorization_request_uri, '--yes'], {
      ...env('holder'),
      CPS_KEY_FILE: withoutDevice,
    })
    expectExit(refused, 2)
    assert.match(refused.stderr, /no device key/)
    const still = await cps(['verifier', 'request', 'wait', created.request.id, '--timeout', '0'], env('verifier'))
    expectExit(still, 1)
    assert.match(still.stderr, /timeout: no answer/, 'the verifier is still waiting')

    const asked = await request()
    const presented = await cps(['wallet', 'present', asked.authorization_request_uri, '--yes'], env('holder'))
    expectExit(presented, 0)
    assert.match(presented.stdout, /accepted by the verifier \(HTTP 200\)/)
    assert.match(presented.stderr, /age_over_18: true/)
    assert.doesNotMatch(presented.stderr, /family_name|Mustermann/)

    const waited = await json('verifier', 'verifier', 'request', 'wait', asked.request.id)
    assert.equal(waited.request.status, 'verified')
    assert.deepEqual(waited.presentation.provided_attributes, ['age_over_18'])
    const subjects = waited.presentation.verification_result.credential_subjects as Json[]
    assert.equal(subjects.length, 1)
    assert.equal(subjects[0]!.age_over_18, true)
    for (const name of Object.keys(LICENCE)) assert.equal(subjects[0]![name], undefined, name)
    const human = await cps(['verifier', 'request', 'wait', asked.request.id], env('verifier'))
    expectExit(human, 0)
    assert.match(human.stdout, /disclosed \(1\): age_over_18$/m)
  })

  it('a holder key given inline (--private-jwk) cannot take an mdoc: there is no key file to keep its device key in (exit 2)', async () => {
    const holder = (await keyFile('holder')).keys[0] as Json
    const created = await offer()
    const run = await cps(
      ['wallet', 'accept', created.credential_offer_uri, '--yes', '--private-jwk', JSON.stringify(holder.private_jwk)],
      env('holder'),
    )
    expectExit(run, 2)
    assert.match(run.stderr, /device key kept in the key file/)
  })
})
