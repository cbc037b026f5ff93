"""Pydantic shapes for the model's structured replies (the only place the agent uses pydantic)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator

from kb_agent.names import TOOL_NAMES, QueryType, ToolName

MAX_SUB_QUESTIONS = 4
MAX_KEYWORDS = 8


class RouteDecision(BaseModel):
    """analyze_and_route's reply: what kind of question this is and how to search for it."""

    query_type: QueryType
    sub_questions: list[str] = Field(default_factory=list)
    suggested_tools: list[ToolName] = Field(default_factory=list)
    grep_keywords: list[str] = Field(default_factory=list)

    @field_validator("sub_questions", "grep_keywords")
    @classmethod
    def _clean(cls, v: list[str]) -> list[str]:
        out = [" ".join(s.split())[:200] for s in v if isinstance(s, str) and s.strip()]
        return list(dict.fromkeys(out))[:MAX_KEYWORDS]

    @field_validator("sub_questions")
    @classmethod
    def _few(cls, v: list[str]) -> list[str]:
        return v[:MAX_SUB_QUESTIONS]

    @model_validator(mode="before")
    @classmethod
    def _lenient_tools(cls, data: Any) -> Any:
        # small models invent tool names; keep the known ones rather than failing the whole reply
        if isinstance(data, dict) and isinstance(data.get("suggested_tools"), list):
            known = set(TOOL_NAMES)
            data = {**data, "suggested_tools": [t for t in data["suggested_tools"] if t in known]}
        return data


class GradeBatch(BaseModel):
    """grade_evidence's reply: one 0–1 relevance score per evidence item, in order.

    Accepts a bare JSON array as well as {"scores": [...]}.
    """

    scores: list[float]

    @model_validator(mode="before")
    @classmethod
    def _bare_array(cls, data: Any) -> Any:
        if isinstance(data, list):
            return {"scores": data}
        return data

    @field_validator("scores")
    @classmethod
    def _unit_interval(cls, v: list[float]) -> list[float]:
        for s in v:
            if not 0.0 <= s <= 1.0:
                raise ValueError(f"score {s} outside 0..1")
        return v


class SynthesizedAnswer(BaseModel):
    """A written answer parsed from the model's streamed text: the body and the markers it used.

    The model writes plain markdown (so tokens can stream); synthesize parses it into this shape
    before the citation verifier runs.
    """

    answer: str
    used_sources: list[int] = Field(default_factory=list)
