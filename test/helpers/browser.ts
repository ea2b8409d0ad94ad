import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'

/** Debian's Chromium (apt package `chromium`; .ci/run installs it). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/**
 * The flags every browser test uses. Without the background-networking ones Chromium keeps
 * calling Google services, which on a closed network means a stream of failing connections.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** A headless system Chromium driven by playwright-core; close it in an `after` hook. */
export function launchChromium(options: { args?: string[] } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...CHROMIUM_ARGS, ...(options.args ?? [])],
  })
}

/**
 * A reason to skip the browser tests, or false to run them. CI must have Chromium (.ci/run
 * installs it) and fails without it; a machine without it skips them with this reason, as the
 * PostgreSQL pass and the ipfs_cid check do.
 */
export function chromiumMissing(): string | false {
  if (existsSync(CHROMIUM_PATH)) return false
  if (process.env.CI) throw new Error(`${CHROMIUM_PATH} is missing: apt-get install chromium`)
  return `${CHROMIUM_PATH} is not installed (Debian package chromium): browser tests skipped`
}
