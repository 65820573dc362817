"""The Markdown exporter: tables, and the documentation's blocks between marker comments.

A block is the text between a line `<!-- KIND:NAME -->` and a line `<!-- /KIND:NAME -->`,
in whichever file of Docs/ holds it; the bench (kind `bench`) and Scripts/demo (kind
`demo`, through Scripts/doc-blocks.py) replace what is between them and leave everything
else as it is, so the prose around a table is written by hand and the figures in it by a
run. This is the one block updater: each writer only says which kind of block it owns.
"""

import os
import re
import tempfile
import textwrap

from .common import BadInput


def _marker(kind):
    return re.compile(rf"^<!-- (/?){re.escape(kind)}:([A-Za-z0-9_-]+) -->$")


def cell(text):
    return str(text).replace("|", "\\|")


def _row(cells):
    return "|" + "|".join(f" {c} " if c else " " for c in cells) + "|"


def table(headers, aligns, rows):
    """A Markdown table; aligns holds 'l' or 'r' per column."""
    lines = [_row(cell(h) for h in headers), _row("---:" if a == "r" else "---" for a in aligns)]
    lines.extend(_row(cell(c) for c in row) for row in rows)
    return "\n".join(lines)


def bold(text):
    return f"**{text}**" if text != "" else ""


def wrap_prose(text, width=90):
    """Wraps the prose lines of a block to `width`, as the documentation's own prose is; table rows
    and blank lines stay as they are."""
    out = []
    for line in text.split("\n"):
        if line.startswith("|") or len(line) <= width:
            out.append(line)
        else:
            out.extend(textwrap.wrap(line, width=width, break_long_words=False, break_on_hyphens=False))
    return "\n".join(out)


def markers(name, kind="bench"):
    return f"<!-- {kind}:{name} -->", f"<!-- /{kind}:{name} -->"


def render_blocks(blocks):
    """Every block with its markers, as --markdown prints them."""
    parts = []
    for name, body in blocks.items():
        start, end = markers(name)
        parts.append(f"{start}\n{body.strip()}\n{end}")
    return "\n\n".join(parts)


def replace_blocks(text, blocks, path, kind="bench"):
    """Returns (new text, names of blocks replaced, names of blocks the text has no markers for).

    Only blocks of `kind` are touched. Raises BadInput, naming `path` and the line, on a
    marker that is opened twice, closed without being opened, or never closed.
    """
    marker = _marker(kind)
    lines = text.split("\n")
    out, replaced, open_name, open_line = [], [], None, 0
    for number, line in enumerate(lines, 1):
        m = marker.match(line.strip())
        if m and not m.group(1):
            if open_name is not None:
                raise BadInput(f"{path}:{number}: block '{kind}:{m.group(2)}' opens inside '{kind}:{open_name}' "
                               f"(opened on line {open_line})")
            if m.group(2) in replaced:
                raise BadInput(f"{path}:{number}: block '{kind}:{m.group(2)}' appears twice")
            open_name, open_line = m.group(2), number
            out.append(line)
            if open_name in blocks:
                out.extend(blocks[open_name].strip("\n").split("\n"))
            continue
        if m:
            if m.group(2) != open_name:
                raise BadInput(f"{path}:{number}: '/{kind}:{m.group(2)}' closes a block that is not open")
            if open_name in blocks:
                replaced.append(open_name)
            open_name = None
            out.append(line)
            continue
        if open_name is None or open_name not in blocks:
            out.append(line)
    if open_name is not None:
        raise BadInput(f"{path}:{open_line}: block '{kind}:{open_name}' is never closed")
    missing = [name for name in blocks if name not in replaced]
    return "\n".join(out), replaced, missing


def update_files(paths, blocks, kind="bench", require_all=False):
    """Replaces each block in whichever of the files at `paths` holds it, each file written to
    a temporary file, then renamed. Every file is read and checked before any is written, so
    a malformed file, a block two files hold, or (with `require_all`) a block no file holds is
    a BadInput naming the file or the block, and every file is left as it was.

    Returns ({path: names of the blocks replaced there}, names of the blocks no file holds).
    """
    texts, replaced, found_in = {}, {}, {}
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise BadInput(f"{path}: cannot read: {e.strerror}")
        new, names, _ = replace_blocks(text, blocks, path, kind)
        for name in names:
            if name in found_in:
                start, _ = markers(name, kind)
                raise BadInput(f"{start} is in both {found_in[name]} and {path}: keep one")
            found_in[name] = path
        texts[path] = (text, new)
        replaced[path] = names
    missing = [name for name in blocks if name not in found_in]
    if require_all and missing:
        start, _ = markers(missing[0], kind)
        if len(paths) == 1:
            raise BadInput(f"{paths[0]} has no {start} block")
        raise BadInput(f"none of {', '.join(paths)} has a {start} block")
    for path, (text, new) in texts.items():
        if new != text:
            _write(path, new, kind)
    return replaced, missing


def _write(path, text, kind):
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{kind}-", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, os.stat(path).st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
