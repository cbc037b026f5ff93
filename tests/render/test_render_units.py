"""Render functions at a fixed width: safe text, JSON escaping, answers, traces, hits, status, the live status."""

from __future__ import annotations

import io
import json
from pathlib import Path

from rich.console import Console

from kb_agent.agent.answer import Answer
from kb_agent.agent.state import ExecutionRecord, IterationGrade, ToolCall, TraceEvent
from kb_agent.render.answer import answer_plain, render_answer, render_trace
from kb_agent.render.json import answer_dict, dumps
from kb_agent.render.live import LiveStatus, ProgressEvent
from kb_agent.render.safe import file_link, safe_text
from kb_agent.render.search import render_hits
from kb_agent.render.status import render_status
from kb_agent.types import Citation, Evidence

WIDTH = 100


def console(*, terminal: bool = False) -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=WIDTH, force_terminal=terminal, color_system="standard" if terminal else None,
                   legacy_windows=False, _environ={}), buf


def make_answer(text: str, citations: tuple[Citation, ...], *, trace: tuple[TraceEvent, ...] = ()) -> Answer:
    return Answer(question="q", text=text, citations=citations, query_type="exact",
                  iterations=(IterationGrade(1, "GENERATE", 0.8, 2, 0, "deterministic"),), confidence=0.8,
                  answer_source="kb", fallback_reason=None, stop_reason="graded_generate", timings={"total": 12.5},
                  trace=trace, model_calls=0, model="none")


def test_safe_text_shows_controls_and_keeps_text() -> None:
    assert safe_text("plain 文本 ünïcode") == "plain 文本 ünïcode"
    assert safe_text("a\x1b[2Jb") == "a␛[2Jb"
    assert safe_text("\x1b]0;title\x07") == "␛]0;title␇"
    assert safe_text("x\x9b31m") == "x\\x9b31m"
    assert safe_text("\u202eabc\u2066") == "\\u202eabc\\u2066"
    assert safe_text("del\x7f cr\r") == "del␡ cr␍"
    assert safe_text("two\nlines\tand tab") == "two\nlines\tand tab"
    assert safe_text("two\nlines\tand tab", one_line=True) == "two␊lines␉and tab"


def test_file_link_percent_encodes_hostile_names(tmp_path: Path) -> None:
    link = file_link(tmp_path, "a b\x1b]8;;x\x07.md", 12)
    assert link.startswith("file://") and link.endswith("#L12")
    assert "\x1b" not in link and "\x07" not in link and " " not in link


def test_dumps_escapes_c1_bidi_and_separators_but_not_cjk() -> None:
    value = {"t": "a\x1b\x9b\u202e\u2028 中文 é"}
    out = dumps(value, indent=None)
    assert out == '{"t": "a\\u001b\\u009b\\u202e\\u2028 中文 é"}'
    assert json.loads(out) == value


def test_answer_plain_rebuilds_the_footer_with_one_line_per_citation() -> None:
    cites = (Citation(1, "ok.md", 3, 4, "q"), Citation(2, "evil\n[9] x.md", 1, 1, "q"))
    a = make_answer("The value is 3 [1][2].\n\n---\n[1] ok.md:L3-L4\n[2] evil\n[9] x.md:L1", cites)
    assert answer_plain(a) == "The value is 3 [1][2].\n\n---\n[1] ok.md:L3-L4\n[2] evil␊[9] x.md:L1"


def test_answer_plain_is_the_text_itself_for_ordinary_answers() -> None:
    text = "Run `kb index` [1].\n\n---\n[1] runbooks/deploy.md:L10-L12"
    assert answer_plain(make_answer(text, (Citation(1, "runbooks/deploy.md", 10, 12, "kb index"),))) == text


def test_render_answer_on_a_terminal_links_each_footnote_to_its_line(tmp_path: Path) -> None:
    out, buf = console(terminal=True)
    err, _ = console()
    a = make_answer("Body with \x1b]0;t\x07 [1].\n\n---\n[1] a.md:L2", (Citation(1, "a.md", 2, 2, "x"),))
    render_answer(a, out=out, err=err, root=tmp_path)
    raw = buf.getvalue()
    assert "\x1b]0;" not in raw and "␛]0;t␇" in raw
    assert f"\x1b]8;id=" in raw and f";{(tmp_path / 'a.md').resolve().as_uri()}#L2\x1b\\" in raw


def test_render_trace_snapshot() -> None:
    rec = ExecutionRecord("s1", 1, "grep", "zorblatt [bold]", 0.0, 3.25, "success", None, "2 hits", 2,
                          (ToolCall("rg", "zorblatt\x1b[2J", 1.5, 2),))
    trace = (TraceEvent("prepare", 0, 0.0, 0.5, "clean"), TraceEvent("tool_exec", 1, 0.0, 4.0, "1 step", (rec,), ("a note\nsecond",)))
    con, buf = console()
    render_trace(make_answer("x", (), trace=trace), con)
    assert buf.getvalue() == (
        "trace\n"
        "  prepare  0.5 ms  clean\n"
        "  retrieve\n"
        "    tool_exec [1]  4.0 ms  1 step\n"
        "      s1 grep('zorblatt [bold]')  success  3.2 ms  2 hits\n"
        "        rg 'zorblatt\\x1b[2J'  1.5 ms  2 hits\n"
        "      note: a note␊second\n"
        "  total  12.5 ms · 0 model calls · stop: graded_generate\n"
    )


