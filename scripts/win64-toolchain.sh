#!/usr/bin/env bash
# Unpacks the Rust toolchain of the win64 runtime from Debian packages only
# (bookworm-security; nothing else is downloaded, no rustup target): `apt-get
# download` + `dpkg -x` put rustc-web/cargo-web 1.96 and rust-web-src (std's
# sources, for -Zbuild-std) into DIR. The packages "conflict" with rustup, so they
# are not installed system-wide and never shadow the rustup cargo on PATH. The
# system packages around them (MinGW-w64, wine64, and libllvm22 and libgit2-1.5,
# which these rustc and cargo link to) come from scripts/system-deps.sh.
# Usage: scripts/win64-toolchain.sh [DIR]   (default: target/win64-toolchain)
# Prints nothing when everything is already there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/target/win64-toolchain}
# The newest rustc-web the package lists have (1.96.0+dfsg1-1~deb12u2 when this was
# written; bookworm itself has 1.85, too old for -Zbuild-std of this code's std).
version=$(apt-cache show rustc-web 2>/dev/null | awk '/^Version:/ {print $2}' | sort -V | tail -n 1)
case "$version" in
    1.9[6-9]* | 1.[1-9][0-9][0-9]*) ;;
    *) echo "apt has rustc-web ${version:-nothing}, not 1.96 or later: run apt-get update" \
        "with bookworm-security in the sources" >&2; exit 1 ;;
esac
libstd=$(apt-cache show "libstd-rust-web-dev=$version" | sed -n 's/^Depends: \(libstd-rust-web-[0-9.]*\) .*/\1/p' | head -n 1)
for lib in libllvm22 libgit2-1.5; do
    dpkg -s "$lib" >/dev/null 2>&1 ||
        { echo "the win64 toolchain needs $lib (scripts/system-deps.sh installs it)" >&2; exit 1; }
done
if [ ! -f "$dir/.complete-$version" ]; then
    rm -rf "$dir"
    mkdir -p "$dir/debs"
    (cd "$dir/debs" && apt-get download -qq -o APT::Sandbox::User=root \
        "rustc-web=$version" "cargo-web=$version" "rust-web-src=$version" \
        "$libstd=$version" "libstd-rust-web-dev=$version")
    for deb in "$dir"/debs/*.deb; do dpkg -x "$deb" "$dir/root"; done
    rm -rf "$dir/debs"
    touch "$dir/.complete-$version"
fi
