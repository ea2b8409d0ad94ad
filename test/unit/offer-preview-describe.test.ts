import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { describeOffer } from '../../src/modules/openid4vc/holder/offer-preview.service.js'

type Metadata = Parameters<typeof describeOffer>[1]
type Offer = Parameters<typeof describeOffer>[0]

const offer = {
  credential_issuer: 'https://issuer.example',
  credential_configuration_ids: ['loose', 'degree'],
  grants: {},
} as unknown as Offer
/** Issuer metadata as an issuer may publish it for a format the library validates loosely: entries of any kind. */
const metadata = {
  credentialIssuer: {
    credential_issuer: 'https://issuer.example',
    display: [
      null,
      'text',
      { name: 'Université', locale: 'fr' },
      { name: 'Example University', locale: 'en-GB', logo: { uri: 'http://insecure.example/logo.png' } },
    ],
    credential_configurations_supported: {
      loose: {
        format: 'some-format',
        credential_metadata: {
          display: [null, 7],
          claims: [null, 'x', { path: ['given_name'], mandatory: true, display: [null, { name: 'Given name' }] }],
        },
      },
      degree: { format: 'dc+sd-jwt', vct: 'https://issuer.example/vct/degree', claims: { not: 'a list' } },
    },
  },
} as unknown as Metadata

describe('an offer described for the holder', () => {
  it('reads what it can of metadata whose display and claims entries are not all objects, instead of failing', () => {
    const described = describeOffer(offer, metadata)
    assert.equal(described.issuer.name, 'Example University')
    // Only an https logo reaches the holder's screen.
    assert.equal(described.issuer.logo_uri, null)
    const [loose, degree] = described.credential_configurations
    assert.deepEqual(loose, {
      id: 'loose',
      format: 'some-format',
      credential_type: 'loose',
      display_name: null,
      claims: [{ path: ['given_name'], display_name: 'Given name', mandatory: true }],
    })
    assert.deepEqual(degree, {
      id: 'degree',
      format: 'dc+sd-jwt',
      credential_type: 'https://issuer.example/vct/degree',
      display_name: null,
      claims: [],
    })
    assert.equal(described.tx_code, null)
    assert.equal(described.grant, 'authorization_code')
  })
})
