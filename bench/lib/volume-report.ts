import type { Engine } from './options.js'
import type { LevelTimings } from './volume-routes.js'
import type { StorageReport } from './volume-storage.js'

export interface LevelResult {
  level: number
  /** The issuer's credentials when timed (the level, or more where the API seed and earlier phases passed it). */
  credentials: number
  bigHolderCredentials: number
  fill: { viaApi: number; copied: number; apiSeconds: number; copySeconds: number }
  storage: StorageReport
  timings: LevelTimings
  /** os.loadavg() before and after timing: the machine is shared. */
  loadAverage: { before: number[]; after: number[] }
}

export interface VolumeResult {
  engine: Engine
  code: string
  cores: number
  date: string
  levels: LevelResult[]
}

const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 })
const ratio = (value: number, base: number | undefined) => (base ? ` (${(value / base).toFixed(2)}x)` : '')
const mb = (bytes: number) => `${fmt(Math.round(bytes / 1e5) / 10)} MB`

/** Route p50s (sequential / 4 in flight) per level, with the ratio to the first level; issuance/s; sizes. */
export function volumeTable(result: VolumeResult): string {
  const levels = result.levels
  const head = `| ${result.engine}: p50 ms, sequential / ${'concurrent'} (ratio to ${fmt(levels[0]?.level ?? 0)}) | ${levels.map((l) => fmt(l.credentials)).join(' | ')} |`
  const lines = [head, `|---|${levels.map(() => '---:').join('|')}|`]
  const first = levels[0]
  for (const [i, route] of (first?.timings.routes ?? []).entries()) {
    const cells = levels.map((l) => {
      const t = l.timings.routes[i]!
      return `${t.sequential.p50} / ${t.concurrent.p50}${l === first ? '' : ratio(t.sequential.p50, route.sequential.p50)}`
    })
    lines.push(`| ${route.route} | ${cells.join(' | ')} |`)
  }
  lines.push(
    `| issuance/s (JWT-VC, ${'32'} in flight, 10 s) | ${levels.map((l) => `${fmt(l.timings.issuance.perSecond)}${l === first ? '' : ratio(l.timings.issuance.perSecond, first!.timings.issuance.perSecond)}`).join(' | ')} |`,
  )
  lines.push(`| big holder's credentials | ${levels.map((l) => fmt(l.bigHolderCredentials)).join(' | ')} |`)
  lines.push(
    `| database size (bytes per credential) | ${levels.map((l) => `${mb(l.storage.dataDirBytes ?? l.storage.databaseBytes)} (${fmt(Math.round((l.storage.dataDirBytes ?? l.storage.databaseBytes) / l.storage.credentials))})`).join(' | ')} |`,
  )
  if (levels.some((l) => l.storage.walBytes !== undefined))
    lines.push(`| of which write-ahead log | ${levels.map((l) => mb(l.storage.walBytes ?? 0)).join(' | ')} |`)
  lines.push(
    `| load average before / after | ${levels.map((l) => `${l.loadAverage.before[0]!.toFixed(1)} / ${l.loadAverage.after[0]!.toFixed(1)}`).join(' | ')} |`,
  )
  return lines.join('\n')
}

/** Bytes per credential by table and by index at one level. */
export function storageTable(engine: Engine, s: StorageReport): string {
  const lines = [
    `| ${engine} at ${fmt(s.credentials)} credentials, bytes per credential | heap | TOAST | indexes | total |`,
    '|---|---:|---:|---:|---:|',
    ...s.tables.map((t) => `| ${t.table} | ${fmt(t.heap)} | ${fmt(t.toast)} | ${fmt(t.indexes)} | ${fmt(t.total)} |`),
    `| **database** (${mb(s.databaseBytes)}) | | | | ${fmt(s.bytesPerCredential)} |`,
    '',
    '| index | table | bytes per credential |',
    '|---|---|---:|',
    ...s.indexes.map((i) => `| ${i.index} | ${i.table} | ${fmt(i.perCredential)} |`),
    '',
    `Average stored width per credentials row (bytes): ${Object.entries(s.credentialColumns)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; content block (sealed envelope) ${s.contentBlockBytes}.`,
  ]
  if (s.dataDirBytes !== undefined)
    lines.push(
      `PGlite data directory ${mb(s.dataDirBytes)}, of which WAL ${mb(s.walBytes ?? 0)} (${Math.round(((s.walBytes ?? 0) / s.dataDirBytes) * 100)} %).`,
    )
  return lines.join('\n')
}
