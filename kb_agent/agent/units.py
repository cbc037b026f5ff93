"""Answer units: the pieces of a file an answer quotes — a list item with the command under it, a paragraph
with its example, a table row with its header, a fence with the sentence that introduces it, a definition
under its heading — each with its exact line range and the file's own text (only container markup dropped)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from kb_agent.corpus.blocks import CODE_KINDS, Block, is_code_only, parse_blocks, shortcode_fence
from kb_agent.corpus.chunking import split_lines
from kb_agent.corpus.fileio import read_kb_text
from kb_agent.corpus.markdown import FrontMatter, decode_references, heading_text, headings_from_blocks, parse_front_matter, shown_text

# paragraphs longer than this are cut into sentence units so a citation points at the words that matter
LONG_PARAGRAPH_CHARS = 400
# a short paragraph right under a heading reads as that heading's definition (the heading is shown)
DEFINITION_MAX_CHARS = 300
# a fence longer than this is quoted by its first lines only: an answer is not a file dump
MAX_CODE_LINES = 12

UnitKind = str  # "item" | "paragraph" | "sentence" | "definition" | "row" | "code"
Crumbs = Callable[[int], tuple[str, ...]]  # line -> heading breadcrumb

_BULLET = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
_QUOTE_MARK = re.compile(r"^[ \t]*>[ \t]?")
# a sentence ends at . ! ? before a space or the end (not inside `cache.ttl_seconds`), or at 。！？
_SENTENCE = re.compile(r"(?:[^.!?。！？]|[.!?]+(?=[^\s.!?]))+(?:[.!?]+(?=\s|$)|[。！？]+)?|[.!?。！？]+")
# any link, image or bare URL (boilerplate is what is left without them); no bracket inside the parts, so each
# attempt stops at the next one (a line of `[[a|` took seconds)
_MD_LINK = re.compile(r"!?\[([^\[\]]*)\]\([^()]*\)|<https?://[^<>\s]+>|https?://\S+")
_LABEL = re.compile(r"^\W*(more information|more info|see also|related to|related|source|homepage|docs?|documentation|"
                    r"website|link|links|更多信息|参见|相关|另见)\W*", re.I)
# mdBook's include directives (`{{#rustdoc_include ../listings/x.rs}}`): a fence of only these shows no code here
_INCLUDE = re.compile(r"^\s*\{\{#[a-z_]+\s[^{}]*\}\}\s*$")
# lines that address an AI rather than a reader: quoted injection attempts are never answer material
_INJECTION = re.compile(
    r"ignore (all |any )?(the )?(previous|prior|above) instructions|disregard (all |the )?(previous|prior|above)|"
    r"\b(note|message) to (ai|llm|the assistant|assistants|ai assistants|language models)\b|system prompt|"
    r"you are now|忽略(之前|以上|所有)的?(指令|说明)",
    re.I,
)
# a shell session's fence (GitHub's `console`): its commands follow a prompt, its other lines are output
_SESSION_FENCE = re.compile(r"^(```|~~~)\s*\{?\s*\.?(console|shell-session|terminal)\b", re.I)
_PROMPT = re.compile(r"^\s*(\$|#|>|%|PS>|PS [A-Z]:\\[^>]*>)\s", re.M)
# a shell fence (`sh`, `bash`) whose commands follow a `$` prompt at the start of the line, bare or after a branch or a
# user@host (`(main)$ git reflog`, `me@box:~$ ls`), with what they printed between them and no comment: a terminal
# session written in a shell's name (git-flight-rules writes every example so), cut at its prompts like one. A help
# text's indented "  $ tiup update --self   # Update tiup" lines are a list of examples, not a session.
_SHELL_FENCE = re.compile(r"^(```|~~~)\s*\{?\s*\.?(sh|bash|shell|zsh)\s*\}?\s*$", re.I)
_TRAILING_COMMENT = re.compile(r"\s#\s")
_DOLLAR_PROMPT = re.compile(r"^(?:\([\w./@:+-]+\)\s*)?(?:[\w.-]+@[\w.-]+(?::[^$#\s]*)?\s*)?\$\s")
# terminal output painted with HTML (termynal): a colour or style tag, and the tags such a block uses
_PAINT = re.compile(r"<(font\s+color|span\s+style)=", re.I)
_PAINT_TAG = re.compile(r"</?(font|span|u|b|i|strong|em)(\s[^<>]*)?>", re.I)
# an API-reference directive (mkdocstrings): `::: fastapi.responses.Response` with its YAML options under it
_AUTODOC = re.compile(r"^\s*:::\s*[A-Za-z_][\w-]*(\.[\w-]+)+\s*$")
_WRAPPER_TAG = re.compile(r"^\s*</?[A-Za-z][\w-]*(\s[^<>]*)?>\s*$")
# site-generator markup that is layout, not content: MkDocs admonition/tab fences and includes, Hugo
# shortcodes, Docusaurus/VuePress/MyST `:::note` … `:::` containers, Jekyll/Liquid `{% … %}` tags, mdBook
# `{{#include …}}` directives, MDX's module lines (Docusaurus: `import Tabs from '@theme/Tabs';`, `export const x = …;`), a
# table-of-contents marker (`[[TOC]]`, `[TOC]`, GitLab's `[[_TOC_]]`, kramdown's `* TOC` + `{:toc}`), a kramdown attribute
# line (`{: .note }`)
_LAYOUT = re.compile(r"^\s*(/{3,}.*|!{3}.*|\?{3}.*|:{3,}.*|\{\*.*\*\}|\{!.*!\}|\{\{[<%].*[%>]\}\}|\{%.*%\}|\{\{#.*\}\}|"
                     r"import\s+(?:[\w$]+|\{[^}]*\}|\*\s+as\s+[\w$]+)(?:\s*,\s*(?:[\w$]+|\{[^}]*\}))*\s+from\s+['\"][^'\"]+['\"];?|"
                     r"import\s+['\"][^'\"]+['\"];?|export\s+(?:const|let|function|default)\s.*;?|\[\[?_?TOC_?\]\]?|TOC|\{:[^{}]*\}|"
                     # VuePress's tab marker (`@tab 正式版`, `@tab:active npm`) inside a `:::tabs` container
                     r"@tab(?::active)?(?:\s.*)?)\s*$")


def is_terminal_output(code: str) -> bool:
    """A shell session's fence (or a piece of one) with no prompt line: what a command printed."""
    return _SESSION_FENCE.match(code) is not None and _PROMPT.search(code.split("\n", 1)[-1]) is None


@dataclass(frozen=True, slots=True)
class AnswerUnit:
    """One quotable unit: where it is, the prose and code shown, and the exact text of its lines."""

    path: str
    start_line: int
    end_line: int
    kind: UnitKind
    text: str  # prose, verbatim within lines (soft line breaks read as spaces); may be empty
    code: str  # a fence (with its ``` lines) or an inline `span`; empty when none
    quote: str  # the cited lines' content, exactly
    heading_path: tuple[str, ...] = ()
    # where a piece of a long YAML fence sits in it (`archives › format_overrides`): markup shown over the piece, not quoted
    label: str = ""

    @property
    def search_text(self) -> str:
        return f"{self.label} {self.text} {self.code}".strip()

    @property
    def has_code(self) -> bool:
        return bool(self.code)

    def render(self, n: int) -> str:
        """One markdown bullet ending in the marker `[n]`; a fence follows on indented lines."""
        if self.code.startswith(("```", "~~~")):
            # a fence nothing introduces is labelled with its place in a YAML fence or its heading (markup, not quoted text)
            head = self.text or (f"*{self.heading_path[-1]}*" if self.heading_path else "*Code*")
            if not self.text and self.label:
                head = f"{head} (`{self.label}`)" if self.heading_path else f"`{self.label}`"
            body = "\n".join("  " + ln if ln.strip() else "" for ln in self.code.split("\n"))
            return f"- {head} [{n}]\n{body}"
        parts = [p for p in (self.text, self.code) if p]
        return f"- {' '.join(parts)} [{n}]"

    @property
    def size(self) -> int:
        return len(self.text) + len(self.code)


