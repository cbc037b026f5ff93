"""One contract for every retrieval tool, plus tool-specific behaviour (grep input safety, filters, fusion)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_agent.errors import InvalidQuery, PathOutsideRoot, UsageError
from kb_agent.retrieval.fusion import rrf
from kb_agent.retrieval.tools import TOOLS, Retriever
from kb_agent.types import Evidence, SearchFilters
from tests.support.sample import hash_settings

QUERIES = ["cache.ttl_seconds", "how do I roll back a deploy", "OPS-2051", "缓存", "runbooks/rollback.md"]


@pytest.fixture(scope="module")
def retriever(indexed_hash_kb: Path) -> Retriever:
    r = Retriever(hash_settings(indexed_hash_kb))
    yield r  # type: ignore[misc]
    r.close()


def _file_lines(root: Path, path: str) -> list[str]:
    lines = (root / path).read_text(encoding="utf-8").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


@pytest.mark.parametrize("tool", TOOLS)
@pytest.mark.parametrize("query", QUERIES)
def test_every_tool_honours_the_evidence_contract(retriever: Retriever, tool: str, query: str) -> None:
    hits = retriever.search(tool, query, k=5)  # type: ignore[arg-type]
    assert len(hits) <= 5
    if tool in ("hybrid", "vector", "files"):
        assert hits, f"{tool} found nothing for {query!r}"
    for ev in hits:
        assert isinstance(ev, Evidence) and ev.tool == tool
        lines = _file_lines(retriever.root, ev.path)
        assert 1 <= ev.start_line <= ev.end_line <= len(lines)
        assert ev.text == "\n".join(lines[ev.start_line - 1 : ev.end_line]), f"{tool} text differs from {ev.location}"
        assert len(ev.text) <= 2000 or tool == "vector"
    if tool != "related":
        scores = [ev.score for ev in hits]
        assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("tool", TOOLS)
def test_filters_are_respected(retriever: Retriever, tool: str) -> None:
    only_zh = SearchFilters(path_globs=("zh/*",))
    for ev in retriever.search(tool, "缓存 cache deploy", k=10, filters=only_zh):  # type: ignore[arg-type]
        assert ev.path.startswith("zh/"), ev.location


def test_tag_filter(retriever: Retriever) -> None:
    files = retriever.index.files()
    tag = next(t for f in files.values() for t in f.tags)
    allowed = {p for p, f in files.items() if tag in f.tags}
    hits = retriever.hybrid("deploy", k=20, filters=SearchFilters(tags=(tag,)))
    assert hits and all(ev.path in allowed for ev in hits)


def test_grep_finds_exact_identifiers_and_ticket_ids(retriever: Retriever) -> None:
    hits = retriever.grep("cache.ttl_seconds", k=3)
    assert hits and "ttl_seconds" in hits[0].text
    hits = retriever.grep("OPS-2051", k=3)
    assert hits and all("OPS-2051" in ev.text for ev in hits[:1])


GREP_LITERALS = ["--foo", "-e", "a.*b(", "[unclosed", "$(rm -rf /)", "foo|bar", "\\", "*"]
# what each query would match if grep took it as a pattern or an option instead of text
GREP_DECOYS = "axxb(\n\nrm -rf everything\n\nexpression e\n"


@pytest.fixture(scope="module")
def literal_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One file holding every metacharacter query literally, one holding only what a pattern would match."""
    root = tmp_path_factory.mktemp("literal")
    (root / "literal.md").write_text("# Literals\n\n" + "\n\n".join(f"line with {q} in it" for q in GREP_LITERALS) + "\n", encoding="utf-8")
    (root / "decoy.md").write_text("# Decoys\n\n" + GREP_DECOYS, encoding="utf-8")
    return root


