import type { Selectable } from 'kysely'
import type { Executor } from '../../db/database.js'
import type { CredentialSchemasTable } from './issuer.table.js'

export interface SchemaAttributeRow {
  name: string
  data_type: string
  description: string
  required: boolean
  /** SD-JWT VC: issued as a plain claim, never selectively disclosable (absent: disclosable). */
  always_disclosed?: boolean
}

export type SchemaRow = Selectable<CredentialSchemasTable>

export type SchemaValues = Omit<SchemaRow, 'created_at' | 'updated_at' | 'on_chain' | 'blockchain_tx'>

const toColumns = (v: Partial<SchemaValues>) => ({
  ...v,
  attributes: v.attributes && JSON.stringify(v.attributes),
  allowed_extensions: v.allowed_extensions && JSON.stringify(v.allowed_extensions),
  allowed_evidence: v.allowed_evidence && JSON.stringify(v.allowed_evidence),
  mdoc: v.mdoc && JSON.stringify(v.mdoc),
})

/** Undefined when the issuer already has a schema of that name and version. */
export function insertSchema(db: Executor, values: SchemaValues): Promise<SchemaRow | undefined> {
  return db
    .insertInto('credential_schemas')
    .values(toColumns(values) as never)
    .onConflict((oc) => oc.columns(['issuer_did', 'name', 'version']).doNothing())
    .returningAll()
    .executeTakeFirst()
}

/** The issuer's schema; another issuer's is as absent as an unknown one. */
export function findSchema(db: Executor, issuerDid: string, id: string): Promise<SchemaRow | undefined> {
  return db
    .selectFrom('credential_schemas')
    .selectAll()
    .where('id', '=', id)
    .where('issuer_did', '=', issuerDid)
    .executeTakeFirst()
}

/** Any issuer's schema by id: schemas are public definitions (context, JSON Schema and Type Metadata are served to anyone). */
export function findSchemaById(db: Executor, id: string): Promise<SchemaRow | undefined> {
  return db.selectFrom('credential_schemas').selectAll().where('id', '=', id).executeTakeFirst()
}

export function listSchemas(
  db: Executor,
  issuerDid: string,
  page: { limit: number; after?: string },
): Promise<SchemaRow[]> {
  let query = db.selectFrom('credential_schemas').selectAll().where('issuer_did', '=', issuerDid)
  if (page.after) query = query.where('id', '>', page.after)
  return query.orderBy('id').limit(page.limit).execute()
}

export function updateSchema(
  db: Executor,
  issuerDid: string,
  id: string,
  patch: Partial<SchemaValues>,
  now: Date,
): Promise<SchemaRow | undefined> {
  return db
    .updateTable('credential_schemas')
    .set({ ...toColumns(patch), updated_at: now } as never)
    .where('id', '=', id)
    .where('issuer_did', '=', issuerDid)
    .returningAll()
    .executeTakeFirst()
}

export async function deleteSchema(db: Executor, issuerDid: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('credential_schemas')
    .where('id', '=', id)
    .where('issuer_did', '=', issuerDid)
    .executeTakeFirst()
  return Number(result.numDeletedRows) > 0
}
