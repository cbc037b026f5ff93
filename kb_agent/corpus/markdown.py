"""Markdown structure: YAML front matter, headings (from corpus/blocks.py) with GitHub anchors, links and
wikilinks, fences."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kb_agent.corpus.blocks import Block
from kb_agent.types import Heading, Link

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# MkDocs / Pandoc attribute list closing a heading: `## Title { #custom-id }`
# a heading's trailing attribute list (Python-Markdown's attr_list, kramdown, Pandoc): `{ #id }`, `{: #id .class }`,
# `{ id="9.6.10" }` — ids, classes and key=value pairs only, so a heading ending in a literal `{...}` keeps it
_ATTR = r"""(?:[#.][\w:.-]+|[\w-]+=(?:"[^"]*"|'[^']*'|[^\s}"']+))"""
_ATTR_LIST = re.compile(rf"\s*\{{:?\s*({_ATTR}(?:\s+{_ATTR})*)\s*\}}\s*$")
_ATTR_ID = re.compile(r"""(?:^|\s)(?:#([\w:.-]+)|id=(?:"([^"]*)"|'([^']*)'|([^\s"']+)))""")
# no `[` inside a link's text or target, nor inside a wikilink: each match attempt then stops at the next bracket,
# so a line of ten thousand `[` or `[a](` costs one pass, not one pass per bracket (it took minutes to index)
# (an image may stand for the text: `[![cover](cover.jpg)](cover-large.jpg)`)
_MD_LINK = re.compile(r"(?<!!)\[((?:[^\[\]\n!]|!(?!\[)|!\[[^\[\]\n]*\]\([^()\s]*\))*)\]\(\s*<?([^()\[\]\s<>]+)>?(?:\s+\"[^\"\n]*\")?\s*\)")
_WIKILINK = re.compile(r"\[\[([^\[\]\|#\n]*)(?:#([^\[\]\|\n]*))?(?:\|([^\[\]\n]*))?\]\]")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")  # http:, mailto:, ftp: …

# inline HTML a renderer shows no text for: comments (mdBook's `<!-- ignore -->`) and the tags of common
# elements (`<a id="…"></a>` anchors, `<span class="filename">`, `<kbd>`). Only these tag names: `Vec<T>`
# or `Option<String>` written in prose are words, not markup
_INLINE_TAGS = (r"(?:a|abbr|audio|b|br|center|code|del|details|dfn|div|em|figcaption|figure|font|i|iframe|img|ins|"
                r"kbd|li|mark|ol|p|picture|small|source|span|strong|sub|summary|sup|u|ul|var|video|wbr)")
_INLINE_HTML = re.compile(rf"<!--.*?-->|</?{_INLINE_TAGS}(?:\s[^<>]*)?/?>", re.S)
# one element closed and the next opened with nothing between, inside a word's letters: two pieces a reader
# sees apart (`<del>one</del><ins>a single</ins>`, `<span class="options-api">method</span><span
# class="composition-api">function</span>`, one of which a style hides), shown with a space between, never
# glued into one word ("onea", "methodfunction")
_ADJACENT_ELEMENTS = re.compile(rf"(?<=\w)</{_INLINE_TAGS}\s*><{_INLINE_TAGS}(?:\s[^<>]*)?>(?=\w)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")


def has_code_span(text: str) -> bool:
    """Does `text` hold an inline code span (`` `git reset HEAD~` ``, ``` ``a`b`` ```)?"""
    return _CODE_SPAN.search(text) is not None


# Front matter is a title, tags and a few fields; 64 KB is far beyond any real block, and caps the
# YAML parser's work on a hostile file before it starts.
MAX_FRONT_MATTER_BYTES = 64 * 1024
# The closing `---` must come within this many lines, or the file has no front matter.
MAX_FRONT_MATTER_LINES = 200
# Nodes the front matter may hold once aliases (`*name`) are expanded. A YAML alias bomb ("billion
# laughs") is a few hundred bytes that expand to billions of nodes when anything walks the data
# (str(), json.dumps); real front matter has tens of nodes, so this refuses only bombs.
MAX_FRONT_MATTER_NODES = 10_000
# Nesting deeper than this is refused before PyYAML's recursive composer hits Python's stack limit.
MAX_FRONT_MATTER_DEPTH = 50


@dataclass(frozen=True, slots=True)
class FrontMatter:
    data: dict[str, Any]
    end_line: int  # last line of the front matter block (0 when there is none)
    warning: str | None = None  # why the block was refused (the file is still indexed as text)


class FrontMatterRefused(ValueError):
    """The front matter is too large, too deep, or expands beyond the node budget."""


def parse_front_matter(lines: list[str]) -> FrontMatter:
    """YAML between a first line `---` and the next `---`/`...` (or Hugo's TOML between `+++` lines);
    malformed YAML or TOML counts as none.

    The block is bounded: over MAX_FRONT_MATTER_BYTES, nested deeper than MAX_FRONT_MATTER_DEPTH or
    expanding (through aliases) to more than MAX_FRONT_MATTER_NODES nodes, it is refused with a
    `warning` and its data is empty; the body still counts as the file's text.
    """
    if lines and lines[0].strip() == "+++":
        return _toml_front_matter(lines)
    if not lines or lines[0].strip() != "---":
        return FrontMatter({}, 0)
    for i in range(1, min(len(lines), MAX_FRONT_MATTER_LINES)):
        if lines[i].strip() in ("---", "..."):
            try:
                data = load_front_matter_yaml("\n".join(lines[1:i]))
            except FrontMatterRefused as e:
                return FrontMatter({}, i + 1, f"front matter ignored: {e}")
            return FrontMatter(data, i + 1)
    return FrontMatter({}, 0)


def _toml_front_matter(lines: list[str]) -> FrontMatter:
    """Hugo's TOML front matter (`+++` … `+++`), under the same size and nesting bounds as YAML's."""
    end = next((i for i in range(1, min(len(lines), MAX_FRONT_MATTER_LINES)) if lines[i].strip() == "+++"), None)
    if end is None:
        return FrontMatter({}, 0)
    text = "\n".join(lines[1:end])
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FRONT_MATTER_BYTES:
        return FrontMatter({}, end + 1, f"front matter ignored: larger than {MAX_FRONT_MATTER_BYTES // 1024} KB")
    if _max_flow_depth(text) > MAX_FRONT_MATTER_DEPTH:
        return FrontMatter({}, end + 1, f"front matter ignored: nested deeper than {MAX_FRONT_MATTER_DEPTH} levels")
    import tomllib

    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError, ValueError):
        data = {}
    return FrontMatter(data, end + 1)


def load_front_matter_yaml(text: str) -> dict[str, Any]:
    """Parse front-matter YAML within the bounds above; malformed YAML gives {}.

    Raises:
        FrontMatterRefused: the block is too large, too deep or expands too far.
    """
    import yaml

    if len(text.encode("utf-8", "surrogatepass")) > MAX_FRONT_MATTER_BYTES:
        raise FrontMatterRefused(f"larger than {MAX_FRONT_MATTER_BYTES // 1024} KB")
    if _max_flow_depth(text) > MAX_FRONT_MATTER_DEPTH:
        raise FrontMatterRefused(f"nested deeper than {MAX_FRONT_MATTER_DEPTH} levels")
    try:
        loader = yaml.SafeLoader(text)
    except yaml.YAMLError:  # e.g. control characters YAML does not allow
        return {}
    try:
        node = loader.get_single_node()
        if node is None:
            return {}
        check_yaml_expansion(node, MAX_FRONT_MATTER_NODES)
        data = loader.construct_document(node)
    except FrontMatterRefused:
        raise
    except RecursionError:
        raise FrontMatterRefused(f"nested deeper than {MAX_FRONT_MATTER_DEPTH} levels") from None
    except (yaml.YAMLError, ValueError, TypeError):  # malformed; or an int past Python's digit limit, a bad date
        return {}
    finally:
        loader.dispose()
    return data if isinstance(data, dict) else {}


def _max_flow_depth(text: str) -> int:
    """An upper bound on bracket nesting (`[[[…` / `{{{…`) that needs no parser."""
    depth = deepest = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}" and depth:
            depth -= 1
    return deepest