# a range carried over to a translation is widened by this many lines each way (translated
# paragraphs wrap differently), never past its section
ALIGN_SLACK_LINES = 3
# parsed files kept between answers (a chat session, an eval run), keyed by path, mtime and size so
# an edited file is parsed again; a large KB's answers touch a few dozen files
PARSED_FILES_KEPT = 256
_PARSED: dict[tuple[str, int, int], tuple[list[str], list[AnswerUnit], list[int]]] = {}


class UnitCache:
    """Builds each file's units once per answer, from the file on disk under the KB root."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._units: dict[str, list[AnswerUnit]] = {}
        self._lines: dict[str, list[str]] = {}
        self._sections: dict[str, list[int]] = {}  # each file's section starts (line 1, then its headings)

    def file_units(self, rel: str) -> list[AnswerUnit]:
        if rel not in self._units:
            try:
                full = (self.root / rel).resolve()
                full.relative_to(self.root)
                stat = full.stat()
                key = (str(full), stat.st_mtime_ns, stat.st_size)
                hit = _PARSED.get(key)
                if hit is None:
                    lines = split_lines(read_kb_text(full))
                    hit = (lines, *_parse(rel, lines))
                    if len(_PARSED) >= PARSED_FILES_KEPT:
                        _PARSED.pop(next(iter(_PARSED)))
                    _PARSED[key] = hit
            except (OSError, ValueError):  # incl. a pipe or device now standing where the file was (never opened)
                self._units[rel] = []
            else:
                self._lines[rel], self._units[rel], self._sections[rel] = hit
        return self._units[rel]

    def indent(self, rel: str, line: int) -> int:
        """How far a line of a file (units built) is indented: a list item's nesting depth, in columns."""
        lines = self._lines.get(rel) or []
        text = lines[line - 1] if 0 < line <= len(lines) else ""
        return len(text) - len(text.lstrip(" \t"))

    def line_unit(self, rel: str, start: int, end: int, needle: str) -> AnswerUnit | None:
        """The first line in start..end naming `needle` (any case) as a one-line unit, even when it is
        link-only: for "which pages mention X" the mention itself is the evidence."""
        lines = self._lines.get(rel)
        if lines is None:
            return None
        low = needle.lower()
        for n in range(max(start, 1), min(end, len(lines)) + 1):
            if low in lines[n - 1].lower():
                text = _strip_containers(lines[n - 1], 8, 1).strip()
                return AnswerUnit(rel, n, n, "line", text, "", lines[n - 1].strip())
        return None

    def section_starts(self, rel: str) -> list[int]:
        """The first line of each section: line 1, then every heading of the file."""
        self.file_units(rel)
        return self._sections.get(rel, [1])

    def aligned_range(self, rel: str, start: int, end: int, twin: str) -> tuple[int, int] | None:
        """Lines start..end of `rel` carried over to its translation `twin`: the same sections, counted
        in order (a translation keeps its original's headings), or None when the two files do not
        have the same number of sections (an outdated or partial translation: no safe mapping)."""
        a, b = self.section_starts(rel), self.section_starts(twin)
        if len(a) != len(b) or not self._lines.get(rel) or not self._lines.get(twin):
            return None  # different sections, or a file gone (deleted since it was indexed)
        ends_a = [*(x - 1 for x in a[1:]), len(self._lines[rel])]
        ends_b = [*(x - 1 for x in b[1:]), len(self._lines[twin])]

        def carry(line: int) -> int:
            # the same place within the same section, in proportion (translated paragraphs keep their order)
            k = bisect.bisect_right(a, line) - 1
            span_a, span_b = max(ends_a[k] - a[k], 1), ends_b[k] - b[k]
            return b[k] + round((line - a[k]) * span_b / span_a)

        return max(carry(start) - ALIGN_SLACK_LINES, b[bisect.bisect_right(a, start) - 1]), min(carry(end) + ALIGN_SLACK_LINES, ends_b[bisect.bisect_right(a, end) - 1])

    def units_in(self, rel: str, start: int, end: int) -> list[AnswerUnit]:
        """The units of `rel` that overlap lines start..end."""
        return [u for u in self.file_units(rel) if u.start_line <= end and u.end_line >= start]

    def exists(self, rel: str) -> bool:
        try:
            return (self.root / rel).is_file()
        except OSError:
            return False


# a heading written all in emphasis (`### **max_connections**`): the label is bold already
_EMPHASIS = re.compile(r"(\*\*|__|\*|_)(\S(?:(?:(?!\1).)*\S)?)\1")


def heading_label(raw: str) -> str:
    """A heading as the bold label of the unit under it: its text without code marks or emphasis that wraps all of it
    (`### **max_connections**` labels "**max_connections**: …", not "****max_connections****: …")."""
    text = heading_text(raw)[0].replace("`", "")
    m = _EMPHASIS.fullmatch(text)
    return m.group(2) if m else text


def build_units(path: str, lines: list[str]) -> list[AnswerUnit]:
    """Every answer unit of one file, in document order.

    Front matter, headings, HTML, rules and boilerplate (link-only "More information", "Related to"
    lines, badges, layout directives) never become units.

    Args:
        path: the file's path relative to the KB root.
        lines: the file's lines.

    Returns:
        The units with exact 1-based line ranges.
    """
    return _parse(path, lines)[0]


