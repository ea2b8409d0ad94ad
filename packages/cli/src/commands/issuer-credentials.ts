import type { ServiceClient } from '@credential-service/sdk'
import { UsageError, type CommandSpec, type OptionSpec } from '../args/command.js'
import { attributes, flag, int, required, str, type AttributeTypes } from '../args/values.js'
import { terminalQr } from '../output/qr.js'
import { body } from './answer.js'

/** The schema's data type per attribute, so that `--attr gpa=3.8` is sent as the number the schema asks for. */
export async function schemaTypes(client: ServiceClient, issuerDid: string, schemaId: string): Promise<AttributeTypes> {
  return (await schemaAttributes(client, issuerDid, schemaId)).types
}

/** The schema's attributes: data type per name, and the names it requires. */
async function schemaAttributes(
  client: ServiceClient,
  issuerDid: string,
  schemaId: string,
): Promise<{ types: AttributeTypes; required: string[] }> {
  const answer = await body(
    client.api.GET('/api/issuer/{did}/schemas/{schema_id}', {
      params: { path: { did: issuerDid, schema_id: schemaId } },
    }),
  )
  return {
    types: Object.fromEntries(answer.schema.attributes.map((a) => [a.name, a.data_type])),
    required: answer.schema.attributes.filter((a) => a.required).map((a) => a.name),
  }
}

export const ATTRIBUTE_OPTIONS: Record<string, OptionSpec> = {
  attr: {
    type: 'string',
    multiple: true,
    value: '<k=v|k:=json>',
    description: 'An attribute: text (a number or boolean where the schema says so), or JSON after :=',
  },
  'attributes-file': {
    type: 'string',
    value: '<file.json>',
    description: 'Attributes as a JSON object (--attr flags override)',
  },
}