@pytest.mark.parametrize("query", GREP_LITERALS)
def test_grep_treats_metacharacters_and_dashes_as_text(literal_kb: Path, query: str) -> None:
    """grep searches the query's words as fixed strings (the whole query when it has no searchable word):
    every hit holds one of them literally, and as a pattern "a.*b(" would have matched the decoy "axxb("."""
    from kb_agent.retrieval.grep import search_terms

    literals = [t.lower() for t in search_terms(query)] or [query.lower()]
    with Retriever(hash_settings(literal_kb), require_index=False) as r:
        hits = r.grep(query, k=5)
    assert "literal.md" in {ev.path for ev in hits}, hits
    for ev in hits:
        assert any(t in ev.text.lower() for t in literals), (literals, ev.path, ev.text)


def test_grep_regex_mode_and_bad_regex(retriever: Retriever) -> None:
    hits = retriever.grep(r"OPS-20\d\d", k=5, regex=True)
    assert hits and any("OPS-20" in ev.text for ev in hits)
    with pytest.raises(UsageError, match="regular expression"):
        retriever.grep("a(b", regex=True)


def test_queries_with_nothing_searchable(retriever: Retriever) -> None:
    with pytest.raises(InvalidQuery):
        retriever.grep("   ")
    assert retriever.grep("the of and") == []  # a phrase no file holds; stop words are not dropped into "anything"
    assert retriever.hybrid("the of and", k=3)  # vectors still answer


def test_long_and_control_character_queries(retriever: Retriever) -> None:
    from kb_agent.retrieval.query import clean_query

    assert clean_query("cache\x00.ttl\x1b[1m_seconds\u202e") == "cache .ttl_seconds"
    with pytest.raises(InvalidQuery, match="4,000"):
        clean_query("x" * 10_000)
    with pytest.raises(InvalidQuery, match="empty"):
        clean_query(" \t\n\x07 ")
    assert retriever.grep("rollback " * 300, k=3)  # long but valid: still fast and sane


def test_read_file_never_leaves_the_root(retriever: Retriever) -> None:
    ev = retriever.read_file("faq.md", 1, 3)
    assert ev.start_line == 1 and ev.end_line == 3 and ev.text.count("\n") == 2
    for bad in ("../outside.md", "/etc/passwd", "runbooks/../../x.md"):
        with pytest.raises(PathOutsideRoot):
            retriever.read_file(bad)
    with pytest.raises(UsageError):
        retriever.read_file("does-not-exist.md")


def test_related_follows_links_and_backlinks(retriever: Retriever) -> None:
    hits = retriever.related("runbooks/rollback.md", k=20)
    assert hits
    relations = " ".join(str(ev.explain.get("relation")) for ev in hits)
    assert "runbooks/rollback.md links to" in relations
    assert "links to runbooks/rollback.md" in relations  # a backlink


def test_files_tool_finds_by_title(retriever: Retriever) -> None:
    hits = retriever.files("glossary", k=3)
    assert hits[0].path == "glossary.md"


def test_rrf_counts_overlapping_lines_once_and_explains() -> None:
    a = Evidence("a.md", 1, 10, "x", 5.0, "grep")
    b = Evidence("b.md", 1, 5, "y", 4.0, "grep")
    va = Evidence("a.md", 5, 20, "z", 0.9, "vector")
    fused = rrf({"grep": [a, b], "vector": [va]}, k=10)
    assert [f.path for f in fused] == ["a.md", "b.md"]
    top = fused[0]
    assert top.explain["ranks"] == {"grep": 1, "vector": 1}
    assert top.score == pytest.approx(2 / 61, abs=1e-6)
    assert fused[1].score == pytest.approx(1 / 62, abs=1e-6)


def test_one_cause_is_noted_once_whatever_the_fallback(tmp_path: Path) -> None:
    """Two steps of one question (a vector step and a hybrid one) fall back for the same reason: one note."""
    (tmp_path / "a.md").write_text("# A\n\nhello\n", encoding="utf-8")
    with Retriever(hash_settings(tmp_path), require_index=False) as r:
        r.notice("the vector store cannot be opened here (read-only file system); using grep instead of vector search")
        r.notice("the vector store cannot be opened here (read-only file system); hybrid search is using grep only")
        r.notice("vectors: 0 / 9 embedded; run `kb index` to finish")
        assert r.notices == ["the vector store cannot be opened here (read-only file system); using grep instead of vector search",
                             "vectors: 0 / 9 embedded; run `kb index` to finish"]
