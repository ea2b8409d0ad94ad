import { createHash } from 'node:crypto'
import { deriveKey } from '../../crypto/secret-box.js'
import type { Executor } from '../../db/database.js'
import { InstanceSettingsMismatchError } from '../../errors.js'
import { recordSettings, replaceSetting } from './instance-settings.repository.js'

export interface InstanceSettingsInput {
  publicBaseUrl: string
  masterKey: Uint8Array
  acceptNewPublicBaseUrl: boolean
}

/**
 * Instances on one database must agree on what their stored data depends on: the master key
 * seals every private key and secret, and PUBLIC_BASE_URL is the tokens' issuer and the host of
 * every hosted did:web. The first instance records them; a later one with other values refuses
 * to start, naming the setting, instead of answering 401s or failing to open sealed data.
 * The master key is recorded as a fingerprint (SHA-256 of an HKDF-derived key), never itself.
 */
export async function checkInstanceSettings(db: Executor, input: InstanceSettingsInput): Promise<void> {
  const mine = { PUBLIC_BASE_URL: input.publicBaseUrl, MASTER_KEY: masterKeyFingerprint(input.masterKey) }
  const recorded = await recordSettings(db, mine)
  const problems: string[] = []
  if (recorded.get('MASTER_KEY') !== mine.MASTER_KEY) {
    problems.push(
      'MASTER_KEY is not the key this database was set up with: every instance on one database must share it (its data is sealed under it)',
    )
  }
  const recordedUrl = recorded.get('PUBLIC_BASE_URL')
  if (recordedUrl !== mine.PUBLIC_BASE_URL) {
    if (input.acceptNewPublicBaseUrl && problems.length === 0)
      await replaceSetting(db, 'PUBLIC_BASE_URL', mine.PUBLIC_BASE_URL)
    else
      problems.push(
        `PUBLIC_BASE_URL is ${mine.PUBLIC_BASE_URL} but this database was set up with ${recordedUrl}: every instance on one database must share it (tokens and hosted did:web identities name it). To move the service, set ACCEPT_NEW_PUBLIC_BASE_URL=true once; identities under the old address stop resolving`,
      )
  }
  if (problems.length) throw new InstanceSettingsMismatchError(problems.join('\n'))
}

function masterKeyFingerprint(masterKey: Uint8Array): string {
  return createHash('sha256').update(deriveKey(masterKey, 'instance-settings-fingerprint-v1')).digest('base64url')
}
