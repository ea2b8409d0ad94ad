import { runCli } from './cli.js'

// The CLI's one reader of the process: arguments, environment and the terminal.
process.exitCode = await runCli(process.argv.slice(2), process.env, {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  stderrIsTty: process.stderr.isTTY === true,
  stdin: process.stdin,
  interactive: process.stdin.isTTY === true,
})
