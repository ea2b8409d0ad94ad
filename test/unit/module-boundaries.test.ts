/**
 * The house's layering, read from the import lines of src (type imports included):
 * - a module reaches another module through its service (or its *.types.ts, *.statements.ts),
 *   never through its repository, so a module's SQL and tables can change behind its service;
 * - no two files of src import each other, directly or through others;
 * - modules import each other in one direction only, but for the cycles listed below (debts to
 *   pay, not to add to).
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import ts from 'typescript'

const SRC = path.resolve(import.meta.dirname, '../../src')

/** Groups of modules that import each other today; sorted names, joined by " <-> ". */
const KNOWN_MODULE_CYCLES = new Set([
  'issuer <-> qr <-> wallet',
])

/** Every .ts file under src, with the files of src it imports. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of readdirSync(SRC, { recursive: true }).map(String).filter((f) => f.endsWith('.ts'))) {
    const text = readFileSync(path.join(SRC, file), 'utf8')
    const targets = ts.preProcessFile(text, true, true).importedFiles
      .map((ref) => ref.fileName)
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
    assert.ok(graph.get('modules/presentation/stored-credential-check.ts')!.includes('modules/credentials/credentials.service.ts'))
  })

  it("lets no module import another module's repository", () => {
    const crossings = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => moduleOf(file) !== undefined && moduleOf(target) !== moduleOf(file) && /\.repository\.ts$/.test(target))
        .map((target) => `${file} imports ${target}`))
    assert.deepEqual(crossings, [], 'go through the owning module\'s service (or its *.types.ts for row types)')
  })

  it('has no import cycle between files', () => {
    const files = new Map([...graph].map(([file, targets]) => [file, new Set(targets)]))
    assert.deepEqual(cycles(files), [])
  })

  it('has no import cycle between modules but the known ones', () => {
    const modules = new Map<string, Set<string>>()
    for (const [file, targets] of graph) {
      const from = moduleOf(file)
      if (from === undefined) continue
      if (!modules.has(from)) modules.set(from, new Set())
      for (const to of targets.map(moduleOf)) if (to !== undefined && to !== from) modules.get(from)!.add(to)
    }
    const found = cycles(modules).map((component) => component.join(' <-> '))
    assert.deepEqual(found.filter((cycle) => !KNOWN_MODULE_CYCLES.has(cycle)), [], 'a new cycle between modules')
    assert.deepEqual([...KNOWN_MODULE_CYCLES].filter((cycle) => !found.includes(cycle)), [], 'a known cycle is gone: remove it from the list')
  })
})
