import type { Selectable } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { CredentialTemplatesTable } from './issuer.table.js'

export type TemplateRow = Selectable<CredentialTemplatesTable>

export type TemplateValues = Omit<TemplateRow, 'created_at' | 'updated_at'>

const toColumns = (v: Partial<TemplateValues>) => ({
  ...v,
  fixed_attributes: v.fixed_attributes && JSON.stringify(v.fixed_attributes),
})

export function insertTemplate(db: Executor, values: TemplateValues): Promise<TemplateRow> {
  return db
    .insertInto('credential_templates')
    .values(toColumns(values) as never)
    .returningAll()
    .executeTakeFirstOrThrow()
}

export function findTemplate(db: Executor, issuerDid: string, id: string): Promise<TemplateRow | undefined> {
  return db
    .selectFrom('credential_templates')
    .selectAll()
    .where('id', '=', id)
    .where('issuer_did', '=', issuerDid)
    .executeTakeFirst()
}

export function listTemplates(
  db: Executor,
  issuerDid: string,
  page: { limit: number; after?: string },
): Promise<TemplateRow[]> {
  let query = db.selectFrom('credential_templates').selectAll().where('issuer_did', '=', issuerDid)
  if (page.after) query = query.where('id', '>', page.after)
  return query.orderBy('id').limit(page.limit).execute()
}

export function updateTemplate(
  db: Executor,
  issuerDid: string,
  id: string,
  patch: Partial<TemplateValues>,
  now: Date,
): Promise<TemplateRow | undefined> {
  return db
    .updateTable('credential_templates')
    .set({ ...toColumns(patch), updated_at: now } as never)
    .where('id', '=', id)
    .where('issuer_did', '=', issuerDid)
    .returningAll()
    .executeTakeFirst()
}

export async function deleteTemplate(db: Executor, issuerDid: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('credential_templates')
    .where('id', '=', id)
    .where('issuer_did', '=', issuerDid)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}

/** Whether anything refers to the schema: templates, issued credentials, offers or requests. */
export async function schemaInUse(db: Executor, schemaId: string): Promise<boolean> {
  for (const table of ['credential_templates', 'credentials', 'credential_offers', 'credential_requests'] as const) {
    const row = await db.selectFrom(table).select('id').where('schema_id', '=', schemaId).limit(1).executeTakeFirst()
    if (row) return true
  }
  return false
}
