import { preparePostgres } from './prepare.js'
import { importRun } from './bulk.js'
import { DB_PREFIX } from './series.js'

// Issue 33's bulk import on its own, for iterating: a seeded database (kept and reused between
// runs: `<BENCH_DB_PREFIX>_profile_<events>`), then `importRun` of `n` events, the same items and checks
// as the bench's `import` scenario. Run with `--cpu-prof` to see the JavaScript side.
//   pnpm --filter @cal-events/bench import-profile <seeded events> <imported events> [batch size]

const [seeded = '20000', imported = '5000', batch = '1000'] = process.argv.slice(2)
const adminUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test'
const db = await preparePostgres(adminUrl, `${DB_PREFIX}_profile_${seeded}`, Number(seeded), true)
const result = await importRun(db.url, db.targets, Number(imported), Number(batch))
const { statements, ...figures } = result
console.log(JSON.stringify({ ...figures, perSecond: Math.round(result.perSecond) }))
for (const s of statements) console.log(`${String(s.ms).padStart(7)} ms ${String(s.calls).padStart(5)}x  ${s.sql}`)
