"""The citation verifier: every [n] must map to a given source whose lines exist in the file on disk
now and contain the quoted evidence; invented or broken markers are removed and the rest renumbered."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kb_agent.corpus.fileio import read_kb_text
from kb_agent.types import Citation

_MARKER = re.compile(r"\[(\d{1,3})\]")
_MARKER_LIST = re.compile(r"\[(\d{1,3}(?:\s*,\s*\d{1,3})+)\]")
_FOOTER_LINE = re.compile(r"^\s*\[\d{1,3}\]\s+\S+:L\d+")
# quoted snippets in a cited sentence must appear in the cited lines; shorter ones are too common to check
_QUOTE_IN_TEXT = re.compile(r"`([^`\n]{3,200})`|\"([^\"\n]{4,200})\"|“([^”\n]{4,200})”")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n")


# A source the answer may cite as [n] — where it is and a quote that must be found there — is the
# same value as the Citation it becomes once verified.
SourceRef = Citation


@dataclass(frozen=True, slots=True)
class VerifiedAnswer:
    """The answer after verification: text with footer, the surviving citations, what was removed."""

    text: str
    body: str
    citations: tuple[Citation, ...]
    removed: tuple[str, ...]


def normalize(text: str) -> str:
    """Case- and whitespace-insensitive form used for quote matching."""
    return " ".join(text.split()).lower()


def strip_footer(answer: str) -> str:
    """Drop a model-written `---` sources footer (we write our own from verified sources)."""
    lines = answer.rstrip().split("\n")
    for i in range(len(lines) - 1, -1, -1):
        if lines[i].strip() == "---":
            tail = [ln for ln in lines[i + 1 :] if ln.strip()]
            if all(_FOOTER_LINE.match(ln) for ln in tail):
                return "\n".join(lines[:i]).rstrip()
            break
    return answer.rstrip()


class _Disk:
    """Reads each cited file once per verification."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._lines: dict[str, list[str] | None] = {}

    def lines(self, rel: str) -> list[str] | None:
        if rel not in self._lines:
            self._lines[rel] = self._read(rel)
        return self._lines[rel]

    def _read(self, rel: str) -> list[str] | None:
        try:
            full = (self.root / rel).resolve()
            full.relative_to(self.root)  # never outside the KB root
            lines = read_kb_text(full).split("\n")
        except (OSError, ValueError):  # incl. a pipe or device now standing where the file was
            return None
        if lines and lines[-1] == "":
            lines.pop()
        return lines



def source_problem(src: SourceRef, disk: _Disk) -> str | None:
    """Why a source cannot be cited (missing file, lines beyond EOF, quote not there), or None."""
    lines = disk.lines(src.path)
    if lines is None:
        return f"{src.path} is not readable in the knowledge base"
    if src.start_line < 1 or src.end_line < src.start_line or src.end_line > len(lines):
        return f"{src.location} is outside the file ({len(lines)} lines)"
    span = normalize("\n".join(lines[src.start_line - 1 : src.end_line]))
    if normalize(src.quote) not in span:
        return f"{src.location} no longer contains the quoted text"
    return None


# where the extractive answer puts its markers: at the end of a bullet's first line (AnswerUnit.render)
_PLACED_MARKER = re.compile(r"(?<=\S )\[(\d{1,3})\]$", re.M)


def verify_answer(answer: str, sources: Sequence[SourceRef], root: Path, *, placed: bool = False) -> VerifiedAnswer:
    """Check every marker of `answer` against `sources` and the files under `root`.

    With `placed` (an answer quoted from the files, not written by a model), only the markers it placed at the
    end of a line are markers: "[10, 500]" in a table cell or `arr[0]` in a fence is the file's text, kept as is;
    and a marker stands for its unit's quote, checked against the lines, not for the snippets of the heading that
    labels a fence (a bullet whose marker was dropped would be printed uncited).

    A marker survives when its number is a given source, that source's lines exist in the file now
    and contain its quote, and any `code` or "quoted" snippet in the marker's sentence occurs in
    those lines. Surviving markers are renumbered 1..k in order of first use; a `---` footer of
    `[n] path:Lx-Ly` lines is appended.

    Args:
        answer: the answer text (a footer the model wrote is ignored).
        sources: what [1]..[N] were given as.
        root: the KB root.

    Returns:
        The verified answer; `removed` says why each dropped marker went.
    """
    body = strip_footer(answer)
    if not placed:
        body = _MARKER_LIST.sub(lambda m: "".join(f"[{x.strip()}]" for x in m.group(1).split(",")), body)
    by_n = {s.n: s for s in sources}
    disk = _Disk(root)
    problems: dict[int, str | None] = {}
    removed: list[str] = []
    renumber: dict[int, int] = {}
    pieces: list[str] = []
    pos = 0
    for m in (_PLACED_MARKER if placed else _MARKER).finditer(body):
        n = int(m.group(1))
        pieces.append(body[pos : m.start()])
        pos = m.end()
        src = by_n.get(n)
        why: str | None
        if src is None:
            why = f"[{n}] is not one of the {len(sources)} sources given"
        else:
            if n not in problems:
                problems[n] = source_problem(src, disk)
            # a placed marker's unit is the file's text (its quote checked above): a heading label in backticks
            # ("*Clean the files from `.gitignore`.*" over its fence) is markup, not a quote of the cited lines
            why = problems[n] or (None if placed else _quote_problem(body, m.start(), src, disk))
        if why is not None:
            removed.append(why)
            pieces[-1] = pieces[-1].rstrip(" \t")  # the marker's own leading space goes with it
            continue
        new = renumber.setdefault(n, len(renumber) + 1)
        pieces.append(f"[{new}]")
    pieces.append(body[pos:])
    clean = _tidy("".join(pieces))
    citations = tuple(
        Citation(n=new, path=by_n[old].path, start_line=by_n[old].start_line, end_line=by_n[old].end_line, quote=by_n[old].quote)
        for old, new in sorted(renumber.items(), key=lambda kv: kv[1])
    )
    text = clean
    if citations:
        text = clean + "\n\n---\n" + "\n".join(f"[{c.n}] {c.location}" for c in citations)
    return VerifiedAnswer(text=text, body=clean, citations=citations, removed=tuple(removed))


