import type { Context } from '../context.js'

/** One option of a command, as node:util parseArgs takes it, plus what help shows. */
export interface OptionSpec {
  type: 'string' | 'boolean'
  multiple?: boolean
  short?: string
  /** Shown after the flag in help: `--schema <id>`. */
  value?: string
  description: string
}

export interface PositionalSpec {
  name: string
  description: string
  optional?: boolean
}

export type ParsedValues = Record<string, string | boolean | (string | boolean)[] | undefined>

export interface CommandInput {
  values: ParsedValues
  positionals: string[]
}

export interface CommandSpec {
  /** Words after `cps`: ['issuer', 'schema', 'create']. */
  path: string[]
  summary: string
  /** Longer help text: what the command calls and prints. */
  details?: string
  positionals?: PositionalSpec[]
  options?: Record<string, OptionSpec>
  examples?: string[]
  /** Resolves to the exit code when it is not 0 (a refusal the service answered inside a 2xx). */
  run(ctx: Context, input: CommandInput): Promise<void | number>
}

/** Wrong invocation (exit 2): the message, and the command whose usage to print with it. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
  constructor(
    message: string,
    readonly command?: CommandSpec,
  ) {
    super(message)
  }
}

/** A local file or setting that stops the command before the service is asked (exit 2). */
export class LocalError extends Error {
  override readonly name = 'LocalError'
}
