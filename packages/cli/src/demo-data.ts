import type { Calendar } from '@cal-events/core'

/** What `seedDemoData` created. */
export interface DemoSummary {
  venues: number
  organizers: number
  categories: number
  tags: number
  events: number
}

const EVERY_STATUS = 'publish,future,draft,pending,private,trash'

/** True when the calendar has no events (in any status, at any date) and no venues. */
export async function isCalendarEmpty(calendar: Calendar): Promise<boolean> {
  const events = await calendar.events.list({
    status: EVERY_STATUS,
    start_date: '1970-01-01',
    end_date: '2999-12-31',
    per_page: 1,
  })
  if (Number(events.total) > 0) return false
  const venues = await calendar.venues.list({ status: EVERY_STATUS, per_page: 1 })
  return Number(venues.total) === 0
}

/** Today's date (`YYYY-MM-DD`) in `timezone`; UTC for zones Intl does not know (`UTC+2`). */
function today(now: Date, timezone: string): string {
  try {
    return new Intl.DateTimeFormat('en-CA', { timeZone: timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now)
  } catch {
    return now.toISOString().slice(0, 10)
  }
}

/** `YYYY-MM-DD` plus `days`. */
function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10)
}

/**
 * Seeds a small demo calendar through the script API: four venues (one in New York), three organizers, categories
 * (one with a child), tags and fifteen published events from yesterday to two months ahead,
 * placed relative to `now` so the default list window always shows them.
 */
