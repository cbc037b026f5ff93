"""The follow-up condenser: turn "and how do I roll that back?" into a standalone question that keeps the
topic of the earlier turns and asks the new thing — by the chat model when one is given, else by rules.
Used by `Engine.answer_query(history=...)` and by `kb chat` (which keeps richer turns in its memory)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from kb_agent.llm.base import ChatModel
    from kb_agent.llm.retry import RetryPolicy

Method = Literal["none", "rules", "model"]

# a question this short (in content words) with no identifier of its own leans on the previous turn
SHORT_FOLLOW_UP_WORDS = 1
# a question with its own identifier still counts as a follow-up through a pronoun only when it is short
ANAPHOR_MAX_WORDS = 8
# carried topics are cut to this many words so a chain of follow-ups cannot grow without bound
TOPIC_MAX_WORDS = 10
MAX_ENTITIES = 4
# "and for X?" with more words than this is a question of its own, not an ellipsis
ELLIPSIS_MAX_WORDS = 4
# a model rewrite longer than this many times the question (plus slack) is taken as rambling
MODEL_REWRITE_MAX_RATIO = 4

_LEAD = re.compile(r"^(?:(?:and|also|but|so|then|ok(?:ay)?|plus|and then|and also)\b[,\s]*)+|^(?:那么|那|还有|另外|而且|然后|并且)[，,、\s]*", re.I)
_ELLIPSIS = [
    re.compile(r"^(?:(?:and|but|so)\s+)?(?:what|how)\s+about\s+(?P<x>.+?)\s*[?？.!]*$", re.I),
    re.compile(r"^(?:and|also|same)\s+(?:for|in|on|with)?\s*(?P<x>[^?？\s][^?？]{0,40}?)\s*[?？]+$", re.I),
    re.compile(r"^(?:那么?|还有)?\s*(?P<x>[^？?]{1,24}?)\s*呢\s*[？?]*$"),
]
_ANAPHOR = re.compile(
    r"\b(?:it|its|it's|that|this|those|these|they|them|their|there|the same|the former|the latter|the first|the second|the other)\b"
    r"|它们?|这个|那个|这些|那些|上面|上述|前者|后者|这样|那样",
    re.I,
)
_INTERROGATIVE = re.compile(
    r"^(?:(?:please\s+)?(?:tell me|explain|show me|describe)\s+(?:about\s+)?|how\s+(?:long|many|much|often|big|soon)"
    r"(?:\s+(?:does|do|did|is|are|was|will|should|can))?(?:\s+(?:it|i|we|you|they))?|how\s+(?:do|can|should|would|could|to|does|did|is|are)"
    r"(?:\s+(?:i|we|you|one))?|what(?:'s|\s+is|\s+are|\s+does|\s+do|\s+did|\s+was)?(?:\s+the)?|where(?:'s|\s+is|\s+are|\s+do|\s+does|\s+can)?"
    r"(?:\s+(?:i|we))?|why(?:\s+(?:is|are|do|does|did|was|were))?|when(?:\s+(?:is|are|do|does|did|can|should|was))?(?:\s+(?:i|we))?"
    r"|who(?:\s+(?:is|are|does|do))?|which|can\s+(?:i|we|you)|should\s+(?:i|we)|is\s+(?:it|there)|are\s+there|do\s+(?:i|we)"
    r"|does|is|are)\b\s*",
    re.I,
)
_CJK_QUESTION = re.compile(r"如何|怎么样?|怎样|为什么|为何|什么是|是什么|是否|能否|可以吗|吗|呢|请问")
_DASHES = re.compile(r"\s[—–-]\s")
_END_PUNCT = re.compile(r"[\s?？.!。！]+$")
_IDENTIFIER = re.compile(r"^(?=.*[a-z])[\w.@/]+(?:[-_./][\w@]+)+$|^[A-Z][A-Z0-9]+-\d+$|^[A-Z]{1,3}\d{3,5}$", re.I)
_CAPITALISED = re.compile(r"(?<=\s)[A-Z][A-Za-z0-9]+")


@dataclass(frozen=True, slots=True)
class Prior:
    """An earlier turn as the condenser sees it: what was asked, its standalone form, topic and entities."""

    question: str
    standalone: str = ""
    topic: str = ""
    entities: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Condensed:
    """A question made standalone (or left as it was) and how."""

    question: str  # what goes to the agent
    original: str  # what the user typed
    method: Method  # none (standalone already), rules (offline), model
    topic: str  # what this turn is about, for the next follow-up
    entities: tuple[str, ...]
    note: str = ""  # why the rewrite happened or fell back (shown in /trace)

    @property
    def rewritten(self) -> bool:
        return self.question != self.original


_CARRIED = re.compile(r"^(?P<ask>.*\S[?？])\s*\((?P<context>[^()]+)\)$")


def ask_of(question: str) -> str:
    """The new thing a condensed question asks: "how do I get them back? (stash my changes)" → "how do
    I get them back?". The carried topic helps retrieval find the right page; the answer is then
    written for the ask, so a follow-up does not re-answer the previous turn. Identifiers in the
    carried topic (orders-api, cache.ttl_seconds) stay: they say *which* thing the ask is about.
    Any other question is returned whole."""
    m = _CARRIED.match(question.strip())
    if not m:
        return question
    names = [w for w in m.group("context").split() if _IDENTIFIER.match(w.strip(",;"))]
    return " ".join([m.group("ask"), *names])


def priors_from_pairs(history: Sequence[tuple[str, str]]) -> list[Prior]:
    """Priors from plain (question, answer) pairs (what `Engine.answer_query(history=...)` takes).

    Each question is condensed against the ones before it, so a chain of follow-ups keeps its topic;
    a summary pair (a question in parentheses) carries no question of its own and is skipped.
    """
    priors: list[Prior] = []
    for question, _answer in history:
        q = " ".join(question.split())
        if not q or (q.startswith("(") and q.endswith(")")):
            continue
        c = condense_offline(q, priors)
        priors.append(Prior(question=q, standalone=c.question, topic=c.topic, entities=c.entities))
    return priors


def entities_of(question: str) -> tuple[str, ...]:
    """Identifiers a question names: service names, config keys, tickets, paths, quoted and proper names."""
    from kb_agent.agent.analyzer import analyze_question

    analysis = analyze_question(question)
    found = [*analysis.exact_terms]
    found += [k for k in analysis.grep_keywords if _IDENTIFIER.match(k)]
    found += [m.group(0) for m in _CAPITALISED.finditer(" " + question) if m.group(0) not in ("I",) and m.start() > 1]
    out: list[str] = []
    for e in found:
        if e.lower() not in {o.lower() for o in out}:
            out.append(e)
    return tuple(out[:MAX_ENTITIES])


def topic_of(question: str) -> str:
    """The subject of a question: the question minus its interrogative lead, pronouns and end punctuation."""
    text = _LEAD.sub("", question.strip())
    text = _INTERROGATIVE.sub("", text)
    text = _CJK_QUESTION.sub(" ", text)
    text = _ANAPHOR.sub(" ", text)
    text = _END_PUNCT.sub("", _DASHES.sub(" ", text))
    words = text.split()
    if len(words) > TOPIC_MAX_WORDS:
        from kb_agent.agent.analyzer import analyze_question

        words = list(analyze_question(question).grep_keywords)[:TOPIC_MAX_WORDS]
    return " ".join(words)


def is_follow_up(question: str, priors: Sequence[Prior]) -> bool:
    """Whether a question leans on the earlier turns (pronoun, leading "and", "what about X", or too short to stand alone)."""
    if not priors:
        return False
    q = question.strip()
    if _LEAD.match(q) or _ellipsis_subject(q):
        return True
    own = entities_of(q)
    words = len(q.split())
    if _ANAPHOR.search(q) and (not own or words <= ANAPHOR_MAX_WORDS):
        return True
    return not own and _content_words(q) <= SHORT_FOLLOW_UP_WORDS


def condense_offline(question: str, priors: Sequence[Prior]) -> Condensed:
    """The deterministic rewrite: carry the last turn's topic and entities into a follow-up.

    "what about X?" re-asks the last question with its subject replaced by X; any other follow-up
    keeps its own words first (the new thing it asks) and gains the last turn's topic in
    parentheses — never the last question itself, so the new ask is not drowned by the old one.
    """
    q = " ".join(question.split())
    if not is_follow_up(q, priors):
        return Condensed(q, question, "none", topic_of(q) or q, entities_of(q))
    last = priors[-1]
    subject = _ellipsis_subject(q)
    if subject and entities_of(subject):
        base = _base_question(last)
        replaced = _replace_entity(base, last.entities, subject)
        standalone = replaced if replaced != base else f"{_END_PUNCT.sub('', base)} — {subject}?"
        return Condensed(standalone, question, "rules", topic_of(standalone), _merge(entities_of(subject), last.entities),
                         note=f"'{subject}' in place of the last question's subject")
    body = subject or _LEAD.sub("", q).strip() or q
    context = _context_phrase(last, exclude=body)
    standalone = f"{body} ({context})" if context else body
    own_topic = topic_of(body)
    topic = " ".join(f"{own_topic} {last.topic}".split()[:TOPIC_MAX_WORDS]) if own_topic else last.topic
    return Condensed(standalone, question, "rules", topic, _merge(entities_of(body), last.entities),
                     note=f"carried the topic of the last turn: {context}" if context else "")


def condense(
    question: str,
    priors: Sequence[Prior],
    *,
    history: Sequence[tuple[str, str]] | None = None,
    model: ChatModel | None = None,
    policy: RetryPolicy | None = None,
    notes: list[str] | None = None,
) -> Condensed:
    """Make `question` standalone: the model when one is given (and online), else the rules.

    Args:
        question: the follow-up as typed.
        priors: the earlier turns, oldest first.
        history: (question, answer) pairs for the model's prompt (default: the priors' questions).
        model: a chat model; None or an offline one means the rules.
        policy: retry policy for the model call.
        notes: where retry notes go (the node's trace).

    Returns:
        The Condensed question. A model rewrite that fails, comes back empty, rambles or drops every
        word of the question falls back to the rules; the fallback is noted.
    """
    rules = condense_offline(question, priors)
    if model is None or getattr(model, "offline", True) or not priors:
        return rules
    from kb_agent.agent import prompts
    from kb_agent.retrieval.query import clean_text
    from kb_agent.errors import LlmError
    from kb_agent.llm.retry import RetryPolicy, complete_with_retry

    pairs = list(history) if history is not None else [(p.standalone or p.question, "") for p in priors]
    try:
        reply = complete_with_retry(model, prompts.condense_messages(pairs, question), policy=policy or RetryPolicy(), notes=notes)
    except LlmError as e:
        return _with_note(rules, f"condense by the model failed ({e.message}); rules used")
    rewrite = clean_text(reply).strip().strip('"').strip()
    problem = _bad_rewrite(question, rewrite)
    if problem:
        return _with_note(rules, f"the model's rewrite was unusable ({problem}); rules used")
    return Condensed(rewrite, question, "model", topic_of(rewrite) or rules.topic, _merge(entities_of(rewrite), rules.entities),
                     note="rewritten by the model")


def _bad_rewrite(question: str, rewrite: str) -> str:
    if not rewrite:
        return "empty"
    if len(rewrite) > MODEL_REWRITE_MAX_RATIO * len(question) + 200:
        return "too long"
    if rewrite.lower().startswith(("conversation:", "follow-up:")):
        return "echoed the prompt"
    from kb_agent.index.tokenize import tokenize

    asked = set(tokenize(question, drop_stopwords=True))
    if asked and not asked & set(tokenize(rewrite, drop_stopwords=True)):
        return "shares no word with the question"
    return ""


def _with_note(c: Condensed, note: str) -> Condensed:
    return Condensed(c.question, c.original, c.method, c.topic, c.entities, note=f"{note}; {c.note}" if c.note else note)


def _ellipsis_subject(question: str) -> str:
    """X in "what about X?", "and for X?", "X呢？" — a few words, not a question of its own."""
    for pattern in _ELLIPSIS:
        m = pattern.match(question)
        if m:
            subject = _END_PUNCT.sub("", m.group("x")).strip()
            if subject and len(subject.split()) <= ELLIPSIS_MAX_WORDS and not _INTERROGATIVE.match(subject):
                return subject
    return ""


def _content_words(question: str) -> int:
    from kb_agent.agent.analyzer import analyze_question

    return len(analyze_question(question).grep_keywords)


def _base_question(turn: Prior) -> str:
    """The last standalone question without a carried "(context)" tail."""
    return re.sub(r"\s*\([^()]*\)\s*$", "", turn.standalone or turn.question) or turn.question


def _replace_entity(text: str, entities: tuple[str, ...], subject: str) -> str:
    for e in entities:
        pattern = re.compile(re.escape(e), re.I)
        if pattern.search(text):
            return pattern.sub(lambda _m: subject, text, count=1)
    return text


def _context_phrase(last: Prior, *, exclude: str) -> str:
    """The last turn's topic plus entities it named that the follow-up does not repeat."""
    low = exclude.lower()
    parts = [last.topic] if last.topic and last.topic.lower() not in low else []
    have = " ".join(parts).lower()
    parts += [e for e in last.entities if e.lower() not in have and e.lower() not in low]
    return " ".join(" ".join(parts).split()[: TOPIC_MAX_WORDS + MAX_ENTITIES])


def _merge(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for e in (*first, *second):
        if e and e.lower() not in {o.lower() for o in out}:
            out.append(e)
    return tuple(out[:MAX_ENTITIES])
