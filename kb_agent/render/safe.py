"""Terminal safety: text from documents, file names and models is shown, never interpreted.

`safe_text` is the one place where such text is neutralized before any human output.
"""

from __future__ import annotations

import re
from pathlib import Path

# bidi embeddings/overrides/isolates and marks reorder what the reader sees (CVE-2021-42574 "Trojan Source")
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
# C0 controls, DEL, C1 controls, bidi controls, and the Unicode line/paragraph separators
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f" + BIDI_CONTROLS + "\u2028\u2029]")
# what multi-line text may keep: a line break and a tab neither move the cursor back nor hide text
_KEEP_IN_TEXT = "\n\t"


def _visible(ch: str) -> str:
    code = ord(ch)
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control pictures: ESC → ␛, LF → ␊, CR → ␍
    if code == 0x7F:
        return "\u2421"  # ␡
    if code <= 0xFF:
        return f"\\x{code:02x}"  # C1 controls have no picture; show them as Python writes them
    return f"\\u{code:04x}"


def safe_text(text: str, *, one_line: bool = False) -> str:
    """`text` with every control character, escape sequence introducer and bidi control made visible.

    ESC becomes ␛ (so `ESC[2J` prints as `␛[2J`), C1 controls such as U+009B become `\\x9b`, bidi
    overrides become `\\u202e`. Newlines and tabs are kept unless `one_line` (file names, footnotes,
    status lines), where they become ␊ and ␉ so a value can never add a line.

    Args:
        text: any string that came from a document, a file name, a model or the user.
        one_line: escape line breaks and tabs too.

    Returns:
        The text, safe to write to a terminal; unchanged when it holds nothing unsafe.
    """
    if one_line:
        return _UNSAFE.sub(lambda m: _visible(m.group()), text)
    return _UNSAFE.sub(lambda m: m.group() if m.group() in _KEEP_IN_TEXT else _visible(m.group()), text)


def safe_markup(text: str, *, one_line: bool = False) -> str:
    """`safe_text` then rich-markup escaping, for interpolation into a markup string."""
    from rich.markup import escape

    return escape(safe_text(text, one_line=one_line))


def file_link(root: Path, rel: str, line: int | None = None, *, col: int = 1, link_format: str = "file") -> str | None:
    """The OSC 8 target for `rel` inside `root`, opening it at `line` (and `col`) as KB_LINK_FORMAT says.

    The default (`file`) is `file:///abs/path#L12`; presets name editors (`vscode://file/abs/path:12:1`,
    names.LINK_PRESETS) and a custom template fills `{path}`, `{line}`, `{col}`. The path is
    percent-encoded as `Path.as_uri()` does, so a hostile file name (control characters, spaces,
    `&`, `#`) can neither end the link sequence early, inject another one, nor add URL parameters.

    Returns:
        The link, or None when the format is `none`.
    """
    import os
    from urllib.parse import quote_from_bytes

    from kb_agent.names import link_template

    template = link_template(link_format)
    if not template:
        return None
    path = quote_from_bytes(os.fsencode((root / rel).resolve()), safe="/")
    if template == "file://{path}#L{line}" and not line:
        return f"file://{path}"
    return template.format(path=path, line=line or 1, col=max(col, 1))