export async function seedDemoData(calendar: Calendar, options: { now?: Date } = {}): Promise<DemoSummary> {
  const base = today(options.now ?? new Date(), calendar.options.siteTimezone)
  const at = (days: number, time: string) => `${addDays(base, days)} ${time}`

  const hall = await calendar.venues.create({
    venue: 'Riverside Hall',
    description: 'A restored 1920s concert hall on the river front.',
    address: '12 River Road',
    city: 'Springfield',
    state: 'IL',
    zip: '62701',
    country: 'United States',
    phone: '+1 217 555 0101',
    website: 'https://riverside-hall.example.com',
  })
  const library = await calendar.venues.create({
    venue: 'Old Town Library',
    address: '3 Market Square',
    city: 'Springfield',
    state: 'IL',
    zip: '62702',
    country: 'United States',
  })
  const park = await calendar.venues.create({
    venue: 'Harbor Park Pavilion',
    description: 'Open-air stage by the harbor. Bring a blanket.',
    city: 'Springfield',
    state: 'IL',
    country: 'United States',
  })
  const loft = await calendar.venues.create({
    venue: 'Hudson Loft',
    address: '210 W 29th St',
    city: 'New York',
    state: 'NY',
    zip: '10001',
    country: 'United States',
  })

  const council = await calendar.organizers.create({
    organizer: 'Springfield Arts Council',
    email: 'hello@arts-council.example.com',
    website: 'https://arts-council.example.com',
  })
  const friends = await calendar.organizers.create({
    organizer: 'Friends of the Library',
    phone: '+1 217 555 0144',
  })
  const collective = await calendar.organizers.create({
    organizer: 'Hudson Jazz Collective',
    email: 'jam@hudson-jazz.example.com',
  })

  const music = await calendar.categories.create({ name: 'Music', description: 'Concerts and live music.' })
  const categories = [
    music,
    await calendar.categories.create({ name: 'Jazz', parent: music.id }),
    await calendar.categories.create({ name: 'Workshops', description: 'Learn something new.' }),
    await calendar.categories.create({ name: 'Family' }),
  ]
  const tags = []
  for (const name of ['free', 'outdoor', 'kids', 'beginner']) tags.push(await calendar.tags.create({ name }))

  const events: Record<string, unknown>[] = [
    {
      title: 'Morning Yoga in the Park',
      start_date: at(-1, '08:00:00'),
      end_date: at(-1, '09:00:00'),
      venue: park.id,
      organizer: [council.id],
      tags: ['free', 'outdoor'],
    },
    {
      title: 'Lunchtime Piano Recital',
      description: '<p>Chopin and Debussy in under an hour.</p>',
      start_date: at(0, '12:30:00'),
      end_date: at(0, '13:30:00'),
      venue: hall.id,
      organizer: [council.id],
      categories: ['Music'],
      cost: '5',
    },
    {
      title: 'Intro to Watercolour',
      start_date: at(2, '18:00:00'),
      end_date: at(2, '20:30:00'),
      venue: library.id,
      organizer: [friends.id],
      categories: ['Workshops'],
      tags: ['beginner'],
      cost: '25',
    },
    {
      title: 'Jazz Night: Blue Harbor Quartet',
      description: '<p>Standards and originals from the house quartet.</p>',
      start_date: at(3, '20:00:00'),
      end_date: at(3, '23:00:00'),
      venue: hall.id,
      organizer: [council.id, collective.id],
      categories: ['Jazz'],
      cost: '15',
      featured: true,
    },
    {
      title: 'Community Book Fair',
      all_day: true,
      start_date: at(5, '00:00:00'),
      end_date: at(5, '23:59:59'),
      venue: library.id,
      organizer: [friends.id],
      categories: ['Family'],
      tags: ['free'],
    },
    {
      title: "Kids' Science Saturday",
      start_date: at(7, '10:00:00'),
      end_date: at(7, '12:00:00'),
      venue: library.id,
      organizer: [friends.id],
      categories: ['Family'],
      tags: ['kids', 'free'],
    },
    {
      title: 'Hudson Loft Jazz Jam',
      description: '<p>Bring your instrument; the house band starts at seven (New York time).</p>',
      start_date: at(9, '19:00:00'),
      end_date: at(9, '22:00:00'),
      timezone: 'America/New_York',
      venue: loft.id,
      organizer: [collective.id],
      categories: ['Jazz'],
      cost: '20',
    },
    {
      title: 'Springfield Music Festival',
      description: '<p>Three days, two stages, thirty bands.</p>',
      start_date: at(10, '14:00:00'),
      end_date: at(12, '22:00:00'),
      venue: park.id,
      organizer: [council.id],
      categories: ['Music'],
      tags: ['outdoor'],
      cost: '35',
      featured: true,
    },
    {
      title: 'Open Mic Evening',
      start_date: at(14, '19:00:00'),
      end_date: at(14, '22:00:00'),
      venue: hall.id,
      organizer: [council.id],
      categories: ['Music'],
      tags: ['free'],
    },
    {
      title: 'Pottery for Beginners',
      start_date: at(18, '17:00:00'),
      end_date: at(18, '19:00:00'),
      venue: library.id,
      organizer: [friends.id],
      categories: ['Workshops'],
      tags: ['beginner'],
      cost: '40',
    },
    {
      title: 'Family Picnic Concert',
      start_date: at(21, '15:00:00'),
      end_date: at(21, '18:00:00'),
      venue: park.id,
      organizer: [council.id],
      categories: ['Family', 'Music'],
      tags: ['outdoor', 'kids', 'free'],
    },
    {
      title: 'Photography Walk',
      start_date: at(28, '09:00:00'),
      end_date: at(28, '11:30:00'),
      venue: park.id,
      organizer: [friends.id],
      categories: ['Workshops'],
      tags: ['outdoor', 'beginner'],
      cost: '10',
    },
    {
      title: 'Big Band Dance Night',
      start_date: at(35, '20:00:00'),
      end_date: at(35, '23:30:00'),
      venue: hall.id,
      organizer: [collective.id],
      categories: ['Jazz'],
      cost: '18',
    },
    {
      title: 'Author Talk: City Histories',
      start_date: at(45, '18:30:00'),
      end_date: at(45, '20:00:00'),
      venue: library.id,
      organizer: [friends.id],
      tags: ['free'],
    },
    {
      title: 'Sunday Jazz Brunch',
      start_date: at(60, '11:00:00'),
      end_date: at(60, '14:00:00'),
      venue: hall.id,
      organizer: [collective.id, council.id],
      categories: ['Jazz'],
      cost: '30',
    },
  ]
  for (const event of events) await calendar.events.create(event)

  return {
    venues: [hall, library, park, loft].length,
    organizers: [council, friends, collective].length,
    categories: categories.length,
    tags: tags.length,
    events: events.length,
  }
}
