import { createInterface } from 'node:readline'
import { LocalError } from '../args/command.js'
import type { Io } from './output.js'

/** The holder said no at the question: the command declined (and said so to the other side where it can). */
export const EXIT_DECLINED = 3

/**
 * The holder's decision on what `shown` describes: the preview is
 * printed on stderr (stdout stays the command's result, --json included), then `Accept? [y/N]`
 * is read from the terminal. `--yes` accepts without asking; without a terminal and without
 * --yes nothing may be sent, so it stops with a LocalError (exit 2).
 */
export async function decide(io: Io, shown: string[], options: { yes: boolean; what: string }): Promise<boolean> {
  io.stderr(`${shown.map(printable).join('\n')}\n`)
  if (options.yes) return true
  if (!io.interactive || !io.stdin) {
    throw new LocalError(
      `nothing was sent: ${options.what} needs the holder's answer, and there is no terminal to ask on. Run it on a terminal, or add --yes to accept what is shown above`,
    )
  }
  io.stderr('Accept? [y/N] ')
  const answer = await firstLine(io.stdin)
  return /^\s*y(es)?\s*$/i.test(answer ?? '')
}

/**
 * A preview line with its control characters (C0 but tab, so newlines too; DEL; C1) shown as
 * U+FFFD: an escape sequence or a line break in what an issuer or verifier wrote must not rewrite
 * the terminal, e.g. overwrite or fake the identity line above the question.
 */
export function printable(line: string): string {
  // eslint-disable-next-line no-control-regex -- finding control characters is the point
  return line.replace(/[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g, '\ufffd')
}

/** One line of `input` (undefined when it ends first); the stream is left for nobody else. */
async function firstLine(input: NodeJS.ReadableStream): Promise<string | undefined> {
  const lines = createInterface({ input, terminal: false })
  try {
    for await (const line of lines) return line
    return undefined
  } finally {
    lines.close()
  }
}

/** A claim path of OpenID4VC (DCQL, OID4VCI claims) as people read it: credentialSubject.address.city, degrees[*]. */
export function claimPath(path: readonly (string | number | null)[]): string {
  return path.map((p, i) => (p === null ? '[*]' : typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${p}`)).join('')
}

/** A value for one line of a preview: strings as they are, anything else as JSON, long ones cut. */
export function shortValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return text.length > 80 ? `${text.slice(0, 77)}…` : text
}
