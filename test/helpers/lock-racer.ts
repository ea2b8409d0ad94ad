/**
 * A starter in test/process/data-dir-lock.test.ts's race, for many rounds: says "ready"; on
 * "go <dir>" tries the lock on that directory and says "won" or "refused <why>"; on "release"
 * releases a lock it won and says "released".
 */
import { createInterface } from 'node:readline'
import { lockDataDir, type DataDirLock } from '../../src/db/data-dir-lock.js'

let held: DataDirLock | undefined
process.stdout.write('ready\n')
for await (const line of createInterface({ input: process.stdin })) {
  const [command, dir] = line.split(' ')
  if (command === 'go') {
    try {
      held = await lockDataDir(dir!)
      process.stdout.write('won\n')
    } catch (error) {
      process.stdout.write(`refused ${error instanceof Error ? error.message : String(error)}\n`)
    }
  } else if (command === 'release') {
    await held?.release()
    held = undefined
    process.stdout.write('released\n')
  }
}
