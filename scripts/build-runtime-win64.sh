#!/usr/bin/env bash
# Builds the win64 prebuilt runtime, DIR/win64/runtime.dll, on Linux from Debian
# packages only (scripts/win64-toolchain.sh sets them up): Debian's rustc/cargo
# 1.96 (rustc-web, bookworm-security) compile std itself for
# x86_64-pc-windows-gnu from rust-web-src (-Zbuild-std; RUSTC_BOOTSTRAP=1 lets a
# stable compiler take that flag), and MinGW-w64's gcc links the DLL. No rustup
# target is needed. std is compiled once per target directory (about a minute).
# Usage: scripts/build-runtime-win64.sh [DIR]   (default: target/runtime)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/target/runtime}
toolchain=$root/target/win64-toolchain
bash "$root/scripts/win64-toolchain.sh" "$toolchain"
usr=$toolchain/root/usr
mkdir -p "$dir/win64"
target_dir=$root/target/runtime-build-win64
# The Debian toolchain, not rustup's: its own cargo and rustc (whose sysroot,
# with std's sources, is $usr), and no variable of an outer cargo.
env -u CARGO -u RUSTC -u RUSTDOC -u RUSTUP_TOOLCHAIN -u CARGO_TARGET_DIR -u RUSTFLAGS \
    -u CARGO_ENCODED_RUSTFLAGS -u CARGO_BUILD_TARGET \
    PATH="$usr/bin:$PATH" \
    LD_LIBRARY_PATH="$usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
    RUSTC_BOOTSTRAP=1 \
    CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
    CARGO_PROFILE_RELEASE_STRIP=false \
    "$usr/bin/cargo" build --release --quiet --locked -p fmu-template --features prebuilt \
    -Zbuild-std=std,panic_unwind --target x86_64-pc-windows-gnu \
    --manifest-path "$root/Cargo.toml" --target-dir "$target_dir"
# Debian has no rust-objcopy for cargo's own stripping: MinGW's strip drops the
# symbol table and std's debug information (3.1 MB -> 2.1 MB); the export
# directory stays.
x86_64-w64-mingw32-strip -o "$dir/win64/runtime.dll.tmp" \
    "$target_dir/x86_64-pc-windows-gnu/release/fmu_template.dll"
# Replaced only when it changed: the tool embedding it is rebuilt when its mtime moves.
if cmp -s "$dir/win64/runtime.dll.tmp" "$dir/win64/runtime.dll"; then
    rm "$dir/win64/runtime.dll.tmp"
else
    mv "$dir/win64/runtime.dll.tmp" "$dir/win64/runtime.dll"
fi
