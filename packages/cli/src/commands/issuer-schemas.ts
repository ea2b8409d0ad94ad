import type { ServiceClient } from '@credential-service/sdk'
import { UsageError, type CommandSpec } from '../args/command.js'
import { attributes, flag, int, list, readJsonFile, required, str } from '../args/values.js'
import { table } from '../output/output.js'
import { body, shortTime } from './answer.js'

const DATA_TYPES = ['string', 'number', 'boolean', 'date', 'email', 'url', 'file', 'object', 'array']

/** `gpa:number`, `given_name:string:required`, `email:email:required,always_disclosed`. */
function attributeDefinition(text: string) {
  const [name, dataType = 'string', flags = ''] = text.split(':')
  if (!name || !DATA_TYPES.includes(dataType))
    throw new UsageError(
      `--attribute takes name[:type[:required,always_disclosed]] with type one of ${DATA_TYPES.join(', ')}, not "${text}"`,
    )
  const marks = flags.split(',').filter(Boolean)
  const unknown = marks.find((m) => m !== 'required' && m !== 'always_disclosed')
  if (unknown) throw new UsageError(`--attribute ${name}: unknown mark "${unknown}" (required, always_disclosed)`)
  return {
    name,
    data_type: dataType as 'string',
    ...(marks.includes('required') ? { required: true } : {}),
    ...(marks.includes('always_disclosed') ? { always_disclosed: true } : {}),
  }
}

/** The service's ready-made schemas (GET /api/schema-presets, public): the ISO mDL, the EU PID. */
async function schemaPresets(client: ServiceClient) {
  return (await body(client.api.GET('/api/schema-presets', {}))).presets
}

/** The schema body of the preset named `id`; an unknown name is a usage error that lists the known ones. */
async function presetSchema(client: ServiceClient, id: string): Promise<Record<string, unknown>> {
  const presets = await schemaPresets(client)
  const found = presets.find((p) => p.id === id)
  if (!found)
    throw new UsageError(
      `no schema preset "${id}": the service has ${presets.map((p) => p.id).join(', ') || 'none'} (cps issuer schema presets)`,
    )
  return found.schema as Record<string, unknown>
}

/** `doctype (namespace)` of a schema made for mdocs. */
function mdocPlacement(schema: unknown): string | undefined {
  const mdoc = (schema as { mdoc?: { doctype?: string; namespace?: string } | null }).mdoc
  return mdoc?.doctype ? `${mdoc.doctype} (namespace ${mdoc.namespace})` : undefined
}