def check_yaml_expansion(root: Any, max_nodes: int) -> None:
    """Count the nodes a composed YAML node expands to (aliases counted at every use), stopping at
    `max_nodes`. Raises FrontMatterRefused past the budget, past MAX_FRONT_MATTER_DEPTH, or on a
    recursive alias.

    Shared subtrees are counted once per reference by memoising each node's expanded size, so the
    walk itself stays linear in the composed (unexpanded) graph; a recursive alias is refused.
    """
    import yaml

    sizes: dict[int, int] = {}
    active: set[int] = set()

    def size(node: Any, depth: int) -> int:
        key = id(node)
        if key in sizes:
            return sizes[key]
        if key in active:
            raise FrontMatterRefused("a YAML alias refers to itself")
        if depth > MAX_FRONT_MATTER_DEPTH:
            raise FrontMatterRefused(f"nested deeper than {MAX_FRONT_MATTER_DEPTH} levels")
        total = 1
        if isinstance(node, (yaml.SequenceNode, yaml.MappingNode)):
            active.add(key)
            children = node.value if isinstance(node, yaml.SequenceNode) else [x for pair in node.value for x in pair]
            for child in children:
                total += size(child, depth + 1)
                if total > max_nodes:
                    raise FrontMatterRefused(f"more than {max_nodes:,} values once YAML aliases are expanded")
            active.discard(key)
        sizes[key] = total
        return total

    size(root, 0)


