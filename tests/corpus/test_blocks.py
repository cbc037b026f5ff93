"""Block structure from markdown-it-py: exact line ranges for every kind, setext headings and indented
code read correctly, and the chunker never separates code from the item or sentence that introduces it."""

from __future__ import annotations

from kb_agent.corpus.blocks import parse_blocks
from kb_agent.corpus.chunking import parse_document, split_lines

DOC = """---
title: Blocks
tags: [a]
---
Setext title
============

Intro paragraph
over two lines.

- Undo the last commit, keeping its changes:

  `git reset HEAD~`

- Archive a folder:
  ```bash
  tar czf out.tgz -C dir .
  ```
  - nested item

        indented code under the nested item

Sub heading
-----------

    indented code
    second line

> quoted text
> continues

| key | default |
|-----|---------|
| a.b | 1 |
| c.d | 2 |

<div>html</div>
"""


def _kinds(text: str) -> list[tuple[str, int, int, int]]:
    lines = split_lines(text)
    body = 4  # front matter lines
    return [(b.kind, b.start, b.end, b.depth) for b in parse_blocks(lines, body)]


def test_every_kind_has_its_exact_lines() -> None:
    got = _kinds(DOC)
    assert ("heading", 5, 6, 0) in got
    assert ("paragraph", 8, 9, 0) in got
    assert ("list_item", 11, 13, 0) in got and ("paragraph", 13, 13, 1) in got
    assert ("list_item", 15, 21, 0) in got
    assert ("fence", 16, 18, 1) in got
    assert ("list_item", 19, 21, 1) in got and ("code", 21, 21, 2) in got
    assert ("heading", 23, 24, 0) in got
    assert ("code", 26, 27, 0) in got
    assert ("blockquote", 29, 30, 0) in got and ("paragraph", 29, 30, 1) in got
    assert ("table", 32, 35, 0) in got
    assert ("html", 37, 37, 0) in got
    assert not any(start <= 4 for _k, start, _e, _d in got), "front matter is not a block"


def test_table_rows_and_headings() -> None:
    blocks = parse_blocks(split_lines(DOC), 4)
    table = next(b for b in blocks if b.kind == "table")
    assert table.rows == (34, 35)
    heads = [(b.text, b.level, b.setext) for b in blocks if b.kind == "heading"]
    assert heads == [("Setext title", 1, True), ("Sub heading", 2, True)]


def test_setext_headings_and_indented_code_in_documents() -> None:
    doc = parse_document("b.md", DOC)
    assert doc.title == "Blocks"
    assert [(h.line, h.level, h.text) for h in doc.headings] == [(5, 1, "Setext title"), (23, 2, "Sub heading")]
    # `# not a heading` inside indented code is code, not a heading
    doc2 = parse_document("c.md", "Title\n=====\n\n    # not a heading\n    echo hi\n\ntext\n")
    assert [h.text for h in doc2.headings] == ["Title"]


def test_chunker_keeps_item_and_its_code_together() -> None:
    filler = "\n\n".join(f"- Step {i}: " + "word " * 40 + f"\n\n  `cmd-{i} --flag`" for i in range(30))
    doc = parse_document("s.md", f"# Steps\n\n{filler}\n")
    assert len(doc.chunks) > 3
    for i in range(30):
        holders = [c for c in doc.chunks if f"Step {i}:" in c.text]
        assert len(holders) == 1 and f"`cmd-{i} --flag`" in holders[0].text


def test_chunker_keeps_intro_sentence_with_its_fence_and_tldr_pairs() -> None:
    paras = "\n\n".join("Paragraph " + "text " * 50 for _ in range(6))
    pairs = "\n\n".join(f"- Description {i}:\n\n`command-{i} .`" for i in range(40))
    text = f"# Doc\n\n{paras}\n\nRun this:\n\n```bash\necho one\n```\n\n{pairs}\n"
    doc = parse_document("d.md", text)
    intro = [c for c in doc.chunks if "Run this:" in c.text]
    assert len(intro) == 1 and "echo one" in intro[0].text
    for i in range(40):
        holder = [c for c in doc.chunks if f"Description {i}:" in c.text]
        assert len(holder) == 1 and f"`command-{i} .`" in holder[0].text
