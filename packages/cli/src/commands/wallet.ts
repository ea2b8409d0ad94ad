import {
  acceptOffer,
  declineOffer,
  mdocSummary,
  presentToRequest,
  previewedOf,
  resolveOffer,
  resolveQrPayload,
  resolveRequest,
  type OfferPreview,
  type QrPayload,
  type RequestPreview,
  type ServiceClient,
} from '@credential-service/sdk'
import { LocalError, UsageError, type CommandSpec } from '../args/command.js'
import { commaList, flag, list, predicate, str, type Predicate } from '../args/values.js'
import { claimPath, decide, EXIT_DECLINED, shortValue } from '../output/ask.js'
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
  const wallet = await body(
    client.api.GET('/api/wallet/{did}/credentials', {
      params: { path: { did }, query: { status: 'active', limit: 200 } },
    }),
  )
  return required.map((wanted) => {
    const found = wallet.data.find(
      (c) =>
        c.credential_type === wanted.credential_type &&
        (!wanted.issuer_did || c.issuer_did === wanted.issuer_did) &&
        !c.expired &&
        !c.withdrawn,
    )
    if (!found)
      throw new UsageError(
        `no active ${wanted.credential_type} credential in the wallet${wanted.issuer_did ? ` from ${wanted.issuer_did}` : ''}: name one with --credential`,
      )
    return found.id
  })
}

