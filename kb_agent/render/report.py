"""Render check runs and link reports as human text, JSON, JUnit XML or GitHub workflow annotations.

Every renderer is a pure function returning a string. Timings appear only when asked for
(`timings=True`), so by default the same results give the same bytes. Human and GitHub output pass
document text and file names through `safe_text`; JSON escapes controls (render/json.py).
"""

from __future__ import annotations

import posixpath
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from kb_agent.render.json import check_run_dict, dumps, link_report_dict
from kb_agent.render.safe import safe_text

if TYPE_CHECKING:  # the values come from checks/, the layer above; render only reads them
    from kb_agent.checks.links import LinkReport
    from kb_agent.checks.run import CheckRun

Format = Literal["human", "json", "junit", "github"]
FORMATS: tuple[str, ...] = ("human", "json", "junit", "github")
# answers in the human report are cut here: enough to see what the KB said
HUMAN_ANSWER_CHARS = 300


def display_path(path: Path | str, cwd: Path | None = None) -> str:
    """`path` relative to the working directory when it lies below it (what GitHub and editors want)."""
    p = Path(path).resolve()
    base = (cwd or Path.cwd()).resolve()
    try:
        rel = p.relative_to(base).as_posix()
    except ValueError:
        return p.as_posix()
    return rel or "."


# ---- kb check ---------------------------------------------------------------------------------


def render_run(run: CheckRun, fmt: Format, *, kb_prefix: str = ".", timings: bool = False, verbose: bool = False) -> str:
    """A check run in one of FORMATS; `kb_prefix` is the KB root as GitHub annotations must name it."""
    if fmt == "json":
        return dumps(check_run_dict(run, timings=timings)) + "\n"
    if fmt == "junit":
        return _run_junit(run, timings=timings)
    if fmt == "github":
        return _run_github(run, kb_prefix)
    return _run_human(run, verbose=verbose, timings=timings)


def mode_label(run: CheckRun) -> str:
    return "offline, deterministic" if run.deterministic else f"model: {run.llm_provider}, not deterministic"


def _summary(run: CheckRun) -> str:
    n, bad = len(run.results), len(run.failed)
    return f"{n - bad} passed, {bad} failed ({n} checks)"


def _run_human(run: CheckRun, *, verbose: bool, timings: bool) -> str:
    out = [f"kb check {run.spec.path} ({mode_label(run)})"]
    width = max((len(r.check.id) for r in run.results), default=0)
    for r in run.results:
        status = "PASS" if r.passed else "FAIL"
        tail = f"  {r.duration_ms:.0f} ms" if timings else ""
        out.append(f"{status}  {r.check.id.ljust(width)}  {r.check.question}{tail}".rstrip())
        for f in r.failures:
            out.append(f"      {run.spec.path}:{f.line}: {f.expectation}: {f.message}")
        if (not r.passed or verbose) and (r.citations or r.answer_text):
            if r.citations:
                out.append("      cited: " + ", ".join(c.location for c in r.citations))
            if r.answer_text:
                out.append("      answer: " + _excerpt(r.answer_text, HUMAN_ANSWER_CHARS))
    out.append("")
    out.append(_summary(run) + (f" in {run.duration_s:.2f} s" if timings else ""))
    return _lines(out)


def _lines(lines: list[str]) -> str:
    """One report line per entry: text from documents and file names can neither add a line nor reach a terminal raw."""
    return "\n".join(safe_text(line, one_line=True) for line in lines) + "\n"


