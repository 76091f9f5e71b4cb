# Sourced by scripts/test.sh: installs the system packages the test suite needs
# when they are missing (Debian/Ubuntu, as root). binutils: nm and objdump read
# the built binaries; libclang-dev: the `fmi` crate (the second importer of the
# tests) generates its bindings with it; valgrind: the memory check of the FMUs;
# chromium: renders the documentation pages headless (tests/python/test_documentation.py);
# the win64 runtime (scripts/build-runtime-win64.sh, docs/src/fmu.md): MinGW-w64 links it
# and builds the C driver of its test, wine64 runs them (tests/python/test_win64.py), and
# libllvm22 and libgit2-1.5 are what Debian's rustc/cargo 1.96, unpacked beside the
# project by scripts/win64-toolchain.sh, link to; libtbb12: the Ecos master (`ecospy`,
# tests/python/test_masters.py) links to it; ngspice: the independent reference the
# bundled circuits are compared with (tests/integration/netlist_circuits.rs).
missing=()
command -v nm >/dev/null 2>&1 || missing+=(binutils)
command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
dpkg -s libclang-dev >/dev/null 2>&1 || missing+=(libclang-dev)
# Without the recommended packages: wine64 would bring a desktop's worth of them.
bare=()
command -v x86_64-w64-mingw32-gcc >/dev/null 2>&1 || bare+=(gcc-mingw-w64-x86-64-win32)
[ -x /usr/lib/wine/wine64 ] || bare+=(wine64)
dpkg -s libllvm22 >/dev/null 2>&1 || bare+=(libllvm22)
dpkg -s libgit2-1.5 >/dev/null 2>&1 || bare+=(libgit2-1.5)
dpkg -s libtbb12 >/dev/null 2>&1 || bare+=(libtbb12)
command -v ngspice >/dev/null 2>&1 || bare+=(ngspice)
if [ $((${#missing[@]} + ${#bare[@]})) -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "the test suite needs: ${missing[*]} ${bare[*]} (apt-get install -y ${missing[*]};" \
            "apt-get install -y --no-install-recommends ${bare[*]}; as root)" >&2
        exit 1
    fi
    apt-get update -qq
    if [ ${#missing[@]} -gt 0 ]; then
        apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    if [ ${#bare[@]} -gt 0 ]; then
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${bare[@]}" >/dev/null
    fi
fi
rustup component add clippy rustfmt >/dev/null 2>&1 || true
