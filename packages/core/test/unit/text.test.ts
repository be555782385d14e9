import { describe, expect, it } from 'vitest'
import { renderHtml, stripTags } from '../../src/shared/text.js'

describe('renderHtml', () => {
  it.each([
    ['Event 01 description', '<p>Event 01 description</p>'],
    ['<p>Hello</p>', '<p>Hello</p>'],
    ['a\nb', '<p>a<br />\nb</p>'],
    ['a\n\nb', '<p>a</p>\n<p>b</p>'],
    ['  x  ', '<p>x</p>'],
    ['', ''],
    ['   \n  ', ''],
    ['a\r\n\r\nb\r\nc', '<p>a</p>\n<p>b<br />\nc</p>'],
    ['a\n   \n\n\nb', '<p>a</p>\n<p>b</p>'],
    ['Intro\n\n<ul>\n<li>x</li>\n</ul>\n\n<h2>Title</h2>', '<p>Intro</p>\n<ul>\n<li>x</li>\n</ul>\n<h2>Title</h2>'],
    ['<strong>bold</strong> text', '<p><strong>bold</strong> text</p>'],
    ['<hr/>', '<hr/>'],
    ['<pre>code</pre>', '<pre>code</pre>'],
    ['<preface>x</preface>', '<p><preface>x</preface></p>'],
  ])('%j', (input, expected) => {
    expect(renderHtml(input)).toBe(expected)
  })
})

describe('stripTags', () => {
  it('removes tags and collapses whitespace', () => {
    expect(stripTags('<p>Event 01 description</p>')).toBe('Event 01 description')
    expect(stripTags('<p>a</p>\n<p>b<br />\nc</p>')).toBe('a b c')
    expect(stripTags('<p>a</p><p>b</p>')).toBe('a b')
    expect(stripTags('<b>he</b>llo   world')).toBe('hello world')
    expect(stripTags('  ')).toBe('')
  })

  it('decodes the basic entities once', () => {
    expect(stripTags('Tom &amp; Jerry &lt;3 &quot;hi&quot; it&#039;s &gt;')).toBe('Tom & Jerry <3 "hi" it\'s >')
    expect(stripTags('&amp;lt;')).toBe('&lt;')
  })

  it('drops script, style and comments', () => {
    expect(stripTags('<style>p{}</style>x<script>alert(1)</script><!-- note -->y')).toBe('x y')
  })
})
