/**
 * Imports the VEVENTs of an iCalendar (.ics) text into a calendar through its script API.
 *
 * - Each event is stored with `origin_uid` = its UID, so `calendar.events.getByOrigin()` finds it
 *   again: a re-run updates the events it imported before and creates none twice.
 * - Recurring events become SERIES: the RRULE, RDATE and EXDATE lines go into the event field
 *   `recurrence` (issue 19), one calendar event per UID. A RECURRENCE-ID VEVENT with
 *   `STATUS:CANCELLED` becomes an EXDATE of its series (the occurrence is deleted). Any other
 *   RECURRENCE-ID VEVENT (an occurrence changed in the source) becomes an exception of its series
 *   (`calendar.events.updateOccurrence` with the occurrence's key: its RECURRENCE-ID in UTC), so
 *   lists show its changed values in the series' place; counted as updated. One whose
 *   RECURRENCE-ID is no occurrence of the series is skipped with a warning.
 * - A series the calendar cannot store as one (a DTSTART in a non-IANA time zone, RDATE periods,
 *   or a rule the calendar refuses: EXRULE, BYHOUR, more than 1,000 occurrences…) is EXPANDED as
 *   before: one event per occurrence with origin `UID#RECURRENCE-ID`; series with COUNT or UNTIL
 *   fully (at most `maxOccurrences`), open-ended ones up to `horizon`.
 * - LOCATION becomes the venue ("Name, street, city": first part the name, last part the city,
 *   the rest the address) and ORGANIZER the organizer (CN as the name, the mailto address as the
 *   e-mail). The calendar de-duplicates both by name, so repeated places are one venue.
 * - Times: `TZID` with an IANA name keeps its wall clock and time zone; `…Z` (UTC) times get time
 *   zone `UTC`; other TZIDs (Outlook names such as "W. Europe Standard Time") are converted to UTC
 *   through the file's VTIMEZONE; floating times are read in the calendar's site time zone.
 *   All-day events (`VALUE=DATE`) become `all_day` events; DTEND is exclusive, as in iCalendar.
 * - `STATUS:CANCELLED` events are not imported; one imported earlier is moved to the trash.
 *   `CLASS:PRIVATE`/`CONFIDENTIAL` events become `private`. Events trashed in the calendar are
 *   left alone (not revived, not recreated).
 */
import ICAL from 'ical.js'
import { CalendarError, type Calendar, type CallOptions, type EventResource } from '@cal-events/core'
import { wall, isIanaZone, text, zonesOf, isUtc, eventInput, type Span } from './ics-fields.js'

type Time = InstanceType<typeof ICAL.Time>
type Component = InstanceType<typeof ICAL.Component>
type IcalEvent = InstanceType<typeof ICAL.Event>
/**
 * What `Event#getOccurrenceDetails` answers, as ical.js documents it: its published types name
 * `occurrenceDetails` from a types.d.ts that declares nothing, so the type is spelled out here.
 */
interface OccurrenceDetails {
  recurrenceId: Time
  item: IcalEvent
  startDate: Time
  endDate: Time
}

/** One calendar event the file describes. */
export interface PlannedEvent {
  /** `origin_uid`: the UID, or `UID#RECURRENCE-ID` for an occurrence of a series. */
  origin: string
  /** `cancel`: STATUS:CANCELLED, remove an earlier import. */
  /** `override`: change one occurrence of the series `series` (a RECURRENCE-ID VEVENT). */
  action: 'upsert' | 'cancel' | 'override'
  /** Body for `calendar.events.create`/`update` (without `origin_uid`). */
  input: Record<string, unknown>
  /**
   * For a series: its occurrences as single events, imported instead when the calendar refuses
   * the series' `recurrence` (a rule it does not support).
   */
  expanded?: () => PlannedEvent[]
  /** For an override: the series' UID and the occurrence's RECURRENCE-ID. */
  series?: string
  recurrenceId?: RecurrenceId
}

