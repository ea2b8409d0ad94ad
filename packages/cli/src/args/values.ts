import { readFileSync } from 'node:fs'
import { LocalError, UsageError, type ParsedValues } from './command.js'

export function str(values: ParsedValues, name: string): string | undefined {
  const v = values[name]
  return typeof v === 'string' ? v : undefined
}

export function required(values: ParsedValues, name: string): string {
  const v = str(values, name)
  if (v === undefined || v === '') throw new UsageError(`--${name} is required`)
  return v
}

export function flag(values: ParsedValues, name: string): boolean {
  return values[name] === true
}

export function list(values: ParsedValues, name: string): string[] {
  const v = values[name]
  return Array.isArray(v) ? v.map(String) : typeof v === 'string' ? [v] : []
}

/** `a,b` and repeated flags alike: `--reveal a,b --reveal c` -> [a, b, c]. */
export function commaList(values: ParsedValues, name: string): string[] {
  return list(values, name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean)
}

export function int(values: ParsedValues, name: string): number | undefined {
  const v = str(values, name)
  if (v === undefined) return undefined
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, not "${v}"`)
  return Number(v)
}

export function readJsonFile(file: string, what: string): unknown {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new LocalError(`cannot read ${what} ${file}: ${(error as Error).message}`)
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new UsageError(`${what} ${file} is not JSON: ${(error as Error).message}`)
  }
}

/** A JSON object from a flag's text: inline JSON, or `@file` to read it from a file. */
export function jsonObjectArg(text: string, what: string): Record<string, unknown> {
  let parsed: unknown
  if (text.startsWith('@')) parsed = readJsonFile(text.slice(1), what)
  else {
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      throw new UsageError(`${what} is not JSON: ${(error as Error).message}`)
    }
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError(`${what} must be a JSON object`)
  return parsed as Record<string, unknown>
}

/** The data type a schema gives each attribute, to read `k=v` text as the value the schema expects. */
export type AttributeTypes = Record<string, string>

/**
 * Attributes from `--attributes-file` (a JSON object) and `--attr` flags over it: `k=v` is text
 * (a number or boolean when the schema says so), `k:=v` is JSON (`gpa:=3.8`, `tags:=["a"]`).
 */
export function attributes(values: ParsedValues, types: AttributeTypes = {}): Record<string, unknown> {
  const file = str(values, 'attributes-file')
  const read = file ? readJsonFile(file, 'attributes file') : {}
  if (!read || typeof read !== 'object' || Array.isArray(read))
    throw new UsageError(`attributes file ${file} must hold a JSON object of attribute names and values`)
  const out: Record<string, unknown> = { ...(read as Record<string, unknown>) }
  for (const pair of list(values, 'attr')) {
    const match = /^([^=:]+)(:?=)(.*)$/s.exec(pair)
    if (!match) throw new UsageError(`--attr takes name=value or name:=json, not "${pair}"`)
    const [, name, op, raw] = match as unknown as [string, string, string, string]
    out[name] = op === ':=' ? parseJson(raw, `--attr ${name}`) : typed(raw, types[name])
  }
  return out
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new UsageError(`${what}: not JSON: ${text}`)
  }
}

function typed(text: string, dataType: string | undefined): unknown {
  if (dataType === 'number' && text.trim() !== '' && Number.isFinite(Number(text))) return Number(text)
  if (dataType === 'boolean' && (text === 'true' || text === 'false')) return text === 'true'
  if ((dataType === 'object' || dataType === 'array') && /^[[{]/.test(text)) return parseJson(text, 'attribute')
  return text
}

export interface Predicate {
  attribute: string
  operator: string
  value: number | string
}

/** `gpa>=3` -> {attribute: 'gpa', operator: '>=', value: 3}; the service accepts >=, >, <=, <. */
export function predicate(text: string): Predicate {
  const match = /^\s*([A-Za-z_][\w.]*)\s*(>=|<=|>|<)\s*(\S.*?)\s*$/.exec(text)
  if (!match)
    throw new UsageError(`--predicate takes attribute, operator (>=, >, <=, <) and value, as 'gpa>=3', not "${text}"`)
  const [, attribute, operator, raw] = match as unknown as [string, string, string, string]
  return { attribute, operator, value: Number.isFinite(Number(raw)) ? Number(raw) : raw }
}