def _quote_problem(body: str, marker_at: int, src: SourceRef, disk: _Disk) -> str | None:
    """A snippet quoted in the marker's sentence that the cited lines do not contain."""
    starts = [m.end() for m in _SENTENCE_END.finditer(body, 0, marker_at)]
    sentence = body[(starts[-1] if starts else 0) : marker_at]
    sentence = _MARKER.sub(" ", sentence)
    lines = disk.lines(src.path) or []
    span = normalize("\n".join(lines[src.start_line - 1 : src.end_line]))
    for m in _QUOTE_IN_TEXT.finditer(sentence):
        snippet = next(g for g in m.groups() if g)
        if normalize(snippet) not in span:
            return f"[{src.n}] quotes {snippet[:40]!r}, which {src.location} does not contain"
    return None


def _tidy(text: str) -> str:
    # only line ends are touched: spacing inside a line is the document's (`tar czf out.tgz -C dir .`)
    return "\n".join(ln.rstrip() for ln in text.split("\n")).strip()


# ---- claim-by-claim verification of a model's answer ----

# A cited sentence is kept when this weighted share of its content terms occurs in the lines it cites.
# Calibrated with scripts/calibrate_claims.py on sentence/passage pairs (true cited passage vs. a wrong
# one) from rgb_zh (even ids) and en_fact; held-out precision/recall in docs/SECURITY.md.
SUPPORT_MIN = 0.65
# terms that carry the fact (numbers, identifiers, paths) weigh this much more than ordinary words
SPECIFIC_WEIGHT = 2.0
# a sentence with fewer content terms than this is judged by its markers alone (e.g. "Yes [1].")
MIN_TERMS = 2