/** One credential of the holder's wallet, found page by page in its listing (GET /api/wallet/:did/credentials). */
async function walletCredential(client: ServiceClient, did: string, id: string) {
  let cursor: string | undefined
  do {
    const page = await body(
      client.api.GET('/api/wallet/{did}/credentials', {
        params: { path: { did }, query: { limit: 100, ...(cursor ? { cursor } : {}) } },
      }),
    )
    const found = page.data.find((c) => c.id === id)
    if (found) return found
    cursor = page.next_cursor ?? undefined
  } while (cursor)
  throw new UsageError(`no credential ${id} in the wallet of ${did} (cps wallet list)`)
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
      const answer = await body(
        client.api.GET('/api/wallet/{did}/credentials', {
          params: {
            path: { did },
            query: { ...(status ? { status: status as 'active' } : {}), ...(type ? { type } : {}) },
          },
        }),
      )
      const mdocs = answer.data.flatMap((c) => {
        const mdoc = mdocSummary(c)
        return mdoc ? [{ id: c.id, ...mdoc }] : []
      })
      ctx.out.result({ ...answer, mdocs }, () =>
        answer.data.length
          ? [
              ...table(
                ['ID', 'TYPE', 'STATUS', 'ISSUER', 'SIGNATURE'],
                answer.data.map((c) => [
                  c.id,
                  c.credential_type,
                  c.status,
                  c.issuer_name || c.issuer_did,
                  mdocs.some((m) => m.id === c.id) ? 'mso_mdoc' : c.signature_type,
                ]),
              ),
              ...mdocs.map((m) => `${m.id}: mdoc ${m.doctype}, elements ${m.elements.join(', ')}`),
            ]
          : ['no credentials'],
      )
    },
  },
  {
    path: ['wallet', 'show'],
    summary:
      'One credential of the wallet: type, issuer, status, and its attributes (an mdoc: its doctype and elements)',
    positionals: [{ name: 'credential-id', description: 'The credential (aly:…)' }],
    async run(ctx, { positionals }) {
      const id = positionals[0]!
      const { client, did } = await ctx.signedIn()
      const c = await walletCredential(client, did, id)
      const mdoc = mdocSummary(c)
      const data = c.credential_data as Record<string, unknown>
      ctx.out.result({ success: true, credential: c, mdoc: mdoc ?? null }, [
        `credential ${c.id}`,
        `  type:     ${c.credential_type}`,
        `  issuer:   ${c.issuer_name ? `${c.issuer_name} (${c.issuer_did})` : c.issuer_did}`,
        `  status:   ${c.status}${c.expired ? ', expired' : ''}${c.withdrawn ? ', withdrawn' : ''}`,
        ...(c.expiration_date ? [`  until:    ${c.expiration_date}`] : []),
        ...(mdoc
          ? [`  format:   mso_mdoc, doctype ${mdoc.doctype}`, `  elements: ${mdoc.elements.join(', ')}`]
          : [`  signature: ${c.signature_type}`]),
        ...Object.entries(data).map(([name, value]) => `    ${name}: ${shortValue(value)}`),
      ])
    },
  },
  {
    path: ['wallet', 'accept'],
    summary: 'Take a credential offer: an openid-credential-offer:// URI or the offer payload of a QR',
    details:
      "First the offer is shown (issuer, credential, format, claims; POST /api/wallet/:did/offers/preview, nothing redeemed) and the question Accept? [y/N] asked on the terminal: n declines (the refusal is recorded, exit 3); --yes accepts without asking; without a terminal and without --yes nothing is sent (exit 2). An OpenID4VCI offer then runs through the hosted wallet (POST /api/wallet/:did/offers/accept, the key proof signed here, POST …/accept/:session_id): the credential arrives bound to the acting key. An mdoc (mso_mdoc) is bound to a P-256 device key instead (ISO/IEC 18013-5 §9.1.2.4), kept in the key file beside the acting key and made there the first time. The spec's offer payload (JSON with offer_id) becomes a credential request (POST /api/wallet/credential-request), issued when the issuer approves it.",
    positionals: [{ name: 'offer', description: 'Offer URI, or the QR payload text' }],
    options: {
      'tx-code': { type: 'string', value: '<code>', description: 'The transaction code the issuer gave separately' },
      yes: { type: 'boolean', short: 'y', description: 'Accept without asking (the preview is still printed)' },
    },
    examples: ["cps wallet accept 'openid-credential-offer://?credential_offer_uri=…' --tx-code 123456"],
    async run(ctx, { values, positionals }) {
      const text = positionals[0]!
      const yes = flag(values, 'yes')
      const { client, did, key } = await ctx.signedIn()
      const parsed = await payload(client, text)
      if (parsed?.kind === 'spec-offer') {
        const raw = parsed.raw as {
          offer_id: string
          issuer_did: string
          credential_type?: string
          schema_id?: string
          expires_at?: string
        }
        const shown = [
          `Credential offer ${raw.offer_id}`,
          `  issuer:      ${raw.issuer_did} (signed in to this service)`,
          ...(raw.credential_type
            ? [`  credential:  ${raw.credential_type}${raw.schema_id ? ` (schema ${raw.schema_id})` : ''}`]
            : []),
          ...(raw.expires_at ? [`  until:       ${raw.expires_at}`] : []),
          `  taking it sends a credential request with your DID (${did}) to the issuer, who approves it`,
        ]
        if (!(await decide(ctx.out.io, shown, { yes, what: 'taking an offer' }))) {
          ctx.out.result({ success: true, declined: true, offer_id: raw.offer_id }, [
            'declined: nothing was sent to the issuer',
          ])
          return EXIT_DECLINED
        }
        const answer = await body(
          client.api.POST('/api/wallet/credential-request', {
            body: { issuer_did: raw.issuer_did, offer_id: raw.offer_id },
          }),
        )
        ctx.out.result(answer, [
          `credential request ${answer.request.id}: ${answer.request.status} (the issuer approves it with cps issuer requests approve)`,
        ])
        return
      }
      if (parsed && parsed.kind !== 'oid4vci-offer')
        throw new UsageError(`that is a ${parsed.kind}, not an offer (cps wallet present takes requests)`)
      const offerUri = parsed?.value ?? text
      const txCode = str(values, 'tx-code')
      // OID4VCI 1.0 §4.1, §12.2: the offer and the issuer's metadata are read first; nothing is redeemed until the holder says yes.
      const preview = await ctx.out.progress('reading the offer', () => resolveOffer(client, key, { offerUri }))
      if (!(await decide(ctx.out.io, offerLines(preview, txCode !== undefined), { yes, what: 'taking an offer' }))) {
        await declineOffer(client, key, { offerUri })
        ctx.out.result({ success: true, declined: true, credential_issuer: preview.credential_issuer }, [
          'declined: nothing was taken (the refusal is in your wallet activity)',
        ])
        return EXIT_DECLINED
      }
      // The configuration taken is the offer's first (previewedOf); an mdoc is bound to the device key, not the DID.
      const taken = preview.credential_configurations[0]
      const deviceKey = taken?.format === 'mso_mdoc' ? await ctx.deviceKey({ create: true }) : undefined
      const result = await ctx.out.progress('taking the offer', () =>
        acceptOffer(client, key, {
          offerUri,
          ...(txCode ? { txCode } : {}),
          previewed: previewedOf(preview),
          ...(deviceKey ? { deviceKey } : {}),
        }),
      )
      ctx.out.result(result, [
        result.status === 'issued'
          ? `received ${result.credentials.length} credential(s) into the wallet of ${did}`
          : 'the issuer has not issued it yet (pending): run cps wallet list later',
      ])
    },
  },
  {
    path: ['wallet', 'present'],
    summary: "Answer a verifier's request: the spec's request id, or an openid4vp:// URI",
    details: [
      'First the request is shown (the verifier and how its identity is known, the purpose, every claim that would be disclosed, the predicates) and the question Accept? [y/N] asked on the terminal: n declines (the verifier is told, exit 3); --yes answers without asking; without a terminal and without --yes nothing is sent (exit 2).',
      'A request id (or the request QR payload): the request is taken into the inbox, the credentials it asks for are picked from the wallet (or --credential), a one-time consent is granted when the verifier has none, and the VP-JWT is signed here. With predicates (--predicate, or those of the request when none is given) the presentation carries a BBS zero-knowledge proof that discloses only --reveal (default: the attributes the request names).',
      "An openid4vp:// URI: answered through the hosted wallet (POST /api/wallet/:did/presentation-requests/answer), the key binding signed here; an mdoc's device signature is signed with the device key it was accepted with (kept in the key file beside the acting key).",
      'It prints the presentation id and the VP-JWT, which the verifier passes to cps verifier verify.',
    ].join('\n'),
    positionals: [{ name: 'request', description: 'Request id, request QR payload, or openid4vp:// URI' }],
    options: {
      credential: {
        type: 'string',
        multiple: true,
        value: '<credential-id>',
        description: 'Present this credential (default: the first active one of each requested type)',
      },
      reveal: {
        type: 'string',
        multiple: true,
        value: '<a,b>',
        description:
          "Attributes to disclose: in a predicate proof, or an SD-JWT VC's disclosures (default: the request's)",
      },
      predicate: {
        type: 'string',
        multiple: true,
        value: "<'gpa>=3'>",
        description: 'Prove attribute >=, >, <=, < value without disclosing it',
      },
      yes: { type: 'boolean', short: 'y', description: 'Disclose without asking (the preview is still printed)' },
    },
    examples: [
      "cps wallet present <request-id> --reveal given_name --predicate 'gpa>=3'",
      "cps wallet present 'openid4vp://?client_id=…&request_uri=…'",
    ],
    async run(ctx, { values, positionals }) {
      const text = positionals[0]!
      const { client, did, key } = await ctx.signedIn()
      const parsed = await payload(client, text)
      const yes = flag(values, 'yes')
      if (parsed?.kind === 'oid4vp-request') {
        // The prepare step is the preview (OpenID4VP 1.0 §5): the request is verified, nothing is sent to the verifier yet.
        // An mdoc's device signature is the device key's (ISO/IEC 18013-5 §9.1.3), the one it was accepted with.
        const deviceKey = await ctx.deviceKey({ create: false })
        const preview = await ctx.out.progress('reading the request', () =>
          resolveRequest(client, key, { authorizationRequestUri: parsed.value, ...(deviceKey ? { deviceKey } : {}) }),
        )
        if (!deviceKey && preview.presentations.some((p) => p.format === 'mso_mdoc'))
          throw new LocalError(
            'the request asks for an mdoc, and this key has no device key in the key file to sign it with (the key that accepted the mdoc has)',
          )
        if (!(await decide(ctx.out.io, requestLines(preview), { yes, what: 'answering a presentation request' }))) {
          const declined = await preview.decline()
          ctx.out.result({ success: true, declined: true, ...declined }, [
            `declined: the verifier was told (access_denied${declined.verifier_status === null ? ', not reachable' : `, HTTP ${declined.verifier_status}`})`,
          ])
          return EXIT_DECLINED
        }
        const result = await ctx.out.progress('answering', () => preview.accept())
        ctx.out.result(result, [
          `${result.accepted ? 'accepted' : 'refused'} by the verifier (HTTP ${result.verifier_status})${result.verifier_error ? `: ${result.verifier_error}` : ''}`,
          ...(result.redirect_uri ? [`redirect: ${result.redirect_uri}`] : []),
        ])
        return result.accepted ? 0 : 1
      }
      if (parsed && parsed.kind !== 'spec-request')
        throw new UsageError(`that is a ${parsed.kind}, not a presentation request (cps wallet accept takes offers)`)
      const requestId = parsed?.value ?? text
      const inbox = await body(
        client.api.POST('/api/wallet/presentation-requests', { body: { request_id: requestId } }),
      )
      const request = inbox.request
      const given = list(values, 'predicate').map(predicate)
      const predicates = given.length
        ? given
        : request.required_predicates.map(({ attribute, operator, value }) => ({ attribute, operator, value }))
      const revealGiven = commaList(values, 'reveal')
      const reveal =
        revealGiven.length || !predicates.length
          ? revealGiven
          : [...new Set(request.required_credentials.flatMap((c) => c.required_attributes ?? []))]
      const chosen = list(values, 'credential')
      const credentialIds = chosen.length ? chosen : await pickCredentials(client, did, request.required_credentials)
      const shown = await specRequestLines(
        client,
        did,
        { ...request, verifier_name: (request as { verifier_name?: string | null }).verifier_name ?? null },
        credentialIds,
        reveal,
        predicates,
      )
      if (!(await decide(ctx.out.io, shown, { yes, what: 'answering a presentation request' }))) {
        const rejected = await body(
          client.api.POST('/api/wallet/presentation-requests/{request_id}/reject', {
            params: { path: { request_id: requestId } },
            body: { reason: 'declined by the holder' },
          }),
        )
        ctx.out.result({ ...rejected, declined: true }, [
          `declined: request ${requestId} ${rejected.status} (the verifier sees the refusal)`,
        ])
        return EXIT_DECLINED
      }
      const result = await ctx.out.progress(predicates.length ? 'deriving the proof and signing' : 'signing', () =>
        presentToRequest(client, key, {
          requestId,
          credentialIds,
          ...(reveal.length ? { reveal } : {}),
          ...(predicates.length ? { predicates } : {}),
        }),
      )
      // The verifier verifies with this very JWT: printed for the holder to pass on (the verifier also reads it from GET /api/verifier/presentations/:id).
      ctx.out.result(
        {
          presentation_id: result.presentationId,
          presentation_jwt: result.presentationJwt,
          request_id: requestId,
          credential_ids: credentialIds,
          reveal,
          predicates,
        },
        [
          `presentation ${result.presentationId} sent to ${request.verifier_did}`,
          `presentation JWT (for cps verifier verify): ${result.presentationJwt}`,
        ],
      )
    },
  },
]

