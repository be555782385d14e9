/** A framework-neutral HTTP request, as an adapter hands it to the calendar. */
interface CalendarRequest {
    method: string;
    /** Path below the mount point, starting with `/cal/events/v1`. */
    path: string;
    /** The raw query string, without the leading `?`. */
    query: string;
    headers: Record<string, string | string[] | undefined>;
    /**
     * The body: raw bytes (parsed by the calendar according to `content-type`), or a value
     * already parsed by a host middleware such as `express.json()`.
     */
    body?: unknown;
    /** Origin the request was addressed to (`http://host:port`), used when no public URL is configured. */
    origin?: string;
    /**
     * The client's address as the host sees it (Express: `req.ip`, which follows `trust proxy`).
     * Password guesses are counted per event and client.
     */
    client?: string;
    /** Path prefix the host mounted the calendar under (`/api`), used for `rest_url`s. */
    mountPath?: string;
    /**
     * The framework's own request object (the Express adapter passes its `req`). The calendar never
     * reads it; it is there for an `authenticate` hook that needs the host's session or user.
     */
    native?: unknown;
}
/** A framework-neutral HTTP response. */
interface CalendarResponse {
    status: number;
    headers: Record<string, string>;
    body: unknown;
    /**
     * When set, the response body is this text (in `Content-Type`'s charset, UTF-8), to be written
     * chunk by chunk in order instead of `body` as JSON. Iteration may fail part-way (the database
     * went away): the adapter then aborts the response, since its status is already sent.
     */
    stream?: AsyncIterable<string> | Iterable<string>;
    /**
     * `body` already serialised as JSON (the calendar did it to compute the `ETag`); an adapter
     * sends this instead of serialising `body` again.
     */
    text?: string;
}
/**
 * A kept answer of the hot-read cache, ready to write (`Calendar.cachedAnswer`): the same status,
 * headers and bytes an adapter writes for `handle`'s answer, `Content-Length` included.
 */
interface CachedAnswer {
    /** 200, or 304 when `If-None-Match` named the answer's tag. */
    status: number;
    /** Every header to send. Shared by the requests this answer serves: never change it. */
    headers: Readonly<Record<string, string>>;
    /** The body; `undefined` for `HEAD` and 304. */
    body: Uint8Array | undefined;
    /**
     * The body compressed with `encoding`, made once per kept answer and kept with it: for a host that
     * compresses responses (the example server's `compression`), so a hit is not compressed again.
     */
    encoded(encoding: 'br' | 'gzip' | 'deflate'): Uint8Array;
}

export type { CalendarRequest as C, CalendarResponse as a, CachedAnswer as b };