def _parse(path: str, lines: list[str]) -> tuple[list[AnswerUnit], list[int]]:
    """The file's units (build_units) and its section starts (line 1, then each heading's line), from one parse."""
    fm = parse_front_matter(lines)
    blocks = parse_blocks(lines, fm.end_line)
    heads = headings_from_blocks(blocks)
    head_lines = [h.line for h in heads]
    sections = [1, *(n for n in head_lines if n > 1)]

    tabs = _tab_ranges(lines)

    def crumbs(line: int) -> tuple[str, ...]:
        trail: list[tuple[int, str]] = []
        for h in heads[: bisect.bisect_right(head_lines, line)]:
            while trail and trail[-1][0] >= h.level:
                trail.pop()
            trail.append((h.level, h.text))
        # what a tab (`<TabItem label="Docker compose">` … `</TabItem>`) holds is under its label, as under a heading
        above = bisect.bisect_right(head_lines, line)
        last_heading = head_lines[above - 1] if above else 0
        tab = next((label for a, z, label in reversed(tabs) if last_heading < a < line <= z), None)
        return tuple(t for _, t in trail) + ((tab,) if tab else ())

    # HTML that only wraps other blocks (`<div class="termy">` … `</div>`) or is a comment (mdBook's
    # `<!-- manual-regeneration … -->` between "we can run the following:" and its fence) is transparent
    wrappers = {ln for b in blocks if b.kind == "html" and _transparent(lines[b.start - 1 : b.end]) for ln in range(b.start, b.end + 1)}
    leaves = [j for j, b in enumerate(blocks) if b.kind not in ("list_item", "blockquote") and not (b.kind == "html" and b.start in wrappers)
              and not (b.kind == "paragraph" and all(_LAYOUT.match(lines[k - 1]) for k in range(b.start, b.end + 1)))]
    used: set[int] = set()
    units: list[AnswerUnit] = []
    label: tuple[int, str] | None = None  # a bold line over the paragraph being read: (its line, its text)
    for pos, j in enumerate(leaves):
        if j in used:
            continue
        b = blocks[j]
        nxt = leaves[pos + 1] if pos + 1 < len(leaves) else None
        prev = leaves[pos - 1] if pos > 0 else None
        fields = _field_run(lines, blocks, leaves, pos, wrappers) if b.kind == "paragraph" and prev is not None else None
        if fields is not None and prev is not None:
            # a reference entry's field bullets (`- **Default:** `500``) go with the description under them
            run, texts = fields
            used.update(run)
            h = blocks[prev]
            label = (h.start, f"**{heading_label(h.text)}**: {' '.join(texts)}")
            continue
        if b.kind == "paragraph" and nxt is not None and _labels(lines, blocks, b, blocks[nxt], wrappers):
            # "**Create a symbolic link**" over a sentence and its command: a heading in all but markup,
            # and the unit under it starts at it (the label says what the command is for)
            text = shown_text(" ".join(_prose_lines(lines, blocks, b))).strip()
            # a numbered case line is set off as the bold label it stands for ("**1) Master crashes** Messages …")
            label = (b.start, text if _BOLD_LINE.match(text) or _DEFINITION_LINE.match(lines[blocks[nxt].start - 1]) else f"**{text}**")
            continue
        if b.kind == "paragraph":
            code_j = nxt if nxt is not None and _code_follows(lines, blocks, b, blocks[nxt], wrappers) else None
            if code_j is not None:
                used.add(code_j)
            got = _paragraph_units(path, lines, blocks, j, code_j, prev, crumbs)
            if label is not None and got:
                head = got[0]
                got[0] = _unit(path, lines, label[0], head.end_line, head.kind, f"{label[1]} {head.text}".strip(), head.code, crumbs)
            label = None
            if code_j is None and got and not got[-1].code and nxt is not None and _field_follows(lines, blocks, b, blocks[nxt]):
                # "*Default:* `450`." under a description: the value of what the lines above describe
                used.add(nxt)
                tail, field = got[-1], blocks[nxt]
                got[-1] = _unit(path, lines, tail.start_line, field.end, tail.kind, f"{tail.text} {shown_text(' '.join(_prose_lines(lines, blocks, field)))}".strip(), "", crumbs)
            units.extend(got)
            if code_j is not None and _is_code(lines, blocks[code_j]):  # a long fence's later entries
                units.extend(_later_pieces(path, lines, blocks[code_j], _code_groups(lines, blocks, blocks[code_j])[1:], crumbs))
        elif _is_code(lines, b):
            tab = _tab_item_above(lines, b.start, wrappers)
            groups = _code_groups(lines, blocks, b)
            first, end, code = groups[0]
            if shows_code(code):
                if tab is not None:  # `<TabItem value="yarn" label="Yarn">` over the fence: its label says what it is for
                    units.append(_unit(path, lines, tab[0], end, "paragraph", tab[1], code, crumbs))
                else:
                    units.append(_unit(path, lines, first, end, "code", "", code, crumbs))
            units.extend(_later_pieces(path, lines, b, groups[1:], crumbs))
        elif b.kind == "table":
            units.extend(_row_units(path, lines, blocks, b, crumbs))
        elif b.kind == "html":
            # a collapsed section (`<details><summary>How do I reset my password?</summary>`): the summary heads
            # what the section says, in the same block (raw text, as a renderer shows it) or in the paragraph under it
            summary = _details_summary(lines, b)
            if summary is not None:
                line, title, body = summary
                if body:  # shown as a definition is: "**Why is the build slow?**: The cache is cold …"
                    units.append(_unit(path, lines, line, body[-1][0], "paragraph", f"**{title}**: {' '.join(t for _k, t in body)}", "", crumbs))
                elif nxt is not None and blocks[nxt].kind == "paragraph":
                    label = (line, f"**{title}**:")
    described = _described(path, lines, fm, crumbs)
    if described is not None:
        units.insert(0, described)
    # an intro to a stub ("Remove dangling images:" over `# TODO: Command needed`) is no answer either
    return [u for u in units if not (is_placeholder(u.code) if u.code else is_placeholder(u.text))], sections


# a front matter line that gives the page's title or description (YAML `key: value`, Hugo's TOML `key = "value"`)
_FRONT_KEY = re.compile(r"^(title|description)\s*[:=]\s*\S")


def _described(path: str, lines: list[str], fm: FrontMatter, crumbs: Crumbs) -> AnswerUnit | None:
    """The page's front matter `description` as a unit labelled with its `title` ("**hugo.IsServer**: Reports whether
    the built-in development server is running."): site generators (Hugo, Docusaurus, VitePress) write there what the
    page is about, and a page of one function or option may say it nowhere else (session 27, Hugo's function pages).
    None without a one-line description; the rest of the front matter is never a unit."""
    desc, title = fm.data.get("description"), fm.data.get("title")
    if not isinstance(desc, str) or not desc.strip() or "\n" in desc.strip() or len(desc) > DEFINITION_MAX_CHARS or looks_like_injection(desc):
        return None
    at = {m.group(1): n for n in range(2, fm.end_line) if (m := _FRONT_KEY.match(lines[n - 1]))}
    line = at.get("description")
    if line is None:
        return None
    text = " ".join(desc.split())
    if text[:40] not in lines[line - 1]:
        return None  # written over more lines (`description: >-`) or escaped: the cited line must show the words printed
    named = at.get("title")
    if isinstance(title, str) and title.strip() and named is not None and abs(named - line) <= 2 and title.strip() in lines[named - 1]:
        return _unit(path, lines, min(named, line), max(named, line), "definition", f"**{' '.join(title.split())}**: {text}", "", crumbs)
    return _unit(path, lines, line, line, "sentence", text, "", crumbs)


# a tab's opening tag (Docusaurus `<TabItem value="yarn" label="Yarn">`, Nextra/Mintlify `<Tab title="macOS">`,
# VuePress `<CodeGroupItem title="npm">`): the label a reader clicks to see the block under it
_TAB_ITEM = re.compile(r"""^\s*<(?:TabItem|Tab|CodeGroupItem|tab)\b[^<>]*?\b(?:label|title)=(?:"([^"]+)"|'([^']+)')[^<>]*>\s*$""")


_TAB_CLOSE = re.compile(r"^\s*</(?:TabItem|Tab|CodeGroupItem|tab)\s*>\s*$")


def _tab_ranges(lines: list[str]) -> list[tuple[int, int, str]]:
    """(opening line, closing line, label) of each tab element (`<TabItem value="x" label="Docker compose">` …
    `</TabItem>`), in order; a tab never closed runs to the end of the file."""
    out: list[tuple[int, int, str]] = [*_content_tabs(lines), *_at_tabs(lines)]
    open_at: list[tuple[int, str]] = []
    for n, text in enumerate(lines, 1):
        if "<" not in text:
            continue
        m = _TAB_ITEM.match(text)
        if m:
            open_at.append((n, m.group(1) or m.group(2)))
        elif _TAB_CLOSE.match(text) and open_at:
            a, label = open_at.pop()
            out.append((a, n, label))
    out.extend((a, len(lines), label) for a, label in open_at)
    return sorted(out)