/** The preview of an OpenID4VCI offer: who offers (and how far that is known), what, in which format, with which claims. */
function offerLines(preview: OfferPreview, txCodeGiven: boolean): string[] {
  const issuer = preview.issuer
  const lines = [
    `Credential offer from ${issuer.name ?? issuer.domain} (${issuer.domain})`,
    `  issuer:      ${preview.credential_issuer}${issuer.did ? ` (${issuer.did})` : ''}`,
    '  the name is what the issuer says of itself; the domain is where its metadata was read over https',
  ]
  for (const c of preview.credential_configurations) {
    lines.push(
      `  credential:  ${c.display_name ?? c.credential_type}${c.display_name && c.display_name !== c.credential_type ? ` (${c.credential_type})` : ''}, format ${c.format}`,
    )
    // An mdoc's claims are [namespace, element] (OID4VCI 1.0 Appendix A.2.2): the element names, the namespace once.
    const mdoc = c.format === 'mso_mdoc'
    const namespaces = [...new Set(c.claims.map((claim) => String(claim.path[0])))]
    lines.push(
      `  claims:      ${c.claims.length ? c.claims.map((claim) => `${mdoc ? String(claim.path.at(-1)) : (claim.display_name ?? claimPath(claim.path))}${claim.mandatory ? ' (required)' : ''}`).join(', ') : '(the issuer lists none)'}`,
    )
    if (mdoc && namespaces.length)
      lines.push(
        `  mdoc:        doctype ${c.credential_type}, namespace ${namespaces.join(', ')}; bound to your device key`,
      )
  }
  if (preview.tx_code) {
    const asked = [
      preview.tx_code.length ? `${preview.tx_code.length} characters` : '',
      preview.tx_code.input_mode ?? '',
      preview.tx_code.description ?? '',
    ]
      .filter(Boolean)
      .join(', ')
    lines.push(`  transaction code: asked${asked ? ` (${asked})` : ''}${txCodeGiven ? '' : ': give it with --tx-code'}`)
  }
  return lines
}

