/**
 * Uses the calendar as a library, with no HTTP server: creates a venue and two events, lists
 * them and prints a summary.
 *
 *   pnpm --filter @cal-events/example-script import-demo                       # in-memory PGlite
 *   DATABASE_URL=postgres://… pnpm --filter @cal-events/example-script import-demo
 */
import { createCalendar } from '@cal-events/core'

const databaseUrl = process.env.DATABASE_URL?.trim()
const calendar = await createCalendar({
  siteTimezone: 'Europe/Berlin',
  publicBaseUrl: 'https://calendar.example.com',
  database: databaseUrl ? { url: databaseUrl } : { memory: true },
})

try {
  // Script calls act as an administrator unless `{ as: principal }` is passed.
  const venue = await calendar.venues.create({
    venue: 'Kulturhaus am See',
    address: 'Seestraße 1',
    city: 'Berlin',
    country: 'Germany',
  })

  const year = new Date().getFullYear() + 1
  const created = [
    await calendar.events.create({
      title: 'Summer Concert',
      start_date: `${year}-07-04 19:30:00`,
      end_date: `${year}-07-04 22:00:00`,
      venue: venue.id,
      organizer: [{ organizer: 'Friends of Music' }],
      categories: ['Music'],
      tags: ['outdoor'],
      cost: '12',
    }),
    await calendar.events.create({
      title: 'Harbour Festival',
      all_day: true,
      start_date: `${year}-07-10 00:00:00`,
      end_date: `${year}-07-12 23:59:59`,
      venue: venue.id,
      categories: ['Festivals'],
      featured: true,
    }),
  ]

  const list = await calendar.events.list({ start_date: `${year}-07-01`, end_date: `${year}-07-31`, per_page: 10 })
  console.log(`Created venue #${venue.id} "${venue.venue}" and events ${created.map((e) => `#${e.id}`).join(', ')}.`)
  console.log(`Events in July ${year}: ${list.total}`)
  for (const event of list.events) {
    const cost = event.cost ? `, ${event.cost}` : ''
    const where = Array.isArray(event.venue) ? 'no venue' : event.venue.venue // `[]` when there is none
    console.log(`  ${event.start_date} → ${event.end_date}  ${event.title} @ ${where}${cost}  ${event.url}`)
  }
} finally {
  await calendar.close()
}
