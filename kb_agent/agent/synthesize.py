"""synthesize's building blocks: pick the items, write the offline extractive answer (each line cited),
prepare model sources, and word the 'not in the knowledge base' reply."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kb_agent.agent.citations import SourceRef
from kb_agent.agent.grade import TermWeights, question_terms, uniform_weights
from kb_agent.index.tokenize import tokenize
from kb_agent.types import Evidence

# the synthesizer sees at most this many items (DESIGN)
MAX_SOURCES = 10
# an extractive answer quotes at most this many passages; more reads as a search result, not an answer
MAX_UNITS = 4
MAX_UNITS_PER_ITEM = 3
# a unit is kept when it scores at least this share of the best unit
UNIT_RELATIVE_MIN = 0.55
# paragraphs longer than this are split into sentences so a citation points at the words that matter
SPLIT_PARAGRAPH_CHARS = 280
QUOTE_CHARS = 160
NOT_IN_KB = "The knowledge base does not answer this question."

_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
_SENTENCE = re.compile(r"[^.!?。！？]+(?:[.!?。！？]+|$)")
# lines that address an AI rather than a reader: quoted injection attempts are never answer material
_INJECTION = re.compile(
    r"ignore (all |any )?(the )?(previous|prior|above) instructions|disregard (all |the )?(previous|prior|above)|"
    r"\b(note|message) to (ai|llm|the assistant|assistants|ai assistants|language models)\b|system prompt|"
    r"you are now|忽略(之前|以上|所有)的?(指令|说明)",
    re.I,
)


@dataclass(frozen=True, slots=True)
class Unit:
    """A citable piece of an item: a list entry, table row, sentence or short paragraph."""

    item: int  # index into the items list
    start_line: int
    end_line: int
    raw: str  # exact text of the lines' content (quote source)
    clean: str  # text shown in the answer


@dataclass(frozen=True, slots=True)
class Draft:
    """An answer before verification: body with [n] markers and the sources behind the numbers."""

    body: str
    sources: tuple[SourceRef, ...]
    confidence: float


def looks_like_injection(text: str) -> bool:
    """True for text that tries to instruct an AI (it is data, and never quoted as an answer)."""
    return _INJECTION.search(text) is not None


def select_items(items: Sequence[Evidence], scores: Sequence[float]) -> list[tuple[Evidence, float]]:
    """The best MAX_SOURCES items by grade (ties: retrieval order)."""
    ranked = sorted(zip(items, scores), key=lambda p: -p[1])
    return ranked[:MAX_SOURCES]


def extract_units(item: Evidence, index: int) -> list[Unit]:
    """Split an item into citable units with exact line ranges (code fences and front matter skipped)."""
    lines = item.text.split("\n")
    units: list[Unit] = []
    block: list[tuple[int, str]] = []
    in_code = False
    in_front = item.start_line == 1 and bool(lines) and lines[0].strip() == "---"

    def flush() -> None:
        if block:
            units.extend(_paragraph_units(block, index))
            block.clear()

    for offset, line in enumerate(lines):
        n = item.start_line + offset
        stripped = line.strip()
        if in_front:
            if offset > 0 and stripped in ("---", "..."):
                in_front = False
            continue
        if stripped.startswith("```") or stripped.startswith("~~~"):
            flush()
            in_code = not in_code
            continue
        if in_code:
            if stripped:
                units.append(Unit(index, n, n, stripped, f"`{stripped}`"))
            continue
        if not stripped or stripped.startswith("#") or _TABLE_SEP.match(stripped) or stripped.startswith("<!--") or looks_like_injection(stripped):
            flush()
            continue
        if stripped.startswith("|"):
            flush()
            cells = [c.strip() for c in stripped.strip("|").split("|")]
            units.append(Unit(index, n, n, stripped, " | ".join(c for c in cells if c)))
            continue
        if _LIST_ITEM.match(line) and block:
            flush()
        block.append((n, line))
    flush()
    return [u for u in units if len(u.clean) >= 3]


def _paragraph_units(block: list[tuple[int, str]], index: int) -> list[Unit]:
    start, end = block[0][0], block[-1][0]
    raw = " ".join(line.strip() for _, line in block)
    clean = _LIST_ITEM.sub("", raw, count=1).lstrip("> ").strip()
    if len(clean) <= SPLIT_PARAGRAPH_CHARS:
        return [Unit(index, start, end, block[0][1].strip(), clean)]
    # long paragraph: one unit per sentence, each mapped back to the lines it spans
    out: list[Unit] = []
    offsets: list[tuple[int, int]] = []  # (char offset in `joined`, line number)
    joined = ""
    for n, line in block:
        offsets.append((len(joined), n))
        joined += line.strip() + " "
    for m in _SENTENCE.finditer(joined):
        sentence = m.group().strip()
        if len(sentence) < 3:
            continue
        first = max(n for off, n in offsets if off <= m.start() + (len(m.group()) - len(m.group().lstrip())))
        last = max(n for off, n in offsets if off <= m.end() - 1)
        line_text = next(line for n, line in block if n == first).strip()
        quote = _quote_for(sentence, line_text)
        out.append(Unit(index, first, last, quote, _LIST_ITEM.sub("", sentence, count=1).lstrip("> ").strip()))
    return out


def _quote_for(sentence: str, first_line: str) -> str:
    """The longest head of the sentence that lies on its first line (the verifier's anchor)."""
    words = sentence.split()
    for k in range(len(words), 0, -1):
        head = " ".join(words[:k])
        if head in " ".join(first_line.split()):
            return head
    return first_line


def extractive_answer(
    question: str,
    items: Sequence[tuple[Evidence, float]],
    *,
    sub_questions: Sequence[str] = (),
    exact_terms: Sequence[str] = (),
    term_weights: TermWeights = uniform_weights,
) -> Draft:
    """The offline answer: the most relevant units of the best items, each followed by its [n].

    Args:
        question: the question.
        items: (evidence, grade) pairs, best first.
        sub_questions: comparison subjects; each gets at least one unit when any matches.
        exact_terms: identifiers the question names (units containing them rank higher).
        term_weights: weights per question term.

    Returns:
        The draft; an empty body when no unit shares a term with the question.
    """
    terms = question_terms(question)
    weights = term_weights(terms) if terms else {}
    scored: list[tuple[float, float, Unit]] = []
    for idx, (item, grade) in enumerate(items):
        for unit in extract_units(item, idx):
            if looks_like_injection(unit.raw) or looks_like_injection(unit.clean):
                continue
            cov = _coverage(terms, weights, unit.clean + " " + " ".join(item.heading_path[-1:]))
            body_cov = _coverage(terms, weights, unit.clean)
            if body_cov <= 0:
                continue
            exact = 0.15 if any(t.lower() in unit.clean.lower() for t in exact_terms) else 0.0
            short = 0.1 if len(unit.clean) < 20 else 0.0
            scored.append((cov + body_cov + 0.3 * grade + exact - short, body_cov, unit))
    if not scored:
        return Draft("", (), 0.0)
    scored.sort(key=lambda t: -t[0])
    best = scored[0][0]
    chosen: list[tuple[float, Unit]] = []
    for sub in sub_questions:
        sub_terms = question_terms(sub)
        match = next((s for s in scored if sub_terms and _coverage(sub_terms, weights, s[2].clean) > 0), None)
        if match is not None and all(match[2] is not c[1] for c in chosen):
            chosen.append((match[0], match[2]))
    per_item: dict[int, int] = {}
    for c in chosen:
        per_item[c[1].item] = per_item.get(c[1].item, 0) + 1
    for score, _cov, unit in scored:
        if len(chosen) >= MAX_UNITS or score < UNIT_RELATIVE_MIN * best:
            break
        if any(unit is c[1] for c in chosen) or per_item.get(unit.item, 0) >= MAX_UNITS_PER_ITEM:
            continue
        if any(c[1].clean == unit.clean for c in chosen):
            continue
        chosen.append((score, unit))
        per_item[unit.item] = per_item.get(unit.item, 0) + 1
    # read in document order within each item, items in the order of their best unit
    first_rank: dict[int, int] = {}
    for rank, (_s, unit) in enumerate(chosen):
        first_rank.setdefault(unit.item, rank)
    chosen.sort(key=lambda c: (first_rank[c[1].item], c[1].start_line))
    sources: list[SourceRef] = []
    lines: list[str] = []
    for n, (_s, unit) in enumerate(chosen, 1):
        item = items[unit.item][0]
        sources.append(SourceRef(n, item.path, unit.start_line, unit.end_line, unit.raw[:QUOTE_CHARS]))
        lines.append(f"- {unit.clean} [{n}]")
    top_cov = max(c for _s, c, _u in scored)
    confidence = round(min(1.0, 0.5 * max(g for _e, g in items) + 0.5 * min(1.0, top_cov)), 3)
    return Draft("\n".join(lines), tuple(sources), confidence)


def _coverage(terms: Sequence[str], weights: dict[str, float], text: str) -> float:
    if not terms:
        return 0.0
    have = set(tokenize(text))
    total = sum(weights.get(t, 1.0) for t in terms) or 1.0
    return sum(weights.get(t, 1.0) for t in terms if t in have) / total


def model_sources(items: Sequence[tuple[Evidence, float]]) -> list[SourceRef]:
    """Sources [1]..[N] as the model is shown them; the quote is the item's first non-empty line."""
    out = []
    for n, (item, _g) in enumerate(items, 1):
        first = next((ln.strip() for ln in item.text.split("\n") if ln.strip()), "")
        out.append(SourceRef(n, item.path, item.start_line, item.end_line, first[:QUOTE_CHARS]))
    return out


def not_found_text(closest: Sequence[Evidence]) -> str:
    """The plain 'not in the knowledge base' reply, naming the closest passages without citing them."""
    text = NOT_IN_KB
    if closest:
        text += "\n\nClosest passages searched (not an answer): " + ", ".join(e.location for e in closest[:3])
    return text
