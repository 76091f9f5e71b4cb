# Sourced by the scripts here: makes sure .venv holds FMPy and pytest (from PyPI).
venv=.venv
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check -r tests/python/requirements.txt
