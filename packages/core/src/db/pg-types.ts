import pg from 'pg'

const TIMESTAMP = 1114
const TIMESTAMPTZ = 1184
const INT8 = 20

/**
 * Type parsers shared by the pg pool and PGlite (through its node-postgres adapter), so both
 * backends hand the code the same values: timestamps stay the text the database printed
 * (`YYYY-MM-DD HH:MM:SS`) instead of becoming Dates read in the process time zone.
 */
export const calendarTypes = {
  getTypeParser(oid: number, format?: 'text' | 'binary'): (value: string) => unknown {
    if (oid === TIMESTAMP || oid === TIMESTAMPTZ) return (value: string) => value
    if (oid === INT8) return (value: string) => Number(value)
    return pg.types.getTypeParser(oid, format) as (value: string) => unknown
  },
}
