#!/usr/bin/env bash
# bench/fresh_clone.sh on a fresh Debian 12: a minimal bookworm made by
# debootstrap and entered with chroot, so the apt step installs every Debian
# package scripts/setup.sh needs (only git and ca-certificates are added
# beforehand, to clone). Same kernel and CPUs as this machine. Needs root.
#
#   bench/fresh_debian.sh ROOT_DIR [REV]
#
# ROOT_DIR must not exist; it is left in place (rm -rf it afterwards). This
# machine's local CA certificates and /etc/pip.conf are copied in, so a network
# behind a TLS-inspecting proxy works there as here.
set -euo pipefail
cd "$(dirname "$0")/.."
R=${1:?usage: bench/fresh_debian.sh ROOT_DIR [REV]}
REV=$(git rev-parse "${2:-HEAD}")
[ ! -e "$R" ] || { echo "fresh_debian: $R exists; give a new directory" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "fresh_debian: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap >/dev/null
debootstrap --variant=minbase bookworm "$R" http://deb.debian.org/debian > "$R.debootstrap.log" 2>&1
cp /etc/resolv.conf "$R/etc/"
[ ! -f /etc/pip.conf ] || cp /etc/pip.conf "$R/etc/"
mkdir -p "$R/usr/local/share/ca-certificates" "$R/src"
cp /usr/local/share/ca-certificates/*.crt "$R/usr/local/share/ca-certificates/" 2>/dev/null || true
mount --bind "$PWD" "$R/src"
mount -t proc proc "$R/proc"
mount --bind /dev "$R/dev"
mount -t sysfs sys "$R/sys"
trap 'umount "$R/sys" "$R/dev" "$R/proc" "$R/src"' EXIT
chroot "$R" bash -c 'apt-get update -qq &&
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends git ca-certificates >/dev/null 2>&1 &&
  update-ca-certificates >/dev/null 2>&1 && git config --global safe.directory "*" &&
  rm -rf /var/lib/apt/lists/*'   # set-up fetches the package lists itself, as on a new machine
chroot "$R" bash -c "cd /src && bench/fresh_clone.sh /root/fc $REV"