def fence_mask(lines: list[str]) -> list[bool]:
    """True for every line inside a fenced code block, fence lines included."""
    mask = [False] * len(lines)
    opener: str | None = None
    for i, line in enumerate(lines):
        m = _FENCE.match(line)
        if opener is None:
            if m:
                opener = m.group(1)
                mask[i] = True
        else:
            mask[i] = True
            if m and m.group(1)[0] == opener[0] and len(m.group(1)) >= len(opener) and not line.strip()[len(m.group(1)):].strip():
                opener = None
    return mask


def slugify(text: str) -> str:
    """GitHub's heading anchor: lower-case, punctuation dropped, spaces to hyphens, CJK kept."""
    text = _INLINE_CODE.sub(lambda m: m.group()[1:-1], text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).strip().lower()
    out = []
    for ch in text:
        if ch.isalnum() or ch in "-_":
            out.append(ch)
        elif ch == " ":
            out.append("-")
        elif unicodedata.category(ch).startswith(("L", "N", "M")):
            out.append(ch)
    return "".join(out)


def heading_text(raw: str) -> tuple[str, str | None]:
    """A heading's text as a reader sees it (inline HTML as `shown_text` shows it: `9.6.10 <small>March 30,
    2025</small>` is "9.6.10 March 30, 2025") without a trailing attribute list (`{ #id }`, `{ id="x" }`),
    and the explicit id that list gives, if any."""
    text = " ".join(raw.split())
    m = _ATTR_LIST.search(text)
    if m is None:
        return shown_text(text), None
    ident = _ATTR_ID.search(m.group(1))
    return shown_text(text[: m.start()].rstrip()), next((g for g in ident.groups() if g), None) if ident else None