/** A RECURRENCE-ID: its wall clock (`YYYYMMDDTHHMMSS`, or `YYYYMMDD` for a date) and frame. */
export interface RecurrenceId {
  value: string
  /** `UTC`, an IANA zone, or `''` for a floating time (the calendar's site zone). */
  zone: string
}

/** The parsed file: what to write, and what was left out and why. */
export interface IcsPlan {
  /** VEVENT components in the file. */
  vevents: number
  events: PlannedEvent[]
  warnings: string[]
}

/** What an import did. */
export interface IcsImportSummary {
  vevents: number
  /** Calendar events the file describes (a series counts once, an expanded one per occurrence). */
  planned: number
  created: number
  updated: number
  /** Cancelled in the file and never imported, or trashed in the calendar. */
  skipped: number
  /** Cancelled in the file and moved to the trash now. */
  removed: number
  warnings: string[]
}

/** Options of `planIcs()` and `importIcs()`. */
export interface IcsImportOptions {
  /** Most occurrences imported from one recurring series. Default 100. */
  maxOccurrences?: number
  /** Open-ended series (no COUNT or UNTIL) are expanded up to this instant. Default: one year from now. */
  horizon?: Date
  /** Options of every script-API call (`{ as: principal }`, `{ language: 'es' }`). Default: administrator. */
  call?: CallOptions
  /** Called after each event: `done` of `total`. */
  onProgress?: (done: number, total: number, event: PlannedEvent) => void
}

/** Most values written on one RDATE/EXDATE line (the calendar takes lines of up to 2,000 characters). */
const VALUES_PER_LINE = 100

/**
 * One RDATE/EXDATE/RECURRENCE-ID value as the calendar's recurrence takes it: `[parameters, value]`.
 * `undefined` when it cannot be written in the series' own frame (a non-IANA TZID).
 */
function recurrenceValue(t: Time, tzid: unknown): [string, string] | undefined {
  const compact = (x: Time) => wall(x).replace(/[- :]/g, '')
  if (t.isDate) return ['VALUE=DATE', compact(t).slice(0, 8)]
  const stamp = (x: Time) => `${compact(x).slice(0, 8)}T${compact(x).slice(8)}`
  if (isUtc(t)) return ['', `${stamp(t)}Z`]
  if (typeof tzid === 'string' && tzid !== '') return isIanaZone(tzid) ? [`TZID=${tzid}`, stamp(t)] : undefined
  return ['', stamp(t)]
}

/**
 * The `recurrence` lines of a master VEVENT (RRULE, RDATE, EXDATE), plus an EXDATE for every
 * cancelled RECURRENCE-ID of `exceptions`; `undefined` when the series cannot be stored as one and is to be
 * expanded instead (a DTSTART in a non-IANA zone, several RRULEs, EXRULE, RDATE periods).
 */
function seriesLines(master: Component, exceptions: Component[], zones: Map<string, unknown>): string[] | undefined {
  const dtstart = master.getFirstProperty('dtstart')
  const startZone = dtstart?.getParameter('tzid')
  // A series recurs on its own wall clock; one converted to UTC would drift by an hour at DST.
  if (typeof startZone === 'string' && startZone !== '' && !isIanaZone(startZone) && zones.has(startZone)) return undefined
  const rules = master.getAllProperties('rrule')
  if (rules.length > 1 || master.hasProperty('exrule')) return undefined
  const lines = rules.map((p) => `RRULE:${String(p.getFirstValue())}`)
  const grouped = new Map<string, string[]>()
  const push = (name: string, t: Time, tzid: unknown): boolean => {
    const value = recurrenceValue(t, tzid)
    if (!value) return false
    const key = value[0] ? `${name};${value[0]}` : name
    grouped.set(key, [...(grouped.get(key) ?? []), value[1]])
    return true
  }
  for (const name of ['rdate', 'exdate']) {
    for (const prop of master.getAllProperties(name)) {
      for (const value of prop.getValues()) {
        if (!(value instanceof ICAL.Time)) return undefined
        if (!push(name.toUpperCase(), value, prop.getParameter('tzid'))) return undefined
      }
    }
  }
  for (const ex of exceptions) {
    const prop = ex.getFirstProperty('recurrence-id')
    const value = prop?.getFirstValue()
    if (!(value instanceof ICAL.Time) || !recurrenceValue(value, prop!.getParameter('tzid'))) return undefined
    if (text(ex, 'status').toUpperCase() === 'CANCELLED') push('EXDATE', value, prop!.getParameter('tzid'))
  }
  for (const [key, values] of grouped) {
    const unique = [...new Set(values)]
    for (let i = 0; i < unique.length; i += VALUES_PER_LINE) lines.push(`${key}:${unique.slice(i, i + VALUES_PER_LINE).join(',')}`)
  }
  return lines
}

