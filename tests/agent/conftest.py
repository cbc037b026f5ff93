"""Fixtures for agent tests: a small KB on disk, fake tools over it, and settings pointing at it."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb_agent.settings import Settings
from tests.support.fakes import FakeTools, evidence_from

CACHE_MD = """# Cache

## TTL
The cache keeps entries for `cache.ttl_seconds` seconds.
The default for cache.ttl_seconds is 300 seconds.
Setting it to 0 disables expiry.

## Eviction
Entries are evicted least-recently-used when memory is full.
"""

DEPLOY_MD = """# Deploy

To roll back a bad deploy, run `nwctl rollback orders-api`.
Rolling back first and debugging later is always acceptable.
"""

NOISE_MD = """# Lunch

The cafeteria serves soup on Fridays.
"""


@pytest.fixture
def kb_root(tmp_path: Path) -> Path:
    root = tmp_path / "kb"
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "cache.md").write_text(CACHE_MD, encoding="utf-8")
    (root / "docs" / "deploy.md").write_text(DEPLOY_MD, encoding="utf-8")
    (root / "docs" / "lunch.md").write_text(NOISE_MD, encoding="utf-8")
    return root


@pytest.fixture
def settings(kb_root: Path) -> Settings:
    return Settings(root=kb_root, llm_provider="none", llm_max_retries=0, _env_file=None)  # type: ignore[call-arg]


@pytest.fixture
def tools(kb_root: Path) -> FakeTools:
    cache = evidence_from(kb_root, "docs/cache.md", 3, 6, score=0.9, tool="x", heading=("Cache", "TTL"))
    lunch = evidence_from(kb_root, "docs/lunch.md", 1, 3, score=0.2, tool="x", heading=("Lunch",))
    deploy = evidence_from(kb_root, "docs/deploy.md", 1, 4, score=0.8, tool="x", heading=("Deploy",))
    return FakeTools(
        root=kb_root,
        results={
            "grep": [cache],
            "hybrid": [cache, lunch],
            "vector": [deploy, lunch],
            "files": [lunch],
            "related": [cache],
        },
    )
