import { acceptOffer, answerPresentationRequest, presentToRequest, resolveQrPayload, type QrPayload, type ServiceClient } from '@credential-service/sdk'
import { UsageError, type CommandSpec } from '../args/command.js'
import { commaList, list, predicate, str } from '../args/values.js'
import { table } from '../output/output.js'
import { body } from './answer.js'

/** What the holder was handed: an offer or request URI, a QR payload or short URL of this service; undefined for a bare id. */
async function payload(client: ServiceClient, text: string): Promise<QrPayload | undefined> {
  try {
    return await resolveQrPayload(client, text)
  } catch (error) {
    if (/^[\w:.-]+$/.test(text.trim())) return undefined
    throw new UsageError(`cannot read "${text}": ${(error as Error).message}`)
  }
}

interface RequiredCredential {
  credential_type: string
  issuer_did?: string
}

/** For each credential the request asks for, the holder's first active one of that type (and issuer, when named). */
async function pickCredentials(client: ServiceClient, did: string, required: RequiredCredential[]): Promise<string[]> {
  const wallet = await body(client.api.GET('/api/wallet/{did}/credentials', { params: { path: { did }, query: { status: 'active', limit: 200 } } }))
  return required.map((wanted) => {
    const found = wallet.data.find((c) => c.credential_type === wanted.credential_type && (!wanted.issuer_did || c.issuer_did === wanted.issuer_did) && !c.expired && !c.withdrawn)
    if (!found) throw new UsageError(`no active ${wanted.credential_type} credential in the wallet${wanted.issuer_did ? ` from ${wanted.issuer_did}` : ''}: name one with --credential`)
    return found.id
  })
}

