"""`kb links`: broken relative links, missing anchors and broken wikilinks, in every output format."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from typer.testing import CliRunner

from kb_agent.checks.links import check_links
from kb_agent.cli import app

runner = CliRunner()


def write(root: Path, rel: str, text: str) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")


def small_kb(root: Path) -> Path:
    write(root, "a.md", "# Alpha\n\n## Setup steps\n\nSee [b](b.md), [setup](#setup-steps), [img](pic.png) and [[b]].\n")
    write(root, "docs/b.md", "---\naliases: [bee]\n---\n# B page\n\n<a id=\"custom\"></a>\nBack to [a](../a.md#alpha), [custom](#custom), [[bee]], [[a#Setup steps]].\n")
    write(root, "b.md", "# Top b\n")
    (root / "pic.png").write_bytes(b"\x89PNG")
    return root


def test_clean_kb_has_no_problems(tmp_path: Path) -> None:
    report = check_links(small_kb(tmp_path))
    assert report.problems == ()
    assert (len(report.files), report.links_checked) == (3, 8)


def test_sample_kb_has_zero_broken_links(plain_kb: Path) -> None:
    result = runner.invoke(app, ["links"])
    assert result.exit_code == 0, result.output
    assert result.stdout.endswith(" files: 0 broken\n")
    assert result.stdout.count("\n") == 1


def break_sample(root: Path) -> None:
    """One broken relative link, one missing anchor into another file, one into the same file, one wikilink."""
    cfg = root / "reference" / "config.md"
    text = cfg.read_text(encoding="utf-8")
    text = text.replace("[Validation](#validation)", "[Validation](#validaton)")
    text = text.replace("[feature flags](feature-flags.md)", "[feature flags](feature-flag.md)")
    cfg.write_text(text, encoding="utf-8")
    rb = root / "runbooks" / "rollback.md"
    rb.write_text(rb.read_text(encoding="utf-8").replace("[[runbooks/deploy-orders-api]]", "[[runbooks/deploy-order-api]]"), encoding="utf-8")
    gl = root / "glossary.md"
    gl.write_text(gl.read_text(encoding="utf-8").replace("reference/slos.md#error-budget-policy", "reference/slos.md#budget-policy"), encoding="utf-8")


def test_broken_links_exit_1_with_file_and_line(plain_kb: Path) -> None:
    break_sample(plain_kb)
    result = runner.invoke(app, ["links"])
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines[:-1] == [
        "glossary.md:42: missing anchor #budget-policy in reference/slos.md (did you mean #error-budget-policy?)",
        "reference/config.md:17: broken link 'feature-flag.md': no such file",
        "reference/config.md:39: missing anchor #validaton in this file (did you mean #validation?)",
        "runbooks/rollback.md:68: broken wikilink [[runbooks/deploy-order-api]]: no page with that path, name, title or alias",
    ]
    assert lines[-1].endswith(" files: 4 broken")


def test_formats_json_junit_github(plain_kb: Path) -> None:
    break_sample(plain_kb)
    js = runner.invoke(app, ["links", "--format", "json"])
    assert js.exit_code == 1
    data = json.loads(js.stdout)
    assert data["ok"] is False
    assert [(b["path"], b["line"], b["reason"]) for b in data["broken"]] == [
        ("glossary.md", 42, "missing_anchor"), ("reference/config.md", 17, "missing_file"),
        ("reference/config.md", 39, "missing_anchor"), ("runbooks/rollback.md", 68, "missing_page"),
    ]
    ju = runner.invoke(app, ["links", "-f", "junit"])
    suite = ET.fromstring(ju.stdout.encode())[0]
    assert suite.get("failures") == "3" and suite.get("tests") == str(data["files"])
    failed = sorted(tc.get("name") for tc in suite.iter("testcase") if tc.find("failure") is not None)
    assert failed == ["glossary.md", "reference/config.md", "runbooks/rollback.md"]
    gh = runner.invoke(app, ["links", "-f", "github"])
    assert gh.stdout.splitlines()[1] == "::error file=reference/config.md,line=17,title=kb links%3A missing file::broken link 'feature-flag.md': no such file"


def test_github_paths_are_relative_to_the_working_directory(plain_kb: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    break_sample(plain_kb)
    monkeypatch.chdir(plain_kb.parent)
    gh = runner.invoke(app, ["links", "--kb", "plain", "-f", "github"])
    assert gh.stdout.startswith("::error file=plain/glossary.md,line=42,")


def test_output_file_and_determinism(plain_kb: Path, tmp_path: Path) -> None:
    break_sample(plain_kb)
    out = tmp_path / "links.xml"
    first = runner.invoke(app, ["links", "-f", "junit", "-o", str(out)])
    assert first.exit_code == 1
    assert first.stdout.endswith(" files: 4 broken\n")  # the human summary still on stdout
    body = out.read_bytes()
    runner.invoke(app, ["links", "-f", "junit", "-o", str(out)])
    assert out.read_bytes() == body


def test_unknown_format_is_a_usage_error(plain_kb: Path) -> None:
    result = runner.invoke(app, ["links", "-f", "xml"])
    assert result.exit_code == 2
    assert "unknown format 'xml'" in result.stderr
