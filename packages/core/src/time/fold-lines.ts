// Content lines folded at 75 octets (RFC 5545 3.1), exactly as ical-generator's `foldLines` folds
// them, without its cost (issue 28): it builds a TextEncoder and a byte array for every character
// to learn its UTF-8 length, a third of a feed build's CPU and most of its garbage. Here the
// length comes from the UTF-16 code units, and each line is cut into slices, not rebuilt a
// character at a time.

/** Most octets of a line's first piece, and of each continuation after its leading space (as ical-generator counts). */
const MAX_OCTETS = 74

const isHigh = (unit: number) => unit >= 0xd800 && unit <= 0xdbff
const isLow = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff

/** UTF-8 octets of one UTF-16 code unit read alone (a lone surrogate is written as U+FFFD, 3 octets). */
const unitOctets = (unit: number) => (unit < 0x80 ? 1 : unit < 0x800 ? 2 : 3)

function foldLine(line: string): string {
  let pieces: string[] | undefined
  let pieceStart = 0
  let octets = 0
  for (let i = 0; i < line.length; ) {
    const at = i
    const unit = line.charCodeAt(i++)
    let size: number
    // A high surrogate takes the next unit with it, whatever it is (ical-generator's reading).
    if (isHigh(unit) && i < line.length) {
      const next = line.charCodeAt(i++)
      size = isLow(next) ? 4 : 3 + unitOctets(next)
    } else {
      size = unitOctets(unit)
    }
    octets += size
    if (octets > MAX_OCTETS) {
      ;(pieces ??= []).push(line.slice(pieceStart, at))
      pieceStart = at
      octets = size
    }
  }
  if (!pieces) return line
  pieces.push(line.slice(pieceStart))
  return pieces.join('\r\n ')
}

/** Folds each CRLF-separated line of `input` at 75 octets, never inside a character. */
export function foldLines(input: string): string {
  return input.split('\r\n').map(foldLine).join('\r\n')
}
