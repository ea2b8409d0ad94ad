import { readFileSync } from 'node:fs'
import type { ServiceClient } from '@credential-service/sdk'
import { LocalError, UsageError, type CommandSpec } from '../args/command.js'
import { int, list, predicate, required, str } from '../args/values.js'
import { terminalQr } from '../output/qr.js'
import { body } from './answer.js'

const POLL_MS = 1000
const DEFAULT_WAIT_SECONDS = 120
/** Request states that end the wait (docs/decisions.md "Presentations"): answered, refused or lapsed. */
const SETTLED = new Set(['submitted', 'verified', 'failed', 'rejected', 'expired'])
const ANSWERED = new Set(['submitted', 'verified', 'failed'])

/** `UniversityDegree:given_name,birth_date` -> {credential_type, required_attributes}. */
function requiredCredential(text: string, issuer: string | undefined, format: string | undefined) {
  const [type, attrs = ''] = text.split(':')
  if (!type) throw new UsageError(`--credential takes Type[:attr,attr], not "${text}"`)
  const names = attrs
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean)
  return {
    credential_type: type,
    ...(names.length ? { required_attributes: names } : {}),
    ...(issuer ? { issuer_did: issuer } : {}),
    ...(format ? { format } : {}),
  }
}

/** The presentation that answered `requestId`, from the verifier's list (newest first). */
async function presentationFor(client: ServiceClient, did: string, requestId: string) {
  let cursor: string | undefined
  do {
    const page = await body(
      client.api.GET('/api/verifier/{did}/presentations', {
        params: { path: { did }, query: { limit: 100, ...(cursor ? { cursor } : {}) } },
      }),
    )
    const found = page.presentations.find((p) => p.request_id === requestId)
    if (found) return found
    cursor = page.next_cursor ?? undefined
  } while (cursor)
  return undefined
}

/** The VP-JWT text of --presentation-jwt: inline, `@file`, or `-` for stdin. */
function jwtArg(text: string): string {
  try {
    if (text === '-') return readFileSync(0, 'utf8').trim()
    if (text.startsWith('@')) return readFileSync(text.slice(1), 'utf8').trim()
  } catch (error) {
    throw new LocalError(`cannot read the presentation JWT: ${(error as Error).message}`)
  }
  return text.trim()
}

/** The attributes the verifier received, counted: what the holder disclosed and nothing more. */
function disclosedLine(provided: string[]): string {
  return `disclosed (${provided.length}): ${provided.join(', ') || 'no attributes'}`
}

