"""The chat-model side of the question pool: one structured call per group of chunks (retries on
transient faults, one repair try on an invalid, partial or cut-off reply), validated by
kb_agent/index/questions.py."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from kb_agent.errors import LlmError
from kb_agent.index.questions import SHORTER, Excerpt, GroupResult, QuestionsReply, ReplyCollector, question_prompt, reply_tokens
from kb_agent.llm.base import ChatModel, Message
from kb_agent.llm.retry import MeteredModel, ModelOutputInvalid, RetryPolicy, complete_structured, complete_with_retry, parse_json_as

if TYPE_CHECKING:
    from kb_agent.settings import Settings

# what OpenAI's client raises for a reply that ended at the token cap (or a content filter): the
# reply is unusable, the server is fine
_CUT_SHORT = frozenset({"LengthFinishReasonError", "ContentFilterFinishReasonError"})


def cut_short(e: BaseException) -> bool:
    """True when `e` (or what caused it) says the reply was cut off, not that the call failed."""
    seen: BaseException | None = e
    while seen is not None:
        if type(seen).__name__ in _CUT_SHORT:
            return True
        seen = seen.__cause__
    return False


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
        the reply and of its one repair (at most two calls per group).

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
        except LlmError as e:
            if not cut_short(e):
                raise
            notes.append("reply cut off at the token cap")
            if metered.calls == 1:  # the first reply: its repair try asks for a shorter one
                self._shorter(metered, messages, collector, per_chunk, notes)
        return GroupResult(questions=dict(collector.questions), calls=metered.calls, notes=tuple(notes))

    def _shorter(self, model: MeteredModel, messages: list[Message], collector: ReplyCollector, per_chunk: int, notes: list[str]) -> None:
        ids = ", ".join(f'"{label}"' for label in collector.labels)
        retry = [*messages, Message("user", SHORTER.format(n=per_chunk, ids=ids))]
        try:
            collector.check(parse_json_as(complete_with_retry(model, retry, policy=self.policy, json_mode=True, notes=notes), QuestionsReply))
        except ValueError as e:
            notes.append(f"repair reply invalid: {e}")
        except LlmError as e:
            if not cut_short(e):
                raise
            notes.append("repair reply cut off at the token cap")


def question_writer(settings: Settings, model: ChatModel | None = None) -> ModelQuestionWriter | None:
    """The writer for `kb index --questions` on the configured chat model; None when there is none
    (KB_LLM_PROVIDER=none). The model's replies are capped at what a group's questions need
    (`reply_tokens`), or KB_LLM_MAX_TOKENS when that is lower.

    Raises:
        ConfigError: the provider is unknown or its settings are incomplete.
    """
    from kb_agent.llm.registry import create_chat_model

    if model is None:
        cap = min(settings.llm_max_tokens, reply_tokens(settings.questions_per_chunk, settings.questions_batch_size))
        model = create_chat_model(settings.model_copy(update={"llm_max_tokens": cap}))
    if model.offline:
        return None
    return ModelQuestionWriter(model, policy=RetryPolicy(max_retries=settings.llm_max_retries))
