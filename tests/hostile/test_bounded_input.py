"""Bounded parsing and regular-files-only reads: YAML alias bombs, FIFOs, devices and /dev/zero never
hang kb or eat memory; each is skipped or refused with a reason, and the rest of the KB still works."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.hostile.helpers import assert_one_clear_error, kb

# The 377-byte "billion laughs" of the issue: nine levels of nine aliases, 9**9 leaves when walked.
BILLION_LAUGHS = """---
title: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
tags: [*h,*h,*h,*h,*h,*h,*h,*h,*h]
---
# Laughing matter

The body says zebracorn and stays searchable.
"""

VARIANTS = {
    # the same bomb through merge keys and mappings instead of lists
    "merge_keys": "---\n" + "a: &a {x: 1, y: 2, z: 3}\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} {{p: *{chr(97 + i)}, q: *{chr(97 + i)}, r: *{chr(97 + i)}, s: *{chr(97 + i)}}}\n" for i in range(14)
    ) + "tags: [*o, *o, *o, *o]\n---\nbody zebracorn\n",
    # an alias inside its own anchor: a cycle
    "recursive": "---\ntags: &a [x, *a]\ntitle: *a\n---\nbody zebracorn\n",
    # flow nesting past Python's recursion limit
    "deep_flow": "---\ntags: " + "[" * 5000 + "]" * 5000 + "\n---\nbody zebracorn\n",
    # block sequences nested on one line
    "deep_block": "---\ntags:\n" + "- " * 3000 + "x\n---\nbody zebracorn\n",
    # an integer past Python's int-to-str digit limit
    "huge_int": "---\ntitle: " + "9" * 6000 + "\n---\nbody zebracorn\n",
    # far larger than any front matter
    "oversized": "---\ntitle: big\nnotes: |\n" + "".join(f"  line {i} {'x' * 600}\n" for i in range(150)) + "---\nbody zebracorn\n",
}


def test_billion_laughs_front_matter_is_refused_fast_and_body_kept() -> None:
    from kb_agent.corpus.chunking import parse_document

    t0 = time.perf_counter()
    doc = parse_document("bomb.md", BILLION_LAUGHS)
    elapsed = time.perf_counter() - t0
    assert elapsed < 0.5, f"parsing the bomb took {elapsed:.2f} s"
    assert doc.tags == () and doc.title == "Laughing matter"
    assert doc.warnings and "alias" in doc.warnings[0]
    assert any("zebracorn" in c.text for c in doc.chunks)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_front_matter_variants_are_bounded(name: str) -> None:
    from kb_agent.corpus.chunking import parse_document

    t0 = time.perf_counter()
    doc = parse_document(f"{name}.md", VARIANTS[name])
    assert time.perf_counter() - t0 < 1.0
    assert any("zebracorn" in c.text for c in doc.chunks), "the body must stay indexed as text"
    if name != "huge_int":  # an unparseable scalar is malformed YAML (no data), not a refusal
        assert doc.warnings and doc.warnings[0].startswith("front matter ignored"), doc.warnings
    assert len(str(doc.tags)) < 10_000


# syntax whose end is searched for (a MyST fence's closer, a link's `](…)`, a wikilink's `]]`) or whose body is indented
# under it (MkDocs): openers without ends, or every opener before every end, must cost about as much as a plain file
UNCLOSED = {
    "myst_openers_without_closers": "```{note}\ntext zebracorn\n" * 20000,
    "myst_openers_then_closers": "```{note}\ntext zebracorn\n" * 10000 + "```\n" * 10000,
    "myst_long_openers_short_closers": "````{note}\ntext zebracorn\n```\n" * 15000,
    "nested_admonitions": "".join("    " * (i % 50) + "!!! note\n" for i in range(8000)) + "zebracorn\n",
    # code shortcodes (Hugo's `{{< highlight >}}`, Jekyll's `{% highlight %}`) whose closer never comes, or comes after all
    "shortcode_openers_without_closers": "{{< highlight go >}}\ntext zebracorn\n" * 20000,
    "jekyll_openers_without_closers": "{% highlight ruby %}\ntext zebracorn\n" * 20000,
    # a long YAML fence indented under one key: each piece's key path was read back to the fence's top
    "yaml_fence_under_one_key": "```yaml\ntop:\n" + "  # zebracorn\n  key: value\n\n" * 20000 + "```\n",
    "shortcode_openers_then_closers": "{{< codeFromInline lang=\"yaml\" >}}\ntext zebracorn\n" * 10000 + "{{< /codeFromInline >}}\n" * 10000,
    # links whose end never comes: each `[` began a match that read the rest of the line (a 40,000-character line
    # of `[[` took 211 s to index, of `[a](` minutes)
    "open_wikilinks_one_line": "zebracorn " + "[[" * 20000 + "\n",
    "open_links_one_line": "zebracorn " + "[a](" * 10000 + "\n",
    "open_brackets_one_line": "zebracorn " + "[" * 20000 + "](\n",
    "open_aliases_many_lines": "zebracorn\n" + "[[a|\n" * 10000,
    "open_embeds_one_line": "zebracorn " + "![[" * 15000 + "\n",
}


@pytest.mark.parametrize("name", sorted(UNCLOSED))
def test_blocks_and_links_without_ends_parse_in_linear_time(name: str) -> None:
    from kb_agent.corpus.chunking import parse_document

    from kb_agent.agent.units import build_units
    from kb_agent.corpus.chunking import split_lines

    t0 = time.perf_counter()
    doc = parse_document(f"{name}.md", UNCLOSED[name])
    build_units(f"{name}.md", split_lines(UNCLOSED[name]))
    assert time.perf_counter() - t0 < 5.0, "quadratic: each opener searched the rest of the file"
    assert any("zebracorn" in c.text for c in doc.chunks)


@pytest.mark.parametrize("piece", ["和", "与", "还是", "[", "vs ", " or ", "a.", "which pages mention "])
def test_a_long_question_is_analysed_in_bounded_time(piece: str) -> None:
    """A question may hold 4,000 characters (a pasted paragraph); the comparison and mention patterns read only
    its last sentence, at most COMPARISON_MAX_CHARS (4,000 characters of 和 would have taken minutes)."""
    from kb_agent.agent.analyzer import analyze_question
    from kb_agent.agent.subjects import comparison_subjects, mention_target
    from kb_agent.retrieval.query import MAX_QUESTION_CHARS

    q = (piece * (MAX_QUESTION_CHARS // len(piece) + 1))[:MAX_QUESTION_CHARS]
    t0 = time.perf_counter()
    analyze_question(q), comparison_subjects(q), mention_target(q)
    assert time.perf_counter() - t0 < 3.0
    # a long paragraph before the question does not hide the comparison it ends with
    assert comparison_subjects("Some context. " * 40 + "What is the difference between tail -f and tail -F?") == ["tail -f", "tail -F"]


def test_ordinary_front_matter_with_a_few_aliases_still_parses() -> None:
    from kb_agent.corpus.chunking import parse_document

    doc = parse_document("ok.md", "---\ntitle: Deploy guide\nbase: &t [ops, deploy]\ntags: *t\n---\n# Deploy\ntext\n")
    assert doc.title == "Deploy guide" and doc.tags == ("ops", "deploy") and doc.warnings == ()


def test_kb_index_survives_an_alias_bomb(fresh_kb: Path, work: Path) -> None:
    (fresh_kb / "bomb.md").write_text(BILLION_LAUGHS, encoding="utf-8")
    run = kb("index", "--kb", str(fresh_kb), "--json", cwd=work, timeout=60)
    assert run.code == 0, run.text
    report = json.loads(run.out)
    assert "bomb.md" in report["indexed"]
    assert any(w["path"] == "bomb.md" and "alias" in w["reason"] for w in report["warnings"]), report["warnings"]
    assert len(report["indexed"]) > 10  # the rest of the KB is indexed too
    found = kb("search", "zebracorn", "--kb", str(fresh_kb), "--tool", "grep", cwd=work)
    assert found.code == 0 and "bomb.md" in found.out, found.text
    # a second run repeats the warning for the unchanged file (it is kept with the file's row)
    again = json.loads(kb("index", "--kb", str(fresh_kb), "--json", cwd=work).out)
    assert any(w["path"] == "bomb.md" for w in again["warnings"])


def test_kb_links_survives_an_alias_bomb(fresh_kb: Path, work: Path) -> None:
    (fresh_kb / "bomb.md").write_text(BILLION_LAUGHS, encoding="utf-8")
    run = kb("links", "--kb", str(fresh_kb), cwd=work, timeout=60)
    assert run.code in (0, 1), run.text  # 1 = sample_kb's deliberately broken links
    assert "unexpected error" not in run.err and "Traceback" not in run.text


def test_check_spec_alias_bomb_is_refused(indexed_kb: Path, work: Path) -> None:
    spec = work / "bomb.yaml"
    spec.write_text("version: 1\n" + BILLION_LAUGHS.split("---")[1].replace("title", "x") + "checks: []\n", encoding="utf-8")
    run = kb("check", str(spec), "--kb", str(indexed_kb), cwd=work, timeout=60)
    assert_one_clear_error(run, 2, "refused")


@pytest.fixture
def fifo_kb(fresh_kb: Path) -> Path:
    os.mkfifo(fresh_kb / "x.md")
    return fresh_kb


def test_kb_index_skips_a_named_pipe(fifo_kb: Path, work: Path) -> None:
    run = kb("index", "--kb", str(fifo_kb), "--json", cwd=work, timeout=60)
    assert run.code == 0, run.text
    report = json.loads(run.out)
    assert {"path": "x.md", "reason": "not a regular file (named pipe)"} in report["skipped"]
    assert "x.md" not in report["indexed"]


def test_kb_links_skips_a_named_pipe(fifo_kb: Path, work: Path) -> None:
    run = kb("links", "--kb", str(fifo_kb), "--format", "json", cwd=work, timeout=60)
    assert run.code in (0, 1), run.text
    data = json.loads(run.out)
    assert any(s["path"] == "x.md" and "named pipe" in s["reason"] for s in data["skipped"]), data["skipped"]


def test_symlink_to_a_named_pipe_is_skipped(fresh_kb: Path, work: Path) -> None:
    os.mkfifo(fresh_kb / "pipe.txt")
    (fresh_kb / "via-link.md").symlink_to(fresh_kb / "pipe.txt")
    run = kb("index", "--kb", str(fresh_kb), "--json", cwd=work, timeout=60)
    assert run.code == 0, run.text
    assert {"path": "via-link.md", "reason": "not a regular file (named pipe)"} in json.loads(run.out)["skipped"]


def test_ignore_files_that_are_pipes_do_not_block(fresh_kb: Path, work: Path) -> None:
    (fresh_kb / ".kbignore").unlink()
    os.mkfifo(fresh_kb / ".kbignore")
    os.mkfifo(fresh_kb / "runbooks" / ".gitignore")
    run = kb("index", "--kb", str(fresh_kb), "--json", cwd=work, timeout=60)
    assert run.code == 0, run.text
    assert "runbooks/rollback.md" in json.loads(run.out)["indexed"]
    # ripgrep itself opens a .gitignore it meets (a FIFO blocks it); kb's rg timeout bounds that to one clear error
    found = kb("search", "rollback", "--tool", "grep", "--kb", str(fresh_kb), cwd=work, timeout=60, env={"KB_RG_TIMEOUT_S": "3"})
    assert found.code in (0, 2) and found.seconds < 30, found.text
    assert "unexpected" not in found.err and ("runbooks/" in found.out or "ripgrep took longer" in found.err), found.text


def _char_device(path: Path) -> None:
    import stat

    try:
        os.mknod(path, 0o644 | stat.S_IFCHR, os.makedev(1, 5))  # the device /dev/zero is
    except PermissionError:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("mknod failed under CI (CI runs as root)")
        pytest.skip("mknod needs root")


def test_character_device_in_the_kb_is_never_read(fresh_kb: Path, work: Path) -> None:
    _char_device(fresh_kb / "y.md")
    run = kb("index", "--kb", str(fresh_kb), "--json", cwd=work, timeout=60)
    assert run.code == 0, run.text
    assert {"path": "y.md", "reason": "not a regular file (character device)"} in json.loads(run.out)["skipped"]
    links = kb("links", "--kb", str(fresh_kb), cwd=work, timeout=60)
    assert links.code in (0, 1) and "unexpected" not in links.err, links.text


def test_symlink_to_dev_zero_is_skipped(fresh_kb: Path, work: Path) -> None:
    (fresh_kb / "zero.md").symlink_to("/dev/zero")
    run = kb("index", "--kb", str(fresh_kb), "--json", cwd=work, timeout=60)
    assert run.code == 0, run.text
    skipped = {s["path"]: s["reason"] for s in json.loads(run.out)["skipped"]}
    assert "zero.md" in skipped, skipped


def test_check_spec_dev_zero_is_refused(indexed_kb: Path, work: Path) -> None:
    run = kb("check", "/dev/zero", "--kb", str(indexed_kb), cwd=work, timeout=60)
    assert_one_clear_error(run, 2, "not a regular file (character device)")


def test_check_spec_that_is_a_pipe_is_refused(indexed_kb: Path, work: Path) -> None:
    os.mkfifo(work / "spec.yaml")
    run = kb("check", str(work / "spec.yaml"), "--kb", str(indexed_kb), cwd=work, timeout=60)
    assert_one_clear_error(run, 2, "named pipe")


def test_file_swapped_for_a_pipe_after_indexing(indexed_kb: Path, work: Path) -> None:
    victim = indexed_kb / "faq.md"
    victim.unlink()
    os.mkfifo(victim)
    run = kb("index", "--kb", str(indexed_kb), "--json", cwd=work, timeout=60)
    assert run.code == 0, run.text
    report = json.loads(run.out)
    assert "faq.md" in report["removed"]
    assert {"path": "faq.md", "reason": "not a regular file (named pipe)"} in report["skipped"]
    found = kb("search", "deploy", "--kb", str(indexed_kb), "--tool", "grep", cwd=work, timeout=60)
    assert found.code == 0 and "faq.md" not in found.out, found.text


def test_kb_ask_about_a_file_swapped_for_a_pipe_before_reindexing(indexed_kb: Path, work: Path) -> None:
    """The index still lists faq.md, now a named pipe: the answer is built from the other files (or refused),
    never by opening the pipe and waiting for a writer."""
    victim = indexed_kb / "faq.md"
    victim.unlink()
    os.mkfifo(victim)
    run = kb("ask", "How do I connect to internal services from home?", "--kb", str(indexed_kb), cwd=work, timeout=60)
    assert run.code in (0, 1, 3), run.text
    assert "Traceback" not in run.text and "faq.md:L" not in run.out, run.text


def test_reader_refuses_pipes_and_devices_and_caps_size(tmp_path: Path) -> None:
    from kb_agent.corpus.fileio import UnsafeFile, read_regular_bytes

    os.mkfifo(tmp_path / "p")
    with pytest.raises(UnsafeFile, match="named pipe"):
        read_regular_bytes(tmp_path / "p", 100)
    with pytest.raises(UnsafeFile, match="character device"):
        read_regular_bytes("/dev/zero", 100)
    (tmp_path / "big").write_bytes(b"x" * 2048)
    with pytest.raises(UnsafeFile, match="larger than 1 KB"):
        read_regular_bytes(tmp_path / "big", 1024)
    assert read_regular_bytes(tmp_path / "big", 4096) == b"x" * 2048