/** Claims about the credential itself (RFC 7519 §4.1, SD-JWT VC §3.2.2): disclosed with it, shown together in one line. */
const ENVELOPE_CLAIMS = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'vct',
  'vct#integrity',
  'cnf',
  'status',
  '_sd_alg',
])

/** An mdoc's disclosed elements, `{namespace: {element: value}}` (ISO/IEC 18013-5 §8.3.2.1.2.2), as name and value. */
function mdocElements(disclosed: Record<string, unknown>): [string, unknown][] {
  return Object.values(disclosed).flatMap((elements) =>
    elements && typeof elements === 'object' ? Object.entries(elements as Record<string, unknown>) : [],
  )
}

/** The preview of an OpenID4VP request: who asks, how that was verified, why, and every claim each presentation would disclose. */
function requestLines(preview: RequestPreview): string[] {
  const id = preview.verifierIdentity
  const lines = [
    `Presentation request from ${id.name ?? id.client_id}`,
    `  verifier:    ${id.client_id}`,
    `  identity:    ${id.verified ? 'verified' : 'NOT verified'}: ${id.verified_by}`,
    ...(id.domain ? [`  answer to:   ${id.domain}`] : []),
    `  purpose:     ${preview.purpose ?? '(none given)'}`,
    '  would disclose:',
  ]
  for (const p of preview.presentations) {
    lines.push(`    ${p.credential_type} (${p.format}, ${p.credential_id}) from ${p.issuer_did}:`)
    const disclosed = p.format === 'mso_mdoc' ? mdocElements(p.disclosed) : Object.entries(p.disclosed)
    const about = disclosed.filter(([name]) => ENVELOPE_CLAIMS.has(name)).map(([name]) => name)
    const personal = disclosed.filter(([name]) => !ENVELOPE_CLAIMS.has(name))
    if (disclosed.length) for (const [name, value] of personal) lines.push(`      ${name}: ${shortValue(value)}`)
    else for (const path of p.claims) lines.push(`      ${claimPath(path)}`)
    if (about.length)
      lines.push(`      and the credential's own issuer, dates, key binding and status (${about.join(', ')})`)
  }
  return lines
}

