/**
 * `cps wallet accept` of an OpenID4VCI offer in every format the issuer offers
 * (docs/openid4vci.md "Credential configurations": dc+sd-jwt, jwt_vc_json, ldp_vc as
 * eddsa-rdfc-2022), against one server process on https: each accept exits 0, says what it
 * received, and the wallet holds the credential exactly once.
 */
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { cps, startHttpsServer, type HttpsServer } from './helpers/cps.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>

describe('cps wallet accept: an OpenID4VCI offer in each format', () => {
  let dir: string
  let server: HttpsServer
  let schemaId: string
  let holderDid: string

  const env = (actor: 'issuer' | 'holder'): Record<string, string> => ({
    HOME: dir,
    CPS_BASE_URL: server.baseUrl,
    CPS_KEY_FILE: path.join(dir, actor, 'keys.json'),
    NODE_EXTRA_CA_CERTS: server.caFile,
  })
  const json = async (actor: 'issuer' | 'holder', ...args: string[]): Promise<Json> => {
    const run = await cps([...args, '--json'], env(actor))
    assert.equal(run.code, 0, `cps ${args.join(' ')}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`)
    return JSON.parse(run.stdout) as Json
  }

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'cps-formats-'))
    server = await startHttpsServer(dir)
    const [, holder] = await Promise.all([
      json('issuer', 'keys', 'new', '--name', 'issuer'),
      json('holder', 'keys', 'new', '--name', 'holder'),
    ])
    holderDid = holder.did
    await json('issuer', 'issuer', 'profile', 'set', '--name', 'Town hall')
    const schema = await json(
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
    schemaId = schema.schema.id
  })

  after(async () => {
    await server?.stop()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  // [offer format (none: the default), the configuration's format, the type the wallet lists]
  const cases: [string | undefined, string, string][] = [
    [undefined, 'jwt_vc_json', 'DefaultResident'],
    ['jwt_vc_json', 'jwt_vc_json', 'JwtResident'],
    ['dc+sd-jwt', 'dc+sd-jwt', 'SdJwtResident'],
    ['eddsa-rdfc-2022', 'ldp_vc', 'DiResident'],
  ]
  for (const [format, configured, type] of cases) {
    for (const txCode of [false, true]) {
      it(`${format ?? 'the default format'} (${configured})${txCode ? ' with a transaction code' : ''}: accepted once, exit 0, in the wallet once`, async () => {
        const credentialType = `${type}${txCode ? 'Tx' : ''}`
        const offer = await json(
          'issuer',
          ...[
            'issuer',
            'offer',
            'create',
            '--schema',
            schemaId,
            '--type',
            credentialType,
            '--attr',
            'given_name=Erika',
            '--attr',
            'family_name=Mustermann',
          ],
          ...(format ? ['--format', format] : []),
          ...(txCode ? ['--tx-code'] : []),
        )
        assert.match(offer.credential_offer_uri, /^openid-credential-offer:\/\//)
        assert.equal(offer.credential_configuration_id, `${schemaId}.${configured}`)
        const accept = await cps(
          ['wallet', 'accept', offer.credential_offer_uri, '--yes', ...(txCode ? ['--tx-code', offer.tx_code] : [])],
          env('holder'),
        )
        assert.equal(accept.code, 0, `stdout: ${accept.stdout}\nstderr: ${accept.stderr}`)
        assert.match(accept.stdout, new RegExp(`received 1 credential\\(s\\) into the wallet of ${holderDid}`))
        assert.match(accept.stderr, /^Credential offer from Town hall/)
        const wallet = await json('holder', 'wallet', 'list', '--type', credentialType)
        assert.equal(wallet.data.length, 1, JSON.stringify(wallet.data))
        assert.equal(
          wallet.data[0].credential_data.family_name ?? wallet.data[0].credential_data.credentialSubject?.family_name,
          'Mustermann',
        )
      })
    }
  }

  it('an offer with --tx-code lacking a required attribute is refused before it is made (exit 2); with --requires-approval it is made', async () => {
    const base = [
      'issuer',
      'offer',
      'create',
      '--schema',
      schemaId,
      '--type',
      'Partial',
      '--tx-code',
      '--attr',
      'given_name=Erika',
    ]
    const refused = await cps(base, env('issuer'))
    assert.equal(refused.code, 2, `stdout: ${refused.stdout}\nstderr: ${refused.stderr}`)
    assert.match(refused.stderr, /lacks the schema's required attribute\(s\) family_name/)
    assert.equal(refused.stdout, '')
    const approved = await json('issuer', ...base, '--requires-approval')
    assert.match(approved.credential_offer_uri, /^openid-credential-offer:\/\//)
    // Without --tx-code the offer is made (the spec's credential request takes it), with a note.
    const noted = await cps(
      ['issuer', 'offer', 'create', '--schema', schemaId, '--type', 'Partial', '--attr', 'given_name=Erika'],
      env('issuer'),
    )
    assert.equal(noted.code, 0, noted.stderr)
    assert.match(noted.stderr, /note: the offer lacks the required attribute\(s\) family_name/)
  })

  it('the same offer accepted twice: the second is refused (the code is spent), the wallet still holds one', async () => {
    const offer = await json(
      'issuer',
      'issuer',
      'offer',
      'create',
      '--schema',
      schemaId,
      '--type',
      'Twice',
      '--attr',
      'given_name=Erika',
      '--attr',
      'family_name=Mustermann',
    )
    const first = await cps(['wallet', 'accept', offer.credential_offer_uri, '--yes'], env('holder'))
    assert.equal(first.code, 0, first.stderr)
    const second = await cps(['wallet', 'accept', offer.credential_offer_uri, '--yes'], env('holder'))
    assert.equal(second.code, 1, `stdout: ${second.stdout}\nstderr: ${second.stderr}`)
    assert.match(second.stderr, /^error: \w+: .+ \(HTTP 4\d\d\)$/m)
    const wallet = await json('holder', 'wallet', 'list', '--type', 'Twice')
    assert.equal(wallet.data.length, 1)
  })
})