def _excerpt(text: str, limit: int) -> str:
    body = text.split("\n---\n")[0]  # the sources footer is already listed as `cited:`
    flat = " ".join(body.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"



def _run_junit(run: CheckRun, *, timings: bool) -> str:
    import xml.etree.ElementTree as ET

    n, bad = str(len(run.results)), str(len(run.failed))
    suites = ET.Element("testsuites", {"name": "kb check", "tests": n, "failures": bad, "errors": "0"})
    suite = ET.SubElement(suites, "testsuite", {"name": run.spec.path, "tests": n, "failures": bad, "errors": "0", "skipped": "0"})
    if timings:
        suites.set("time", f"{run.duration_s:.3f}")
        suite.set("time", f"{run.duration_s:.3f}")
    props = ET.SubElement(suite, "properties")
    ET.SubElement(props, "property", {"name": "llm_provider", "value": run.llm_provider})
    ET.SubElement(props, "property", {"name": "deterministic", "value": str(run.deterministic).lower()})
    for r in run.results:
        case = ET.SubElement(suite, "testcase", {"classname": run.spec.path, "name": r.check.id, "file": run.spec.path, "line": str(r.check.line)})
        if timings:
            case.set("time", f"{r.duration_ms / 1000:.3f}")
        if r.failures:
            first = r.failures[0]
            body = [f"{run.spec.path}:{f.line}: {f.expectation}: {f.message}" for f in r.failures]
            body.append(f"question: {r.check.question}")
            body += [f"cited: {c.location}" for c in r.citations]
            if r.answer_text:
                body.append("answer: " + _excerpt(r.answer_text, 1000))
            fail = ET.SubElement(case, "failure", {"type": first.expectation, "message": f"{first.expectation}: {first.message}"})
            fail.text = "\n".join(body)
    ET.indent(suites)
    # control characters are not allowed in XML 1.0; shown visibly, the report stays well-formed
    return safe_text('<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n")


def _run_github(run: CheckRun, kb_prefix: str) -> str:
    out = []
    spec = run.spec.path
    for r in run.failed:
        for f in r.failures:
            title = f"kb check {r.check.id}: {f.expectation}"
            out.append(annotation("error", f.message, file=spec, line=f.line, title=title))
        if r.citations:
            c = r.citations[0]
            msg = f"cited by failing check {r.check.id} ({spec}:{r.check.line}): {r.check.question}"
            out.append(annotation("notice", msg, file=_join(kb_prefix, c.path), line=c.start_line, end_line=c.end_line, title=f"kb check {r.check.id}"))
    out.append(f"kb check {spec} ({mode_label(run)}): {_summary(run)}")
    return _lines(out)


def annotation(level: str, message: str, *, file: str, line: int, end_line: int | None = None, title: str = "") -> str:
    """A GitHub workflow command (`::error file=…,line=…::msg`), escaped as the runner expects."""
    props = [f"file={_prop(file)}", f"line={max(line, 1)}"]
    if end_line is not None and end_line != line:
        props.append(f"endLine={end_line}")
    if title:
        props.append(f"title={_prop(title)}")
    return f"::{level} {','.join(props)}::{_data(message)}"


def _data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(s: str) -> str:
    return _data(s).replace(":", "%3A").replace(",", "%2C")


def _join(prefix: str, path: str) -> str:
    return path if prefix in ("", ".") else posixpath.normpath(posixpath.join(prefix, path))


# ---- kb links ---------------------------------------------------------------------------------


def render_links(report: LinkReport, fmt: Format, *, kb_prefix: str = ".", timings: bool = False) -> str:
    """A link report in one of FORMATS (paths relative to the KB root; GitHub: to `kb_prefix`)."""
    if fmt == "json":
        return dumps(link_report_dict(report, timings=timings)) + "\n"
    if fmt == "junit":
        return _links_junit(report, timings=timings)
    if fmt == "github":
        lines = [annotation("error", p.message, file=_join(kb_prefix, p.path), line=p.line, title=f"kb links: {p.reason.replace('_', ' ')}") for p in report.problems]
        lines.append(f"kb links: {_links_summary(report)}")
        return _lines(lines)
    lines = [f"{p.path}:{p.line}: {p.message}" for p in report.problems]
    lines += [f"skipped {s.path}: {s.reason}" for s in report.skipped]
    lines.append(_links_summary(report) + (f" in {report.duration_s:.2f} s" if timings else ""))
    return _lines(lines)


def _links_summary(report: LinkReport) -> str:
    n = len(report.problems)
    return f"{report.links_checked} links in {len(report.files)} files: {n} broken"



def _links_junit(report: LinkReport, *, timings: bool) -> str:
    import xml.etree.ElementTree as ET

    by_file: dict[str, list[Any]] = {}
    for p in report.problems:
        by_file.setdefault(p.path, []).append(p)
    n, bad = str(len(report.files)), str(len(by_file))
    suites = ET.Element("testsuites", {"name": "kb links", "tests": n, "failures": bad, "errors": "0"})
    suite = ET.SubElement(suites, "testsuite", {"name": "kb links", "tests": n, "failures": bad, "errors": "0", "skipped": "0"})
    if timings:
        suite.set("time", f"{report.duration_s:.3f}")
    for path in report.files:
        case = ET.SubElement(suite, "testcase", {"classname": "kb links", "name": path, "file": path})
        problems = by_file.get(path)
        if problems:
            fail = ET.SubElement(case, "failure", {"type": problems[0].reason, "message": f"{len(problems)} broken link(s)"})
            fail.text = "\n".join(f"{p.path}:{p.line}: {p.message}" for p in problems)
    ET.indent(suites)
    # control characters are not allowed in XML 1.0; shown visibly, the report stays well-formed
    return safe_text('<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(suites, encoding="unicode") + "\n")

