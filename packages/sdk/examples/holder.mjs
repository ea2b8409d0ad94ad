// examples/holder.mjs: accept an offer, answer a request (node holder.mjs <offer URI> <transaction code> <request URI>).
import { acceptOffer, answerPresentationRequest, generateHolderKey, signIn } from '@credential-service/sdk'

const baseUrl = process.env.SERVICE_URL ?? 'https://localhost:3000'
const [offerUri, txCode, requestUri] = process.argv.slice(2)

// The wallet is on the service; the key stays here and signs what the service prepares.
const key = await generateHolderKey()
const client = await signIn({ baseUrl, key })

const received = await acceptOffer(client, key, { offerUri, txCode })
console.log(`Received: ${received.credentials.map((c) => c.credential_type).join(', ')}`)

const answer = await answerPresentationRequest(client, key, { authorizationRequestUri: requestUri })
console.log(`The verifier ${answer.accepted ? 'accepted' : 'refused'} the presentation`)
