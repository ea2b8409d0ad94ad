/**
 * `cps` as main.ts runs it, but with the terminal decided by the test: stdin is this process's
 * stdin (the test pipes the holder's answer into it) and `interactive` is CPS_TEST_INTERACTIVE,
 * as if stdin were a terminal. Only tests start it (helpers/cps.ts cpsAnswering).
 */
import { runCli } from '../../src/cli.js'

process.exitCode = await runCli(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stderrIsTty: false,
  stdin: process.stdin,
  interactive: process.env.CPS_TEST_INTERACTIVE === '1',
})
