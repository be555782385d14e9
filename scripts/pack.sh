#!/usr/bin/env bash
# Builds and packs the published packages into one folder (default: ./packed), ready for
# `npm install ./packed/cal-events-core-0.1.0.tgz ./packed/cal-events-http-express-0.1.0.tgz …`.
# Each `pnpm pack` runs the package's prepack (tsup), so the tarballs always hold a fresh build,
# and it turns the workspace ranges into real version ranges.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/packed}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"
for pkg in core http-express http-fetch; do
  (cd "$root/packages/$pkg" && pnpm pack --pack-destination "$dest" | tail -n 1)
done