/** The event fields an occurrence of a series may change (`calendar.events.updateOccurrence`). */
const OVERRIDE_FIELDS = ['title', 'start_date', 'end_date', 'timezone', 'description', 'venue', 'organizer', 'categories', 'website']

function overrideInput(input: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([name]) => OVERRIDE_FIELDS.includes(name)))
}

/** Milliseconds `zone` is ahead of UTC at instant `ms`. */
function offsetAt(ms: number, zone: string): number {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' })
      .formatToParts(ms)
      .map((p) => [p.type, Number(p.value)]),
  )
  return Date.UTC(parts.year!, parts.month! - 1, parts.day, parts.hour, parts.minute, parts.second) - ms
}

/**
 * The calendar's occurrence key of a RECURRENCE-ID: its original start in UTC
 * (`20270201T170000Z`), or its date in an all-day series; floating times are read in `siteZone`.
 */
export function occurrenceKey(rid: RecurrenceId, siteZone: string): string {
  const v = rid.value
  if (v.length === 8) return v
  if (rid.zone === 'UTC') return v
  const zone = rid.zone || siteZone
  const wallMs = Date.UTC(Number(v.slice(0, 4)), Number(v.slice(4, 6)) - 1, Number(v.slice(6, 8)), Number(v.slice(9, 11)), Number(v.slice(11, 13)), Number(v.slice(13, 15)))
  let ms = wallMs - offsetAt(wallMs, zone)
  ms = wallMs - offsetAt(ms, zone)
  return `${new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, '')}Z`
}