def _content_tabs(lines: list[str]) -> list[tuple[int, int, str]]:
    """(marker line, last line, label) of each MkDocs content tab (`=== "RedHat / CentOS"` over the lines indented
    under it): the tab runs to the last line before one that is indented no deeper than its marker."""
    out: list[tuple[int, int, str]] = []
    n = 0
    while n < len(lines):
        m = _TAB.match(lines[n])
        if m is None:
            n += 1
            continue
        indent = len(lines[n]) - len(lines[n].lstrip())
        end = n + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        label = _tab_label(lines[n])
        if label:
            out.append((n + 1, end, label))
        n += 1
    return out


_AT_TAB = re.compile(r"^\s*@tab(?::active)?\s+(\S.*?)\s*$")
_CONTAINER_CLOSE = re.compile(r"^\s*:{3,}\s*$")


def _at_tabs(lines: list[str]) -> list[tuple[int, int, str]]:
    """(marker line, last line, label) of each VuePress tab (`:::tabs`, then `@tab 正式版` over the tab's content): a tab
    runs to the line before the next `@tab` or the container's closing `:::`."""
    out: list[tuple[int, int, str]] = []
    open_at: tuple[int, str] | None = None
    for n, text in enumerate(lines, 1):
        m = _AT_TAB.match(text) if "@tab" in text else None
        if m is None and not (open_at and _CONTAINER_CLOSE.match(text)):
            continue
        if open_at is not None:
            out.append((open_at[0], n - 1, open_at[1]))
            open_at = None
        if m is not None:
            open_at = (n, m.group(1))
    if open_at is not None:
        out.append((open_at[0], len(lines), open_at[1]))
    return out


def _tab_item_above(lines: list[str], start: int, wrappers: set[int]) -> tuple[int, str] | None:
    """(line, label) of the tab tag right above line `start` (only blank or wrapper lines between), or None."""
    k = start - 1
    while k >= 1 and (not lines[k - 1].strip() or k in wrappers):
        m = _TAB_ITEM.match(lines[k - 1])
        if m:
            return k, m.group(1) or m.group(2)
        k -= 1
    return None


_SUMMARY = re.compile(r"<summary(?:\s[^<>]*)?>(.*?)</summary>", re.I | re.S)
_DETAILS_TAG = re.compile(r"^\s*</?(?:details|summary|p|div|br)(?:\s[^<>]*)?/?>\s*$", re.I)


def _details_summary(lines: list[str], b: Block) -> tuple[int, str, list[tuple[int, str]]] | None:
    """(line, summary text, [(line, text)] of the block's own text lines) of an HTML block holding a
    `<summary>`, or None."""
    raw = "\n".join(lines[b.start - 1 : b.end])
    m = _SUMMARY.search(raw)
    if m is None or "<details" not in raw.lower():
        return None
    title = shown_text(" ".join(m.group(1).split()))
    if not title:
        return None
    at = b.start + raw.count("\n", 0, m.start())
    end_line = b.start + raw.count("\n", 0, m.end())
    body: list[tuple[int, str]] = []
    for k in range(end_line + 1, b.end + 1):
        text = lines[k - 1]
        if _DETAILS_TAG.match(text) or not text.strip():
            continue
        shown = shown_text(text.strip())
        if shown:
            body.append((k, shown))
    return at, title, body


def _transparent(html: list[str]) -> bool:
    """An HTML block a reader sees nothing of between two blocks: wrapper tags only, or one comment."""
    if all(_WRAPPER_TAG.match(ln) or not ln.strip() for ln in html):
        return True
    text = "\n".join(html).strip()
    return text.startswith("<!--") and text.endswith("-->") and "-->" not in text[4:-3]


def _unit(path: str, lines: list[str], start: int, end: int, kind: UnitKind, text: str, code: str, crumbs: Crumbs) -> AnswerUnit:
    quote = "\n".join(lines[start - 1 : end]).strip()
    return AnswerUnit(path, start, end, kind, text, code, quote, crumbs(start))


def _later_pieces(path: str, lines: list[str], b: Block, groups: list[tuple[int, int, str]], crumbs: Crumbs) -> list[AnswerUnit]:
    """A long fence's pieces after its first as code units (those that show code), each labelled with its place when
    the fence is YAML."""
    shown = [(first, end, code) for first, end, code in groups if shows_code(code)]
    labels = yaml_key_paths(lines, b, [first for first, _end, _code in shown]) if b.kind == "fence" and _YAML_FENCE.match(b.text) else {}
    return [replace(unit, label=labels[first]) if labels.get(first) else unit
            for first, end, code in shown for unit in (_unit(path, lines, first, end, "code", "", code, crumbs),)]


# a YAML fence's info string (`yaml`, `yml`, GoReleaser's `yaml {filename=".goreleaser.yaml"}`)
_YAML_FENCE = re.compile(r"^\{?\s*\.?ya?ml\b", re.I)
# a YAML line that opens a nested block: a key with nothing after its colon but a comment (`format_overrides:`, `- hooks:`)
_YAML_PARENT = re.compile(r"^\s*(?:-\s+)?([A-Za-z_$][\w.$-]*)\s*:\s*(?:#.*)?$")


def yaml_key_paths(lines: list[str], b: Block, firsts: list[int]) -> dict[int, str]:
    """For each piece of a YAML fence (by its first line, in order), the keys it sits under, outermost first, joined by
    " › ": the less indented keys that open a block above the piece's first line with content (session 31: GoReleaser's
    archives reference quoted `formats: ["zip", "tar.gz"]` without saying it sits under `format_overrides`). One pass
    over the fence, keeping the chain of open lines (an indent and its key, or None for a list dash or a value)."""
    out: dict[int, str] = {}
    chain: list[tuple[int, str | None]] = []
    waiting = 0  # firsts[waiting:] have not met their first line with content yet
    for k in range(b.start + 1, b.end + 1):
        line = lines[k - 1]
        bare = line.strip()
        if not bare or bare.startswith("#"):
            continue
        indent = len(line) - len(line.lstrip(" "))
        while chain and chain[-1][0] >= indent:
            chain.pop()
        while waiting < len(firsts) and firsts[waiting] <= k:
            out[firsts[waiting]] = " › ".join(key for _indent, key in chain if key)
            waiting += 1
        m = _YAML_PARENT.match(line)
        chain.append((indent, m.group(1) if m else None))
    return out


def _ancestors(blocks: tuple[Block, ...], b: Block) -> list[Block]:
    out = []
    p = b.parent
    while p >= 0:
        out.append(blocks[p])
        p = blocks[p].parent
    return out


def _strip_containers(line: str, quotes: int, bullets: int) -> str:
    """Remove `quotes` blockquote markers and `bullets` list markers from the front of a line."""
    for _ in range(quotes + bullets + 1):
        m = _QUOTE_MARK.match(line)
        if m and quotes > 0:
            line, quotes = line[m.end() :], quotes - 1
            continue
        m = _BULLET.match(line)
        if m and bullets > 0:
            line, bullets = line[m.end() :], bullets - 1
            continue
        break
    return line


# a definition list's marker (`:   The number of workers.` under its term): markup, like a bullet
_DEFINITION_MARK = re.compile(r"^:[ \t]+(?=\S)")
_DEFINITION_LINE = re.compile(r"^[ \t]{0,3}:[ \t]+\S")


def _prose_lines(lines: list[str], blocks: tuple[Block, ...], b: Block) -> list[str]:
    anc = _ancestors(blocks, b)
    quotes = sum(1 for a in anc if a.kind == "blockquote")
    out = []
    for ln in range(b.start, b.end + 1):
        bullets = sum(1 for a in anc if a.kind == "list_item" and a.start == ln)
        out.append(_strip_containers(lines[ln - 1], quotes, bullets).strip())
    if b.kind == "paragraph":
        out = [_DEFINITION_MARK.sub("", ln) for ln in out]
    return out


