import os from 'node:os'
import path from 'node:path'
import { ServiceError } from '@credential-service/sdk'
import { LocalError, UsageError } from './args/command.js'
import type { GlobalSettings } from './args/global-options.js'
import { commandHelp, groupHelp, resolve, usageLine } from './args/parse.js'
import { str } from './args/values.js'
import { COMMANDS } from './commands/index.js'
import { Context } from './context.js'
import { Output, type Io } from './output/output.js'

export const EXIT_OK = 0
/** The service answered an error, or could not be reached. */
export const EXIT_SERVICE = 1
/** Wrong arguments, or a local file or setting that stops the command before the service is asked. */
export const EXIT_USAGE = 2

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000'

/** Runs one invocation of `cps` and answers its exit code; everything it prints goes through `io`. */
export async function runCli(argv: string[], env: Record<string, string | undefined>, io: Io): Promise<number> {
  const json = argv.includes('--json')
  const out = new Output(io, json)
  try {
    const resolved = resolve(COMMANDS, argv)
    if (resolved.kind === 'group') {
      io[resolved.help ? 'stdout' : 'stderr'](`${groupHelp(COMMANDS, resolved.path)}\n`)
      return resolved.help ? EXIT_OK : EXIT_USAGE
    }
    const { command, input } = resolved
    if (input.values.help) {
      io.stdout(`${commandHelp(command)}\n`)
      return EXIT_OK
    }
    const ctx = new Context(settings(input.values, env), out)
    return (await command.run(ctx, input)) ?? EXIT_OK
  } catch (error) {
    return report(error, out)
  }
}

function settings(values: Record<string, unknown>, env: Record<string, string | undefined>): GlobalSettings {
  const configHome = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config')
  const baseUrl = (str(values as never, 'base-url') ?? env.CPS_BASE_URL ?? DEFAULT_BASE_URL).replace(/\/+$/, '')
  if (!/^https?:\/\/[^/]/.test(baseUrl)) throw new UsageError(`--base-url must be an http(s) URL, not "${baseUrl}"`)
  return {
    baseUrl,
    json: values.json === true,
    keyFile: path.resolve(
      str(values as never, 'key-file') ?? env.CPS_KEY_FILE ?? path.join(configHome, 'cps', 'keys.json'),
    ),
    key: str(values as never, 'key') ?? (env.CPS_KEY || undefined),
    privateJwk: str(values as never, 'private-jwk') ?? (env.CPS_PRIVATE_JWK || undefined),
  }
}

function report(error: unknown, out: Output): number {
  const { io } = out
  if (error instanceof UsageError) {
    const usage = error.command
      ? `Usage: ${usageLine(error.command)}\n(cps ${error.command.path.join(' ')} --help for the options)`
      : ''
    io.stderr(`error: ${error.message}\n${usage ? `${usage}\n` : ''}`)
    if (out.json) io.stdout(`${JSON.stringify({ success: false, code: 'usage', message: error.message })}\n`)
    return EXIT_USAGE
  }
  if (error instanceof LocalError) {
    io.stderr(`error: ${error.message}\n`)
    if (out.json) io.stdout(`${JSON.stringify({ success: false, code: 'local', message: error.message })}\n`)
    return EXIT_USAGE
  }
  if (error instanceof ServiceError) {
    io.stderr(`error: ${error.code}: ${error.message} (HTTP ${error.status})\n`)
    if (out.json)
      io.stdout(`${JSON.stringify(error.body ?? { success: false, code: error.code, message: error.message })}\n`)
    return EXIT_SERVICE
  }
  const message = describe(error)
  io.stderr(`error: ${message}\n`)
  if (out.json) io.stdout(`${JSON.stringify({ success: false, code: 'client', message })}\n`)
  return EXIT_SERVICE
}

/** fetch's "fetch failed" hides the reason (ECONNREFUSED, a certificate) in `cause`. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : ''
  return `${error.message}${cause}`
}