def headings_from_blocks(blocks: tuple[Block, ...]) -> list[Heading]:
    """Top-level headings (ATX `# x` and setext `x` over `===`/`---`) with unique GitHub anchors."""
    headings: list[Heading] = []
    seen: dict[str, int] = {}
    for b in blocks:
        if b.kind != "heading" or b.parent != -1:
            continue
        text, anchor = heading_text(b.text)
        if not text:
            continue
        base = anchor or slugify(text)
        n = seen.get(base, 0)
        seen[base] = n + 1
        headings.append(Heading(line=b.start, level=b.level, text=text, slug=base if n == 0 else f"{base}-{n}"))
    return headings


def parse_links(lines: list[str], fences: list[bool]) -> list[Link]:
    """Relative markdown links and wikilinks outside code; external URLs are left out."""
    links: list[Link] = []
    for i, line in enumerate(lines):
        if fences[i] or ("](" not in line and "[[" not in line):
            continue
        clean = _INLINE_CODE.sub(lambda m: " " * len(m.group()), line)
        for m in _MD_LINK.finditer(clean):
            href = m.group(2)
            if _EXTERNAL.match(href) or href.startswith("//"):
                continue
            target, _, anchor = href.partition("#")
            links.append(Link(line=i + 1, target=target, anchor=anchor or None, kind="md", text=m.group(1)))
        for m in _WIKILINK.finditer(clean):
            target = m.group(1).strip()
            links.append(Link(line=i + 1, target=target, anchor=(m.group(2) or "").strip() or None, kind="wiki", text=(m.group(3) or target).strip()))
    return links


def as_str_tuple(value: Any) -> tuple[str, ...]:
    """Front-matter list-or-string fields (`tags: a, b` or `tags: [a, b]`) as a tuple of strings."""
    if value is None:
        return ()
    if isinstance(value, str):
        return tuple(v.strip() for v in value.split(",") if v.strip())
    if isinstance(value, (list, tuple)):
        return tuple(str(v).strip() for v in value if str(v).strip())
    return (str(value),)


def shown_text(text: str) -> str:
    """Prose as a reader sees it rendered: inline HTML comments and tags dropped (their words kept),
    outside code spans. Three tags carry meaning a dropped tag would lose: a superscript is written
    `^` (`2<sup>7</sup>` is 2^7, not 27; `2<sup>n − 1</sup>` is 2^(n − 1)), a line break is a
    space (`a<br/>b` is not "ab") and an HTML code element is a code span (`<code>&vert;&vert;</code>`
    is `||`). Character references are the characters they name (`&vert;` is |), except inside a
    code span, where markdown shows them as written. Notes apps' and GitHub's own syntax is shown as
    they render it: an alert's or callout's `[!NOTE]` marker is dropped (its title kept), a wikilink
    `[[Page|alias]]` shows its alias (`[[Page]]` its page), an embed `![[x.png]]` and a `%% comment %%`
    show nothing, a highlight `==word==` shows the word. Nothing else changes: a tag between two spaces
    leaves one space."""
    if "<" not in text and "&" not in text and not _NOTES_SYNTAX.search(text):
        return text
    joined = _around(_CODE_SPAN, text, _shown_html, lambda m: m.group())
    if joined == text:
        return text
    joined = re.sub(r" ?\x01[\x00\x01]* ?", " ", joined)
    return re.sub(r"( ?)\x00+( ?)", lambda m: " " if m.group(1) and m.group(2) else m.group(1) + m.group(2), joined).strip()


_SUP = re.compile(r"<sup(?:\s[^<>]*)?>\s*([^<>]*?)\s*</sup>", re.I)
# a line break, or the start of a list item inside a paragraph or a table cell (`<ul><li>a</li><li>b</li></ul>`)
_BR = re.compile(r"<br\s*/?>|<li(?:\s[^<>]*)?>", re.I)
_ONE_TOKEN = re.compile(r"[\w.]+")


def _superscript(m: re.Match[str]) -> str:
    power = m.group(1)
    return f"^{power}" if _ONE_TOKEN.fullmatch(power) else f"^({power})" if power else "\x00"