def _opens_definition(lines: list[str], after: int) -> bool:
    """Is the first non-blank line after line `after` a definition (`:   text`), making the line above its term?"""
    k = after + 1
    while k <= len(lines) and not lines[k - 1].strip():
        k += 1
    return k <= len(lines) and _DEFINITION_LINE.match(lines[k - 1]) is not None


def _code_groups(lines: list[str], blocks: tuple[Block, ...], b: Block) -> list[tuple[int, int, str]]:
    """A code block as the units it holds: (first line, last line, code as shown).

    A block of at most MAX_CODE_LINES lines is one unit. A longer one is a cheat sheet more often than a
    program ("# open a port" / `firewall-cmd --add-port=…` pairs, one after another): it is cut at blank
    lines and where a comment follows code, each group shown as its own fence (at most MAX_CODE_LINES
    lines); the first group keeps the opening fence line in its range. A terminal session (a console fence
    with prompt lines) is cut at its prompts instead: each command with what it printed. Container markers
    and the common indent are removed; the words are untouched.
    """
    if b.kind == "html":  # `<pre><code class="cmd bash">caddy fmt [&lt;path&gt;]</code></pre>`
        code = _pre_code(lines, b) or ""
        shown_lines = code.split("\n")[:MAX_CODE_LINES]
        return [(b.start, min(b.end, b.start + MAX_CODE_LINES - 1), "\n".join(["```", *shown_lines, "```"]))]
    quotes = sum(1 for a in _ancestors(blocks, b) if a.kind == "blockquote")
    raw = [_strip_containers(lines[ln - 1], quotes, 0) for ln in range(b.start, b.end + 1)]
    if b.kind == "fence" and (shortcode := shortcode_fence(raw[0])) is not None:  # `{{< highlight go >}}` … `{{< /highlight >}}`
        first, last = b.start + 1, b.end - 1
        indent = len(raw[0]) - len(raw[0].lstrip(" "))
        fence, closer = shortcode, "```"
    elif b.kind == "fence":
        opener = raw[0].strip()
        closed = len(raw) > 1 and raw[-1].strip()[:3] == opener[:3]
        first, last = b.start + 1, b.end - 1 if closed else b.end
        indent = len(raw[0]) - len(raw[0].lstrip(" "))
        fence, closer = opener, opener[0] * (len(opener) - len(opener.lstrip(opener[0])))
    else:
        first, last = b.start, b.end
        body = [ln for ln in raw if ln.strip()]
        indent = min((len(ln) - len(ln.lstrip(" ")) for ln in body), default=0)
        fence, closer = "```", "```"

    # a terminal session written as the HTML it renders to (FastAPI's and Typer's docs: `$ <font color="#4E9A06">fastapi</font>
    # run`): the colours are markup, the command is what a reader copies
    session = b.kind == "fence" and _SESSION_FENCE.match(fence) is not None
    dollar = b.kind == "fence" and not session and _SHELL_FENCE.match(fence) is not None and _dollar_session([ln[indent:] for ln in raw[first - b.start : last - b.start + 1]])
    painted = session and any(_PAINT.search(raw[ln - b.start]) for ln in range(first, last + 1))

    def shown(a: int, z: int) -> str:
        part = [raw[ln - b.start] for ln in range(a, z + 1)]
        part = [ln[min(indent, len(ln) - len(ln.lstrip(" "))) :] for ln in part]
        if painted:
            part = [decode_references(_PAINT_TAG.sub("", ln)) for ln in part]
        return "\n".join([fence, *part, closer])

    if last - first + 1 <= MAX_CODE_LINES:
        return [(b.start, b.end, shown(first, last))]
    prompts = [ln for ln in range(first, last + 1) if (_PROMPT if session else _DOLLAR_PROMPT).match(raw[ln - b.start][indent:])] if session or dollar else []
    groups = _session_groups(first, last, prompts) if prompts else _entry_groups(raw, b.start, first, last)
    groups = [(a, max(k for k in range(a, z + 1) if raw[k - b.start].strip())) for a, z in groups if any(raw[k - b.start].strip() for k in range(a, z + 1))]
    groups = [entry for group in groups for entry in _option_entries(raw, b.start, *group)]
    out: list[tuple[int, int, str]] = []
    for a, z in (piece for group in groups for piece in _pieces(*group)):
        if out and out[-1][1] == a - 1 and not any(_WORD.search(_TAG_CLOSE.sub("", raw[k - b.start])) for k in range(a, z + 1)):
            continue  # the closing brackets and tags (`)` / `</script>`) of a long program's top piece say nothing by themselves
        out.append((b.start if not out else a, z, shown(a, z)))
    return out


_WORD = re.compile(r"\w")
# a line of a command's option listing (`  -i, --ignore-errors   Ignore download and postprocessing errors`): the option,
# then another spelling, its argument or two spaces before what it does (a diff's "-old line" is none)
_OPTION_LINE = re.compile(r"^(\s*)-{1,2}[A-Za-z0-9?][\w-]*(?=,|=|\s{2,}|\s+-|\s+[<\[{A-Z]|\s*$)")
# … when this many lines of a group open with an option, at one indent
OPTION_LIST_MIN = 3


def _option_entries(raw: list[str], base: int, a: int, z: int) -> list[tuple[int, int]]:
    """Lines a..z as a command's option listing cut into its options — each option line with the lines indented under it
    (its description's wrapped lines), what precedes the first option going with it — or as one group when they are no
    listing: a `--help` text pasted in a fence (yt-dlp's README) answers "what does --lazy-playlist do" with its own
    three lines, not the twelve lines around it."""
    indents: dict[int, list[int]] = {}
    for ln in range(a, z + 1):
        m = _OPTION_LINE.match(raw[ln - base])
        if m:
            indents.setdefault(len(m.group(1).expandtabs()), []).append(ln)
    if not indents:
        return [(a, z)]
    starts = max(indents.values(), key=len)
    if len(starts) < OPTION_LIST_MIN:
        return [(a, z)]
    cuts = [a, *(ln for ln in starts if ln > a)]
    return [(x, y - 1) for x, y in zip(cuts, [*cuts[1:], z + 1])]


def _pieces(a: int, z: int) -> list[tuple[int, int]]:
    """Lines a..z in pieces of at most MAX_CODE_LINES lines: a long run with no blank line is shown from its top
    (where a program begins), and what follows is a unit of its own (`wal_keep_size = '512MB'` as the 19th of 22
    default settings), so every line is in one."""
    return [(k, min(z, k + MAX_CODE_LINES - 1)) for k in range(a, z + 1, MAX_CODE_LINES)]


# a code block written as HTML, as some site generators' pages write every command (Caddy's docs:
# `<pre><code class="cmd bash">caddy file-server --browse</code></pre>`): markdown passes it through and the
# browser shows it as a code block, so it is code, shown as its text (tags dropped, references decoded)
_PRE_BLOCK = re.compile(r"^\s*<pre\b[^<>]*>(?:\s*<code\b[^<>]*>)?(.*?)(?:</code>\s*)*</pre>\s*$", re.I | re.S)
_ANY_TAG = re.compile(r"</?[A-Za-z][^<>]*>")


def _pre_code(lines: list[str], b: Block) -> str | None:
    """The code an HTML `<pre>` block shows, or None when `b` is no such block."""
    if b.kind != "html":
        return None
    m = _PRE_BLOCK.match("\n".join(lines[b.start - 1 : b.end]))
    if m is None:
        return None
    code = decode_references(_ANY_TAG.sub("", m.group(1))).strip("\n")
    return code if code.strip() else None


