import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, it } from 'node:test'
import { PGlite } from '@electric-sql/pglite'
import { PGliteStatements } from '../../src/db/pglite-statements.js'

// Runs once, with the unit tests: it is about PGlite alone.
describe('PGlite named prepared statements', () => {
  let pglite: PGlite
  let statements: PGliteStatements

  before(async () => {
    const templatePath = process.env.TEST_PGLITE_TEMPLATE
    pglite = new PGlite({
      loadDataDir: templatePath ? new Blob([await readFile(templatePath)]) : undefined,
      parsers: { 20: Number },
    })
    statements = new PGliteStatements(pglite, 3)
    await pglite.exec(
      `create table items (id int primary key, doc jsonb, at timestamptz, raw bytea, tags text[], flag boolean, n bigint)`,
    )
  })
  after(() => pglite.close())

  it('answers like PGlite query() for every parameter and result type the service uses', async () => {
    const at = new Date('2026-11-23T10:00:00.123Z')
    const params = [1, { a: [1, 'x'], b: null }, at, new Uint8Array([0, 255, 7]), ['p', 'q'], true, 42]
    const insert = 'insert into items values ($1, $2, $3, $4, $5, $6, $7) returning *'
    const ours = await statements.query(insert, params)
    const theirs = await pglite.query('select * from items where id = $1', [1])
    assert.deepEqual(ours.rows, theirs.rows)
    assert.deepEqual(ours.rows[0], {
      id: 1,
      doc: { a: [1, 'x'], b: null },
      at,
      raw: new Uint8Array([0, 255, 7]),
      tags: ['p', 'q'],
      flag: true,
      n: 42,
    })
    assert.equal(ours.affectedRows, 1)
    const nulls = await statements.query(insert.replace('returning *', 'returning doc, at'), [
      2,
      null,
      undefined,
      null,
      null,
      null,
      null,
    ])
    assert.deepEqual(nulls.rows, [{ doc: null, at: null }])
  })

  it('reads answers that arrive in many pieces, and the counts of every kind of write, like query()', async () => {
    // ~2 MB of rows: far more than one write out of WebAssembly.
    const big = `select g as n, repeat(chr(65 + g % 26), 40000 + g) as text, case when g % 2 = 0 then null else jsonb_build_object('g', g, 'é', 'ü') end as doc from generate_series(1, 50) g`
    const ours = await statements.query(big, [])
    const theirs = await pglite.query(big)
    assert.equal(ours.rows.length, 50)
    assert.deepEqual(ours.rows, theirs.rows)
    assert.deepEqual(ours.rows[2], { n: 3, text: 'D'.repeat(40003), doc: { g: 3, é: 'ü' } })
    assert.deepEqual(await statements.query('select 1 as n where false', []), { rows: [], affectedRows: 0 })
    await statements.query('insert into items (id, n) select g, g from generate_series(100, 104) g', [])
    const updated = await statements.query('update items set n = n + 1 where id >= $1 returning id', [102])
    assert.equal(updated.affectedRows, 3)
    assert.deepEqual(updated.rows.map((r) => r.id).sort(), [102, 103, 104])
    assert.deepEqual(await statements.query('delete from items where id >= $1', [100]), { rows: [], affectedRows: 5 })
  })

  it('binds parameters of any size and script intact, statement after statement', async () => {
    const texts = [
      '',
      'plain',
      'é ü ß',
      '日本語のテキスト',
      '🔑 emoji 👍🏽',
      'x'.repeat(70_000) + '€',
      JSON.stringify({ note: 'ñ'.repeat(30_000) }),
    ]
    for (const [i, text] of texts.entries()) {
      const { rows } = await statements.query(
        'select $1::text as text, octet_length($1::text) as bytes, $2::int as i',
        [text, i],
      )
      assert.deepEqual(rows, [{ text, bytes: Buffer.byteLength(text), i }])
    }
    const doc = { name: 'Zoë', list: ['α', 'β'], deep: { n: 1.5, ok: true } }
    const { rows } = await statements.query('select $1::jsonb as doc, $2::text[] as tags, $3::timestamptz as at', [
      doc,
      ['a', 'b c', 'ü'],
      new Date('2026-11-23T10:00:00Z'),
    ])
    assert.deepEqual(rows, [{ doc, tags: ['a', 'b c', 'ü'], at: new Date('2026-11-23T10:00:00Z') }])
  })

  it('prepares a statement afresh once its table has changed shape: at once outside a transaction, not inside one', async () => {
    await pglite.exec('create table shapes (id int); insert into shapes values (1)')
    assert.deepEqual((await statements.query('select * from shapes', [])).rows, [{ id: 1 }])
    await pglite.exec('alter table shapes add column note text')
    // Outside a transaction the refused statement ran nothing: it is run again, prepared afresh.
    assert.deepEqual((await statements.query('select * from shapes', [])).rows, [{ id: 1, note: null }])

    await pglite.exec('alter table shapes add column size int')
    await pglite.exec('begin')
    // Inside one, the transaction has failed: the error stands, and the next statement after it is prepared afresh.
    await assert.rejects(
      statements.query('select * from shapes', []),
      (e: Error & { code?: string }) => e.code === '0A000',
    )
    await pglite.exec('rollback')
    assert.deepEqual((await statements.query('select * from shapes', [])).rows, [{ id: 1, note: null, size: null }])
  })

  it('keeps answering right when statements are evicted beyond its cap and prepared again', async () => {
    for (let round = 0; round < 3; round++) {
      for (let k = 0; k < 6; k++) {
        const { rows } = await statements.query(`select $1::int + ${k} as v`, [round])
        assert.deepEqual(rows, [{ v: round + k }])
      }
    }
    const prepared = await pglite.query<{ n: number }>('select count(*)::int as n from pg_prepared_statements')
    assert.ok(prepared.rows[0]!.n <= 3, `${prepared.rows[0]!.n} statements still prepared, cap 3`)
  })

  it('reports errors with their SQLSTATE and stays usable, both for bad text and for bad values', async () => {
    await assert.rejects(statements.query('selec 1', []), (e: Error & { code?: string }) => e.code === '42601')
    await assert.rejects(
      statements.query('select 1 / $1::int as v', [0]),
      (e: Error & { code?: string }) => e.code === '22012',
    )
    assert.deepEqual((await statements.query('select 1 / $1::int as v', [1])).rows, [{ v: 1 }])
  })

  it('sees a transaction through: an error inside aborts it until rollback', async () => {
    await statements.query('begin', [])
    await statements.query('insert into items (id) values ($1)', [10])
    await assert.rejects(
      statements.query('insert into items (id) values ($1)', [10]),
      (e: Error & { code?: string }) => e.code === '23505',
    )
    await assert.rejects(statements.query('select 1', []), (e: Error & { code?: string }) => e.code === '25P02')
    await statements.query('rollback', [])
    assert.deepEqual((await statements.query('select count(*)::int as n from items where id = $1', [10])).rows, [
      { n: 0 },
    ])
  })
})
