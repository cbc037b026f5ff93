"""Markdown block structure from markdown-it-py tokens: headings (ATX and setext), paragraphs, list
items, fences, indented code, tables, blockquotes and HTML, each with its exact 1-based line range.
Front matter is not parsed here (corpus/markdown.py owns it); its lines are blanked before parsing."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

BlockKind = Literal["heading", "paragraph", "list_item", "fence", "code", "table", "blockquote", "html", "hr"]
CONTAINERS: frozenset[str] = frozenset({"list_item", "blockquote"})
CODE_KINDS: frozenset[str] = frozenset({"fence", "code"})
# deeper nesting than this is parsed as text (markdown-it's own guard against pathological input)
MAX_NESTING = 40

_BLANKISH = re.compile(r"^[\s>]*$")
_INLINE_CODE_ONLY = re.compile(r"^\s*(`+)[^`].*?\1\s*$")


@dataclass(frozen=True, slots=True)
class Block:
    """One block of a markdown file; lines are 1-based and inclusive, trailing blank lines trimmed."""

    kind: BlockKind
    start: int
    end: int
    parent: int  # index of the enclosing list item / blockquote in the block tuple; -1 at top level
    depth: int  # how many containers enclose it
    level: int = 0  # heading level (1-6)
    text: str = ""  # heading text; a fence's info string
    rows: tuple[int, ...] = ()  # table: the line of each body row (the header row is `start`)
    setext: bool = False  # heading written as text over === or ---


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    # imported here: only indexing and answer synthesis parse markdown; `kb search --tool grep` never does
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"maxNesting": MAX_NESTING, "html": True}).enable("table")
    # only block structure is needed; inline parsing is the slow half and is skipped
    md.disable(["inline", "text_join"], ignoreInvalid=True)
    return md


def parse_blocks(lines: list[str], body_start: int = 0) -> tuple[Block, ...]:
    """Parse a file's lines once into blocks, in document order (a container before its children).

    Args:
        lines: the file's lines (no line terminators).
        body_start: lines before this 0-based index (the front matter) are left out.

    Returns:
        The blocks; `parent` indexes into the same tuple.
    """
    # a lone \r would be a line break to markdown-it and shift every later line number
    body = [""] * body_start + [ln.replace("\r", " ") for ln in lines[body_start:]]
    if any(_BLOCK_EXTENSION.match(ln) for ln in body):
        body = _dedent_extension_bodies(body)
    if any(_MYST_ADMONITION.match(ln) for ln in body):
        body = _open_myst_admonitions(body)
    if any(_SHORTCODE_OPEN.match(ln) for ln in body):
        body = _shortcode_fences(body)
    tokens = _parser().parse("\n".join(body))
    blocks: list[Block] = []
    stack: list[int] = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        i += 1
        if t.type.endswith("_close") and t.type in ("list_item_close", "blockquote_close"):
            if stack:
                stack.pop()
            continue
        if t.map is None:
            continue
        kind: BlockKind | None = None
        extra: dict[str, object] = {}
        if t.type == "list_item_open":
            kind = "list_item"
        elif t.type == "blockquote_open":
            kind = "blockquote"
        elif t.type == "heading_open":
            kind = "heading"
            inline = tokens[i] if i < len(tokens) else None
            extra = {"level": int(t.tag[1:]), "text": (inline.content if inline is not None else "").strip(), "setext": t.markup in ("=", "-")}
        elif t.type == "paragraph_open":
            kind = "paragraph"
        elif t.type == "fence":
            kind = "fence"
            extra = {"text": t.info.strip()}
        elif t.type == "code_block":
            kind = "code"
        elif t.type == "html_block":
            kind = "html"
        elif t.type == "hr":
            kind = "hr"
        elif t.type == "table_open":
            kind = "table"
            rows: list[int] = []
            in_body = False
            while i < len(tokens) and tokens[i].type != "table_close":
                tok = tokens[i]
                if tok.type == "tbody_open":
                    in_body = True
                elif tok.type == "tr_open" and in_body and tok.map is not None:
                    rows.append(tok.map[0] + 1)
                i += 1
            extra = {"rows": tuple(rows)}
        if kind is None:
            continue
        start = t.map[0] + 1
        end = _trim_end(body, start, t.map[1])
        parent = stack[-1] if stack else -1
        blocks.append(Block(kind, start, end, parent, len(stack), **extra))  # type: ignore[arg-type]
        if kind in CONTAINERS:
            stack.append(len(blocks) - 1)
    return tuple(blocks)


# Python-Markdown's block extensions (MkDocs sites): an admonition `!!! note "Title"`, a collapsible `??? tip`
# / `???+ tip`, a content tab `=== "Linux"`, a definition `:   text` under its term; what belongs to one is
# indented four spaces under it, and it is markdown — prose, lists, fences — not the indented code block
# CommonMark would read
_BLOCK_EXTENSION = re.compile(r"""^([ \t]*)(?:(?:!!!|\?\?\?\+?)[ \t]*[\w-]+(?:[ \t]+[\w-]+)*(?:[ \t]+"[^"]*")?|===[+!]?[ \t]+"[^"]*"|"""
                              r""":[ \t]{1,4}\S.*)[ \t]*$""")  # the last: a definition list's `:   definition` (PHP Markdown Extra, Pandoc, MkDocs)
EXTENSION_INDENT = 4


def _dedent_extension_bodies(body: list[str]) -> list[str]:
    """`body` with the lines under each block-extension marker moved left by EXTENSION_INDENT columns (nested
    markers too), so they parse as the markdown they are; the line count never changes."""
    out = list(body)
    # a marker inside a body is read after the body moved: it then stands where its own body's indent starts
    for i in range(len(out)):
        m = _BLOCK_EXTENSION.match(out[i])
        if m is None:
            continue
        indent = len(m.group(1).expandtabs(EXTENSION_INDENT)) + EXTENSION_INDENT
        j = i + 1
        last = i
        while j < len(out):
            line = out[j]
            if line.strip():
                spaces = line.expandtabs(EXTENSION_INDENT)
                if len(spaces) - len(spaces.lstrip(" ")) < indent:
                    break
                last = j
            j += 1
        for k in range(i + 1, last + 1):
            line = out[k].expandtabs(EXTENSION_INDENT)
            out[k] = line[EXTENSION_INDENT:] if line.startswith(" " * EXTENSION_INDENT) else line.lstrip(" ")
    return out


# a MyST (Sphinx, Jupyter Book) admonition written as a fence: ```{note} … ``` holds markdown, not code; its
# option lines (`:class: dropdown`) are settings. Other directives (```{code-block} python) stay code.
_MYST_ADMONITION = re.compile(r"^\s{0,3}(`{3,}|~{3,})\{(?:admonition|attention|caution|danger|error|hint|important|note|seealso|tip|"
                              r"warning|dropdown|versionadded|versionchanged|deprecated)\}.*$")
_MYST_OPTION = re.compile(r"^\s*:[\w-]+:.*$")


def _open_myst_admonitions(body: list[str]) -> list[str]:
    """`body` with each MyST admonition fence's opening line, option lines and closing line blanked, so its
    content parses as the markdown it is; the line count never changes."""
    out = list(body)
    # every line that could close a fence, by fence character: (line index, run length), in order — one pass,
    # so a file of openers without closers costs no more than one with them
    closers: dict[str, list[tuple[int, int]]] = {"`": [], "~": []}
    for k, line in enumerate(out):
        bare = line.strip()
        if len(bare) >= 3 and bare[0] in closers and not bare.strip(bare[0]):
            closers[bare[0]].append((k, len(bare)))
    long_enough: dict[str, list[int]] = {}  # a fence → the lines that can close it (as long, or longer)
    free: dict[str, list[int]] = {}  # per fence: position → the first position at or after it not yet used
    for i in range(len(out)):
        m = _MYST_ADMONITION.match(out[i])
        if m is None:
            continue
        fence = m.group(1)
        if fence not in long_enough:
            long_enough[fence] = [k for k, n in closers[fence[0]] if n >= len(fence)]
            free[fence] = list(range(len(long_enough[fence]) + 1))
        rows, nxt = long_enough[fence], free[fence]
        at = _first_free(nxt, bisect.bisect_right(rows, i))
        while at < len(rows) and not out[rows[at]].strip():  # taken by a fence of another length
            nxt[at] = at + 1
            at = _first_free(nxt, at)
        if at == len(rows):
            continue
        close = rows[at]
        nxt[at] = at + 1
        out[i] = out[close] = ""
        k = i + 1
        while k < close and _MYST_OPTION.match(out[k]):
            out[k] = ""
            k += 1
    return out


# a site generator's code shortcode: Hugo's `{{< highlight go "linenos=table" >}}` … `{{< /highlight >}}` (and a site's own
# `{{< codeFromInline lang="yaml" >}}`, `{{< code-toggle file=hugo >}}`), Jekyll's `{% highlight ruby %}` … `{% endhighlight %}`:
# the lines between are code, as in a fence (session 31: kind's cluster configs were read as paragraphs)
_SHORTCODE_OPEN = re.compile(r"^(\s{0,3})(?:\{\{[<%]\s*(highlight|code(?:[A-Z]\w*|-[\w-]+)?)\b(.*?)(?<!/)\s*[>%]\}\}|\{%-?\s*(highlight)\b(.*?)-?%\})\s*$")
_LANG_ARG = re.compile(r"""\blang(?:uage)?\s*=\s*["']?([\w+#.-]+)|^\s*["']?([A-Za-z][\w+#.-]*)\b(?![=])""")
# … and the line that closes one: `{{< /highlight >}}`, `{% endhighlight %}`
_SHORTCODE_CLOSE = re.compile(r"^\s*(?:\{\{[<%]\s*/\s*(highlight|code(?:[A-Z]\w*|-[\w-]+)?)\s*[>%]\}\}|\{%-?\s*end(highlight)\s*-?%\})\s*$")


def shortcode_fence(line: str) -> str | None:
    """The fence opener (```` ```yaml ````) a code shortcode's opening line stands for, else None."""
    m = _SHORTCODE_OPEN.match(line)
    if m is None:
        return None
    args = m.group(3) if m.group(2) else m.group(5)
    lang = _LANG_ARG.search(args or "")
    return "```" + ((lang.group(1) or lang.group(2)) if lang else "")


def _shortcode_fences(body: list[str]) -> list[str]:
    """`body` with each code shortcode's opening and closing lines written as a fence's (one longer than any backtick run
    inside), so the code between parses as a fence; an opener without its closer stays as it is. The line count never
    changes. One pass finds every closer first, so a file of openers without closers costs no more than a plain one."""
    out = list(body)
    closers: dict[tuple[bool, str], list[int]] = {}  # (Jekyll?, name) → the lines that close it, in order
    for k, line in enumerate(out):
        c = _SHORTCODE_CLOSE.match(line)
        if c is not None:
            closers.setdefault((c.group(1) is None, c.group(1) or c.group(2)), []).append(k)
    if not closers:
        return out
    i = 0
    while i < len(out):
        m = _SHORTCODE_OPEN.match(out[i])
        if m is None:
            i += 1
            continue
        rows = closers.get((m.group(2) is None, m.group(2) or m.group(4)), [])
        at = bisect.bisect_right(rows, i)
        if at == len(rows):
            i += 1
            continue
        end = rows[at]
        ticks = max([3, *(len(r) + 1 for k in range(i + 1, end) for r in re.findall(r"`{3,}", out[k]))])
        opener = shortcode_fence(out[i]) or "```"
        out[i] = m.group(1) + "`" * ticks + opener[3:]
        out[end] = m.group(1) + "`" * ticks
        i = end + 1
    return out


def _first_free(nxt: list[int], j: int) -> int:
    """The first position at or after `j` not yet used (`nxt` links used positions onward; paths halved)."""
    while nxt[j] != j:
        nxt[j] = nxt[nxt[j]]
        j = nxt[j]
    return j


def _trim_end(lines: list[str], start: int, end: int) -> int:
    """Drop trailing lines that are blank once blockquote markers are removed."""
    end = min(end, len(lines))
    while end > start and _BLANKISH.match(lines[end - 1]):
        end -= 1
    return max(end, start)


def children(blocks: tuple[Block, ...], index: int) -> list[int]:
    """Indexes of the direct children of the container at `index`."""
    return [j for j in range(index + 1, len(blocks)) if blocks[j].parent == index]


def is_code_only(text: str) -> bool:
    """A paragraph that is nothing but one inline code span, e.g. `` `tar czf out.tgz -C dir .` ``."""
    return bool(_INLINE_CODE_ONLY.match(text)) and "\n" not in text.strip()


def code_mask(blocks: tuple[Block, ...], n_lines: int) -> list[bool]:
    """True for every line inside a fence or an indented code block."""
    mask = [False] * n_lines
    for b in blocks:
        if b.kind in CODE_KINDS:
            for ln in range(b.start - 1, min(b.end, n_lines)):
                mask[ln] = True
    return mask