def _is_code(lines: list[str], b: Block) -> bool:
    """A fence, an indented code block, or an HTML `<pre>` block."""
    return b.kind in CODE_KINDS or _pre_code(lines, b) is not None


def _dollar_session(body: list[str]) -> bool:
    """Lines of a shell fence that read as a terminal session: two `$` prompts or more, a line of output, no comment."""
    shown = [ln for ln in body if ln.strip()]
    prompts = sum(1 for ln in shown if _DOLLAR_PROMPT.match(ln))
    return prompts >= 2 and prompts < len(shown) and not any(_COMMENT.match(ln.strip()) or _TRAILING_COMMENT.search(ln) for ln in shown)


def _session_groups(first: int, last: int, prompts: list[int]) -> list[tuple[int, int]]:
    """A terminal session's entries: a command with what it printed, up to the next prompt. The blank lines
    inside the output ("Logs:" alone, a startup banner's paragraphs) do not start entries of their own."""
    starts = sorted({first, *prompts})
    return [(a, z - 1) for a, z in zip(starts, [*starts[1:], last + 1])]


def _entry_groups(raw: list[str], base: int, first: int, last: int) -> list[tuple[int, int]]:
    """A cheat sheet's entries (`raw` holds the block's lines from line `base`): cut at blank lines and where
    a comment follows code, outside brackets; a comment-only group right after code ("# to keep it, add
    --permanent") is a note on that code. A comment indented under the line above annotates that line
    (pip-compile's `anyio==4.8.0` / `    # via starlette`): it starts no entry."""
    # an entry starts only outside any bracket a line above opened: a blank line or a comment inside a function
    # body or an object is part of the program, not a new entry (`export default {` … `// a computed getter` …
    # `}` is one example). Brackets that do not balance over the block (help text: `[<开关>...］`) say nothing.
    # HTML elements count the same way (`<script setup>` … `</script>` of a Vue component is one example); a
    # placeholder (`git add <file>`) opens a tag nothing closes, so tags that do not balance say nothing either
    depth = dict.fromkeys(range(first, last + 1), 0)
    for balance in (_bracket_balance, _tag_balance):
        level, opened = 0, {}
        for ln in range(first, last + 1):
            opened[ln] = level
            level = max(0, level + balance(raw[ln - base]))
        if not level:
            depth = {ln: depth[ln] + opened[ln] for ln in depth}

    def top_level(ln: int) -> bool:
        return depth[ln] == 0

    groups: list[tuple[int, int]] = []
    start = None
    for ln in range(first, last + 1):
        text = raw[ln - base].strip()
        if not text:
            nxt = next((k for k in range(ln + 1, last + 1) if raw[k - base].strip()), None)
            if start is not None and (nxt is None or top_level(nxt)):
                groups.append((start, ln - 1))
                start = None
            continue
        if start is not None and _COMMENT.match(text) and not _COMMENT.match(raw[ln - 1 - base].strip()) and top_level(ln) \
                and not _indent(raw[ln - base]) > _indent(raw[ln - 1 - base]):
            groups.append((start, ln - 1))
            start = None
        if start is None:
            start = ln
    if start is not None:
        groups.append((start, last))
    groups = [(a, max(k for k in range(a, z + 1) if raw[k - base].strip())) for a, z in groups]
    merged: list[tuple[int, int]] = []
    for a, z in groups:
        notes = all(_COMMENT.match(raw[ln - base].strip()) for ln in range(a, z + 1))
        if merged and notes and merged[-1][1] == a - 1:
            merged[-1] = (merged[-1][0], z)
        else:
            merged.append((a, z))
    return merged


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


_OPENERS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


def _bracket_balance(line: str) -> int:
    """Brackets a code line opens minus those it closes (a rough count: strings are not parsed)."""
    return sum(_OPENERS.get(ch, 0) for ch in line)


_TAG_OPEN = re.compile(r"<(?!(?:area|br|col|embed|hr|img|input|link|meta|source|track|wbr)\b)[A-Za-z][\w-]*(?:\s[^<>]*)?(?<!/)>", re.I)
_TAG_CLOSE = re.compile(r"</[A-Za-z][\w-]*\s*>")


def _tag_balance(line: str) -> int:
    """HTML elements a code line opens minus those it closes (void elements and `<x/>` open none)."""
    return len(_TAG_OPEN.findall(line)) - len(_TAG_CLOSE.findall(line))


# a comment line in the usual shells and languages: where a cheat-sheet fence starts its next entry
_COMMENT = re.compile(r"^(#(?!!)|//|--\s|;|rem\s)", re.I)


# a paragraph that is one bold line ("**创建软链接**", "__Example__"), at most this long: a heading in all but markup
LABEL_MAX_CHARS = 80
# a numbered case line (`1) Master crashes`, `2）一些Slave节点崩溃`, `(3) All slaves crash`): a short label that ends in
# no sentence punctuation, over the paragraph that answers for that case
# (matched once character references are decoded: an FAQ may indent the line with `&#8195;`)
_ENUM_LABEL = re.compile(r"^\s*(?:(?:\d{1,2}|[a-z])[)）]|[(（]\d{1,2}[)）])\s*[^\s.。:：;；,，!！?？]+(?:\s+[^\s.。:：;；,，!！?？]+){0,5}$")
ENUM_LABEL_MAX_CHARS = 40
# a paragraph that is only an option's spelling: `--soft or -s`, `-o, --output FILE`, `--depth=<n>`, `<commitcount>`
_FLAG = r"`?-{1,2}[A-Za-z0-9][\w-]*(?:[= ](?:<[^<>]+>|\[[^\]]+\]|[A-Z][A-Z0-9_]*))?`?"
_OPTION_SPEC = re.compile(rf"^(?:{_FLAG}(?:\s*(?:,|\bor\b|\|)\s*{_FLAG})*|`?<[\w-]+>`?)$")
_BOLD_LINE = re.compile(r"^(\*\*|__)(?=\S)(.+?)(?<=\S)\1\s*[:：]?$")


def _nothing_shown_between(lines: list[str], a: int, z: int, wrappers: set[int]) -> bool:
    """Only blank lines, wrapper HTML or layout markup between lines a and z (both excluded)."""
    return not any(lines[k - 1].strip(" \t>") and k not in wrappers and not _LAYOUT.match(lines[k - 1]) for k in range(a + 1, z))


def _labels(lines: list[str], blocks: tuple[Block, ...], b: Block, c: Block, wrappers: set[int]) -> bool:
    """Is paragraph `b` a bold label line heading paragraph `c` (the next block, only blank lines
    between, at the same nesting, itself not a label and not the start of a list item), or a definition
    list's term over its definition?"""
    if b.end != b.start or c.kind != "paragraph" or c.start <= b.end or c.depth != b.depth or c.parent != b.parent:
        return False
    text = " ".join(_prose_lines(lines, blocks, b)).strip()
    if _DEFINITION_LINE.match(lines[c.start - 1]):  # a term over its definition (`social.icon` / blank / `:   This property …`)
        return len(text) <= LABEL_MAX_CHARS and c.start > b.end + 1 and not any(lines[k - 1].strip() for k in range(b.end + 1, c.start))
    if _OPTION_SPEC.match(decode_references(text).strip()) and len(text) <= LABEL_MAX_CHARS:
        # a man page's option over its description (`--soft or -s` / blank / "Rolls back the commit(s) …")
        nxt_text = decode_references(" ".join(_prose_lines(lines, blocks, c))).strip()
        return _nothing_shown_between(lines, b.end, c.start, wrappers) and not _OPTION_SPEC.match(nxt_text) and not is_code_only(nxt_text)
    m = _BOLD_LINE.match(text)
    # "1) Master crashes" / "2）一些Slave节点崩溃" over the paragraph that says what then happens
    shown = decode_references(text).strip()
    enumerated = m is None and _ENUM_LABEL.match(shown) is not None and len(shown) <= ENUM_LABEL_MAX_CHARS
    if not enumerated and (m is None or len(text) > LABEL_MAX_CHARS or "**" in m.group(2) or "__" in m.group(2)):
        return False
    if not _nothing_shown_between(lines, b.end, c.start, wrappers):
        return False
    if c.parent >= 0 and blocks[c.parent].kind == "list_item" and blocks[c.parent].start == c.start:
        return False
    nxt_text = " ".join(_prose_lines(lines, blocks, c)).strip()
    # a case line over the next case line ("1) Install" / "2) Configure") is a list written as paragraphs
    return _BOLD_LINE.match(nxt_text) is None and not (enumerated and _ENUM_LABEL.match(decode_references(nxt_text).strip())) and not is_boilerplate(nxt_text)


