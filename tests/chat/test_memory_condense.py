"""Unit tests: conversation memory (recent turns verbatim, older ones summarised, bounded) and
follow-up condensation (offline rules, and the model path with its fallbacks)."""

from __future__ import annotations

import pytest

from kb_agent.chat.condense import condense, condense_offline, entities_of, is_follow_up, topic_of, turn_from
from kb_agent.chat.memory import RECENT_TURNS, SUMMARY_MAX_CHARS, Memory, Turn, bound_summary
from kb_agent.errors import LlmError
from tests.support.fakes import ScriptedModel


def converse(*questions: str) -> tuple[Memory, list[str]]:
    memory, standalone = Memory(), []
    for q in questions:
        c = condense_offline(q, memory)
        standalone.append(c.question)
        memory = memory.remember(turn_from(c, f"answer to {c.question}", ("runbooks/x.md:L1-L2",)))
    return memory, standalone


def test_first_question_is_left_alone() -> None:
    c = condense_offline("How do I deploy orders-api?", Memory())
    assert c.method == "none" and c.question == "How do I deploy orders-api?" and not c.rewritten
    assert c.topic == "deploy orders-api" and c.entities == ("orders-api",)


def test_pronoun_follow_up_carries_the_topic_and_entities() -> None:
    _, qs = converse("How do I deploy orders-api?", "and how do I roll that back?")
    assert qs[1] == "how do I roll that back? (deploy orders-api)"


def test_chained_follow_ups_keep_the_entity() -> None:
    _, qs = converse("How do I fail over Redis?", "when did that last happen?", "Why?")
    assert qs[1] == "when did that last happen? (fail over Redis)"
    assert "Redis" in qs[2] and qs[2].startswith("Why?")


def test_what_about_swaps_the_subject() -> None:
    _, qs = converse("How do I deploy orders-api?", "what about search-gateway?")
    assert qs[1] == "How do I deploy search-gateway?"


def test_chinese_follow_up() -> None:
    _, qs = converse("如何部署 orders-api？", "那回滚呢？")
    assert "回滚" in qs[1] and "orders-api" in qs[1] and "部署" in qs[1]


@pytest.mark.parametrize("question", [
    "How do I roll back a deploy?",
    "What is the default value of cache.ttl_seconds?",
    "Which runbook covers Kafka consumer lag?",
])
def test_standalone_questions_are_not_rewritten_after_history(question: str) -> None:
    memory, _ = converse("How do I fail over Redis?")
    assert not is_follow_up(question, memory)
    assert condense_offline(question, memory).question == question


def test_entities_and_topics() -> None:
    assert "cache.ttl_seconds" in entities_of("What is the default of cache.ttl_seconds?")
    assert "OPS-1234" in entities_of("what happened in OPS-1234")
    assert topic_of("How do I roll back a deploy?") == "roll back a deploy"
    assert topic_of("how long does it take?") == "take"


def test_memory_keeps_recent_turns_verbatim_and_summarises_older() -> None:
    memory, _ = converse(*[f"How do I handle service-{i}?" for i in range(RECENT_TURNS + 3)])
    assert len(memory.recent) == RECENT_TURNS and memory.total_turns == RECENT_TURNS + 3
    assert memory.recent[-1].question == f"How do I handle service-{RECENT_TURNS + 2}?"
    assert "service-0" in memory.summary and "runbooks/x.md" in memory.summary
    assert f"service-{RECENT_TURNS + 2}" not in memory.summary
    history = memory.history()
    assert history[0][0].startswith("(summary") and len(history) == RECENT_TURNS + 1


def test_memory_stays_bounded_over_a_long_thread() -> None:
    memory, _ = converse(*[f"How do I operate the subsystem-{i} with a rather long question text?" for i in range(120)])
    assert len(memory.summary) <= SUMMARY_MAX_CHARS
    assert "subsystem-119" in memory.recent[-1].question and "subsystem-3 " not in memory.summary


def test_memory_round_trips_through_plain_state() -> None:
    memory, _ = converse("How do I deploy orders-api?", "and how do I roll that back?")
    state = memory.to_state()
    import json

    again = Memory.from_state(json.loads(json.dumps(state)))
    assert again.recent == memory.recent and again.summary == memory.summary and again.total_turns == 2
    assert Memory.from_state(None) == Memory()


def test_model_summary_used_and_failure_falls_back() -> None:
    turns = [Turn(question=f"q{i}", standalone=f"q{i}", answer="a") for i in range(RECENT_TURNS + 1)]
    memory = Memory()
    for t in turns:
        memory = memory.remember(t, summarize=lambda prev, fold: "MODEL SUMMARY")
    assert memory.summary == "MODEL SUMMARY"

    def broken(prev: str, fold: object) -> str:
        raise LlmError("down")

    memory = Memory()
    for t in turns:
        memory = memory.remember(t, summarize=broken)
    assert "asked: q0" in memory.summary


def test_bound_summary_cuts_oldest_lines() -> None:
    text = "\n".join(f"line {i} " + "x" * 50 for i in range(100))
    cut = bound_summary(text, 500)
    assert len(cut) <= 500 and cut.endswith(text[-20:]) and cut.startswith("…")


def test_model_condense_and_its_fallbacks() -> None:
    memory, _ = converse("How do I deploy orders-api?")
    model = ScriptedModel({"condense": ["How do I roll back the orders-api deploy?"]})
    c = condense("and how do I roll that back?", memory, model=model)
    assert c.method == "model" and c.question == "How do I roll back the orders-api deploy?"
    assert model.kinds() == ["condense"]
    # garbage, an error, or a rewrite unrelated to the question → the rules, with a note for /trace
    for reply in ["", "Conversation: blah", "Bananas are yellow.", LlmError("server down")]:
        model = ScriptedModel({"condense": [reply]})
        c = condense("and how do I roll that back?", memory, model=model)
        assert c.method == "rules" and c.question == "how do I roll that back? (deploy orders-api)", reply
        assert "rules used" in c.note
