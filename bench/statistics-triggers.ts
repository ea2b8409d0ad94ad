import pg from 'pg'
import { JsonClient } from './lib/http-client.js'
import { enrollHolders, HOLDER_COUNT, runIssuanceLoad, setUpIssuer } from './lib/issuance-load.js'
import { createBenchDatabase } from './lib/postgres.js'
import { prepareServer, startServer } from './lib/server-process.js'
import { createVirtualUser } from './lib/virtual-user.js'

/**
 * What the statistics counters (docs/decisions.md "Statistics from counters (issue 26)") cost
 * issuance on PostgreSQL: one server, one issuer, JWT-only issuance over HTTP, with the counter
 * triggers on, off, and replaced by the rejected design (one upserted row per issuer and key),
 * interleaved per round so that load from outside hits every mode alike.
 * `BENCH_DATABASE_URL`, `BENCH_SECONDS` (10), `BENCH_ROUNDS` (3), `BENCH_CONNECTIONS` (50).
 */
const adminUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)

type Mode = 'deltas' | 'none' | 'hot row'
const MODES: Mode[] = ['deltas', 'none', 'hot row']

/** The single-row design, for comparison: every issuance upserts its issuer's counter rows. */
const HOT_ROW = `
  create table if not exists bench_hot_counters (did text, metric text, key text, n bigint not null, primary key (did, metric, key));
  create or replace function bench_hot_counters() returns trigger language plpgsql as $$
  begin
    insert into bench_hot_counters (did, metric, key, n)
    select did, metric, key, sum(n) from (
      select issuer_did as did, 'issued.status' as metric, status as key, 1 as n from new_rows
      union all select issuer_did, 'issued.type', credential_type, 1 from new_rows) d
    group by did, metric, key order by did, metric, key
    on conflict (did, metric, key) do update set n = bench_hot_counters.n + excluded.n;
    return null;
  end $$;
  create or replace trigger bench_hot_counters after insert on credentials referencing new table as new_rows for each statement execute function bench_hot_counters();`

async function setMode(url: string, mode: Mode): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ table: string; name: string }>(
      `select tgrelid::regclass::text as table, tgname as name from pg_trigger where tgname like 'statistics_%'`,
    )
    for (const t of rows)
      await client.query(`alter table ${t.table} ${mode === 'deltas' ? 'enable' : 'disable'} trigger ${t.name}`)
    if (mode === 'hot row') await client.query(HOT_ROW)
    else await client.query('drop trigger if exists bench_hot_counters on credentials')
  } finally {
    await client.end()
  }
}

const database = await createBenchDatabase(adminUrl)
const build = await prepareServer('tsx')
const server = await startServer({ build, databaseUrl: database.url })
const client = new JsonClient(server.baseUrl, connections)
try {
  const issuer = await setUpIssuer(client)
  const holders = Array.from({ length: HOLDER_COUNT }, () => createVirtualUser().did)
  await enrollHolders(client, issuer, holders)
  await runIssuanceLoad(client, issuer, 'jwt', holders, connections, 5)
  const results: Record<Mode, number[]> = { deltas: [], none: [], 'hot row': [] }
  for (let round = 0; round < rounds; round++) {
    // Rotate the order so no mode always follows another.
    for (const mode of [...MODES.slice(round % 3), ...MODES.slice(0, round % 3)]) {
      await setMode(database.url, mode)
      const r = await runIssuanceLoad(client, issuer, 'jwt', holders, connections, seconds)
      results[mode].push(r.credentialsPerSecond)
      console.log(
        `round ${round + 1} ${mode}: ${r.credentialsPerSecond.toFixed(0)} credentials/s, p50 ${r.p50Ms.toFixed(1)} ms, errors ${r.errors}`,
      )
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
  for (const mode of MODES)
    console.log(
      `${mode}: median ${median(results[mode]).toFixed(0)} credentials/s (${results[mode].map((x) => x.toFixed(0)).join(', ')})`,
    )
} finally {
  client.close()
  await server.stop()
  await build.dispose()
  await database.drop()
}