def test_render_hits_snapshot(tmp_path: Path) -> None:
    out, buf = console()
    err, ebuf = console()
    ev = Evidence("dir/a\nb.md", 3, 5, "intro\nthe zorblatt \x1b[31mvalue\nend", 0.51234, "grep", ("Top", "Sub\x07"))
    render_hits("zorblatt", [ev], explain=False, root=tmp_path, out=out, err=err)
    assert buf.getvalue() == (
        " 1. dir/a␊b.md:L3-L5  0.5123  Top › Sub␇\n"
        "    intro\n"
        "    the zorblatt ␛[31mvalue\n"
        "    end\n"
    )
    render_hits("nothing\x1b[2J", [], explain=False, root=tmp_path, out=out, err=err)
    assert ebuf.getvalue() == "no results for nothing␛[2J\n"


def test_status_lines_escape_values_and_use_words() -> None:
    con, buf = console()
    render_status({"root": "/kb\x1b[2J", "files": 3, "tags": ["a", "b"], "counts": {"x": 1}, "pending_run": False,
                   "busy": True, "stale_files": [], "model": None, "long": "x" * 300}, con)
    assert buf.getvalue().splitlines() == ["root         /kb␛[2J", "files        3", "tags         a, b", "counts       x=1",
                                           "pending run  no", "busy         yes", "stale files  none", "model        —",
                                           "long         " + "x" * 300]


def test_progress_events_are_typed_and_labels_neutralized() -> None:
    ev = ProgressEvent.from_dict({"type": "progress", "node": "tool_exec", "status": "start", "step": "s1",
                                  "tool": "grep", "input": "\x1b]0;x\x07", "iteration": 2, "extra": 1})
    assert ev.step == "s1" and ev.iteration == 2
    assert ev.label() == "tool_exec [2] s1 grep('\\x1b]0;x\\x07')…"
    assert ProgressEvent.from_dict({"type": "token", "text": "t"}).text == "t"


def test_live_status_streams_neutralized_text() -> None:
    con, buf = console(terminal=True)
    live = LiveStatus(con, stream=True)
    with live:
        live.on_event({"type": "progress", "node": "plan", "status": "start"})
        live.on_event({"type": "token", "text": "hello \x1b[2J world"})
    assert "\x1b[2J" not in buf.getvalue()


def test_answer_dict_round_trips_the_citations() -> None:
    a = make_answer("x [1]", (Citation(1, "a.md", 1, 2, "quote"),))
    doc = answer_dict(a)
    assert doc["citations"] == [{"n": 1, "path": "a.md", "start_line": 1, "end_line": 2, "quote": "quote"}]
    assert doc["schema_version"] == 1 and doc["iterations"][0]["action"] == "GENERATE"


def test_status_reads_vector_coverage_as_one_line() -> None:
    con, buf = console()
    render_status({"chunks": 2900, "vectors_embedded": 1234, "vectors_pending": 1666, "generation": 7}, con)
    assert buf.getvalue().splitlines() == [
        "chunks      2,900",
        "vectors     1,234 / 2,900 embedded (1,666 pending: run `kb index` to finish; grep, files and related already see every file)",
        "generation  7",
    ]
    con, buf = console()
    render_status({"vectors_embedded": 224, "vectors_pending": 0}, con)
    assert buf.getvalue() == "vectors  224 / 224 embedded\n"


def test_index_tracker_says_where_the_run_is() -> None:
    from types import SimpleNamespace as P

    from kb_agent.render.progress import IndexTracker, duration

    t = IndexTracker()
    assert t.describe() == "starting"
    t.update(P(phase="scan", files_done=0, files_total=279, chunks_done=0))
    assert t.describe() == "scanning · 279 files found"
    t.update(P(phase="lexical", files_done=120, files_total=279, chunks_done=0))
    assert t.describe() == "120/279 files in the lexical index (searchable)"
    t.update(P(phase="lexical", files_done=279, files_total=279, chunks_done=0))
    assert t.describe() == "279/279 files in the lexical index (searchable) · vectors next"
    t.update(P(phase="embed", files_done=279, files_total=279, chunks_done=0, chunks_total=2900))
    assert t.describe() == "279/279 files · 0/2,900 vectors embedded"
    t._embed_started -= 10  # type: ignore[operator]  # ten seconds of embedding at 12.3 chunks/s
    t.update(P(phase="embed", files_done=279, files_total=279, chunks_done=123, chunks_total=2900))
    assert t.describe() == "279/279 files · 123/2,900 vectors embedded · 12.3 chunks/s · eta 3m46s"
    assert (duration(42), duration(185), duration(3725)) == ("42 s", "3m05s", "1h02m")


def test_progress_lines_are_written_on_time_until_stopped() -> None:
    import time

    from kb_agent.render.progress import ProgressLines

    con, buf = console()
    state = {"n": 0}
    with ProgressLines(con, "index", lambda: f"{state['n']} files \x1b[2J", interval=0.05):
        for _ in range(6):
            state["n"] += 1
            time.sleep(0.05)
    lines = buf.getvalue().splitlines()
    assert len(lines) >= 3 and all(ln.startswith("index: ") and ln.endswith(" · 0 s") for ln in lines), lines
    assert "␛[2J" in lines[0]  # the state is shown, never interpreted
    time.sleep(0.15)
    assert buf.getvalue().splitlines() == lines  # nothing after stop
    con, buf = console()
    with ProgressLines(con, "index", lambda: "x", interval=0):
        time.sleep(0.1)
    assert buf.getvalue() == ""
