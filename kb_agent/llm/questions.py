"""The chat-model side of the question pool: one structured call per group of chunks (retries on
transient faults, one repair try on an invalid or partial reply), validated by kb_agent/index/questions.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kb_agent.index.questions import Excerpt, GroupResult, QuestionsReply, ReplyCollector, question_prompt
from kb_agent.llm.base import ChatModel, Message
from kb_agent.llm.retry import MeteredModel, ModelOutputInvalid, RetryPolicy, complete_structured

if TYPE_CHECKING:
    from kb_agent.settings import Settings


class ModelQuestionWriter:
    """A `QuestionWriter` on a chat model.

    Args:
        model: the chat model (not the offline one).
        policy: retries for transient faults; no per-question deadline applies at index time (each
            request still has the provider's timeout, KB_LLM_TIMEOUT_S).
    """

    def __init__(self, model: ChatModel, *, policy: RetryPolicy) -> None:
        self.model = model
        self.name = model.name
        self.policy = policy

    def write(self, excerpts: Sequence[Excerpt], per_chunk: int) -> GroupResult:
        """Ask for up to `per_chunk` questions for each excerpt in one call; keep every valid entry of
        the reply and of its one repair.

        Raises:
            LlmError: the model could not be reached (after the policy's retries).
        """
        messages = [Message("system" if role == "system" else "user", text) for role, text in question_prompt(excerpts, per_chunk)]
        collector = ReplyCollector([e.label for e in excerpts], per_chunk)
        metered = MeteredModel(self.model)
        notes: list[str] = []
        try:
            complete_structured(metered, messages, QuestionsReply, policy=self.policy, notes=notes, check=collector.check)
        except ModelOutputInvalid as e:  # what was valid in either reply is kept; the rest falls back
            notes.append(e.message)
        return GroupResult(questions=dict(collector.questions), calls=metered.calls, notes=tuple(notes))


def question_writer(settings: Settings, model: ChatModel | None = None) -> ModelQuestionWriter | None:
    """The writer for `kb index --questions` on the configured chat model; None when there is none
    (KB_LLM_PROVIDER=none).

    Raises:
        ConfigError: the provider is unknown or its settings are incomplete.
    """
    from kb_agent.llm.registry import create_chat_model

    chat = model if model is not None else create_chat_model(settings)
    if chat.offline:
        return None
    return ModelQuestionWriter(chat, policy=RetryPolicy(max_retries=settings.llm_max_retries))
