"""The library entry point: `Engine(settings).answer_query(question) -> Answer` (what `kb ask` calls),
plus the per-question audit line in `.kb/audit.jsonl`."""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb_agent.agent.answer import Answer, audit_dict
from kb_agent.agent.execute import EventSink, SearchTools
from kb_agent.agent.plan import STEP_TIMEOUT_S
from kb_agent.llm.base import ChatModel
from kb_agent.llm.retry import MeteredModel, RetryPolicy
from kb_agent.names import index_dir
from kb_agent.types import SearchFilters

if TYPE_CHECKING:
    from kb_agent.settings import Settings

log = logging.getLogger(__name__)

AUDIT_FILE = "audit.jsonl"


class Engine:
    """Answers questions about one knowledge base; reuse it for many questions (warm in process).

    Args:
        settings: loaded settings.
        model: a chat model to use instead of the one `settings.llm_provider` names (tests inject one).
        tools: retrieval tools to use instead of opening the index (tests inject fakes).
        step_timeout_s: per-plan-step time budget.
        retry_policy: retry/backoff policy for model calls (default from settings).
    """

    def __init__(
        self,
        settings: Settings,
        *,
        model: ChatModel | None = None,
        tools: SearchTools | None = None,
        step_timeout_s: float = STEP_TIMEOUT_S,
        retry_policy: RetryPolicy | None = None,
    ) -> None:
        self.settings = settings
        self._model = model
        self._tools = tools
        self._owns_tools = tools is None
        self._graph: Any = None
        self._deps: Any = None
        self.step_timeout_s = step_timeout_s
        self.retry_policy = retry_policy or RetryPolicy(max_retries=settings.llm_max_retries, deadline_s=settings.llm_deadline_s)

    @property
    def root(self) -> Path:
        root = getattr(self._tools, "root", None)
        return Path(root) if root is not None else self.settings.kb_root()

    def _setup(self) -> None:
        if self._graph is not None:
            return
        from kb_agent.agent.graph import build_graph
        from kb_agent.agent.nodes import AgentDeps
        from kb_agent.llm.registry import create_chat_model

        if self._tools is None:
            from kb_agent.retrieval.tools import Retriever

            self._tools = Retriever(self.settings)
        model = self._model if self._model is not None else create_chat_model(self.settings)
        secret = self.settings.llm_api_key.get_secret_value()
        self._deps = AgentDeps(
            tools=self._tools,
            model=MeteredModel(model),
            root=self.root,
            drop_below=self.settings.grade_drop_below,
            generate_at=self.settings.grade_generate_at,
            reretrieve_below=self.settings.grade_reretrieve_below,
            top_k=self.settings.top_k,
            step_timeout_s=self.step_timeout_s,
            policy=self.retry_policy,
            term_weights=_index_weights(self._tools),
            redact=(lambda s: s.replace(secret, "***")) if secret else (lambda s: s),
        )
        self._graph = build_graph(self._deps)

    def answer_query(
        self,
        question: str,
        *,
        tool: str | None = None,
        filters: SearchFilters | None = None,
        max_iterations: int | None = None,
        allow_general: bool = False,
        history: list[tuple[str, str]] | None = None,
        on_event: EventSink | None = None,
    ) -> Answer:
        """Answer one question from the knowledge base.

        Args:
            question: the question (inline `tag:X` / `path:GLOB` filters allowed).
            tool: force one retrieval tool (grep, vector, hybrid, files, related); None or "auto" routes.
            filters: tag / path filters on top of inline ones.
            max_iterations: grader loop cap (default KB_AGENT_MAX_ITERATIONS).
            allow_general: when the KB lacks the answer, let the model answer from general knowledge
                (labelled answer_source=llm_fallback).
            history: earlier (question, answer) turns, for follow-up questions.
            on_event: receives progress / token events while the graph runs.

        Returns:
            The Answer; `answer.found` tells whether it is a cited answer from the KB.

        Raises:
            InvalidQuery: empty or over-long question.
            IndexNotBuilt, IndexIncompatible: no usable index.
            ConfigError: the chat-model settings are incomplete.
        """
        self._setup()
        deps = self._deps
        deps.emit = on_event or (lambda _e: None)
        deps.policy = self.retry_policy.for_question()  # a fresh model time budget (KB_LLM_DEADLINE_S)
        cap = max_iterations or self.settings.agent_max_iterations
        from kb_agent.agent.graph import recursion_limit

        state: dict[str, Any] = {
            "raw_question": question,
            "history": list(history or []),
            "allow_general": allow_general,
            "filters": filters or SearchFilters(),
            "tool_override": None if tool in (None, "auto") else tool,
            "max_iterations": cap,
            "trace": [],
            "timings": {},
            "model_calls": 0,
        }
        t0 = time.perf_counter()
        try:
            final = self._graph.invoke(state, config={"recursion_limit": recursion_limit(cap)})
        finally:
            deps.emit = lambda _e: None
        total = round((time.perf_counter() - t0) * 1000, 1)
        answer = Answer(
            question=final.get("question", ""),
            text=final.get("answer", ""),
            citations=tuple(final.get("citations", [])),
            query_type=final.get("query_type", "conceptual"),
            iterations=tuple(final.get("iterations", [])),
            confidence=float(final.get("confidence", 0.0)),
            answer_source=final.get("answer_source", "none"),
            fallback_reason=final.get("fallback_reason"),
            stop_reason=final.get("stop_reason") or "generate",
            timings={**final.get("timings", {}), "total": total},
            trace=tuple(final.get("trace", [])),
            model_calls=int(final.get("model_calls", 0)),
            model=deps.model.name,
        )
        self._audit(answer)
        return answer

    @property
    def notices(self) -> list[str]:
        """Why retrieval ran degraded (e.g. vectors unavailable on a read-only KB), for the CLI's stderr."""
        return list(getattr(self._tools, "notices", None) or [])

    def _audit(self, answer: Answer) -> None:
        path = index_dir(self.root) / AUDIT_FILE
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            line = json.dumps(audit_dict(answer, when=time.time()), ensure_ascii=False)
            line = self._deps.redact(line)
            with path.open("a", encoding="utf-8") as f:
                f.write(line + "\n")
        except OSError as e:  # a read-only KB still gets its answer
            log.info("could not append to %s: %s", path, e)

    def close(self) -> None:
        """Release the index (only when the Engine opened it)."""
        if self._owns_tools and self._tools is not None:
            close = getattr(self._tools, "close", None)
            if close is not None:
                close()
        self._tools = None
        self._graph = None

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _index_weights(tools: Any) -> Any:
    """IDF term weights from the index statistics, when the tools have an index."""
    from kb_agent.agent.grade import idf_weights

    index = getattr(tools, "index", None)
    catalog = getattr(index, "catalog", None)
    if catalog is None:
        return None
    n_docs, _avg = catalog.bm25_stats()
    return idf_weights(catalog.document_frequencies, n_docs, literal_files=getattr(tools, "literal_files", None))