_REF_TITLE = re.compile(r"^\s*(?:#{1,6}\s*)?\**\s*(references?|sources?|citations?|bibliography|参考(?:资料|文献)?|来源|引用)\s*\**\s*[:：]?\s*\**\s*$", re.I)
_REF_ENTRY = re.compile(r"^\s*(?:[-*+]\s*)?\[\d{1,3}\]\s*[:：]?\s*(?:\S*[/\\]\S*|\S+\.\w{1,8}\b|\S+:L\d+)")
_RULE = re.compile(r"^\s*(?:-{3,}|\*{3,}|_{3,})\s*$")
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]|[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_BULLET = re.compile(r"^(\s*(?:[-*+]|\d{1,3}[.)])\s+)")
_CLAIM_SPLIT = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")
_LEADING_MARKERS = re.compile(r"^((?:\s*\[\d{1,3}\])+)")
_SPECIFIC = re.compile(r"\d|[/_.:]|^[A-Z]")


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """One sentence of a model's answer and whether it was kept."""

    sentence: str
    kept: bool
    reason: str  # why it went (empty when kept)
    support: float


def sanitize_model_text(text: str) -> tuple[str, bool]:
    """Remove terminal escape sequences and control characters (a model never needs them).

    Returns:
        The clean text and whether anything was removed.
    """
    clean = _ANSI.sub("", text.replace("\r\n", "\n").replace("\t", " "))
    return clean, clean != text.replace("\r\n", "\n").replace("\t", " ")


def strip_reference_list(text: str) -> tuple[str, int]:
    """Drop every reference list the model wrote: `---` rules, "References:"-style titles and
    `[n] path…` entry lines, wherever they stand (kb writes the only footer, from verified sources).

    Returns:
        The text and how many lines were dropped.
    """
    kept: list[str] = []
    dropped = 0
    for line in text.split("\n"):
        if _RULE.match(line) or _REF_TITLE.match(line) or _REF_ENTRY.match(line):
            dropped += 1
            continue
        kept.append(line)
    return "\n".join(kept), dropped


def support_score(claim: str, passage: str) -> float:
    """The weighted share of the claim's content terms that occur in `passage` (0–1).

    Terms are the shared tokenizer's (jieba for Chinese, stemmed words and identifier parts for
    Latin), stopwords dropped, markers removed; numbers, identifiers and paths weigh SPECIFIC_WEIGHT.
    """
    from kb_agent.index.tokenize import tokenize

    terms = list(dict.fromkeys(t for t in tokenize(_MARKER.sub(" ", claim), drop_stopwords=True) if len(t) > 1 or t.isdigit()))
    if not terms:
        return 1.0
    have = set(tokenize(passage))
    weight = {t: (SPECIFIC_WEIGHT if _SPECIFIC.search(t) else 1.0) for t in terms}
    total = sum(weight.values())
    return sum(w for t, w in weight.items() if t in have) / total


def content_terms(claim: str) -> int:
    """How many content terms a claim has (the support rule needs at least MIN_TERMS)."""
    from kb_agent.index.tokenize import tokenize

    return len({t for t in tokenize(_MARKER.sub(" ", claim), drop_stopwords=True) if len(t) > 1 or t.isdigit()})


def split_claims(line: str) -> list[str]:
    """A line's sentences, each carrying the markers that follow it (`text. [1]` → `text. [1]`)."""
    parts = [p for p in _CLAIM_SPLIT.split(line) if p.strip()]
    out: list[str] = []
    for part in parts:
        lead = _LEADING_MARKERS.match(part)
        if lead and out:
            out[-1] = out[-1].rstrip() + " " + lead.group(1).strip()
            part = part[lead.end() :]
        if part.strip():
            out.append(part.strip())
    return out


def check_claims(body: str, sources: Sequence[SourceRef], root: Path, *, support_min: float = SUPPORT_MIN) -> tuple[str, list[ClaimCheck]]:
    """Keep only the sentences whose markers name given, valid sources whose lines support them.

    Args:
        body: the answer without any reference list.
        sources: what [1]..[N] were given as.
        root: the KB root (cited lines are read from disk).
        support_min: the support threshold.

    Returns:
        The body with unsupported and uncited sentences removed, and one check per sentence.
    """
    body = _MARKER_LIST.sub(lambda m: "".join(f"[{x.strip()}]" for x in m.group(1).split(",")), body)
    by_n = {s.n: s for s in sources}
    disk = _Disk(root)
    valid: dict[int, str | None] = {}
    checks: list[ClaimCheck] = []
    out_lines: list[str] = []
    for line in body.split("\n"):
        if not line.strip():
            if out_lines and out_lines[-1]:
                out_lines.append("")
            continue
        bullet = _BULLET.match(line)
        prefix = bullet.group(1) if bullet else ""
        kept: list[str] = []
        for sentence in split_claims(line[len(prefix) :]):
            check = _check_one(sentence, by_n, disk, valid, support_min)
            checks.append(check)
            if check.kept:
                kept.append(sentence)
        if kept:
            out_lines.append(prefix + " ".join(kept))
    return "\n".join(out_lines).strip(), checks


def _check_one(sentence: str, by_n: dict[int, SourceRef], disk: _Disk, valid: dict[int, str | None], support_min: float) -> ClaimCheck:
    numbers = [int(n) for n in _MARKER.findall(sentence)]
    if not numbers:
        return ClaimCheck(sentence, False, "no citation", 0.0)
    spans: list[str] = []
    for n in dict.fromkeys(numbers):
        src = by_n.get(n)
        if src is None:
            continue
        if n not in valid:
            valid[n] = source_problem(src, disk)
        if valid[n] is None:
            lines = disk.lines(src.path) or []
            spans.append("\n".join(lines[src.start_line - 1 : src.end_line]))
    if not spans:
        return ClaimCheck(sentence, False, f"cites only {' '.join(f'[{n}]' for n in dict.fromkeys(numbers))}, not a valid source", 0.0)
    if content_terms(sentence) < MIN_TERMS:
        return ClaimCheck(sentence, True, "", 1.0)
    score = support_score(sentence, "\n".join(spans))
    if score < support_min:
        return ClaimCheck(sentence, False, f"the cited lines do not support it (overlap {score:.2f} < {support_min})", score)
    return ClaimCheck(sentence, True, "", score)


def verify_model_answer(answer: str, sources: Sequence[SourceRef], root: Path) -> tuple[VerifiedAnswer, list[str]]:
    """A model's answer, verified claim by claim, then marker by marker (verify_answer).

    Escape sequences and the model's own reference list are removed; a sentence survives only when
    its markers map to given sources whose lines exist and support it.

    Returns:
        The verified answer and trace notes saying what was removed and why.
    """
    notes: list[str] = []
    text, dirty = sanitize_model_text(answer)
    if dirty:
        notes.append("control characters or escape sequences removed from the model's answer")
    text, dropped = strip_reference_list(text)
    if dropped:
        notes.append(f"the model's own reference list removed ({dropped} lines)")
    body, checks = check_claims(text, sources, root)
    for c in checks:
        if not c.kept:
            notes.append(f"sentence removed ({c.reason}): {c.sentence[:80]!r}")
    verified = verify_answer(body, sources, root)
    return verified, notes
