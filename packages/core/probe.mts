import { createCalendar } from '@cal-events/core'
const c = await createCalendar({ database: { url: 'postgres://postgres@127.0.0.1:5432/rel_probe' }, siteTimezone: 'Pacific/Kiritimati', onError: (e: any) => console.log('   ERR', String(e?.message ?? e).slice(0, 200), e?.stack?.split('\n').slice(1,4).join(' | ')) })
const tok = (await c.tokens.create({ role: 'administrator', login: 'a' })).token
const req = async (method: string, path: string, query = '', body?: string) => {
  const r = await c.handle({ method, path: '/cal/events/v1' + path, query, headers: { authorization: 'Bearer ' + tok, 'content-type': 'application/json' }, body: body ? Buffer.from(body) : undefined, origin: 'http://x' })
  console.log(r.status, method, path, query, body?.slice(0, 80))
}
const ev = '"title":"x","start_date":"2027-03-01 18:00:00","end_date":"2027-03-01 20:00:00"'
for (const q of ['venue=', 'status=', 'include=', 'categories=2147483648', 'categories=9007199254740993', 'start_date=0000-01-01', 'start_date=0001-01-01T00:00:00%2B14:00', 'start_date=-62167219200', 'end_date=253402300800']) await req('GET', '/events', q)
for (const b of ['"categories":1.5', '"categories":-2147483649', '"image":-2147483649', '"image":-62167219200', '"start_date":"0000-01-01"', '"date":"0000-01-01 00:00:00"', '"date":"0001-01-01T00:00:00+14:00"']) await req('POST', '/events', '', `{${ev},${b}}`)
for (const b of ['"date":"0000-01-01"', '"image":-2147483649']) await req('POST', '/venues', '', `{"venue":"v","${b.slice(1)}}`)
for (const q of ['status=', 'status=,']) await req('GET', '/venues', q)
await c.close()
