import { readFileSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import path from 'node:path'

/** The parts of a V8 .cpuprofile (written by `node --cpu-prof`) that the summary needs. */
interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
interface CpuProfile {
  nodes: ProfileNode[]
  startTime: number
  samples: number[]
  timeDeltas: number[]
}

export interface ProfileSummary {
  /** Sampled main-thread time inside the window, ms (idle included). */
  windowMs: number
  /** Busy share of the main thread (not idle) inside the window, 0..1. */
  busy: number
  selfTop: { name: string; ms: number; share: number }[]
  /** Time by where the sampled (leaf) frame lives: package, project file, node internals, GC... */
  selfByArea: { area: string; ms: number; share: number }[]
  /** Inclusive: share of busy samples with the area anywhere on the stack. */
  inclusiveByArea: { area: string; ms: number; share: number }[]
  /** Inclusive time of project (src/) functions: which step of ours leads to the cost. */
  inclusiveProjectFunctions: { name: string; ms: number; share: number }[]
}

function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)'
  if (url.startsWith('wasm://')) return '(wasm)'
  if (url.startsWith('node:')) return 'node: internals'
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (pkg) return pkg[1]!
  const src = /\/(src\/.+?)(?:\?.*)?$/.exec(url)
  return src ? src[1]!.replace(/\.(ts|js)$/, '') : url
}

/**
 * Summarises the samples taken between `fromUs` and `toUs` (CLOCK_MONOTONIC microseconds, the
 * clock V8 stamps samples with on Linux, same as process.hrtime), so start-up and warm-up are
 * left out. Self time answers "which code is running"; inclusive time answers "on whose behalf".
 */
export function summarizeProfile(file: string, fromUs: number, toUs: number, top = 20): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

  const self = new Map<string, number>()
  const selfArea = new Map<string, number>()
  const inclArea = new Map<string, number>()
  const inclFn = new Map<string, number>()
  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v)
  let t = profile.startTime
  let windowUs = 0
  let idleUs = 0
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i] ?? 0
    // A sample's weight is the time until the next one.
    const weight = profile.timeDeltas[i + 1] ?? 0
    if (t < fromUs || t > toUs) continue
    windowUs += weight
    const leaf = nodes.get(profile.samples[i]!)!
    const { functionName, url, lineNumber } = leaf.callFrame
    if (functionName === '(idle)') {
      idleUs += weight
      continue
    }
    const area = areaOf(url, functionName)
    add(self, `${functionName || '(anonymous)'} ${area}:${lineNumber + 1}`, weight)
    add(selfArea, area, weight)
    const areas = new Set<string>()
    const fns = new Set<string>()
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const frame = nodes.get(id)!.callFrame
      const a = areaOf(frame.url, frame.functionName)
      areas.add(a)
      if (a.startsWith('src/') && frame.functionName) fns.add(`${frame.functionName} ${a}`)
    }
    for (const a of areas) add(inclArea, a, weight)
    for (const f of fns) add(inclFn, f, weight)
  }
  const busyUs = windowUs - idleUs
  const rank = (m: Map<string, number>, n: number) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, ms: Math.round(us / 1000), share: busyUs ? us / busyUs : 0 }))
  const asArea = (rows: { name: string; ms: number; share: number }[]) =>
    rows.map(({ name, ...rest }) => ({ area: name, ...rest }))
  return {
    windowMs: Math.round(windowUs / 1000),
    busy: windowUs ? busyUs / windowUs : 0,
    selfTop: rank(self, top),
    selfByArea: asArea(rank(selfArea, 15)),
    inclusiveByArea: asArea(rank(inclArea, 15)),
    inclusiveProjectFunctions: rank(inclFn, 25),
  }
}

/**
 * The server's main-thread profile in a --cpu-prof directory. Files are named
 * CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main thread, the BBS
 * workers write their own.
 */
export async function mainThreadProfile(dir: string): Promise<string> {
  const file = (await readdir(dir)).find((f) => /\.0\.\d+\.cpuprofile$/.test(f))
  if (!file) throw new Error(`no main-thread .cpuprofile in ${dir}: did the server exit cleanly?`)
  return path.join(dir, file)
}

export const profileShare = (x: number) => `${(x * 100).toFixed(1).padStart(5)}%`

/** The four tables of a summary, after the caller's own header lines. */
export function printProfileSections(s: ProfileSummary): void {
  console.log('-- self time by function')
  for (const r of s.selfTop) console.log(`${profileShare(r.share)}  ${r.name}`)
  console.log('-- self time by area')
  for (const r of s.selfByArea) console.log(`${profileShare(r.share)}  ${r.area}`)
  console.log('-- inclusive by area (on the stack)')
  for (const r of s.inclusiveByArea) console.log(`${profileShare(r.share)}  ${r.area}`)
  console.log('-- inclusive by project function')
  for (const r of s.inclusiveProjectFunctions) console.log(`${profileShare(r.share)}  ${r.name}`)
}