/** Parses an .ics text into the calendar events it describes; no database involved. */
export function planIcs(icsText: string, options: Omit<IcsImportOptions, 'call' | 'onProgress'> = {}): IcsPlan {
  const maxOccurrences = options.maxOccurrences ?? 100
  const horizon = options.horizon ?? new Date(Date.now() + 365 * 24 * 3600_000)
  // jCal: one component's array, as ical.js parses a single VCALENDAR or VEVENT text.
  const root = new ICAL.Component(ICAL.parse(icsText) as unknown[])
  const vevents = root.name === 'vevent' ? [root] : root.getAllSubcomponents('vevent')
  const zones = zonesOf(root)
  const warnings: string[] = []
  const events: PlannedEvent[] = []

  // A series is its master VEVENT plus the VEVENTs that override single occurrences.
  const byUid = new Map<string, { master?: Component; exceptions: Component[] }>()
  for (const vevent of vevents) {
    const uid = text(vevent, 'uid')
    if (!uid) {
      warnings.push(`A VEVENT without UID ("${text(vevent, 'summary')}") was skipped: it could not be matched on a re-run.`)
      continue
    }
    const group = byUid.get(uid) ?? { exceptions: [] }
    if (vevent.hasProperty('recurrence-id')) group.exceptions.push(vevent)
    else group.master = vevent
    byUid.set(uid, group)
  }

  const add = (origin: string, item: Component, span: Span) => {
    const cancelled = text(item, 'status').toUpperCase() === 'CANCELLED'
    events.push({ origin, action: cancelled ? 'cancel' : 'upsert', input: eventInput(item, span, zones, warnings, origin) })
  }

  for (const [uid, { master, exceptions }] of byUid) {
    if (!master) {
      // Overrides whose series is not in the file: each stands alone.
      for (const ex of exceptions) {
        const e = new ICAL.Event(ex)
        add(`${uid}#${e.recurrenceId.toICALString()}`, ex, { start: e.startDate, end: e.endDate })
      }
      continue
    }
    const event: IcalEvent = new ICAL.Event(master, { exceptions })
    if (!event.isRecurring()) {
      add(uid, master, { start: event.startDate, end: event.endDate })
      continue
    }
    const expand = (): PlannedEvent[] => {
      const before = events.length
      const rule = master.getFirstPropertyValue('rrule') as InstanceType<typeof ICAL.Recur> | null
      const openEnded = rule !== null && !rule.isFinite()
      const iterator = event.iterator()
      let count = 0
      for (let next = iterator.next(); next; next = iterator.next()) {
        if (openEnded && next.toJSDate() > horizon) break
        if (count === maxOccurrences) {
          warnings.push(`${uid}: only the first ${maxOccurrences} occurrences were imported.`)
          break
        }
        const details: OccurrenceDetails = event.getOccurrenceDetails(next)
        add(`${uid}#${details.recurrenceId.toICALString()}`, details.item.component, { start: details.startDate, end: details.endDate })
        count++
      }
      return events.splice(before)
    }
    const recurrence = seriesLines(master, exceptions, zones)
    if (!recurrence) {
      events.push(...expand())
      continue
    }
    add(uid, master, { start: event.startDate, end: event.endDate })
    const series = events.at(-1)!
    if (series.action === 'cancel') continue
    series.input.recurrence = recurrence
    series.expanded = expand
    // Changed occurrences become exceptions of the series; cancelled ones are its EXDATEs (the
    // `cancel` entry only trashes what an earlier version of this importer stored on its own).
    for (const ex of exceptions) {
      const e = new ICAL.Event(ex)
      const origin = `${uid}#${e.recurrenceId.toICALString()}`
      add(origin, ex, { start: e.startDate, end: e.endDate })
      const planned = events.at(-1)!
      if (planned.action === 'cancel') continue
      const prop = ex.getFirstProperty('recurrence-id')!
      const [params, value] = recurrenceValue(e.recurrenceId, prop.getParameter('tzid'))!
      planned.action = 'override'
      planned.series = uid
      planned.recurrenceId = { value, zone: params.startsWith('TZID=') ? params.slice(5) : value.endsWith('Z') ? 'UTC' : '' }
      planned.input = overrideInput(planned.input)
    }
  }
  return { vevents: vevents.length, events, warnings }
}

/** Whether `err` is the calendar refusing the `recurrence` field (a rule it does not support). */
function refusesRecurrence(err: unknown): boolean {
  if (!(err instanceof CalendarError) || err.code !== 'INVALID_PARAM') return false
  const params = (err.data as { params?: Record<string, unknown> } | undefined)?.params
  return params !== undefined && 'recurrence' in params
}

/**
 * Imports an .ics text: creates the events not imported yet, updates those that were (found by
 * origin), and trashes earlier imports the file now marks cancelled. Events and series are written
 * by `calendar.events.import()` (batches of multi-row writes); a series the calendar refuses is
 * imported expanded, one event per occurrence (and an earlier import of it as a series is
 * trashed). Changed occurrences and cancellations follow, one call each.
 */
