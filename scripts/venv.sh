# Sourced by the scripts here: makes sure .venv holds the Python packages (from PyPI)
# of `$requirements`: the main job's by default (FMPy, numpy), the test suite's
# (those, pytest, and what the co-simulation and sweep tests use) when the caller
# sets it to tests/python/requirements.txt.
venv=.venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "${requirements:-scripts/requirements.txt}"
