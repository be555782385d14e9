/**
 * The parameters to send a list statement again with, after it answered `rows`: its answer's
 * total and point in place of the first two, as the calendar does. For clients that replay the
 * calendar's statements (the bench's SQL ceiling).
 */
declare function followKnownTotal(values: readonly unknown[], rows: readonly Record<string, unknown>[]): unknown[];

/** The path prefixes a calendar answers under: its namespace, and the WordPress plugin's with `wpCompat`. */
declare function calendarPrefixes(options: {
    wpCompat?: boolean;
}): string[];
/**
 * The text an adapter writes for an answer of `calendar.handle` that has no `stream`: the JSON the
 * calendar already serialised, else `body` as JSON; `undefined` when there is no body at all (a
 * preflight's 204, a 304). Written as UTF-8 with its `Content-Length`; for `HEAD` only the length.
 */
declare function responseText(response: {
    text?: string;
    body?: unknown;
}): string | undefined;
/**
 * A failure of a host's body reader (the shape of `http-errors`: `status`, `type`) as the
 * calendar's error: too large 413, unsupported encoding or charset 415, any other 4xx an unreadable
 * body (400); anything else is returned as it is (an unexpected error, 500).
 */
declare function bodyReadError(err: unknown): unknown;
/**
 * The contract's error answer for a failure before any calendar is known (a calendar set's
 * resolver: a malformed key 400, an unknown one 404); anything but a `CalendarError` is a 500 told
 * to `onError`. Typed by shape, as `responseText`, so the internal entry's declarations stand alone.
 */
declare function errorAnswer(err: unknown, onError?: (err: unknown) => void): {
    status: number;
    headers: Record<string, string>;
    body: unknown;
};
/**
 * Reads a request body as the Express adapter's body reader does: `Content-Encoding` decoded
 * (identity, deflate, gzip, br), at most `maxBytes` after decoding. Throws the calendar's error:
 * `PAYLOAD_TOO_LARGE`, `UNSUPPORTED_MEDIA_TYPE` (another encoding) or `INVALID_JSON` (unreadable).
 */
declare function readRequestBody(chunks: AsyncIterable<Uint8Array>, headers: {
    contentEncoding?: string | null;
    contentLength?: string | null;
}, maxBytes: number): Promise<Uint8Array>;

/**
 * Type parsers shared by the pg pool and PGlite (through its node-postgres adapter), so both
 * backends hand the code the same values: timestamps stay the text the database printed
 * (`YYYY-MM-DD HH:MM:SS`) instead of becoming Dates read in the process time zone.
 */
declare const calendarTypes: {
    getTypeParser(oid: number, format?: "text" | "binary"): (value: string) => unknown;
};

/** URL slug: lower-case, accent-folded (Latin-style diacritics only), unicode letters/digits/underscore joined by single hyphens, max 180 chars. */
declare function slugify(input: string): string;

export { bodyReadError, calendarPrefixes, calendarTypes, errorAnswer, followKnownTotal, readRequestBody, responseText, slugify };
