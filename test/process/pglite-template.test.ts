/**
 * The template a new embedded database starts from (src/db/pglite-template.ts), built into a
 * temporary directory as scripts/build-server.ts builds it into dist/: used only for a new
 * directory, holding every migration, and refused when it does not fit this build.
 */
import assert from 'node:assert/strict'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { sql } from 'kysely'
import { openDatabase } from '../../src/db/connect.js'
import { migrations } from '../../src/db/migrations/index.js'
import { buildPgliteTemplate, pgliteTemplateFor } from '../../src/db/pglite-template.js'

describe('PGlite template for new data directories', () => {
  let dir: string
  let dist: string
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'pglite-template-'))
    dist = path.join(dir, 'dist')
    assert.equal(await buildPgliteTemplate(dist), true, 'a first build makes one')
  })
  after(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('is not made again while PGlite and the migrations are unchanged', async () => {
    assert.equal(await buildPgliteTemplate(dist), false)
  })

  it('gives a new directory a database with every migration applied', async () => {
    const pgliteDir = path.join(dir, 'new', 'pglite')
    const template = await pgliteTemplateFor(pgliteDir, dist)
    assert.ok(template instanceof Blob)
    const handle = await openDatabase({ pgliteDir, pgliteTemplate: template })
    try {
      const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(handle.db)
      assert.deepEqual(
        rows.map((row) => row.name),
        Object.keys(migrations).sort(),
      )
      // A real, writable database: the service's own tables are there and empty.
      const { rows: issuers } = await sql<{ n: number }>`select count(*)::int as n from issuers`.execute(handle.db)
      assert.equal(issuers[0]!.n, 0)
    } finally {
      await handle.close()
    }
  })

  it('is not offered for a directory that already holds something', async () => {
    const pgliteDir = path.join(dir, 'used', 'pglite')
    await mkdir(pgliteDir, { recursive: true })
    await writeFile(path.join(pgliteDir, 'PG_VERSION'), '17\n')
    assert.equal(await pgliteTemplateFor(pgliteDir, dist), undefined)
  })

  it('is refused when made by another PGlite or with a migration this build does not have', async () => {
    const manifestFile = path.join(dist, 'pglite-template.json')
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as { pglite: string; migrations: string[] }
    const fresh = path.join(dir, 'refused', 'pglite')
    try {
      await writeFile(manifestFile, JSON.stringify({ ...manifest, pglite: '0.0.1' }))
      assert.equal(await pgliteTemplateFor(fresh, dist), undefined, 'another PGlite version')
      await writeFile(
        manifestFile,
        JSON.stringify({ ...manifest, migrations: [...manifest.migrations, '29991231T2359-from-the-future'] }),
      )
      assert.equal(await pgliteTemplateFor(fresh, dist), undefined, 'a migration unknown here')
      await writeFile(manifestFile, JSON.stringify({ ...manifest, migrations: manifest.migrations.slice(0, 3) }))
      assert.ok(
        (await pgliteTemplateFor(fresh, dist)) instanceof Blob,
        'an older template is still good: the server migrates the rest',
      )
    } finally {
      await writeFile(manifestFile, JSON.stringify(manifest))
    }
  })
})
