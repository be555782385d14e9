/**
 * An existing Express app ("the host") with its own pages and its own session login, which mounts
 * the calendar under `/api` and lets its logged-in users act in the calendar with a role derived
 * from their host role. The calendar never sees a password or a token: its `authenticate` hook
 * reads the host's session from the Express request.
 */
import { timingSafeEqual } from 'node:crypto'
import express, { type Request, type Response } from 'express'
import session from 'express-session'
import type { Calendar, CalendarOptions, Principal, Role } from '@cal-events/core'
import { createCalendarRouter, expressRequest } from '@cal-events/http-express'

declare module 'express-session' {
  interface SessionData {
    /** The host user logged in on this session. */
    userId?: number
  }
}

/** The host's own roles; the calendar knows nothing about them. */
export type HostRole = 'admin' | 'staff' | 'member'

/** A host user (hard-coded here; a real host has its own user table). */
export interface HostUser {
  id: number
  login: string
  name: string
  password: string
  role: HostRole
}

/** The host's users. Passwords in plain text only because this is a demo. */
export const USERS: readonly HostUser[] = [
  { id: 1, login: 'ada', name: 'Ada Admin', password: 'ada-secret', role: 'admin' },
  { id: 2, login: 'erin', name: 'Erin Staff', password: 'erin-secret', role: 'staff' },
  { id: 3, login: 'sam', name: 'Sam Member', password: 'sam-secret', role: 'member' },
]

/** How host roles map to calendar roles (subscriber < contributor < author < editor < administrator). */
export const CALENDAR_ROLES: Record<HostRole, Role> = {
  admin: 'administrator',
  staff: 'editor',
  member: 'subscriber',
}

function userById(id: number | undefined): HostUser | undefined {
  return id === undefined ? undefined : USERS.find((u) => u.id === id)
}

function samePassword(given: string, actual: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(actual)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * The calendar's `authenticate` hook: the logged-in host user as a calendar principal, or `null`
 * (anonymous). The principal's id is the host user id; it becomes the `author` of what they create.
 */
export const authenticate: NonNullable<CalendarOptions['authenticate']> = (request): Principal | null => {
  const user = userById(expressRequest(request)?.session?.userId)
  return user ? { id: user.id, role: CALENDAR_ROLES[user.role] } : null
}

/** Options of the host app. */
export interface HostAppOptions {
  /** Secret that signs the session cookie. */
  sessionSecret: string
  /** Send the cookie only over HTTPS (set behind TLS). Default `false`. */
  secureCookies?: boolean
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head><body>${body}</body></html>`
}

const LOGIN_FORM = `<form method="post" action="/login">
  <label>Login <input name="login" autocomplete="username"></label>
  <label>Password <input name="password" type="password" autocomplete="current-password"></label>
  <button>Log in</button>
</form>`

/**
 * Builds the host app around a calendar that was created with `authenticate` (above).
 *
 * Routes: `GET /` (home page), `GET /login` (form), `POST /login` (form or JSON
 * `{login, password}`), `POST /logout`, `GET /me` (JSON), and the calendar under `/api/cal/events/v1`.
 */
export function createHostApp(calendar: Calendar, options: HostAppOptions): express.Express {
  const app = express()
  app.disable('x-powered-by')
  app.use(
    session({
      name: 'host.sid',
      secret: options.sessionSecret,
      resave: false,
      saveUninitialized: false,
      // SameSite=Lax keeps the cookie off cross-site POSTs, so another site cannot make a logged-in
      // visitor write to the calendar (CSRF); HttpOnly keeps it away from page scripts.
      cookie: { httpOnly: true, sameSite: 'lax', secure: options.secureCookies ?? false, maxAge: 8 * 3600_000 },
      // The default MemoryStore: fine for a demo, use a real store (Redis, PostgreSQL) in production.
    }),
  )

  const current = (req: Request) => userById(req.session.userId)

  app.get('/', (req, res) => {
    const user = current(req)
    res.type('html').send(
      page(
        'Host home',
        user
          ? `<h1>Hello, ${escapeHtml(user.name)}</h1><p>Calendar role: ${CALENDAR_ROLES[user.role]}.</p>
             <p><a href="/api/cal/events/v1/events">Events</a></p><form method="post" action="/logout"><button>Log out</button></form>`
          : `<h1>Host home</h1><p>You are not logged in.</p>${LOGIN_FORM}`,
      ),
    )
  })

  app.get('/login', (_req, res) => {
    res.type('html').send(page('Log in', `<h1>Log in</h1>${LOGIN_FORM}`))
  })

  const wantsJson = (req: Request) => req.is('application/json') === 'application/json'

  app.post('/login', express.json(), express.urlencoded({ extended: false }), (req, res, next) => {
    const { login, password } = (req.body ?? {}) as { login?: unknown; password?: unknown }
    const user = typeof login === 'string' ? USERS.find((u) => u.login === login) : undefined
    if (!user || typeof password !== 'string' || !samePassword(password, user.password)) {
      if (wantsJson(req)) res.status(401).json({ error: 'Wrong login or password.' })
      else res.status(401).type('html').send(page('Log in', `<p>Wrong login or password.</p>${LOGIN_FORM}`))
      return
    }
    // A new session id on login (no session fixation).
    req.session.regenerate((err) => {
      if (err) return next(err)
      req.session.userId = user.id
      req.session.save((saveErr) => {
        if (saveErr) return next(saveErr)
        if (wantsJson(req)) res.json({ user: publicUser(user) })
        else res.redirect(303, '/')
      })
    })
  })

  app.post('/logout', (req, res, next) => {
    req.session.destroy((err) => {
      if (err) return next(err)
      res.clearCookie('host.sid')
      if (req.accepts(['html', 'json']) === 'json') res.json({ ok: true })
      else res.redirect(303, '/')
    })
  })

  app.get('/me', (req, res: Response) => {
    const user = current(req)
    if (!user) {
      res.status(401).json({ error: 'Not logged in.' })
      return
    }
    res.json({ user: publicUser(user) })
  })

  // The calendar: /api/cal/events/v1/… . Its own routes, errors and body parsing; the session
  // middleware above has already run, so `authenticate` finds `req.session`.
  app.use('/api', createCalendarRouter(calendar))
  return app
}

function publicUser(user: HostUser) {
  return { id: user.id, login: user.login, name: user.name, role: user.role, calendarRole: CALENDAR_ROLES[user.role] }
}
