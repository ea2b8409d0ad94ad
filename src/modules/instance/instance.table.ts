import type { Generated } from 'kysely'

export interface InstanceSettingsTable {
  name: string
  value: string
  recorded_at: Generated<Date>
}

// The tables of this module join the one DB interface (declaration merging) so Kysely types them.
declare module '../../db/database.js' {
  interface DB {
    instance_settings: InstanceSettingsTable
  }
}