export async function importIcs(calendar: Calendar, icsText: string, options: IcsImportOptions = {}): Promise<IcsImportSummary> {
  const plan = planIcs(icsText, options)
  const summary: IcsImportSummary = { vevents: plan.vevents, planned: plan.events.length, created: 0, updated: 0, skipped: 0, removed: 0, warnings: plan.warnings }
  const call = options.call ?? {}
  let done = 0
  const progress = (planned: PlannedEvent) => options.onProgress?.(++done, plan.events.length, planned)
  // Series the calendar refused and that were imported expanded: their overrides came with them.
  const expandedSeries = new Set<string>()
  const cancel = async (planned: PlannedEvent): Promise<void> => {
    const existing: EventResource | undefined = await calendar.events.getByOrigin(planned.origin, call)
    if (existing && existing.status !== 'trash') {
      await calendar.events.delete(existing.id, call)
      summary.removed++
    } else summary.skipped++
  }
  /** Upserts in bulk; returns the series refused for their rule, and throws any other refusal. */
  const upsert = async (list: PlannedEvent[], report: boolean): Promise<{ planned: PlannedEvent; error: CalendarError }[]> => {
    let reported = 0
    const result = await calendar.events.import(
      list.map((planned) => ({ ...planned.input, origin_uid: planned.origin })),
      {
        ...call,
        onProgress: (p) => {
          if (report) while (reported < p.done) progress(list[reported++]!)
        },
      },
    )
    summary.created += result.created
    summary.updated += result.updated
    summary.skipped += result.skipped
    const refused: { planned: PlannedEvent; error: CalendarError }[] = []
    for (const { index, error } of result.errors) {
      const planned = list[index]!
      if (!planned.expanded || !refusesRecurrence(error)) throw error
      refused.push({ planned, error: error as CalendarError })
    }
    return refused
  }
  const refused = await upsert(plan.events.filter((p) => p.action === 'upsert'), true)
  const expansions: PlannedEvent[] = []
  for (const { planned, error } of refused) {
    const reason = (error.data as { params: Record<string, string> }).params.recurrence
    summary.warnings.push(`${planned.origin}: the calendar refused the series (${reason}); its occurrences were imported one by one.`)
    const existing = await calendar.events.getByOrigin(planned.origin, call)
    if (existing && existing.status !== 'trash') {
      await calendar.events.delete(existing.id, call)
      summary.removed++
    }
    expandedSeries.add(planned.origin)
    const occurrences = planned.expanded!()
    summary.planned += occurrences.length - 1
    expansions.push(...occurrences)
  }
  if (expansions.length > 0) await upsert(expansions.filter((p) => p.action === 'upsert'), false)
  for (const planned of expansions) if (planned.action === 'cancel') await cancel(planned)
  // A series' id by origin, asked once for all its changed occurrences (`undefined`: none to change).
  const seriesIds = new Map<string, number | undefined>()
  const seriesId = async (origin: string): Promise<number | undefined> => {
    if (!seriesIds.has(origin)) {
      const series = expandedSeries.has(origin) ? undefined : await calendar.events.getByOrigin(origin, call)
      seriesIds.set(origin, series && series.status !== 'trash' ? series.id : undefined)
    }
    return seriesIds.get(origin)
  }
  const applyOverride = async (planned: PlannedEvent): Promise<void> => {
    const id = await seriesId(planned.series!)
    if (id === undefined) {
      summary.skipped++
      return
    }
    const key = occurrenceKey(planned.recurrenceId!, calendar.options.siteTimezone)
    try {
      await calendar.events.updateOccurrence(id, key, planned.input, call)
      summary.updated++
    } catch (err) {
      if (!(err instanceof CalendarError) || err.code !== 'EVENT_OCCURRENCE_NOT_FOUND') throw err
      summary.warnings.push(`${planned.origin}: the series has no occurrence ${key}; the changed occurrence was not imported.`)
      summary.skipped++
    }
  }
  for (const planned of plan.events) {
    if (planned.action === 'upsert') continue
    if (planned.action === 'cancel') await cancel(planned)
    else await applyOverride(planned)
    progress(planned)
  }
  return summary
}
