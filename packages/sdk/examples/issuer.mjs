// examples/issuer.mjs: an issuer's profile, a schema, an offer for any wallet, a credential issued and revoked.
import { createIssuerClient, generateHolderKey, signIn } from '@credential-service/sdk'

const baseUrl = process.env.SERVICE_URL ?? 'https://localhost:3000' // OpenID4VCI needs https

const issuer = createIssuerClient(await signIn({ baseUrl, key: await generateHolderKey() }))
await issuer.createProfile({ name: 'Example University' })
const schema = await issuer.createSchema({
  name: 'Degree',
  version: '1.0',
  anonymous_credentials: false, // JWT and SD-JWT only: no BBS signature
  attributes: [
    { name: 'given_name', data_type: 'string', required: true },
    { name: 'degree', data_type: 'string', required: true },
  ],
})

// An offer the holder's wallet takes: the spec's JSON and, on https, an OpenID4VCI URI for any standard wallet.
const offer = await issuer.createOffer({
  credential_type: 'Degree',
  schema_id: schema.id,
  format: 'dc+sd-jwt', // SD-JWT VC: the holder discloses claim by claim
  attributes: { given_name: 'Erika', degree: 'BSc Physics' },
  tx_code: true, // a code the holder types in, sent apart from the offer
})
console.log(`Offer: ${offer.offerUri}`)
console.log(`Transaction code: ${offer.txCode}`)

// Issued directly to a DID the issuer knows, then revoked.
const subject = await generateHolderKey()
const credential = await issuer.issue({ credential_type: 'Degree', schema_id: schema.id, subject_did: subject.did, attributes: { given_name: 'Max', degree: 'MSc' } })
const revoked = await issuer.revoke(credential.id, { reason: 'Issued in error' })
console.log(`Credential ${credential.id} is ${revoked.status}`)
