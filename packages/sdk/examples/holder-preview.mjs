// examples/holder-preview.mjs: see who offers and who asks, and what, before anything is sent; then decide (node holder-preview.mjs <offer URI> <transaction code> <request URI>).
import { createInterface } from 'node:readline/promises'
import { acceptOffer, declineOffer, generateHolderKey, resolveOffer, resolveRequest, signIn } from '@credential-service/sdk'

const baseUrl = process.env.SERVICE_URL ?? 'https://localhost:3000'
const [offerUri, txCode, requestUri] = process.argv.slice(2)
const terminal = createInterface({ input: process.stdin, output: process.stdout })
const yes = async (question) => (await terminal.question(`${question} [y/N] `)).trim().toLowerCase() === 'y'

const key = await generateHolderKey()
const client = await signIn({ baseUrl, key })

// The service reads the offer and the issuer's metadata; nothing is redeemed yet.
const offer = await resolveOffer(client, key, { offerUri })
for (const credential of offer.credential_configurations) {
  const claims = credential.claims.map((claim) => claim.display_name ?? claim.path.join('.'))
  console.log(`${offer.issuer.name ?? offer.issuer.domain} offers ${credential.display_name ?? credential.credential_type}: ${claims.join(', ')}`)
}
if (await yes('Accept it?')) {
  const received = await acceptOffer(client, key, { offerUri, txCode })
  console.log(`Received: ${received.credentials.map((c) => c.credential_type).join(', ')}`)
} else {
  await declineOffer(client, key, { offerUri, reason: 'Not wanted' })
  console.log('Offer declined')
}

// The service checks the request and prepares the answer; nothing reaches the verifier yet.
const request = await resolveRequest(client, key, { authorizationRequestUri: requestUri })
const verifier = request.verifierIdentity
console.log(`${verifier.name ?? verifier.client_id} (${verifier.verified ? `verified: ${verifier.verified_by}` : 'not verified'}) asks, for "${request.purpose}":`)
for (const presentation of request.presentations) {
  for (const [claim, value] of Object.entries(presentation.disclosed)) console.log(`  ${claim}: ${JSON.stringify(value)}`)
}
if (await yes('Share this?')) {
  const answer = await request.accept()
  console.log(`The verifier ${answer.accepted ? 'accepted' : 'refused'} the presentation`)
} else {
  await request.decline('I do not share my degree')
  console.log('Declined: the verifier is told so')
}
terminal.close()
