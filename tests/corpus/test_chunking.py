"""Chunking: exact line ranges (property-tested), fences and tables never split, headings tracked."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from kb_agent.corpus.chunking import MAX_CHUNK_WEIGHT, parse_document
from kb_agent.corpus.markdown import fence_mask, slugify


_line = st.one_of(
    st.sampled_from(["", "# Title", "## Section", "### Sub", "```bash", "```", "| a | b |", "|---|---|", "- item", "> quote", "---", "中文段落，缓存过期时间。"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), max_size=120),
)


def _check(text: str) -> None:
    doc = parse_document("x.md", text)
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    lines = [ln.rstrip("\r") for ln in lines]
    prev_end = 0
    for c in doc.chunks:
        assert 1 <= c.start_line <= c.end_line <= len(lines)
        assert c.text == "\n".join(lines[c.start_line - 1 : c.end_line])
        assert c.start_line > prev_end, "chunks do not overlap and are in order"
        prev_end = c.end_line


@settings(max_examples=300, deadline=None)
@given(st.lists(_line, max_size=80))
def test_chunk_text_equals_file_lines(lines: list[str]) -> None:
    _check("\n".join(lines))


def test_every_sample_kb_file_round_trips(sample_kb: Path) -> None:
    files = sorted(sample_kb.rglob("*.md"))
    assert len(files) >= 40  # a wrong path must not pass by checking nothing
    for f in files:
        _check(f.read_text(encoding="utf-8"))


def test_code_fence_is_never_split_and_its_comments_are_not_headings() -> None:
    body = "\n".join(f"echo line {i}  # some comment that is long enough" for i in range(30))
    text = f"# Doc\n\nintro\n\n```bash\n# not a heading\n{body}\n```\n\n## Next\n\nmore text\n"
    doc = parse_document("a.md", text)
    assert [h.text for h in doc.headings] == ["Doc", "Next"]
    fence_start = text.split("\n").index("```bash") + 1
    holder = [c for c in doc.chunks if c.start_line <= fence_start <= c.end_line]
    assert len(holder) == 1 and "```bash" in holder[0].text and holder[0].text.count("```") == 2


def test_table_is_not_split() -> None:
    rows = "\n".join(f"| key.{i} | {'x' * 60} |" for i in range(40))
    text = f"# T\n\n| k | v |\n|---|---|\n{rows}\n\nafter\n"
    doc = parse_document("t.md", text)
    table_chunks = [c for c in doc.chunks if "| key." in c.text]
    assert len(table_chunks) == 1  # ~3,000 chars, under the hard cap: kept whole


def test_long_sections_split_at_paragraphs_with_breadcrumbs() -> None:
    paras = "\n\n".join(f"Paragraph {i} " + "word " * 60 for i in range(20))
    doc = parse_document("l.md", f"---\ntitle: Long\ntags: [a, b]\n---\n# Top\n\n## Part\n\n{paras}\n")
    assert doc.title == "Long" and doc.tags == ("a", "b")
    assert len(doc.chunks) > 3
    assert all(c.heading_path[-1] == "Part" for c in doc.chunks[1:])
    assert all(len(c.text) <= MAX_CHUNK_WEIGHT + 400 for c in doc.chunks)
    assert doc.chunks[0].start_line == 5  # front matter is not chunk text


def test_front_matter_title_fallbacks_and_bad_yaml() -> None:
    assert parse_document("dir/my-file.md", "no heading here\n").title == "my-file"
    assert parse_document("a.md", "# H1 Title\n\ntext\n").title == "H1 Title"
    doc = parse_document("b.md", "---\ntitle: [unclosed\n---\n# Real\n\nbody\n")
    assert doc.title == "Real"


def test_links_and_wikilinks_outside_code() -> None:
    text = "See [cfg](../reference/config.md#cache-settings) and [[glossary|Glossary]].\n`[not](a.md)`\n```\n[no](b.md)\n```\n[web](https://x.org)\n"
    doc = parse_document("runbooks/a.md", text)
    assert [(ln.kind, ln.target, ln.anchor) for ln in doc.links] == [("md", "../reference/config.md", "cache-settings"), ("wiki", "glossary", None)]


def test_slugify_and_fences() -> None:
    assert slugify("Cache settings") == "cache-settings"
    assert slugify("What's `cache.ttl_seconds`?") == "whats-cachettl_seconds"
    assert slugify("缓存 设计") == "缓存-设计"
    assert fence_mask(["a", "```", "# x", "```", "b"]) == [False, True, True, True, False]


HUGO = """+++
title = "Deploying the API"
date = 2024-01-02
tags = ["deploy", "api"]
draft = false
+++

Run `make deploy` from the repo root.
"""


def test_hugo_toml_front_matter_is_metadata_not_text() -> None:
    """Hugo writes its front matter as TOML between `+++` lines: title and tags are the page's, and no chunk
    or answer unit holds `title = "…"`."""
    from kb_agent.agent.units import build_units
    from kb_agent.corpus.chunking import parse_document, split_lines

    doc = parse_document("deploy.md", HUGO)
    assert (doc.title, doc.tags) == ("Deploying the API", ("deploy", "api"))
    assert not any("title =" in c.text or "+++" in c.text for c in doc.chunks)
    assert [u.text for u in build_units("deploy.md", split_lines(HUGO))] == ["Run `make deploy` from the repo root."]
    deep = parse_document("deep.md", "+++\nx = " + "[" * 100 + "]" * 100 + "\n+++\nbody zebracorn\n")
    assert deep.warnings and deep.warnings[0].startswith("front matter ignored") and any("zebracorn" in c.text for c in deep.chunks)