export const issuerSchemaCommands: CommandSpec[] = [
  {
    path: ['issuer', 'schema', 'presets'],
    summary: 'The ready-made schemas of the service (GET /api/schema-presets): the ISO mDL, the EU PID',
    async run(ctx) {
      const presets = await schemaPresets(ctx.client())
      ctx.out.result({ success: true, presets }, () =>
        presets.length
          ? table(
              ['PRESET', 'FORMAT', 'ATTRIBUTES'],
              presets.map((p) => [
                p.id,
                p.format,
                p.schema.attributes.map((a) => `${a.name}:${a.data_type}${a.required ? '*' : ''}`).join(','),
              ]),
            )
          : ['no presets'],
      )
    },
  },
  {
    path: ['issuer', 'schema', 'create'],
    summary: 'Define a credential schema (POST /api/issuer/:did/schemas)',
    options: {
      name: { type: 'string', value: '<text>', description: 'Schema name' },
      version: { type: 'string', value: '<text>', description: 'Free-text version label (default 1.0)' },
      description: { type: 'string', value: '<text>', description: 'Description' },
      attribute: {
        type: 'string',
        multiple: true,
        value: '<name[:type[:required]]>',
        description: `An attribute; type one of ${DATA_TYPES.join(', ')} (default string)`,
      },
      'no-bbs': {
        type: 'boolean',
        description: 'No BBS signature (anonymous_credentials false): no predicate proofs, SD-JWT VC and JWT only',
      },
      'body-file': {
        type: 'string',
        value: '<file.json>',
        description: 'The whole request body as JSON (flags given override its fields)',
      },
      preset: {
        type: 'string',
        value: '<preset-id>',
        description: 'Start from a ready-made schema, e.g. org.iso.18013.5.1.mDL (cps issuer schema presets)',
      },
    },
    examples: [
      'cps issuer schema create --name Degree --attribute given_name:string:required --attribute birth_date:date:required --attribute gpa:number',
      'cps issuer schema create --preset org.iso.18013.5.1.mDL',
    ],
    async run(ctx, { values }) {
      const file = str(values, 'body-file')
      const preset = str(values, 'preset')
      if (file && preset) throw new UsageError('give --preset or --body-file, not both')
      const base = file
        ? (readJsonFile(file, 'body file') as Record<string, unknown>)
        : preset
          ? await presetSchema(ctx.client(), preset)
          : {}
      const defined = list(values, 'attribute').map(attributeDefinition)
      const schema = {
        ...base,
        ...(str(values, 'name') ? { name: str(values, 'name') } : {}),
        version: str(values, 'version') ?? (base.version as string | undefined) ?? '1.0',
        ...(str(values, 'description') ? { description: str(values, 'description') } : {}),
        ...(defined.length ? { attributes: defined } : {}),
        ...(flag(values, 'no-bbs') ? { anonymous_credentials: false } : {}),
      } as { name: string; version: string; attributes: ReturnType<typeof attributeDefinition>[] }
      if (!schema.name) throw new UsageError('--name is required (or "name" in --body-file)')
      if (!schema.attributes?.length)
        throw new UsageError('at least one --attribute is required (or "attributes" in --body-file)')
      const { client, did } = await ctx.signedIn()
      const answer = await body(
        client.api.POST('/api/issuer/{did}/schemas', { params: { path: { did } }, body: schema }),
      )
      const placement = mdocPlacement(answer.schema)
      ctx.out.result(answer, [
        `schema ${answer.schema.id}`,
        `${answer.schema.name} ${answer.schema.version}: ${answer.schema.attributes.map((a) => `${a.name} (${a.data_type})`).join(', ')}`,
        ...(placement ? [`mdoc: ${placement}`] : []),
      ])
    },
  },
  {
    path: ['issuer', 'schema', 'list'],
    summary: "List the acting issuer's schemas",
    options: { limit: { type: 'string', value: '<n>', description: 'At most this many' } },
    async run(ctx, { values }) {
      const { client, did } = await ctx.signedIn()
      const limit = int(values, 'limit')
      const answer = await body(
        client.api.GET('/api/issuer/{did}/schemas', {
          params: { path: { did }, query: { ...(limit ? { limit } : {}) } },
        }),
      )
      ctx.out.result(answer, () =>
        answer.data.length
          ? table(
              ['ID', 'NAME', 'VERSION', 'ATTRIBUTES'],
              answer.data.map((s) => [s.id, s.name, s.version, s.attributes.map((a) => a.name).join(',')]),
            )
          : ['no schemas'],
      )
    },
  },
  {
    path: ['issuer', 'template', 'create'],
    summary: 'Define an issuance template: a schema, a type and fixed attributes (POST /api/issuer/:did/templates)',
    options: {
      name: { type: 'string', value: '<text>', description: 'Template name' },
      schema: { type: 'string', value: '<schema-id>', description: 'Schema' },
      type: { type: 'string', value: '<credential-type>', description: 'Credential type' },
      description: { type: 'string', value: '<text>', description: 'Description' },
      attr: { type: 'string', multiple: true, value: '<k=v|k:=json>', description: 'A fixed attribute value' },
      'attributes-file': { type: 'string', value: '<file.json>', description: 'Fixed attributes as a JSON object' },
      'validity-days': {
        type: 'string',
        value: '<n>',
        description: 'Credentials expire this many days after issuance',
      },
      format: { type: 'string', value: '<format>', description: 'Credential format (e.g. dc+sd-jwt)' },
    },
    async run(ctx, { values }) {
      const fixed = attributes(values)
      const days = int(values, 'validity-days')
      const format = str(values, 'format')
      const template = {
        name: required(values, 'name'),
        schema_id: required(values, 'schema'),
        credential_type: required(values, 'type'),
        ...(str(values, 'description') ? { description: str(values, 'description') } : {}),
        ...(Object.keys(fixed).length ? { fixed_attributes: fixed } : {}),
        ...(days ? { validity_days: days } : {}),
        ...(format ? { format } : {}),
      }
      const { client, did } = await ctx.signedIn()
      const answer = await body(
        client.api.POST('/api/issuer/{did}/templates', { params: { path: { did } }, body: template }),
      )
      ctx.out.result(answer, [`template ${answer.template.id}`])
    },
  },
  {
    path: ['issuer', 'template', 'list'],
    summary: "List the acting issuer's templates",
    async run(ctx) {
      const { client, did } = await ctx.signedIn()
      const answer = await body(client.api.GET('/api/issuer/{did}/templates', { params: { path: { did } } }))
      ctx.out.result(answer, () =>
        answer.data.length
          ? table(
              ['ID', 'NAME', 'TYPE', 'SCHEMA', 'CREATED'],
              answer.data.map((t) => [t.id, t.name, t.credential_type, t.schema_id, shortTime(t.created_at)]),
            )
          : ['no templates'],
      )
    },
  },
]