# a reference entry's field bullet: a short label (bold, or ending in a colon) and a short value —
# `- **Type:** `number``, `- **默认值：** `500``, `* Default: **true**`, `- **Since** 2.1`
_FIELD = re.compile(r"^(?:(\*\*|__)[^*_:：`\s][^*_:：`]{0,23}?\1\s*[:：]?|(\*\*|__)[^*_:：`\s][^*_:：`]{0,23}?[:：]\2|[^*_:：`\s][^*_:：`]{0,23}?[:：])\s*(\S.{0,59})$")
FIELDS_MAX = 6


def _field_run(lines: list[str], blocks: tuple[Block, ...], leaves: list[int], pos: int, wrappers: set[int]) -> tuple[list[int], list[str]] | None:
    """(the leaves, their shown texts) of a reference entry's field list that starts at leaves[pos], or None.

    Config references (VitePress, Vitest, pnpm) write an entry as a heading, a list of two or more short
    `**Label:** value` bullets (type, default, since), then the description: a list of only such bullets, right
    under a heading, with a paragraph right under it at the heading's nesting. The description says what
    the entry is; the bullets hold its values ("what is the default?") and are quoted with it."""
    def gap(a: int, z: int) -> bool:
        return _nothing_shown_between(lines, a, z, wrappers)

    h, first = blocks[leaves[pos - 1]], blocks[leaves[pos]]
    if h.kind != "heading" or h.level < 2 or not gap(h.end, first.start):
        return None
    run: list[int] = []
    texts: list[str] = []
    k = pos
    while k < len(leaves) and len(run) <= FIELDS_MAX:
        b = blocks[leaves[k]]
        item = blocks[b.parent] if b.parent >= 0 else None
        if b.kind != "paragraph" or b.end != b.start or item is None or item.kind != "list_item" or item.start != b.start \
                or b.depth != first.depth or item.parent != h.parent or (run and not gap(blocks[run[-1]].end, b.start)):
            break
        raw = " ".join(_prose_lines(lines, blocks, b)).strip()
        if _FIELD.match(raw) is None:
            return None
        text = shown_text(raw).strip()
        run.append(leaves[k])
        if not is_boilerplate(text):  # a link-only "**See also:** [x](x.md)" is no value
            texts.append(text)
        k += 1
    if not 2 <= len(run) <= FIELDS_MAX or k >= len(leaves):
        return None
    desc = blocks[leaves[k]]
    if desc.kind != "paragraph" or desc.parent != h.parent or not gap(blocks[run[-1]].end, desc.start) or not texts:
        return None
    prose = shown_text(" ".join(_prose_lines(lines, blocks, desc))).strip()
    if not prose or is_boilerplate(prose) or is_code_only(prose) or _LAYOUT.match(prose):
        return None  # a badge, a command or a container marker under the list describes nothing
    return run, texts


# a field line on its own: an emphasized label and a short value (`*Default:* `450`.`, `**Default**: 500`, `**默认值：** 500`)
_FIELD_LINE = re.compile(r"^(\*\*|__|\*|_)[^*_:：`\s][^*_:：`]{0,23}?(?:[:：]\1|\1\s*[:：])\s*\S.{0,59}$")


def _field_follows(lines: list[str], blocks: tuple[Block, ...], b: Block, c: Block) -> bool:
    """Is `c` a one-line field (`*Default:* `450`.`) right under paragraph `b` (only blank lines between, in the same
    container)? A reference page writes an entry's default under its description (Homebrew's manpage: a definition
    list of `HOMEBREW_*` variables); alone, the line says nothing of what it is the default of."""
    if c.kind != "paragraph" or c.start != c.end or c.parent != b.parent or c.depth != b.depth or c.start <= b.end:
        return False
    if any(lines[k - 1].strip(" \t>") for k in range(b.end + 1, c.start)):
        return False
    if c.parent >= 0 and blocks[c.parent].kind == "list_item" and blocks[c.parent].start == c.start:
        return False
    return _FIELD_LINE.match(" ".join(_prose_lines(lines, blocks, c)).strip()) is not None


def _code_follows(lines: list[str], blocks: tuple[Block, ...], b: Block, c: Block, wrappers: set[int]) -> bool:
    """Is `c` the code that belongs to paragraph `b` (next block, only blank lines between, not a new
    list item, not deeper in the nesting)?"""
    if c.start <= b.end or not _nothing_shown_between(lines, b.end, c.start, wrappers):
        return False
    if c.depth > b.depth:
        return False
    if _is_code(lines, c):
        return True
    if c.kind != "paragraph" or c.end != c.start:
        return False
    if c.parent >= 0 and blocks[c.parent].kind == "list_item" and blocks[c.parent].start == c.start:
        return False
    return is_code_only(" ".join(_prose_lines(lines, blocks, c))) and not _opens_definition(lines, c.end)


def looks_like_injection(text: str) -> bool:
    """True for text that tries to instruct an AI (it is data, and never quoted as an answer)."""
    return _INJECTION.search(text) is not None


# a stub where content is still to be written ("TODO: Command needed", "TBD", 待补充): never an answer
_PLACEHOLDER = re.compile(r"^(todo|tbd|fixme|xxx|wip|n/?a|coming soon|to be (written|done|added|documented)|待补充|待完善|待定|暂无|未完成|施工中)"
                          r"(?![a-z])[\s:：.!-]*.{0,40}$", re.I)
_LEAD_LABEL = re.compile(r"^\*\*[^*]+\*\*:\s*")  # a definition's "**Heading**: "
_CODE_DRESS = re.compile(r"^\s*(```+|~~~+)\S*\s*$|^\s*(#+|//|--|;)\s?", re.M)


def is_placeholder(text: str) -> bool:
    """A stub where content is still to be written: `TODO`, `# TODO: Command needed`, `TBD`, 待补充."""
    rest = " ".join(_CODE_DRESS.sub("", _LEAD_LABEL.sub("", text)).split()).strip("*_ ")
    return bool(rest) and _PLACEHOLDER.match(rest) is not None


def is_boilerplate(text: str) -> bool:
    """Link-only lines ("More information: <url>", "Related to: [ADR 2](…)"), badges and layout directives."""
    if _LAYOUT.match(text):
        return True
    rest = _MD_LINK.sub(" ", text)
    rest = _LABEL.sub("", rest.replace("*", " ").replace("_", " "))
    return not re.search(r"\w", rest) and text.strip() != ""


def shows_code(code: str) -> bool:
    """Does a fence show any code: a line besides its ``` lines, blanks and include directives?"""
    return any(ln.strip() and not ln.lstrip().startswith(("```", "~~~")) and not _INCLUDE.match(ln) for ln in code.split("\n"))


