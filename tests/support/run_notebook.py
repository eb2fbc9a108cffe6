"""Runs a Jupyter notebook's code cells in order, as one script, without Jupyter.

IPython-only lines (`%magic`, `!shell`) become `pass`; a cell that starts with a cell magic
runs its body when the magic is one of Python's own (`%%time`, `%%capture`), and is skipped
otherwise (`%%bash`). Used by the tests to check that a notebook still runs after `--fix`.
    python3 run_notebook.py NOTEBOOK.ipynb
"""
import sys

import nbformat

PYTHON_CELL_MAGICS = {"capture", "debug", "prun", "pypy", "python", "python3", "time", "timeit"}


def program(path):
    nb = nbformat.read(path, as_version=4)
    lines = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        body = cell.source.splitlines()
        if body and body[0].startswith("%%"):
            if body[0][2:].split()[0] not in PYTHON_CELL_MAGICS:
                continue
            body = body[1:]
        for line in body:
            stripped = line.lstrip()
            if stripped.startswith(("%", "!")):
                line = line[: len(line) - len(stripped)] + "pass"
            lines.append(line)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    path = sys.argv[1]
    exec(compile(program(path), path, "exec"), {"__name__": "__main__"})
