// examples/sign-in.mjs: a key, a session, a typed call, an error.
import { exportHolderKey, generateHolderKey, importHolderKey, ServiceError, signIn } from '@credential-service/sdk'

const baseUrl = process.env.SERVICE_URL ?? 'http://localhost:3000'

const key = await generateHolderKey({ extractable: true }) // Ed25519 did:key; { alg: 'ES256' } for P-256
const saved = await exportHolderKey(key) // { did, alg, privateJwk }: keep it safe
const again = await importHolderKey(saved.privateJwk) // the same DID
console.log(`My DID: ${again.did}`)

const client = await signIn({ baseUrl, key }) // challenge, signature, session
const { data } = await client.api.GET('/api/auth/me') // every route, typed
console.log(`Signed in as ${data.user.did}`)

try {
  await client.api.GET('/api/wallet/{did}/credentials/{credential_id}', { params: { path: { did: key.did, credential_id: 'no-such-credential' } } })
} catch (error) {
  if (!(error instanceof ServiceError)) throw error
  console.log(`The service answered ${error.status} ${error.code}: ${error.message}`)
}
