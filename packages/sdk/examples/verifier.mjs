// examples/verifier.mjs: a presentation request for any wallet, the holder's answer, a verification.
import { createVerifierClient, generateHolderKey, signIn } from '@credential-service/sdk'

const baseUrl = process.env.SERVICE_URL ?? 'https://localhost:3000' // OpenID4VP needs https

const verifier = createVerifierClient(await signIn({ baseUrl, key: await generateHolderKey() }))
await verifier.createProfile({ name: 'Example Employer' }) // the name holders see
const { request, authorizationRequestUri } = await verifier.createOpenid4vpRequest({
  presentation_type: 'DegreeCheck',
  purpose: 'Check the degree of an applicant',
  required_credentials: [{ credential_type: 'Degree', required_attributes: ['given_name', 'degree'] }],
})
console.log(`Request: ${authorizationRequestUri}`) // show it as a QR code

// Polls the request until the holder answers or declines, or it expires; the signal ends the wait.
const result = await verifier.waitForResult(request.id, { signal: AbortSignal.timeout(10 * 60_000), intervalMs: 500 })
if (result.outcome === 'answered') {
  console.log(`Answered: the presentation is ${result.presentation?.status}`)
  const check = await verifier.verify(result.presentation.id) // checked again now (revocation, consent)
  console.log(`Verified again: ${check.verification_result.is_valid}`)
} else {
  console.log(`No presentation: ${result.outcome}${result.reason ? ` (${result.reason})` : ''}`)
}
