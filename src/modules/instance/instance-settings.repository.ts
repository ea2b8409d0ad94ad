import type { Executor } from '../../db/database.js'

/** Records each setting unless one is recorded already; answers what is recorded now. */
export async function recordSettings(db: Executor, settings: Record<string, string>): Promise<Map<string, string>> {
  const names = Object.keys(settings)
  await db
    .insertInto('instance_settings')
    .values(names.map((name) => ({ name, value: settings[name]! })))
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
  const rows = await db.selectFrom('instance_settings').select(['name', 'value']).where('name', 'in', names).execute()
  return new Map(rows.map((r) => [r.name, r.value]))
}

export async function replaceSetting(db: Executor, name: string, value: string): Promise<void> {
  await db.updateTable('instance_settings').set({ value, recorded_at: new Date() }).where('name', '=', name).execute()
}
