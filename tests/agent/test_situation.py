"""A question that tells the user's situation before it asks (session 32)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_agent.agent.answer import Answer
from kb_agent.agent.engine import Engine
from kb_agent.index.build import build_index
from kb_agent.settings import Settings

FAQ_MD = """# FAQ

## How do I keep a label I add by hand?

The controller removes fields it does not manage on every reconciliation. To keep a label you add with kubectl,
apply it with the field manager the controller leaves alone:

```sh
kubectl label deployment my-app team=payments --field-manager=flux-client-side-apply
```

## Why is my cluster slow?

Check the node pressure and the scheduler queue.
"""

DEPLOY_MD = """# Deployments

The payments team runs its service as a Deployment. During the morning traffic spike the on-call engineer watches
the dashboards, and every few minutes the reconciler compares the cluster with the repository.
"""

ALERTS_MD = """# Alerts

An engineer on call gets an alert when traffic spikes in the morning; the dashboard shows which service is slow.
"""


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("situation") / "kb"
    root.mkdir()
    (root / "faq.md").write_text(FAQ_MD, encoding="utf-8")
    (root / "deployments.md").write_text(DEPLOY_MD, encoding="utf-8")
    (root / "alerts.md").write_text(ALERTS_MD, encoding="utf-8")
    settings = Settings(root=root, embedding_provider="hash", llm_provider="none", _env_file=None)  # type: ignore[call-arg]
    build_index(settings)
    return settings


def ask(kb: Settings, question: str) -> Answer:
    engine = Engine(kb)
    try:
        return engine.answer_query(question)
    finally:
        engine.close()


def test_a_question_that_tells_its_situation_first_is_answered_for_what_it_asks(kb: Settings) -> None:
    answer = ask(kb, "Our on-call engineer adds a team label to the payments Deployment during the morning traffic spike, and "
                     "a few minutes later the reconciler strips it again from the dashboard. How do I keep a label I add by hand?")
    assert answer.found, (answer.stop_reason, answer.fallback_reason)
    assert "flux-client-side-apply" in answer.text
    assert any(c.path == "faq.md" for c in answer.citations)


def test_the_situation_does_not_make_an_unanswered_ask_answered(kb: Settings) -> None:
    """The asking sentence is graded on its own, never the situation: a page that retells the situation but not what
    is asked answers nothing."""
    answer = ask(kb, "Our on-call engineer watches the payments Deployment during the morning traffic spike on the dashboard. "
                     "How do I rotate the certificate of the ingress?")
    assert not answer.found, answer.text
