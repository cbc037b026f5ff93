"""`kb index` results for people: the summary line, skipped files with reasons, stale files for `--check`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kb_agent.render.answer import write_plain
from kb_agent.render.safe import safe_markup, safe_text

if TYPE_CHECKING:
    from rich.console import Console

    from kb_agent.types import IndexReport, QuestionPoolReport


def render_index_report(report: IndexReport, *, out: Console, err: Console) -> None:
    """A build report as one summary line (and skips) on `err`; for `--check`, `label<TAB>path` lines on `out`."""
    for note in report.notes:  # e.g. a broken store moved aside before a rebuild
        err.print(f"[yellow]note:[/] {safe_markup(note, one_line=True)}", highlight=False, soft_wrap=True)
    if report.checked_only:
        if not report.stale and not report.chunks_pending:
            err.print(f"[green]index is fresh[/] ({report.unchanged} files)")
        for label, paths in (("new", report.indexed), ("changed", report.updated), ("deleted", report.removed)):
            for p in paths:
                write_plain(out, f"{label}\t{safe_text(p, one_line=True)}")
        if report.stale:
            err.print(f"[yellow]index is stale[/]: {len(report.indexed)} new, {len(report.updated)} changed, {len(report.removed)} deleted — run `kb index`")
        if report.chunks_pending:
            err.print(f"[yellow]vectors incomplete[/]: {report.chunks_pending:,} chunks have no vector yet — run `kb index` to finish")
        return
    err.print(
        f"[bold green]indexed[/] {len(report.indexed)} new · {len(report.updated)} updated · {report.unchanged} unchanged · "
        f"{len(report.removed)} removed · {len(report.skipped)} skipped — {report.chunks_total} chunks "
        f"({report.chunks_embedded} embedded) in {report.duration_s:.1f} s",
        highlight=False,
    )
    if report.chunks_pending:  # stopped before the vector phase ended: search works, vectors are partial
        err.print(f"  [yellow]{report.chunks_pending:,} chunks still have no vector[/]: run `kb index` to finish", highlight=False)
    if report.questions is not None:
        for line in question_lines(report.questions):
            err.print(line, highlight=False, soft_wrap=True)
    for s in report.skipped:
        err.print(f"  [yellow]skipped[/] {safe_markup(s.path, one_line=True)}: {safe_markup(s.reason, one_line=True)}", highlight=False)
    for s in report.warnings:  # indexed, with a caveat (e.g. front matter ignored)
        err.print(f"  [yellow]warning[/] {safe_markup(s.path, one_line=True)}: {safe_markup(s.reason, one_line=True)}", highlight=False)


def question_lines(q: QuestionPoolReport) -> list[str]:
    """The question phase in the report (rich markup): what the model wrote, what it cost, what waits."""
    model = safe_markup(q.model, one_line=True)
    lines: list[str] = []
    if q.chunks_asked or q.chunks_reused:
        cost = f"{q.model_calls} model call{'s' if q.model_calls != 1 else ''} in {q.seconds:.1f} s"
        if q.model_calls:
            cost += f" ({q.seconds / q.model_calls:.1f} s/call)"
        parts = [f"{q.chunks_written:,} chunks given {q.questions_per_chunk:.1f} questions each", cost]
        if q.chunks_reused:
            parts.append(f"{q.chunks_reused:,} reused (same text)")
        if q.chunks_fallback:
            parts.append(f"[yellow]{q.chunks_fallback:,} kept their heading questions[/] (invalid reply after one repair)")
        lines.append(f"  [bold]questions[/] ({model}): " + " · ".join(parts))
    elif not q.chunks_waiting and q.error is None:
        lines.append(f"  [bold]questions[/] ({model}): every chunk has its questions — nothing to ask")
    if q.error is not None:
        lines.append(f"  [yellow]questions stopped[/]: {safe_markup(q.error, one_line=True)}")
    if q.chunks_waiting:
        lines.append(f"  [yellow]{q.chunks_waiting:,} chunks wait for questions[/] (they use their heading questions): run `kb index --questions` to finish")
    return lines