_HTML_CODE = re.compile(r"<code(?:\s[^<>]*)?>([^<>]*)</code>", re.I)
# a character reference as markdown reads one: named, decimal or hex, always with its semicolon (a bare
# `&copy` or `&para=` in a URL is text)
_CHAR_REF = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")


def decode_references(text: str) -> str:
    """`text` with its character references (`&vert;`, `&#39;`, `&#x7C;`; the semicolon required) decoded."""
    if "&" not in text or not _CHAR_REF.search(text):
        return text
    import html  # only text with a character reference needs it

    return _CHAR_REF.sub(lambda m: html.unescape(m.group()), text)


def _code_span(code: str) -> str:
    fence = "``" if "`" in code else "`"
    pad = " " if fence == "``" else ""
    return f"{fence}{pad}{code}{pad}{fence}"


def _shown_html(text: str) -> str:
    """Text outside code spans with superscripts written `^`, HTML code elements as code spans, character
    references decoded, line breaks marked to become one space and the other known tags marked to be
    dropped (shown_text joins the marks)."""
    if "<" not in text and "&" not in text and not _NOTES_SYNTAX.search(text):
        return text
    return _around(_HTML_CODE, text, _shown_prose, lambda m: _code_span(decode_references(m.group(1))))


def _around(pattern: re.Pattern[str], text: str, between: Callable[[str], str], each: Callable[[re.Match[str]], str]) -> str:
    """`text` with `each` applied to every match of `pattern` and `between` to the text around them."""
    parts: list[str] = []
    pos = 0
    for m in pattern.finditer(text):
        parts.append(between(text[pos : m.start()]))
        parts.append(each(m))
        pos = m.end()
    parts.append(between(text[pos:]))
    return "".join(parts)


# GitHub alerts (`> [!NOTE]`) and Obsidian callouts (`> [!warning]- Title`), wikilinks and embeds, comments,
# highlights: what a notes app (or GitHub) renders, not what it shows
_NOTES_SYNTAX = re.compile(r"^\[![A-Za-z]+\]|\[\[|%%|==\S|\{:")
# a kramdown (Jekyll) attribute list after a paragraph's text: `{: .note }`, `{: #id .warning}`
_KRAMDOWN_IAL = re.compile(rf"[ \t]*\{{:[ \t]*(?:{_ATTR}(?:[ \t]+{_ATTR})*)?[ \t]*\}}")
_ALERT = re.compile(r"^\[![A-Za-z]+\][+-]?[ \t]*")
_EMBED = re.compile("!" + _WIKILINK.pattern)  # an embedded note or image: `![[diagram.png]]`
_NOTES_COMMENT = re.compile(r"%%.*?%%", re.S)
_HIGHLIGHT = re.compile(r"(?<![=\w])==(?=\S)([^=\n]+?)(?<=\S)==(?![=\w])")


def _wikilink(m: re.Match[str]) -> str:
    """What a notes app shows for `[[target#anchor|alias]]`: the alias, else the target (and its anchor)."""
    target, anchor, alias = m.group(1).strip(), (m.group(2) or "").strip(), (m.group(3) or "").strip()
    return alias or " ".join(p for p in (target, anchor) if p) or "\x00"


def _shown_notes(text: str) -> str:
    text = _ALERT.sub("", text)
    if "[[" in text:
        text = _WIKILINK.sub(_wikilink, _EMBED.sub("\x00", text))
    if "%%" in text:
        text = _NOTES_COMMENT.sub("\x00", text)
    if "==" in text:
        text = _HIGHLIGHT.sub(r"\1", text)
    if "{:" in text:
        text = _KRAMDOWN_IAL.sub("", text)
    return text


def _shown_prose(text: str) -> str:
    if _NOTES_SYNTAX.search(text):
        text = _shown_notes(text)
    if "<" in text:
        text = _INLINE_HTML.sub("\x00", _BR.sub("\x01", _ADJACENT_ELEMENTS.sub("\x01", _SUP.sub(_superscript, text))))
    return decode_references(text)
