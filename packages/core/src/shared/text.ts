// Tags that already form their own block; wrapping them in <p> would produce invalid HTML.
const BLOCK_TAGS = [
  'address', 'article', 'aside', 'blockquote', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption',
  'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'li', 'main', 'menu',
  'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul',
  'iframe', 'video', 'audio', 'object', 'script', 'style', 'noscript', 'caption', 'colgroup', 'col',
]
const BLOCK_TAG = BLOCK_TAGS.join('|')
const STARTS_WITH_BLOCK_RE = new RegExp(`^<(?:${BLOCK_TAG})(?=[\\s/>])`, 'i')
const BLOCK_OR_BR_TAG_RE = new RegExp(`</?(?:${BLOCK_TAG}|br)(?=[\\s/>])[^>]*>`, 'gi')

/** A small WordPress-`wpautop`: plain-text paragraphs become `<p>`, single newlines `<br />`, HTML blocks pass through. */
export function renderHtml(text: string): string {
  const normalised = text.replace(/\r\n?/g, '\n').trim()
  if (normalised === '') return ''
  return normalised
    .split(/\n[ \t]*\n/)
    .map((block) => block.trim())
    .filter((block) => block !== '')
    .map((block) => (STARTS_WITH_BLOCK_RE.test(block) ? block : `<p>${block.split('\n').join('<br />\n')}</p>`))
    .join('\n')
}

/** HTML to a single line of plain text, for JSON-LD descriptions and other non-HTML consumers. */
export function stripTags(html: string): string {
  return (
    html
      // Script and style bodies are code, never description text.
      .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<!--[\s\S]*?-->/g, '')
      // Block boundaries separate words ("<p>a</p><p>b</p>" is "a b"); inline tags do not ("<b>he</b>llo").
      .replace(BLOCK_OR_BR_TAG_RE, ' ')
      .replace(/<[^>]*>/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&#0*39;|&apos;/g, "'")
      // Last, so "&amp;lt;" decodes to the literal text "&lt;" rather than "<".
      .replace(/&amp;/g, '&')
      .replace(/\s+/g, ' ')
      .trim()
  )
}
