import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

/**
 * The master key seals every private key at rest. Taken from MASTER_KEY when set; otherwise
 * generated once into DATA_DIR/master.key with mode 0600 and read back on later starts.
 * Several instances on one PostgreSQL must share MASTER_KEY.
 */
export async function loadOrCreateMasterKey(dataDir: string, configured: Uint8Array | undefined): Promise<Uint8Array> {
  if (configured) return configured
  const file = path.join(dataDir, 'master.key')
  try {
    return parse(await fs.readFile(file, 'utf8'), file)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  await fs.mkdir(dataDir, { recursive: true })
  const key = randomBytes(32)
  try {
    // 'wx' fails if another process created it meanwhile; then read theirs.
    await fs.writeFile(file, key.toString('hex') + '\n', { mode: 0o600, flag: 'wx' })
    return new Uint8Array(key)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    return parse(await fs.readFile(file, 'utf8'), file)
  }
}

function parse(text: string, file: string): Uint8Array {
  const hex = text.trim()
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new Error(`${file} does not hold a 32-byte hex key`)
  return new Uint8Array(Buffer.from(hex, 'hex'))
}