export const walletCommands: CommandSpec[] = [
  {
    path: ['wallet', 'list'],
    summary: "The acting holder's credentials",
    options: {
      status: { type: 'string', value: '<active|revoked>', description: 'Only these' },
      type: { type: 'string', value: '<credential-type>', description: 'Only this type' },
    },
    async run(ctx, { values }) {
      const { client, did } = await ctx.signedIn()
      const [status, type] = [str(values, 'status'), str(values, 'type')]
      const answer = await body(client.api.GET('/api/wallet/{did}/credentials', { params: { path: { did }, query: { ...(status ? { status: status as 'active' } : {}), ...(type ? { type } : {}) } } }))
      ctx.out.result(answer, () =>
        answer.data.length
          ? table(['ID', 'TYPE', 'STATUS', 'ISSUER', 'SIGNATURE'], answer.data.map((c) => [c.id, c.credential_type, c.status, c.issuer_name || c.issuer_did, c.signature_type]))
          : ['no credentials'],
      )
    },
  },
  {
    path: ['wallet', 'accept'],
    summary: 'Take a credential offer: an openid-credential-offer:// URI or the offer payload of a QR',
    details:
      "An OpenID4VCI offer runs through the hosted wallet (POST /api/wallet/:did/offers/accept, the key proof signed here, POST …/accept/:session_id): the credential arrives bound to the acting key. The spec's offer payload (JSON with offer_id) becomes a credential request (POST /api/wallet/credential-request), issued when the issuer approves it.",
    positionals: [{ name: 'offer', description: 'Offer URI, or the QR payload text' }],
    options: {
      'tx-code': { type: 'string', value: '<code>', description: 'The transaction code the issuer gave separately' },
      yes: { type: 'boolean', short: 'y', description: 'Accept without asking (the preview is still printed)' },
    },
    examples: ["cps wallet accept 'openid-credential-offer://?credential_offer_uri=…' --tx-code 123456"],
    async run(ctx, { values, positionals }) {
      const text = positionals[0]!
      const { client, did, key } = await ctx.signedIn()
      const parsed = await payload(client, text)
      if (parsed?.kind === 'spec-offer') {
        const raw = parsed.raw as { offer_id: string; issuer_did: string }
        const answer = await body(client.api.POST('/api/wallet/credential-request', { body: { issuer_did: raw.issuer_did, offer_id: raw.offer_id } }))
        ctx.out.result(answer, [`credential request ${answer.request.id}: ${answer.request.status} (the issuer approves it with cps issuer requests approve)`])
        return
      }
      if (parsed && parsed.kind !== 'oid4vci-offer') throw new UsageError(`that is a ${parsed.kind}, not an offer (cps wallet present takes requests)`)
      const txCode = str(values, 'tx-code')
      const result = await ctx.out.progress('taking the offer', () => acceptOffer(client, key, { offerUri: parsed?.value ?? text, ...(txCode ? { txCode } : {}) }))
      ctx.out.result(result, [
        result.status === 'issued' ? `received ${result.credentials.length} credential(s) into the wallet of ${did}` : 'the issuer has not issued it yet (pending): run cps wallet list later',
      ])
    },
  },
  {
    path: ['wallet', 'present'],
    summary: "Answer a verifier's request: the spec's request id, or an openid4vp:// URI",
    details: [
      'A request id (or the request QR payload): the request is taken into the inbox, the credentials it asks for are picked from the wallet (or --credential), a one-time consent is granted when the verifier has none, and the VP-JWT is signed here. With predicates (--predicate, or those of the request when none is given) the presentation carries a BBS zero-knowledge proof that discloses only --reveal (default: the attributes the request names).',
      'An openid4vp:// URI: answered through the hosted wallet (POST /api/wallet/:did/presentation-requests/answer), the key binding signed here.',
      'It prints the presentation id and the VP-JWT, which the verifier passes to cps verifier verify.',
    ].join('\n'),
    positionals: [{ name: 'request', description: 'Request id, request QR payload, or openid4vp:// URI' }],
    options: {
      credential: { type: 'string', multiple: true, value: '<credential-id>', description: 'Present this credential (default: the first active one of each requested type)' },
      reveal: { type: 'string', multiple: true, value: '<a,b>', description: "Attributes to disclose: in a predicate proof, or an SD-JWT VC's disclosures (default: the request's)" },
      predicate: { type: 'string', multiple: true, value: "<'gpa>=3'>", description: 'Prove attribute >=, >, <=, < value without disclosing it' },
      yes: { type: 'boolean', short: 'y', description: 'Disclose without asking (the preview is still printed)' },
    },
    examples: ["cps wallet present <request-id> --reveal given_name --predicate 'gpa>=3'", "cps wallet present 'openid4vp://?client_id=…&request_uri=…'"],
    async run(ctx, { values, positionals }) {
      const text = positionals[0]!
      const { client, did, key } = await ctx.signedIn()
      const parsed = await payload(client, text)
      if (parsed?.kind === 'oid4vp-request') {
        const result = await ctx.out.progress('answering', () => answerPresentationRequest(client, key, { authorizationRequestUri: parsed.value }))
        ctx.out.result(result, [`${result.accepted ? 'accepted' : 'refused'} by the verifier (HTTP ${result.verifier_status})`, ...(result.redirect_uri ? [`redirect: ${result.redirect_uri}`] : [])])
        return result.accepted ? 0 : 1
      }
      if (parsed && parsed.kind !== 'spec-request') throw new UsageError(`that is a ${parsed.kind}, not a presentation request (cps wallet accept takes offers)`)
      const requestId = parsed?.value ?? text
      const inbox = await body(client.api.POST('/api/wallet/presentation-requests', { body: { request_id: requestId } }))
      const request = inbox.request
      const given = list(values, 'predicate').map(predicate)
      const predicates = given.length ? given : request.required_predicates.map(({ attribute, operator, value }) => ({ attribute, operator, value }))
      const revealGiven = commaList(values, 'reveal')
      const reveal = revealGiven.length || !predicates.length ? revealGiven : [...new Set(request.required_credentials.flatMap((c) => c.required_attributes ?? []))]
      const chosen = list(values, 'credential')
      const credentialIds = chosen.length ? chosen : await pickCredentials(client, did, request.required_credentials)
      const result = await ctx.out.progress(predicates.length ? 'deriving the proof and signing' : 'signing', () =>
        presentToRequest(client, key, { requestId, credentialIds, ...(reveal.length ? { reveal } : {}), ...(predicates.length ? { predicates } : {}) }),
      )
      // The verifier verifies with this very JWT: printed for the holder to pass on (the verifier also reads it from GET /api/verifier/presentations/:id).
      ctx.out.result({ presentation_id: result.presentationId, presentation_jwt: result.presentationJwt, request_id: requestId, credential_ids: credentialIds, reveal, predicates }, [
        `presentation ${result.presentationId} sent to ${request.verifier_did}`,
        `presentation JWT (for cps verifier verify): ${result.presentationJwt}`,
      ])
    },
  },
]