export const verifierCommands: CommandSpec[] = [
  {
    path: ['verifier', 'request', 'create'],
    summary: 'Ask for a presentation: prints the QR code, the request id and the openid4vp:// URI',
    details:
      "POST /api/verifier/requests. The QR holds the openid4vp:// URI when the service speaks OpenID4VP (https), else the spec's request payload; `cps wallet present` takes either, or the id.",
    options: {
      type: { type: 'string', value: '<presentation-type>', description: 'Category label, e.g. DegreeCheck' },
      purpose: { type: 'string', value: '<text>', description: 'Shown to the holder' },
      credential: {
        type: 'string',
        multiple: true,
        value: '<Type[:attr,attr]>',
        description: 'A credential asked for, with the attributes to disclose',
      },
      issuer: { type: 'string', value: '<did>', description: 'Only credentials from this issuer' },
      format: {
        type: 'string',
        value: '<format>',
        description:
          'Only credentials in this format, e.g. mso_mdoc (an mdoc: --credential names its doctype or the type it was issued as)',
      },
      predicate: { type: 'string', multiple: true, value: "<'gpa>=3'>", description: 'A predicate to be proven' },
      holder: { type: 'string', value: '<did>', description: 'Address the request to this holder only' },
      'expires-at': { type: 'string', value: '<iso-date>', description: 'Until when it may be answered' },
      'callback-url': { type: 'string', value: '<url>', description: 'Where the service posts the outcome' },
    },
    examples: [
      "cps verifier request create --type DegreeCheck --purpose Hiring --credential UniversityDegree:given_name --predicate 'gpa>=3'",
      'cps verifier request create --type AgeCheck --purpose "Over 18" --credential DrivingLicence:age_over_18 --format mso_mdoc',
    ],
    async run(ctx, { values }) {
      const credentials = list(values, 'credential').map((c) =>
        requiredCredential(c, str(values, 'issuer'), str(values, 'format')),
      )
      if (!credentials.length) throw new UsageError('at least one --credential is required')
      const predicates = list(values, 'predicate').map(predicate)
      const [holder, expires, callback] = [
        str(values, 'holder'),
        str(values, 'expires-at'),
        str(values, 'callback-url'),
      ]
      const presentationType = required(values, 'type')
      const purpose = required(values, 'purpose')
      const { client, did } = await ctx.signedIn()
      const answer = await body(
        client.api.POST('/api/verifier/requests', {
          body: {
            verifier_did: did,
            presentation_type: presentationType,
            purpose,
            required_credentials: credentials,
            ...(predicates.length
              ? { required_predicates: predicates as { attribute: string; operator: '>='; value: number }[] }
              : {}),
            ...(holder ? { holder_did: holder } : {}),
            ...(expires ? { expires_at: expires } : {}),
            ...(callback ? { callback_url: callback } : {}),
          },
        }),
      )
      const qr = ctx.settings.json ? '' : await terminalQr(answer.authorization_request_uri ?? answer.qr_code_data)
      ctx.out.result(answer, [
        qr.trimEnd(),
        `request ${answer.request.id} (${answer.request.status}, until ${answer.request.expires_at})`,
        ...(answer.authorization_request_uri ? [`OpenID4VP: ${answer.authorization_request_uri}`] : []),
        `wait for the answer: cps verifier request wait ${answer.request.id}`,
      ])
    },
  },
  {
    path: ['verifier', 'request', 'wait'],
    summary: 'Wait until a request is answered (or rejected, expired, or the time is up)',
    details:
      'Polls GET /api/verifier/requests/:id every second; when answered, finds its presentation in GET /api/verifier/:did/presentations. Exit 1 when the request was rejected, declined by a holder or expired, or on time-out.',
    positionals: [{ name: 'request-id', description: 'The request' }],
    options: {
      timeout: {
        type: 'string',
        value: '<seconds>',
        description: `Give up after this long (default ${DEFAULT_WAIT_SECONDS})`,
      },
    },
    async run(ctx, { values, positionals }) {
      const id = positionals[0]!
      const timeoutMs = (int(values, 'timeout') ?? DEFAULT_WAIT_SECONDS) * 1000
      const { client, did } = await ctx.signedIn()
      const started = Date.now()
      const settled = await ctx.out.progress(`waiting for an answer to ${id}`, async (update) => {
        for (;;) {
          const answer = await body(client.api.GET('/api/verifier/requests/{id}', { params: { path: { id } } }))
          // A request to anyone stays open when one holder declines (in the inbox, or a wallet's OpenID4VP
          // error response, OID4VP 1.0 §8.5); that refusal is an answer all the same.
          const walletError = answer.openid4vp?.holder_response ?? null
          const declined =
            answer.answers.find((a) => a.status === 'rejected') ??
            (walletError
              ? { holder_did: 'a wallet', reason: walletError.error_description ?? walletError.error }
              : undefined)
          if (SETTLED.has(answer.request.status) || declined)
            return { request: answer.request, answers: answer.answers, holder_response: walletError, declined }
          const left = timeoutMs - (Date.now() - started)
          if (left <= 0) return undefined
          update(`waiting for an answer to ${id} (${answer.request.status}, ${Math.ceil(left / 1000)} s left)`)
          await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, left)))
        }
      })
      if (!settled) {
        ctx.out.result(
          { success: false, code: 'timeout', message: `no answer to ${id} within ${timeoutMs / 1000} s` },
          [],
        )
        ctx.out.io.stderr(`error: timeout: no answer to ${id} within ${timeoutMs / 1000} s\n`)
        return 1
      }
      const { request, answers, holder_response, declined } = settled
      if (declined && !SETTLED.has(request.status)) {
        ctx.out.result({ success: true, request, answers, holder_response, presentation: null }, [
          `request ${id}: declined by ${declined.holder_did}${declined.reason ? ` (${declined.reason})` : ''}`,
        ])
        return 1
      }
      const presentation = ANSWERED.has(request.status) ? await presentationFor(client, did, id) : undefined
      ctx.out.result({ success: true, request, answers, presentation: presentation ?? null }, [
        `request ${id}: ${request.status}`,
        ...(presentation
          ? [
              `presentation ${presentation.id} from ${presentation.prover_did} (${presentation.status})`,
              disclosedLine(presentation.provided_attributes),
            ]
          : []),
      ])
      return ANSWERED.has(request.status) ? 0 : 1
    },
  },
  {
    path: ['verifier', 'verify'],
    summary: 'Verify a presentation; without --presentation-jwt, show the verdict already recorded',
    details:
      'POST /api/verifier/presentations/:id/verify with the VP-JWT the holder presented (cps wallet present prints it): signatures, status, nonce, predicates and consent, each failure one entry in errors. An OpenID4VP answer is verified when it arrives; its verdict is read with GET /api/verifier/presentations/:id. Exit 1 when the presentation is not valid.',
    positionals: [{ name: 'presentation-id', description: 'The presentation' }],
    options: {
      'presentation-jwt': {
        type: 'string',
        value: '<jwt|@file|->',
        description: 'The VP-JWT, a file holding it, or - for stdin',
      },
    },
    async run(ctx, { values, positionals }) {
      const id = positionals[0]!
      const jwtText = str(values, 'presentation-jwt')
      const { client } = await ctx.signedIn()
      if (!jwtText) {
        const answer = await body(client.api.GET('/api/verifier/presentations/{id}', { params: { path: { id } } }))
        const p = answer.presentation
        ctx.out.result(answer, [
          `presentation ${p.id} from ${p.prover_did}: ${p.status}${p.verified_at ? ` (verified at ${p.verified_at})` : ''}`,
          disclosedLine(p.provided_attributes),
        ])
        return p.status === 'verified' ? 0 : 1
      }
      const answer = await ctx.out.progress('verifying', () =>
        body(
          client.api.POST('/api/verifier/presentations/{id}/verify', {
            params: { path: { id } },
            body: { presentation_jwt: jwtArg(jwtText) },
          }),
        ),
      )
      const result = answer.verification_result as {
        is_valid?: boolean
        errors?: unknown[]
        credential_subjects?: unknown[]
      }
      ctx.out.result(answer, [
        `presentation ${id}: ${answer.status}${result.is_valid ? ' (valid)' : ' (NOT valid)'}`,
        `consent valid: ${answer.consent_valid}`,
        ...(result.credential_subjects?.length ? [`disclosed: ${JSON.stringify(result.credential_subjects)}`] : []),
        ...(result.errors ?? []).map((e) => `error: ${typeof e === 'string' ? e : JSON.stringify(e)}`),
      ])
      return result.is_valid ? 0 : 1
    },
  },
]
