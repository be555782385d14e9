/** Status, wire code and message per Node parser error; anything else is `BAD_REQUEST`. */
export const CLIENT_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'rest_headers_too_large', message: 'The request headers are too large.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'rest_request_timeout', message: 'The request took too long to arrive.' },
}

/** The answer to a request Node could not parse for any other reason. */
export const BAD_REQUEST = { status: 400, code: 'rest_bad_request', message: 'The request could not be parsed.' }

/** Reason phrases of the statuses above, for the status line written on the socket. */
export const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' }
