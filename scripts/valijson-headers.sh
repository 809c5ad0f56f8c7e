#!/usr/bin/env bash
# valijson's headers, and nothing else, under .deps/valijson/usr/include: what
# the C++ build (`pip install .`, scripts/setup.sh) needs of valijson, a
# header-only library. Debian's libvalijson-dev would bring them too, but it
# depends on ~100 packages jitbench never uses (Qt5, Poco, ...): this unpacks
# only its .deb (apt-get download, dpkg-deb -x; root only where apt's package
# lists must first be fetched). Does nothing where the headers are already
# in /usr/include or .deps/.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=.deps/valijson
for have in /usr/include "$dest/usr/include"; do
  if [ -f "$have/valijson/validator.hpp" ]; then exit 0; fi
done
if ! command -v apt-get >/dev/null || ! command -v dpkg-deb >/dev/null; then
  echo "valijson-headers: no apt-get/dpkg-deb here (not Debian or Ubuntu): put valijson's include/ directory" \
       "(https://github.com/tristanpenman/valijson) at $dest/usr/include, or pass" \
       "-DVALIJSON_INCLUDE_DIR=DIR to CMake (pip: -Ccmake.define.VALIJSON_INCLUDE_DIR=DIR)" >&2
  exit 2
fi
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! (cd "$tmp" && apt-get download libvalijson-dev >/dev/null 2>&1); then
  echo "valijson-headers: apt's package lists do not know libvalijson-dev yet: apt-get update" >&2
  as_root apt-get update -qq
  (cd "$tmp" && apt-get download libvalijson-dev >/dev/null)
fi
mkdir -p "$dest"
dpkg-deb -x "$tmp"/libvalijson-dev_*.deb "$dest"
echo "valijson-headers: unpacked into $dest/usr/include" >&2
