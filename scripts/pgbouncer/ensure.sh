#!/usr/bin/env bash
# Prints the path of a PgBouncer that keeps protocol-level prepared statements in transaction mode
# (`max_prepared_statements`, PgBouncer 1.21 and later). Debian bookworm ships 1.18 and trixie's
# binary needs a newer glibc, so when the `pgbouncer` on the PATH (or Debian's /usr/sbin one) is
# older, Debian's source of 1.24.1 is downloaded (sha256 checked) and built once into a cache
# directory outside the repository; later runs only print the path. Used by the test harness
# (test-support/pgbouncer.ts), the cluster (scripts/cluster) and the benches; .ci/run calls it.
#
# Build needs: gcc, make, pkg-config, libevent-dev, libssl-dev (`apt-get install`), curl.
# CAL_PGBOUNCER_CACHE: where to build (default ~/.cache/cal-events; as root /var/cache/cal-events,
# since PgBouncer then runs as `postgres`, who cannot enter /root).
set -euo pipefail

VERSION=1.24.1
SHA256=da72a3aba13072876d055a3e58dd4aba4a5de4ed6148e73033185245598fd3e0
URL="http://deb.debian.org/debian/pool/main/p/pgbouncer/pgbouncer_${VERSION}.orig.tar.gz"

# "PgBouncer 1.18.0" -> 0 when at least 1.21, else 1.
recent_enough() {
  local version
  version=$("$1" --version 2>/dev/null | sed -n 's/^PgBouncer \([0-9]*\)\.\([0-9]*\).*/\1 \2/p' | head -n 1)
  [ -n "$version" ] || return 1
  set -- $version
  [ "$1" -gt 1 ] || { [ "$1" -eq 1 ] && [ "$2" -ge 21 ]; }
}

for candidate in "$(command -v pgbouncer || true)" /usr/sbin/pgbouncer; do
  if [ -n "$candidate" ] && [ -x "$candidate" ] && recent_enough "$candidate"; then
    echo "$candidate"
    exit 0
  fi
done

if [ -n "${CAL_PGBOUNCER_CACHE:-}" ]; then
  cache=$CAL_PGBOUNCER_CACHE
elif [ "$(id -u)" -eq 0 ]; then
  cache=/var/cache/cal-events
else
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/cal-events
fi
prefix="$cache/pgbouncer-$VERSION"
binary="$prefix/bin/pgbouncer"

if [ -x "$binary" ] && recent_enough "$binary"; then
  echo "$binary"
  exit 0
fi

mkdir -p "$cache"
# One build at a time (test workers and benches may start together); the others wait for it.
exec 9>"$cache/pgbouncer-$VERSION.lock"
flock 9
if [ -x "$binary" ] && recent_enough "$binary"; then
  echo "$binary"
  exit 0
fi

work=$(mktemp -d "$cache/build-XXXXXX")
trap 'rm -rf "$work"' EXIT
tarball="$work/pgbouncer.tar.gz"
echo "ensure.sh: building PgBouncer $VERSION into $prefix" >&2
curl -fsSL --retry 3 -o "$tarball" "$URL"
if ! echo "$SHA256  $tarball" | sha256sum -c --status; then
  echo "ensure.sh: $URL does not have the expected sha256 $SHA256" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$work"
(
  cd "$work/pgbouncer-$VERSION"
  ./configure --prefix="$prefix" --without-cares --without-systemd --without-pam --without-ldap >"$work/configure.log" 2>&1 ||
    { tail -n 30 "$work/configure.log" >&2; echo "ensure.sh: configure failed (needs libevent-dev, libssl-dev, pkg-config)" >&2; exit 1; }
  make -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -n 30 "$work/make.log" >&2; exit 1; }
  make install >>"$work/make.log" 2>&1
)
# As root the harness runs PgBouncer as `postgres`: every directory on the way must let it in.
chmod 755 "$cache" "$prefix" "$prefix/bin"
recent_enough "$binary" || { echo "ensure.sh: $binary does not report $VERSION" >&2; exit 1; }
echo "$binary"
