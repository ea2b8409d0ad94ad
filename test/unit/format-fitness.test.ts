/**
 * A credential format is one folder and one registration line (docs/formats.md): read from the
 * source of src, no format's identifier appears as a string outside its folder, and no file
 * outside a format's folder imports it but the registration file. Migrations are frozen history
 * and keep the identifiers they wrote.
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, it } from 'node:test'
import ts from 'typescript'
import { registeredFormats } from '../../src/modules/credentials/formats/registered-formats.js'

const SRC = path.resolve(import.meta.dirname, '../../src')
const FORMATS = 'modules/credentials/formats'
const REGISTRATION = `${FORMATS}/registered-formats.ts`

const sourceFiles = readdirSync(SRC, { recursive: true })
  .map(String)
  .filter((file) => file.endsWith('.ts') && !file.startsWith('db/migrations/'))

/** The format folder a file belongs to, if any: `modules/credentials/formats/<folder>/…` (`shared/` is code formats share, not a format). */
const folderOf = (file: string): string | undefined => {
  const folder = new RegExp(`^${FORMATS}/([^/]+)/`).exec(file)?.[1]
  return folder === 'shared' ? undefined : folder
}

/** Every string literal of a file (quotes and template strings without substitutions; comments are not read). */
function stringLiterals(text: string): string[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text)
  const found: string[] = []
  for (let token = scanner.scan(); token !== ts.SyntaxKind.EndOfFileToken; token = scanner.scan()) {
    if (token === ts.SyntaxKind.StringLiteral || token === ts.SyntaxKind.NoSubstitutionTemplateLiteral)
      found.push(scanner.getTokenValue())
  }
  return found
}

/** The identifiers the registration declares: each format's, each presentation kind's, and the OpenID4VCI format each is served as. */
function registeredIdentifiers(): Set<string> {
  // Nothing is resolved, fetched or signed while formats are built: the edges are never called.
  const unused = {} as never
  const formats = registeredFormats({
    resolver: unused,
    httpGet: unused,
    publicBaseUrl: 'https://service.example',
    clock: unused,
    local: unused,
    bbs2023: unused,
    derivedProofs: unused,
    documentSigners: unused,
  })
  return new Set([...formats.ids, ...formats.oid4vci().map((f) => f.oid4vci.format)])
}

describe('credential formats as units of change', () => {
  const identifiers = registeredIdentifiers()
  // Where each identifier is written as a string: the files, and the format folders they are in.
  const writtenIn = new Map<string, string[]>()
  for (const file of sourceFiles) {
    for (const literal of new Set(stringLiterals(readFileSync(path.join(SRC, file), 'utf8')))) {
      if (identifiers.has(literal)) writtenIn.set(literal, [...(writtenIn.get(literal) ?? []), file])
    }
  }

  it('reads the registration (an empty list would make the checks below vacuous)', () => {
    for (const id of [
      'jwt_vc_json',
      'dc+sd-jwt',
      'vc+jwt',
      'bbs-2023',
      'eddsa-rdfc-2022',
      'eddsa-jcs-2022',
      'dock-bbs-proof',
      'ldp_vc',
      'w3c-vp-jwt',
    ]) {
      assert.ok(identifiers.has(id), `${id} is not registered`)
      assert.ok(writtenIn.has(id), `${id} is written nowhere`)
    }
    assert.ok(sourceFiles.length > 200)
  })

  it('names each format identifier as a string in one format folder only', () => {
    const misplaced = [...writtenIn].flatMap(([id, files]) => {
      const folders = new Set(files.map(folderOf))
      return folders.size === 1 && !folders.has(undefined) ? [] : [`'${id}' is written in ${files.join(', ')}`]
    })
    assert.deepEqual(misplaced, [], 'ask the format registry instead of naming a format')
  })

  it("imports a format's folder only from that folder and from the registration file", () => {
    const crossings: string[] = []
    for (const file of sourceFiles) {
      if (file === REGISTRATION) continue
      const text = readFileSync(path.join(SRC, file), 'utf8')
      for (const ref of ts.preProcessFile(text, true, true).importedFiles) {
        if (!ref.fileName.startsWith('.')) continue
        const target = path.relative(SRC, path.resolve(SRC, path.dirname(file), ref.fileName))
        const targetFolder = folderOf(target)
        if (targetFolder !== undefined && targetFolder !== folderOf(file)) crossings.push(`${file} imports ${target}`)
      }
    }
    assert.deepEqual(crossings, [], `go through ${REGISTRATION}, the registry or the shared files at the formats root`)
  })
})
