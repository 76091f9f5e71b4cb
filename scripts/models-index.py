"""Writes out/index.html: every model the main job built, with its plot and variables.

Run by scripts/run-models.sh with the venv's Python after it has built out/<name>.fmu,
drawn out/<name>.svg and saved the FMPy-vs-lcsfmu agreement line in
out/<name>.agreement.txt. Python rather than Rust because the page is a report of
the job (FMPy's own reading of each FMU, the numbers the job printed), not something
lcsfmu produces: the variables come from FMPy's read_model_description, as any
importer sees them. The page is self-contained apart from the plots beside it
(relative <img> links) and each model's documentation inside its FMU.

Usage: python scripts/models-index.py OUT_DIR
"""

import html
import sys
from pathlib import Path

from fmpy import read_model_description

STYLE = """
body { font-family: sans-serif; margin: 2em auto; max-width: 75em; padding: 0 1em; color: #222; }
h1 { border-bottom: 2px solid #1f77b4; }
section { border-top: 1px solid #ccc; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: .15em .5em; text-align: left; }
th { background: #eef3f8; }
img { max-width: 100%; border: 1px solid #eee; }
.agreement { font-family: monospace; background: #f3f8f3; padding: .3em; }
.note { color: #666; font-style: italic; }
"""

# Variable tables longer than this are cut (the 1,000-bead chain has 4,000).
MAX_ROWS = 60


def variable_rows(md):
    rows = []
    for v in md.modelVariables[:MAX_ROWS]:
        start = "" if v.start is None else str(v.start)
        cells = [v.name, v.causality, v.variability, start, v.unit or "", v.description or ""]
        rows.append("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in cells) + "</tr>")
    return rows


def model_section(out, fmu):
    name = fmu.stem
    md = read_model_description(str(fmu))
    agreement = out / f"{name}.agreement.txt"
    line = agreement.read_text().strip() if agreement.exists() else "(not compared)"
    parts = [
        f'<section id="{html.escape(name)}">',
        f"<h2>{html.escape(md.modelName)}</h2>",
        f"<p>{html.escape(md.description or '')}</p>",
        f'<p class="agreement">{html.escape(line)}</p>',
    ]
    svg = out / f"{name}.svg"
    if svg.exists():
        parts.append(f'<img src="{html.escape(svg.name)}" alt="plot of {html.escape(name)}"/>')
    else:
        parts.append('<p class="note">no plot</p>')
    parts.append(
        "<table><tr><th>name</th><th>causality</th><th>variability</th><th>start</th>"
        "<th>unit</th><th>description</th></tr>"
    )
    parts += variable_rows(md)
    parts.append("</table>")
    n = len(md.modelVariables)
    if n > MAX_ROWS:
        parts.append(f'<p class="note">{n} variables; the first {MAX_ROWS} are listed.</p>')
    parts.append(
        f"<p>Full documentation: <code>documentation/index.html</code> inside "
        f"<code>{html.escape(fmu.name)}</code>.</p>"
    )
    parts.append("</section>")
    return "\n".join(parts)


def main():
    out = Path(sys.argv[1])
    fmus = sorted(out.glob("*.fmu"))
    toc = "".join(f'<li><a href="#{html.escape(f.stem)}">{html.escape(f.stem)}</a></li>' for f in fmus)
    body = "\n".join(model_section(out, f) for f in fmus)
    page = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8"/>\n'
        f"<title>lcsfmu models</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<h1>lcsfmu models</h1>\n<p>{len(fmus)} FMUs built by the main job "
        "(scripts/run-models.sh), each co-simulated over its default experiment by FMPy and by "
        "lcsfmu simulate; the line under each name is their agreement.</p>\n"
        f"<ul>{toc}</ul>\n{body}\n</body>\n</html>\n"
    )
    (out / "index.html").write_text(page)
    print(f"{out / 'index.html'}: {len(fmus)} models")


if __name__ == "__main__":
    main()
