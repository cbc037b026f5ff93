"""The one follow-up condenser (agent/condense.py), end to end through Engine(history=...) and through
chat's session, over a small real KB (real rg, real Chroma, hash embedder): a follow-up asks the new
thing, keeps the topic, and never re-answers the previous turn; short questions are not refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_agent.agent.condense import Prior, condense_offline, priors_from_pairs
from kb_agent.agent.engine import Engine
from kb_agent.index.build import build_index
from kb_agent.settings import Settings

STASH_MD = """# git stash

Stash local Git changes in a temporary area.

- Stash your changes, except new (untracked) files:

`git stash push -m message`

- List all stashes:

`git stash list`

- Get your stashed changes back (re-apply the latest stash and remove it):

`git stash pop`
"""

BRANCH_MD = """# git branch

Main command for working with branches.

- Create a new branch based on the current commit:

`git branch branch_name`

- Delete a local branch:

`git branch -d branch_name`
"""

RESTART_ZH = """# 网关运维

## 重启网关

先排空流量，再执行下面的命令重启网关：

`nwctl restart gateway --drain`

## 查看日志

`nwctl logs gateway --tail 100`
"""

LUNCH_MD = """# Lunch

The cafeteria serves soup on Fridays and pasta on Mondays.
"""


@pytest.fixture(scope="module")
def small_kb(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("condense") / "kb"
    (root / "git").mkdir(parents=True)
    (root / "ops").mkdir()
    (root / "git" / "stash.md").write_text(STASH_MD, encoding="utf-8")
    (root / "git" / "branch.md").write_text(BRANCH_MD, encoding="utf-8")
    (root / "ops" / "gateway.zh.md").write_text(RESTART_ZH, encoding="utf-8")
    (root / "lunch.md").write_text(LUNCH_MD, encoding="utf-8")
    settings = Settings(root=root, embedding_provider="hash", llm_provider="none", _env_file=None)  # type: ignore[call-arg]
    build_index(settings)
    return settings


def test_follow_up_asks_the_new_thing_with_the_topic() -> None:
    priors = priors_from_pairs([("how do I stash my changes?", "Use `git stash push`.")])
    c = condense_offline("and how do I get them back?", priors)
    assert c.method == "rules"
    low = c.question.lower()
    assert low.startswith("how do i get them back") and "stash" in low
    assert c.question != priors[0].question


def test_standalone_question_is_left_alone_and_summary_pairs_are_skipped() -> None:
    priors = priors_from_pairs([("(summary of the earlier conversation)", "- asked: x"), ("how do I stash my changes?", "a")])
    assert [p.question for p in priors] == ["how do I stash my changes?"]
    c = condense_offline("How do I delete a local branch?", priors)
    assert c.method == "none" and c.question == "How do I delete a local branch?"
    assert condense_offline("and later?", [Prior("how do I stash my changes?", topic="stash my changes")]).question != "later"


def test_engine_follow_up_answers_the_new_thing(small_kb: Settings) -> None:
    engine = Engine(small_kb)
    try:
        first = engine.answer_query("how do I stash my changes?")
        assert first.found and "Stash your changes" in first.text
        follow = engine.answer_query("and how do I get them back?", history=[("how do I stash my changes?", first.text)])
    finally:
        engine.close()
    assert "stash" in follow.question.lower() and "back" in follow.question.lower()
    assert follow.found and "stashed changes back" in follow.text
    # the follow-up is answered for what it asks, not with the previous answer again
    assert "except new (untracked) files" not in follow.text and follow.text != first.text
    # no step of any iteration searched a single leftover word
    inputs = [s.tool_input for ev in follow.trace for s in ev.steps]
    assert inputs and all(len(x.split()) > 1 or x.startswith("expand") for x in inputs), inputs


def test_chat_session_follow_up_uses_the_same_condenser(small_kb: Settings, tmp_path: Path) -> None:
    from kb_agent.chat.session import ChatSession

    session = ChatSession(small_kb, thread="t1")
    try:
        first = session.ask("how do I stash my changes?")
        second = session.ask("and how do I get them back?")
    finally:
        session.close()
    assert first.answer.found and "Stash your changes" in first.answer.text
    assert second.condensed.method == "rules" and "stash" in second.condensed.question.lower()
    assert second.answer.found and "stashed changes back" in second.answer.text
    assert "except new (untracked) files" not in second.answer.text


@pytest.mark.parametrize("question", ["怎么重启网关？", "如何重启网关", "restart gateway?"])
def test_short_questions_are_not_refused(small_kb: Settings, question: str) -> None:
    engine = Engine(small_kb)
    try:
        answer = engine.answer_query(question)
    finally:
        engine.close()
    assert answer.found, (answer.stop_reason, answer.fallback_reason)
    assert all(c.path == "ops/gateway.zh.md" for c in answer.citations)
    assert any(c.start_line <= 7 and c.end_line >= 5 for c in answer.citations)
