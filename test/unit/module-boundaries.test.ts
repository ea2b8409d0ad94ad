/**
 * The house's layering, read from the import lines of src (type imports included):
 * - a module reaches another module through its service (or its *.types.ts, *.statements.ts),
 *   never through its repository, so a module's SQL and tables can change behind its service;
 * - no two files of src import each other, directly or through others;
 * - modules import each other in one direction only;
 * - each table is written (insert, update, delete) by the one module that owns it: others go
 *   through its service, or splice its *.statements.ts into their own statement.
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import ts from 'typescript'

const SRC = path.resolve(import.meta.dirname, '../../src')

/** Every .ts file under src, with the files of src it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of readdirSync(SRC, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(path.join(SRC, file), 'utf8')
    const targets = ts
      .preProcessFile(text, true, true)
      .importedFiles.map((ref) => ref.fileName)
      .filter((name) => name.startsWith('.'))
      .map((name) => path.relative(SRC, path.resolve(SRC, path.dirname(file), name)).replace(/\.js$/, '.ts'))
    graph.set(file, targets)
  }
  return graph
}

const moduleOf = (file: string): string | undefined => /^modules\/([^/]+)\//.exec(file)?.[1]

/** Strongly connected components of more than one node (Tarjan). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (node: string): void => {
    index.set(node, next)
    low.set(node, next++)
    stack.push(node)
    onStack.add(node)
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node)!, low.get(to)!))
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!))
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = []
      let member: string
      do {
        member = stack.pop()!
        onStack.delete(member)
        component.push(member)
      } while (member !== node)
      if (component.length > 1) found.push(component.sort())
    }
  }
  for (const node of graph.keys()) if (!index.has(node)) visit(node)
  return found
}

describe('module boundaries', () => {
  const graph = importGraph()

  it('reads the import lines (a file that imports nothing would make the checks below vacuous)', () => {
    assert.ok(graph.size > 100)
    assert.ok(graph.get('app.ts')!.includes('config.ts'))
    assert.ok(
      graph
        .get('modules/presentation/stored-credential-check.ts')!
        .includes('modules/credentials/credentials.service.ts'),
    )
  })

  it("lets no module import another module's repository", () => {
    const crossings = [...graph].flatMap(([file, targets]) =>
      targets
        .filter(
          (target) =>
            moduleOf(file) !== undefined && moduleOf(target) !== moduleOf(file) && /\.repository\.ts$/.test(target),
        )
        .map((target) => `${file} imports ${target}`),
    )
    assert.deepEqual(crossings, [], "go through the owning module's service (or its *.types.ts for row types)")
  })

  it('has no import cycle between files', () => {
    const files = new Map([...graph].map(([file, targets]) => [file, new Set(targets)]))
    assert.deepEqual(cycles(files), [])
  })

  it('has no import cycle between modules', () => {
    const modules = new Map<string, Set<string>>()
    for (const [file, targets] of graph) {
      const from = moduleOf(file)
      if (from === undefined) continue
      if (!modules.has(from)) modules.set(from, new Set())
      for (const to of targets.map(moduleOf)) if (to !== undefined && to !== from) modules.get(from)!.add(to)
    }
    assert.deepEqual(
      cycles(modules).map((component) => component.join(' <-> ')),
      [],
      'modules that import each other',
    )
  })

  it('declares no table outside the modules (db/database.ts keeps the DB interface empty)', () => {
    assert.deepEqual(tablesDeclaredIn('db/database.ts'), [])
  })

  it('lets one module only write each table', () => {
    const writers = tableWriters()
    assert.ok(writers.get('credentials')?.size, 'the writes are read (issuance inserts credentials)')
    const shared = [...writers]
      .filter(([, owners]) => owners.size > 1)
      .map(([table, owners]) => `${table}: ${[...owners].sort().join(', ')}`)
    assert.deepEqual(
      shared.filter((entry) => !SHARED_WRITES.has(entry)),
      [],
      "a table written by more than one module: call the owner's service or splice its *.statements.ts",
    )
    assert.deepEqual(
      [...SHARED_WRITES].filter((entry) => !shared.includes(entry)),
      [],
      'a shared write is gone: remove it from the list',
    )
  })
})

/**
 * Writes still shared, as "table: module, module". Each is a statement (or a transaction step)
 * that keeps two modules' rows consistent at once, waiting for the owner to offer it as a
 * statement fragment or a port:
 * - the chain outbox records a transaction's progress on the record it anchors (credentials,
 *   schemas, consents) in the job's own transaction;
 * - a verifier's request closes in the statement that stores its presentation;
 * - issuance, revocation and presentations add the holder's wallet activity in their own statement.
 */
const SHARED_WRITES = new Set([
  'consents: blockchain, consent',
  'credential_schemas: blockchain, issuer',
  'credentials: blockchain, credentials',
  'presentation_requests: presentation, verifier',
  'wallet_activities: credentials, presentation, wallet',
])

/** Where an owner lives: a module, or another folder of src (an adapter's own table). */
const ownerOf = (file: string): string => moduleOf(file) ?? path.dirname(file)

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.ts') && !f.startsWith('db/migrations/'))
}

/** The tables a file adds to the DB interface. */
function tablesDeclaredIn(file: string): string[] {
  const text = readFileSync(path.join(SRC, file), 'utf8')
  return [...text.matchAll(/interface DB \{([^}]*)\}/g)].flatMap((block) =>
    [...block[1]!.matchAll(/^\s*([a-z_0-9]+):/gm)].map((m) => m[1]!),
  )
}

/**
 * Table → the owners whose files write it: Kysely's insertInto/updateTable/deleteFrom with a
 * literal table, and INSERT INTO / UPDATE / DELETE FROM in the text of sql templates.
 */
function tableWriters(): Map<string, Set<string>> {
  const files = sourceFiles()
  const tables = new Set(files.flatMap(tablesDeclaredIn))
  const writers = new Map<string, Set<string>>()
  for (const file of files) {
    const text = readFileSync(path.join(SRC, file), 'utf8')
    if (!/insert|update|delete/i.test(text)) continue
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest)
    const wrote = (table: string): void => {
      if (!tables.has(table)) return
      if (!writers.has(table)) writers.set(table, new Set())
      writers.get(table)!.add(ownerOf(file))
    }
    const visit = (node: ts.Node): void => {
      if (
        ts.isCallExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        ['insertInto', 'updateTable', 'deleteFrom'].includes(node.expression.name.text)
      ) {
        const table = node.arguments[0]
        if (table && ts.isStringLiteralLike(table)) wrote(table.text.split(/\s/)[0]!)
      }
      if (
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateHead(node) ||
        ts.isTemplateMiddle(node) ||
        ts.isTemplateTail(node)
      ) {
        for (const m of node.text.matchAll(/\b(?:insert\s+into|update|delete\s+from)\s+([a-z_][a-z_0-9]*)/gi))
          wrote(m[1]!.toLowerCase())
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
  }
  return writers
}
