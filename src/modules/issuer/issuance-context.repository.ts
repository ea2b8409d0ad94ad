import { sql } from 'kysely'
import type { Executor, SigningMethod } from '../../db/database.js'
import type { SchemaRow } from './schemas.repository.js'
import type { TemplateRow } from './templates.repository.js'

export interface IssuanceContext {
  /** `step_up_until`: the issuing session's step-up (null without one). */
  issuer: {
    did: string
    name: string
    require_step_up: boolean
    step_up_until: Date | null
    signing_method: SigningMethod
    web_id: string
  }
  schema: SchemaRow | undefined
  template: TemplateRow | undefined
  recipientKey: { public_key: Uint8Array; custody: 'service' | 'holder' } | undefined
}

export interface ContextKey {
  issuerDid: string
  schemaId: string
  templateId: string | undefined
  recipientDid: string
  /** The issuing session (token jti), whose step-up is read. */
  sessionId: string | undefined
}

/**
 * Everything an issuance reads, for many issuances in one statement: the issuer, its schema
 * and template (only its own), and the recipient's ML-KEM key. PGlite runs one statement
 * at a time, each with a fixed cost however small, so per-credential lookups would cap issuance.
 */
export async function loadIssuanceContexts(
  db: Executor,
  keys: ContextKey[],
): Promise<Array<IssuanceContext | undefined>> {
  if (keys.length === 0) return []
  const values = sql.join(
    keys.map(
      (k, i) =>
        sql`(${i}::int, ${k.issuerDid}::text, ${k.schemaId}::text, ${k.templateId ?? null}::text, ${k.recipientDid}::text, ${k.sessionId ?? null}::text)`,
    ),
  )
  const { rows } = await sql<{
    idx: number
    did: string
    name: string
    require_step_up: boolean
    signing_method: SigningMethod
    web_id: string
    step_up_until: Date | null
    schema: Record<string, unknown> | null
    template: Record<string, unknown> | null
    recipient: { public_key: string; custody: 'service' | 'holder' } | null
  }>`
    select v.idx, i.did, i.name, i.require_step_up, i.signing_method, i.web_id,
      (select u.expires_at from issuer_step_ups u where u.issuer_did = i.did and u.session_id = v.session_id) as step_up_until,
      (select to_jsonb(s) from credential_schemas s where s.id = v.schema_id and s.issuer_did = i.did) as schema,
      (select to_jsonb(t) from credential_templates t where t.id = v.template_id and t.issuer_did = i.did) as template,
      (select jsonb_build_object('public_key', encode(k.public_key, 'base64'), 'custody', k.custody) from holder_kem_keys k where k.did = v.recipient) as recipient
    from (values ${values}) as v(idx, issuer_did, schema_id, template_id, recipient, session_id)
    join issuers i on i.did = v.issuer_did`.execute(db)
  const out: Array<IssuanceContext | undefined> = keys.map(() => undefined)
  for (const row of rows) {
    out[row.idx] = {
      issuer: {
        did: row.did,
        name: row.name,
        require_step_up: row.require_step_up,
        step_up_until: row.step_up_until && new Date(row.step_up_until),
        signing_method: row.signing_method,
        web_id: row.web_id,
      },
      schema: row.schema ? (withDates(row.schema) as unknown as SchemaRow) : undefined,
      template: row.template ? (withDates(row.template) as unknown as TemplateRow) : undefined,
      recipientKey: row.recipient
        ? {
            public_key: new Uint8Array(Buffer.from(row.recipient.public_key, 'base64')),
            custody: row.recipient.custody,
          }
        : undefined,
    }
  }
  return out
}

// to_jsonb renders timestamps as ISO strings; the row types carry Dates.
const withDates = (row: Record<string, unknown>) => ({
  ...row,
  created_at: new Date(row.created_at as string),
  updated_at: new Date(row.updated_at as string),
})
