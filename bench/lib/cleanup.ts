/**
 * Last-resort cleanup: child servers are SIGKILLed when this process exits for any reason,
 * and async cleanups (dropping a PostgreSQL database) run on Ctrl-C or when the time budget
 * runs out. Normal runs clean up in their own finally blocks first.
 */
import type { ChildProcess } from 'node:child_process'

const children = new Set<ChildProcess>()
const cleanups = new Set<() => Promise<void>>()

process.on('exit', () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

export function trackChild(child: ChildProcess): () => void {
  children.add(child)
  return () => children.delete(child)
}

export function onAbort(cleanup: () => Promise<void>): () => void {
  cleanups.add(cleanup)
  return () => cleanups.delete(cleanup)
}

/** Runs every pending cleanup (each bounded to 10 s), then exits with `code`. */
export async function abort(reason: string, code: number): Promise<never> {
  console.error(`\nbench: ${reason}; cleaning up`)
  const bounded = [...cleanups].map((fn) => Promise.race([fn().catch(() => undefined), sleep(10_000)]))
  await Promise.all(bounded)
  process.exit(code)
}

export function installAbortHandlers(budgetMs: number): void {
  process.once('SIGINT', () => void abort('interrupted', 130))
  process.once('SIGTERM', () => void abort('terminated', 143))
  setTimeout(() => void abort(`time budget of ${Math.round(budgetMs / 1000)} s exceeded`, 1), budgetMs).unref()
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
