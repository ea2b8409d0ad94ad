import { createHash } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { PGlite } from '@electric-sql/pglite'
import { openDatabase } from './connect.js'
import { migrateToLatest } from './migrator.js'
import { migrations } from './migrations/index.js'

/**
 * A new embedded database starts from a copy of one made at build time (scripts/build-server.ts):
 * PGlite's initdb and the migrations cost several times what unpacking this does (bench:start). The
 * copy holds the schema only: no instance's keys or settings (those are made at first start) and
 * no rows a migration derives from random values (the signing-identities backfill finds no
 * issuers). The server runs the migrations afterwards as always, so a copy that lacks the newest
 * ones is still good; one made by another PGlite version, or with a migration this build does not
 * have, is not used.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url))
/** Where the build puts it: beside the compiled service. */
export const DIST = path.join(ROOT, 'dist')
const TEMPLATE = 'pglite-template.tar'
const MANIFEST = 'pglite-template.json'

interface Manifest {
  pglite: string
  migrations: string[]
  /** The migrations' compiled source: a changed migration makes a new template. */
  hash: string
}

async function pgliteVersion(): Promise<string | undefined> {
  try {
    return (
      JSON.parse(await readFile(path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as {
        version: string
      }
    ).version
  } catch {
    return undefined
  }
}

async function readManifest(distDir: string): Promise<Manifest | undefined> {
  try {
    return JSON.parse(await readFile(path.join(distDir, MANIFEST), 'utf8')) as Manifest
  } catch {
    return undefined
  }
}

/** The template for a new PGlite directory `dir`, or undefined: the directory has a database, or no fitting template was built. */
export async function pgliteTemplateFor(dir: string, distDir = DIST): Promise<Blob | undefined> {
  if (existsSync(dir) && readdirSync(dir).length > 0) return undefined
  const manifest = await readManifest(distDir)
  if (!manifest || manifest.pglite !== (await pgliteVersion())) return undefined
  if (!manifest.migrations.every((name) => Object.hasOwn(migrations, name))) return undefined
  try {
    return new Blob([await readFile(path.join(distDir, TEMPLATE))])
  } catch {
    return undefined
  }
}

/**
 * Builds the template into dist/ (when the PGlite version or the migrations changed since the last
 * one): initdb and every migration through the service's own PGlite thread and migrator, then
 * PGlite's own dump of the directory. Returns whether a new one was written.
 */
export async function buildPgliteTemplate(distDir = DIST): Promise<boolean> {
  const migrationsDir = fileURLToPath(new URL('./migrations', import.meta.url))
  const hash = createHash('sha256')
  for (const name of readdirSync(migrationsDir).sort())
    hash.update(name).update(await readFile(path.join(migrationsDir, name)))
  const wanted: Manifest = {
    pglite: (await pgliteVersion()) ?? 'unknown',
    migrations: Object.keys(migrations).sort(),
    hash: hash.digest('hex'),
  }
  const current = await readManifest(distDir)
  if (
    current &&
    existsSync(path.join(distDir, TEMPLATE)) &&
    current.pglite === wanted.pglite &&
    current.hash === wanted.hash
  )
    return false
  await mkdir(distDir, { recursive: true })
  const dataDir = await mkdtemp(path.join(distDir, '.pglite-template-'))
  try {
    const pgliteDir = path.join(dataDir, 'pglite')
    const handle = await openDatabase({ pgliteDir })
    await migrateToLatest(handle.db)
    await handle.close()
    const db = new PGlite({ dataDir: pgliteDir })
    // dumpDataDir before the database is ready never settles.
    await db.waitReady
    const dump = await db.dumpDataDir('none')
    await db.close()
    // Written aside and renamed, the manifest last: a start running meanwhile reads the old pair or the new, never half a file.
    await writeFile(path.join(dataDir, TEMPLATE), Buffer.from(await dump.arrayBuffer()))
    await rename(path.join(dataDir, TEMPLATE), path.join(distDir, TEMPLATE))
    await writeFile(path.join(dataDir, MANIFEST), `${JSON.stringify(wanted)}\n`)
    await rename(path.join(dataDir, MANIFEST), path.join(distDir, MANIFEST))
    return true
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
}
