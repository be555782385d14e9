#!/usr/bin/env bash
# Builds and packs every published package (each packages/* that is not private) into one folder
# (default: ./packed), ready for `npm install ./packed/*.tgz`. Each `pnpm pack` runs the package's
# prepack (tsup), so the tarballs always hold a fresh build, and it turns the workspace ranges into
# real version ranges. Prints one tarball path a line.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="${1:-$root/packed}"
mkdir -p "$dest"
dest="$(cd "$dest" && pwd)"
for dir in "$root"/packages/*/; do
  [ -f "$dir/package.json" ] || continue
  if node -e 'process.exit(require(process.argv[1]).private ? 0 : 1)' "$dir/package.json"; then continue; fi
  (cd "$dir" && pnpm pack --pack-destination "$dest" | tail -n 1)
done
