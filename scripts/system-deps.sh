# Sourced by scripts/test.sh: installs the system packages the test suite needs
# when they are missing (Debian/Ubuntu, as root). binutils: nm and objdump read
# the built binaries; libclang-dev: the `fmi` crate (the second importer of the
# tests) generates its bindings with it; valgrind: the memory check of the FMUs;
# chromium: renders the documentation pages headless (tests/python/test_documentation.py).
missing=()
command -v nm >/dev/null 2>&1 || missing+=(binutils)
command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
dpkg -s libclang-dev >/dev/null 2>&1 || missing+=(libclang-dev)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "the test suite needs: ${missing[*]} (apt-get install -y ${missing[*]}, as root)" >&2
        exit 1
    fi
    apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
fi
rustup component add clippy rustfmt >/dev/null 2>&1 || true