export const issuerCredentialCommands: CommandSpec[] = [
  {
    path: ['issuer', 'issue'],
    summary: 'Issue a credential to a holder DID (POST /api/issuer/:did/issue)',
    options: {
      schema: { type: 'string', value: '<schema-id>', description: 'Schema the attributes follow' },
      type: { type: 'string', value: '<credential-type>', description: 'Credential type, e.g. UniversityDegree' },
      subject: { type: 'string', value: '<did>', description: 'Holder DID' },
      ...ATTRIBUTE_OPTIONS,
      template: { type: 'string', value: '<template-id>', description: 'Template (its fixed attributes apply)' },
      format: {
        type: 'string',
        value: '<format>',
        description: 'Credential format (default jwt_vc_json; e.g. dc+sd-jwt)',
      },
      expires: { type: 'string', value: '<iso-date>', description: 'Expiration date' },
    },
    examples: [
      'cps issuer issue --schema <id> --type UniversityDegree --subject did:key:z6Mk… --attr given_name=Ada --attr birth_date=2001-02-03 --attr gpa=3.8',
    ],
    async run(ctx, { values }) {
      const schemaId = required(values, 'schema')
      const credentialType = required(values, 'type')
      const { client, did } = await ctx.signedIn()
      const attrs = attributes(values, await schemaTypes(client, did, schemaId))
      const [subject, template, format, expires] = ['subject', 'template', 'format', 'expires'].map((n) =>
        str(values, n),
      )
      const answer = await ctx.out.progress('issuing', () =>
        body(
          client.api.POST('/api/issuer/{did}/issue', {
            params: { path: { did } },
            body: {
              credential_type: credentialType,
              schema_id: schemaId,
              attributes: attrs,
              ...(subject ? { subject_did: subject } : {}),
              ...(template ? { template_id: template } : {}),
              ...(format ? { format } : {}),
              ...(expires ? { expiration_date: expires } : {}),
            },
          }),
        ),
      )
      const record = answer.credential.credential
      ctx.out.result(answer, [
        `credential ${record.id}`,
        `${record.credential_type} for ${record.owner_did ?? '(no subject)'}, ${record.status}`,
      ])
    },
  },
  {
    path: ['issuer', 'revoke'],
    summary: 'Revoke a credential: its status list bit is set (POST /api/issuer/:did/credentials/:id/revoke)',
    positionals: [{ name: 'credential-id', description: 'The credential (aly:…)' }],
    options: { reason: { type: 'string', value: '<text>', description: 'Why' } },
    async run(ctx, { values, positionals }) {
      const { client, did } = await ctx.signedIn()
      const reason = str(values, 'reason')
      const answer = await body(
        client.api.POST('/api/issuer/{did}/credentials/{credential_id}/revoke', {
          params: { path: { did, credential_id: positionals[0]! } },
          body: reason ? { reason } : {},
        }),
      )
      ctx.out.result(answer, [`credential ${answer.credential.id}: ${answer.credential.status}`])
    },
  },
  {
    path: ['issuer', 'offer', 'create'],
    summary: 'Offer a credential: prints the QR code, the offer URI and the transaction code',
    details:
      "POST /api/issuer/:did/offers. On a service with an https PUBLIC_BASE_URL the offer is also an OpenID4VCI credential offer (openid-credential-offer://…), which any standard wallet or `cps wallet accept` takes; the QR holds it. Otherwise the QR holds the spec's offer payload (JSON), which `cps wallet accept` turns into a credential request the issuer approves.",
    options: {
      schema: { type: 'string', value: '<schema-id>', description: 'Schema' },
      type: { type: 'string', value: '<credential-type>', description: 'Credential type' },
      ...ATTRIBUTE_OPTIONS,
      format: {
        type: 'string',
        value: '<format>',
        description: 'Credential format (e.g. dc+sd-jwt for OpenID4VCI wallets)',
      },
      'tx-code': {
        type: 'boolean',
        description: 'Protect the offer with a transaction code, given to the holder separately',
      },
      subject: { type: 'string', value: '<did>', description: 'Only this holder may take it' },
      'max-uses': { type: 'string', value: '<n>', description: 'How many holders may take it' },
      'expires-at': { type: 'string', value: '<iso-date>', description: 'Until when' },
      'requires-approval': {
        type: 'boolean',
        description: 'Each take waits for the issuer (cps issuer requests approve)',
      },
      description: { type: 'string', value: '<text>', description: 'Shown to the holder' },
    },
    examples: [
      'cps issuer offer create --schema <id> --type Resident --format dc+sd-jwt --tx-code --attr given_name=Erika',
    ],
    async run(ctx, { values }) {
      const schemaId = required(values, 'schema')
      const credentialType = required(values, 'type')
      const { client, did } = await ctx.signedIn()
      const schema = await schemaAttributes(client, did, schemaId)
      const attrs = attributes(values, schema.types)
      // A wallet takes an OpenID4VCI offer without the issuer (pre-authorized code, OID4VCI 1.0 §3.5):
      // the credential is issued from the offer's attributes, so a required one missing fails the
      // holder's accept (422). Refused here, before anything is made, unless the issuer approves each take.
      const missing =
        str(values, 'template') || flag(values, 'requires-approval')
          ? []
          : schema.required.filter((name) => !(name in attrs))
      if (missing.length && flag(values, 'tx-code')) {
        throw new UsageError(
          `the offer lacks the schema's required attribute(s) ${missing.join(', ')}: a wallet could not be issued the credential. Give them with --attr, or --requires-approval (you add them on approval)`,
        )
      }
      if (missing.length)
        ctx.out.note(
          `note: the offer lacks the required attribute(s) ${missing.join(', ')}: an OpenID4VCI wallet cannot take it; the spec's credential request can (the issuer adds them with cps issuer requests approve --attr)`,
        )
      const maxUses = int(values, 'max-uses')
      const [format, subject, expires, description] = ['format', 'subject', 'expires-at', 'description'].map((n) =>
        str(values, n),
      )
      const answer = await body(
        client.api.POST('/api/issuer/{did}/offers', {
          params: { path: { did } },
          body: {
            credential_type: credentialType,
            schema_id: schemaId,
            ...(Object.keys(attrs).length ? { attributes: attrs } : {}),
            ...(format ? { format } : {}),
            ...(subject ? { subject_did: subject } : {}),
            ...(maxUses ? { max_uses: maxUses } : {}),
            ...(expires ? { expires_at: expires } : {}),
            ...(description ? { description } : {}),
            ...(flag(values, 'tx-code') ? { tx_code: true } : {}),
            ...(flag(values, 'requires-approval') ? { requires_approval: true } : {}),
          },
        }),
      )
      const scanned = answer.credential_offer_uri ?? answer.qr_code_data
      const qr = ctx.settings.json ? '' : await terminalQr(scanned)
      ctx.out.result(answer, [
        qr.trimEnd(),
        `offer ${answer.offer.id}`,
        ...(answer.credential_offer_uri ? [`offer URI (OpenID4VCI): ${answer.credential_offer_uri}`] : []),
        `offer payload: ${answer.qr_code_data}`,
        ...(answer.tx_code ? [`transaction code (give it to the holder separately): ${answer.tx_code}`] : []),
      ])
    },
  },
]
