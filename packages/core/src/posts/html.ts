import sanitize from 'sanitize-html'
import { canEditOthers } from '../auth/permissions.js'
import type { Principal } from '../auth/principal.js'
import type { UnfilteredHtml } from '../config/options.js'

/**
 * What HTML a write keeps (issue 15 item 9). The allow-lists restate WordPress's `kses` lists for
 * users without `unfiltered_html`: post content (`$allowedposttags`) for descriptions and excerpts,
 * the small inline list (`$allowedtags`) for titles and names. No scripts, no event-handler
 * attributes, no `style`, and links and images only through the schemes below.
 */
const POST_TAGS = [
  'a', 'abbr', 'acronym', 'address', 'article', 'aside', 'audio', 'b', 'bdo', 'big', 'blockquote', 'br', 'caption',
  'cite', 'code', 'col', 'colgroup', 'dd', 'del', 'details', 'dfn', 'div', 'dl', 'dt', 'em', 'figcaption', 'figure',
  'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'i', 'img', 'ins', 'kbd', 'li', 'main',
  'mark', 'nav', 'ol', 'p', 'pre', 'q', 'rb', 'rp', 'rt', 'rtc', 'ruby', 's', 'samp', 'section', 'small', 'span',
  'strike', 'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'tt', 'u', 'ul',
  'var', 'video', 'source', 'track',
]

const GLOBAL_ATTRIBUTES = ['class', 'id', 'title', 'role', 'dir', 'lang', 'aria-*', 'data-*']

const POST_ATTRIBUTES: Record<string, string[]> = {
  '*': GLOBAL_ATTRIBUTES,
  a: ['href', 'rel', 'target', 'name', 'hreflang', 'download'],
  img: ['src', 'alt', 'width', 'height', 'srcset', 'sizes', 'loading', 'decoding'],
  blockquote: ['cite'],
  q: ['cite'],
  del: ['datetime', 'cite'],
  ins: ['datetime', 'cite'],
  ol: ['start', 'reversed', 'type'],
  li: ['value'],
  td: ['colspan', 'rowspan', 'headers', 'align'],
  th: ['colspan', 'rowspan', 'headers', 'scope', 'align'],
  col: ['span'],
  colgroup: ['span'],
  details: ['open'],
  audio: ['src', 'controls', 'loop', 'muted', 'preload'],
  video: ['src', 'controls', 'loop', 'muted', 'preload', 'poster', 'width', 'height', 'playsinline'],
  source: ['src', 'type', 'srcset', 'sizes', 'media'],
  track: ['src', 'kind', 'label', 'srclang', 'default'],
}

/** The inline tags WordPress allows in titles and comments (`$allowedtags`). */
const INLINE_TAGS = ['a', 'abbr', 'acronym', 'b', 'blockquote', 'cite', 'code', 'del', 'em', 'i', 'q', 's', 'strike', 'strong']

const INLINE_ATTRIBUTES: Record<string, string[]> = {
  a: ['href', 'title'],
  abbr: ['title'],
  acronym: ['title'],
  blockquote: ['cite'],
  del: ['datetime'],
  q: ['cite'],
}

/** URL schemes links and media may use (WordPress's `wp_allowed_protocols`, minus the exotic ones). */
const SCHEMES = ['http', 'https', 'mailto', 'tel', 'sms', 'ftp', 'ftps', 'webcal', 'xmpp', 'urn']

const COMMON: sanitize.IOptions = {
  allowedSchemes: SCHEMES,
  allowedSchemesAppliedToAttributes: ['href', 'src', 'cite', 'srcset', 'poster'],
  allowProtocolRelative: false,
  // Script and style bodies are dropped with their tags, never kept as text.
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'template'],
}

const POST_OPTIONS: sanitize.IOptions = { ...COMMON, allowedTags: POST_TAGS, allowedAttributes: POST_ATTRIBUTES }
const INLINE_OPTIONS: sanitize.IOptions = { ...COMMON, allowedTags: INLINE_TAGS, allowedAttributes: INLINE_ATTRIBUTES }

/** Whether a caller's HTML is stored as sent. */
export function keepsUnfilteredHtml(p: Principal | null, policy: UnfilteredHtml): boolean {
  return policy === 'editors' && canEditOthers(p)
}

/** Description/excerpt HTML as stored for this caller: the post allow-list unless unfiltered. */
export function cleanPostHtml(html: string, p: Principal | null, policy: UnfilteredHtml): string {
  // Without a `<` there is no markup to clean; the text stays byte for byte as sent.
  if (keepsUnfilteredHtml(p, policy) || !html.includes('<')) return html
  return sanitize(html, POST_OPTIONS)
}

/**
 * A title or name as stored for this caller. Text without markup is kept exactly (no entity
 * rewriting of `&` in "Tom & Jerry"); markup is reduced to the inline allow-list.
 */
export function cleanTitle(text: string, p: Principal | null, policy: UnfilteredHtml): string {
  if (keepsUnfilteredHtml(p, policy) || !text.includes('<')) return text
  return sanitize(text, INLINE_OPTIONS)
}