# a content tab's marker (`=== "Linux"`, `===+ ":octicons-file-code-16: `docs/page.md`"`): its label is what the
# reader sees on the tab, and says what the code under it is for; an icon shortcode (`:material-check:`) shows no word
_TAB = re.compile(r'^\s*===[+!]?\s+"(.*)"\s*$')
_ICON = re.compile(r"(?<![\w:]):[a-z][a-z0-9]*(?:-[a-z0-9]+)+:(?![\w:])")


def _tab_label(line: str) -> str:
    m = _TAB.match(line)
    return line if m is None else " ".join(_ICON.sub(" ", m.group(1)).split())


def _paragraph_units(path: str, lines: list[str], blocks: tuple[Block, ...], j: int, code_j: int | None, prev: int | None, crumbs: Crumbs) -> list[AnswerUnit]:
    b = blocks[j]
    prose = _prose_lines(lines, blocks, b)
    if _AUTODOC.match(prose[0]):
        return []  # mkdocstrings' `::: package.module.Name` and the options under it: the page is generated from it
    first, last = b.start, b.end
    # boilerplate lines at either end ("More information: <url>" under a description) are cut off
    while len(prose) > 1 and is_boilerplate(prose[-1]):
        prose, last = prose[:-1], last - 1
    while len(prose) > 1 and is_boilerplate(prose[0]) and not any(a.start == first for a in _ancestors(blocks, b)):
        prose, first = prose[1:], first + 1
    if (first, last) != (b.start, b.end):
        b = Block(b.kind, first, last, b.parent, b.depth)
    # a container's marker lines inside a paragraph (":::tip" right above the text, ":::" right under it)
    prose = ["" if _LAYOUT.match(p) else _tab_label(p) for p in prose]
    text = shown_text(" ".join(p for p in prose if p))
    if not text and code_j is None:
        return []  # an anchor (`<a id="…"></a>`) or a comment: nothing a reader sees
    if _LAYOUT.match(text) or all(_LAYOUT.match(p) for p in prose if p):
        return []
    code = ""
    end = b.end
    if code_j is not None:
        c = blocks[code_j]
        if c.kind == "paragraph":
            code = " ".join(_prose_lines(lines, blocks, c)).strip()
            end = c.end
        else:
            _first, end, code = _code_groups(lines, blocks, c)[0]
            if not shows_code(code):
                code, end = "", b.end
    if is_boilerplate(text) and not code:
        return []
    if is_code_only(text) and not code:
        return [_unit(path, lines, b.start, end, "code", "", text, crumbs)]
    start = b.start
    parent = blocks[b.parent] if b.parent >= 0 else None
    kind: UnitKind = "item" if parent is not None and parent.kind == "list_item" and parent.start == b.start else "paragraph"
    if len(text) > LONG_PARAGRAPH_CHARS or looks_like_injection(text):
        sentences = [(a, z, shown) for a, z, t in _sentences(prose, b.start) if (shown := shown_text(t)) and not looks_like_injection(shown)]
        if not sentences:
            return []
        if not code:
            return [_unit(path, lines, s, e, "sentence", t, "", crumbs) for s, e, t in sentences]
        head = [_unit(path, lines, s, e, "sentence", t, "", crumbs) for s, e, t in sentences[:-1]]
        s, _e, t = sentences[-1]
        return [*head, _unit(path, lines, s, end, kind, t, code, crumbs)]
    if prev is not None and kind == "paragraph" and not code and len(text) <= DEFINITION_MAX_CHARS:
        h = blocks[prev]
        if h.kind == "heading" and h.level >= 2 and h.parent == b.parent and not any(lines[k - 1].strip() for k in range(h.end + 1, b.start)):
            return [_unit(path, lines, h.start, end, "definition", f"**{heading_label(h.text)}**: {text}", "", crumbs)]
    return [_unit(path, lines, start, end, kind, text, code, crumbs)]


# a full stop that ends no sentence: an abbreviation ("(e.g. word-wise movement …)", "i.e.", "vs.")
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|vs|cf|approx|incl|etc|resp|esp|ca)\.|\bN[Oo]\.)$")


def _sentence_spans(joined: str) -> list[tuple[int, int]]:
    """(start, end) of each `_SENTENCE` piece, a piece that ends in an abbreviation or inside an open parenthesis ("…
    (e.g. word-wise cursor movement … elsewhere)") or code span joined to the next one (a lower-case word after "etc." goes on; a
    capital starts anew)."""
    out: list[tuple[int, int]] = []
    begin: int | None = None  # where a piece carried over to the next one starts
    for m in _SENTENCE.finditer(joined):
        start = m.start() if begin is None else begin
        t = joined[start : m.end()].rstrip()
        nxt = joined[m.end() :].lstrip()[:1]
        open_paren = t.count("(") > t.count(")") or t.count("（") > t.count("）")
        # a code span holds no sentence end ("… you will encounter `ERROR:  could not resize shared memory segment . . . :
        # No space left on device`. You will want …" was quoted up to its first ". ")
        open_code = t.count("`") % 2 == 1
        abbreviation = _ABBREVIATION.search(t) is not None and not (t.endswith("etc.") and nxt.isupper())
        if (open_paren or open_code or abbreviation) and nxt and len(t) < LONG_PARAGRAPH_CHARS:  # a stray "(" does not swallow the rest
            begin = start
            continue
        begin = None
        out.append((start, m.end()))
    if begin is not None:
        out.append((begin, len(joined)))
    return out


def _sentences(prose: list[str], first_line: int) -> list[tuple[int, int, str]]:
    """Sentences of a wrapped paragraph as (first line, last line, text); text is verbatim."""
    joined = ""
    offsets: list[tuple[int, int]] = []
    for k, p in enumerate(prose):
        if joined:
            joined += " "
        offsets.append((len(joined), first_line + k))
        joined += p
    out: list[tuple[int, int, str]] = []
    for a, z in _sentence_spans(joined):
        piece = joined[a:z]
        t = piece.strip()
        if len(t) < 3:
            continue
        lead = a + len(piece) - len(piece.lstrip())
        s = max(n for off, n in offsets if off <= lead)
        e = max(n for off, n in offsets if off <= max(z - 1, lead))
        out.append((s, e, t))
    return out or [(first_line, first_line + len(prose) - 1, joined)]


_RULE_CELL = re.compile(r":?-{3,}:?")


def _cells(row: str) -> list[str]:
    row = row.strip()
    if row.startswith("|"):
        row = row[1:]
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", row)]


def _row_units(path: str, lines: list[str], blocks: tuple[Block, ...], b: Block, crumbs: Crumbs) -> list[AnswerUnit]:
    quotes = sum(1 for a in _ancestors(blocks, b) if a.kind == "blockquote")
    # a cell shows what a reader sees: `<br/>` between two lines of a cell is a space, not a tag
    header = [shown_text(h).replace("`", "") for h in _cells(_strip_containers(lines[b.start - 1], quotes, 0))]
    out = []
    for ln in b.rows:
        cells = [shown_text(c) for c in _cells(_strip_containers(lines[ln - 1], quotes, 0))]
        if not any(cells) or all(_RULE_CELL.fullmatch(c) for c in cells if c):
            continue  # empty, or a second delimiter row (`| --- | --- |` between groups of rows): layout
        parts = [f"{header[k]}: {c}" if k < len(header) and header[k] else c for k, c in enumerate(cells) if c]
        out.append(_unit(path, lines, ln, ln, "row", " · ".join(parts), "", crumbs))
    return out