/** The preview of a spec request: the verifier (signed in here with its DID), the purpose, the credentials and what of them is disclosed or proven. */
async function specRequestLines(
  client: ServiceClient,
  did: string,
  request: {
    id: string
    verifier_did: string
    verifier_name: string | null
    purpose: string | null
    expires_at: string
  },
  credentialIds: string[],
  reveal: string[],
  predicates: Predicate[],
): Promise<string[]> {
  const wallet = await body(
    client.api.GET('/api/wallet/{did}/credentials', { params: { path: { did }, query: { limit: 200 } } }),
  )
  const lines = [
    `Presentation request ${request.id} from ${request.verifier_name ?? request.verifier_did}`,
    `  verifier:    ${request.verifier_did} (signed in to this service with that DID)`,
    `  purpose:     ${request.purpose ?? '(none given)'}`,
    `  until:       ${request.expires_at}`,
    '  would disclose:',
  ]
  for (const id of credentialIds) {
    const held = wallet.data.find((c) => c.id === id)
    const data = (held?.credential_data ?? {}) as Record<string, unknown>
    lines.push(
      `    ${held?.credential_type ?? 'credential'} (${id}) from ${held?.issuer_name || held?.issuer_did || 'unknown issuer'}:`,
    )
    // Without --reveal or predicates the credential is sent whole (a JWT-VC); with them, only the revealed attributes.
    const names = reveal.length || predicates.length ? reveal : Object.keys(data)
    for (const name of names)
      lines.push(`      ${name}: ${name in data ? shortValue(data[name]) : '(not in the credential)'}`)
    for (const p of predicates)
      lines.push(`      proves ${p.attribute} ${p.operator} ${p.value} (the value itself stays hidden)`)
  }
  return lines
}
