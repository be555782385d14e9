import express, { Router } from 'express'
import { NAMESPACE } from '@cal-events/core'

/** Options of the reference page router. */
export interface ReferenceRouterOptions {
  /** The page's title. Default `Event calendar REST API: reference`. */
  title?: string
}

/** The viewer's files (swagger-ui-dist: static, no dependencies); served from here, never a CDN. */
async function viewerDir(): Promise<string> {
  try {
    // The one small module of the package that names its folder; its index loads the whole bundle.
    // `as string`: swagger-ui-dist is an optional peer without types; the compiler must not resolve it.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
    const module = (await import('swagger-ui-dist/absolute-path.js' as string)) as { default: () => string }
    return module.default()
  } catch (err) {
    throw new Error(`createReferenceRouter needs swagger-ui-dist: npm install swagger-ui-dist (${(err as Error).message})`, { cause: err })
  }
}

/** The page: Swagger UI reading `doc` beside it, so it follows a mount prefix. */
export function referencePage(title: string): string {
  const safeTitle = title.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`)
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${safeTitle}</title>
<link rel="stylesheet" href="reference/assets/swagger-ui.css">
</head>
<body>
<div id="reference"></div>
<script src="reference/assets/swagger-ui-bundle.js"></script>
<script src="reference/assets/init.js"></script>
</body>
</html>
`
}

// Kept out of the page so a host's Content-Security-Policy can forbid inline scripts.
// validatorUrl: null, or Swagger UI would send the document to an outside validator.
const INIT_SCRIPT = `window.ui = SwaggerUIBundle({ url: 'doc', dom_id: '#reference', deepLinking: true, validatorUrl: null, tryItOutEnabled: false });\n`

/**
 * `GET /cal/events/v1/reference`: a human reference page of the API, rendered in the browser from
 * `GET /cal/events/v1/doc` by Swagger UI served from the optional peer `swagger-ui-dist`. Mount it
 * where the calendar router is mounted, before it.
 *
 * @example
 * app.use('/api', await createReferenceRouter())
 * app.use('/api', createCalendarRouter(calendar))
 */
export async function createReferenceRouter(options: ReferenceRouterOptions = {}): Promise<Router> {
  const assets = await viewerDir()
  const router = Router()
  const base = `/${NAMESPACE}/reference`
  const html = referencePage(options.title ?? 'Event calendar REST API: reference')
  router.get(base, (_req, res) => {
    res.type('html').set('Cache-Control', 'no-cache').send(html)
  })
  router.get(`${base}/assets/init.js`, (_req, res) => {
    res.type('application/javascript').send(INIT_SCRIPT)
  })
  router.use(`${base}/assets`, express.static(assets, { index: false, maxAge: '1h' }))
  return router
}
