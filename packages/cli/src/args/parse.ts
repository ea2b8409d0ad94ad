import { parseArgs } from 'node:util'
import { UsageError, type CommandInput, type CommandSpec, type OptionSpec } from './command.js'
import { GLOBAL_OPTIONS } from './global-options.js'

export type Resolved =
  | { kind: 'command'; command: CommandSpec; input: CommandInput }
  /** `cps`, `cps issuer`, `cps issuer schema`: a group, whose subcommands help lists. */
  | { kind: 'group'; path: string[]; help: boolean }

/** Picks the command named by the leading words of `argv`, then parses the rest with node:util parseArgs. */
export function resolve(commands: CommandSpec[], argv: string[]): Resolved {
  // The command's words may follow global options (`cps --json keys list`); their positions are
  // kept so that everything else, in order, goes to parseArgs.
  const words: string[] = []
  const wordAt: number[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (!arg.startsWith('-')) {
      words.push(arg)
      wordAt.push(i)
      continue
    }
    const global = GLOBAL_OPTIONS[arg.replace(/^--?/, '').split('=')[0]!]
    if (!global) break
    if (global.type === 'string' && !arg.includes('=')) i++
  }
  let command: CommandSpec | undefined
  for (const candidate of commands) {
    const matches = candidate.path.every((word, i) => words[i] === word)
    if (matches && (!command || candidate.path.length > command.path.length)) command = candidate
  }
  const help = argv.includes('--help') || argv.includes('-h')
  if (!command) {
    const groupPath = longestGroup(commands, words)
    if (groupPath.length < words.length) {
      throw new UsageError(
        `unknown command: cps ${words.slice(0, groupPath.length + 1).join(' ')}\n\n${groupHelp(commands, groupPath)}`,
      )
    }
    return { kind: 'group', path: groupPath, help }
  }
  const taken = new Set(wordAt.slice(0, command.path.length))
  const rest = argv.filter((_, i) => !taken.has(i))
  const options = { ...GLOBAL_OPTIONS, ...command.options }
  let parsed: { values: CommandInput['values']; positionals: string[] }
  try {
    parsed = parseArgs({ args: rest, options: toParseArgs(options), allowPositionals: true, strict: true })
  } catch (error) {
    if (help) return { kind: 'command', command, input: { values: { help: true }, positionals: [] } }
    throw new UsageError((error as Error).message, command)
  }
  if (!parsed.values.help) checkPositionals(command, parsed.positionals)
  return { kind: 'command', command, input: parsed }
}

function longestGroup(commands: CommandSpec[], words: string[]): string[] {
  const path: string[] = []
  for (const word of words) {
    const next = [...path, word]
    if (!commands.some((c) => next.every((w, i) => c.path[i] === w))) break
    path.push(word)
  }
  return path
}

function checkPositionals(command: CommandSpec, positionals: string[]): void {
  const specs = command.positionals ?? []
  const required = specs.filter((p) => !p.optional).length
  if (positionals.length < required) throw new UsageError(`missing <${specs[positionals.length]!.name}>`, command)
  if (positionals.length > specs.length)
    throw new UsageError(`unexpected argument: ${positionals[specs.length]}`, command)
}

function toParseArgs(options: Record<string, OptionSpec>) {
  return Object.fromEntries(
    Object.entries(options).map(([name, o]) => [
      name,
      { type: o.type, ...(o.multiple ? { multiple: true } : {}), ...(o.short ? { short: o.short } : {}) },
    ]),
  )
}

function optionLines(options: Record<string, OptionSpec>): string[] {
  const rows = Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : ''}--${name}${o.value ? ` ${o.value}` : ''}${o.multiple ? ' …' : ''}`
    return [flag, o.description] as const
  })
  const width = Math.max(...rows.map(([flag]) => flag.length))
  return rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`)
}

export function usageLine(command: CommandSpec): string {
  const positionals = (command.positionals ?? []).map((p) => (p.optional ? `[${p.name}]` : `<${p.name}>`))
  return `cps ${[...command.path, ...positionals].join(' ')}${command.options ? ' [options]' : ''}`
}

export function commandHelp(command: CommandSpec): string {
  const lines = [`Usage: ${usageLine(command)}`, '', command.summary]
  if (command.details) lines.push('', command.details)
  if (command.positionals?.length) {
    lines.push('', 'Arguments:')
    for (const p of command.positionals) lines.push(`  ${p.name}  ${p.description}`)
  }
  if (command.options) lines.push('', 'Options:', ...optionLines(command.options))
  lines.push('', 'Global options:', ...optionLines(GLOBAL_OPTIONS))
  if (command.examples?.length) lines.push('', 'Examples:', ...command.examples.map((e) => `  ${e}`))
  return lines.join('\n')
}

export function groupHelp(commands: CommandSpec[], path: string[]): string {
  const inGroup = commands.filter((c) => path.every((w, i) => c.path[i] === w))
  const width = Math.max(...inGroup.map((c) => usageLine(c).length))
  const lines = [
    `Usage: cps ${[...path, '<command>'].join(' ')} [options]`,
    '',
    path.length
      ? `Commands under "cps ${path.join(' ')}":`
      : 'cps: the credential service from the command line. Commands:',
    ...inGroup.map((c) => `  ${usageLine(c).padEnd(width)}  ${c.summary}`),
    '',
    'Global options:',
    ...optionLines(GLOBAL_OPTIONS),
    '',
    'Each command has --help. Exit codes: 0 done, 1 the service refused or failed (its code and message are printed), 2 wrong usage or local set-up.',
  ]
  return lines.join('\n')
}
