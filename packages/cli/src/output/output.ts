export interface Io {
  stdout: (text: string) => void
  stderr: (text: string) => void
  /** Whether stderr is a terminal: progress is drawn only there. */
  stderrIsTty: boolean
  /** Where the holder's answer to a question is read (process.stdin); none: no question can be asked. */
  stdin?: NodeJS.ReadableStream
  /** Whether a person is there to answer (stdin is a terminal): without one, questions need --yes. */
  interactive?: boolean
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']
const SPINNER_MS = 80

/**
 * What a command prints. `--json`: the service's answer, one JSON document on stdout, nothing
 * else there. Otherwise: short human lines on stdout, and a progress indicator on stderr while
 * the service works, when stderr is a terminal.
 */
export class Output {
  constructor(
    readonly io: Io,
    readonly json: boolean,
  ) {}

  /** The command's result: `data` under --json, `human` lines otherwise. */
  result(data: unknown, human: string[] | (() => string[])): void {
    if (this.json) this.io.stdout(`${JSON.stringify(data, null, 2)}\n`)
    else {
      const lines = typeof human === 'function' ? human() : human
      if (lines.length) this.io.stdout(`${lines.join('\n')}\n`)
    }
  }

  /** A note for the person at the terminal (stderr, never under --json). */
  note(text: string): void {
    if (!this.json) this.io.stderr(`${text}\n`)
  }

  /** Runs `work` with a spinner and `label` on a terminal; `update` changes the label meanwhile. */
  async progress<T>(label: string, work: (update: (label: string) => void) => Promise<T>): Promise<T> {
    if (this.json || !this.io.stderrIsTty) return work(() => {})
    let current = label
    let frame = 0
    const draw = () => this.io.stderr(`\r\x1b[2K${SPINNER[frame++ % SPINNER.length]} ${current}`)
    draw()
    const timer = setInterval(draw, SPINNER_MS)
    try {
      return await work((next) => {
        current = next
      })
    } finally {
      clearInterval(timer)
      this.io.stderr('\r\x1b[2K')
    }
  }
}

/** Rows as aligned columns, for lists. */
export function table(header: string[], rows: string[][]): string[] {
  if (!rows.length) return []
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')
  return [line(header), ...rows.map(line)]
}
