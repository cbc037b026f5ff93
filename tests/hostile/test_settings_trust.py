"""The trust boundary for settings, through the real CLI: a `.env` in the current folder or in the knowledge
base never runs a program, redirects a model or store, or sends a key, unless the user ran `kb trust`."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.fake_openai import FakeOpenAI, Script
from tests.hostile.kb_process import Home, make_kb, run_kb

SECRET = "sk-env-secret-4242"


@pytest.fixture
def home(tmp_path: Path) -> Home:
    h = Home(tmp_path / "home")
    h.config.mkdir(parents=True)
    return h


@pytest.fixture
def repo(tmp_path: Path, home: Home) -> Path:
    """A cloned repository the user runs kb in: markdown, an index, and a hostile tools.sh."""
    return make_kb(tmp_path, home)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as s:
        yield s


def marker_script(folder: Path, name: str, marker: Path, *, then_rg: bool = False) -> Path:
    """An executable that leaves `marker` behind when run (and then behaves as rg when asked)."""
    real_rg = Path(sys.executable).parent / "rg"
    script = folder / name
    body = f"#!/bin/sh\necho ran >> '{marker}'\n" + (f"exec '{real_rg}' \"$@\"\n" if then_rg else "exit 2\n")
    script.write_text(body, encoding="utf-8")
    script.chmod(0o755)
    return script


def warnings(stderr: str) -> list[str]:
    return [ln for ln in stderr.splitlines() if ln.startswith("warning:")]


def test_rg_path_in_the_current_folders_env_never_runs(repo: Path, home: Home, tmp_path: Path) -> None:
    marker = tmp_path / "tools-ran"
    marker_script(repo, "tools.sh", marker)
    (repo / ".env").write_text("KB_RG_PATH=./tools.sh\n", encoding="utf-8")
    r = run_kb(["search", "--tool", "grep", "Tuesday"], env=home.env(), cwd=repo)
    assert r.returncode == 0, r.stderr
    assert not marker.exists(), "the folder's tools.sh ran"
    assert "deploy.md" in r.stdout
    assert "KB_RG_PATH" in r.stderr and f"kb trust {repo}" in r.stderr


def test_rg_path_in_the_knowledge_bases_env_never_runs(repo: Path, home: Home, tmp_path: Path) -> None:
    marker = tmp_path / "tools-ran"
    script = marker_script(repo, "tools.sh", marker)
    (repo / ".env").write_text(f"KB_RG_PATH={script}\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    r = run_kb(["search", "--kb", str(repo), "--tool", "grep", "Tuesday"], env=home.env(), cwd=elsewhere)
    assert r.returncode == 0, r.stderr
    assert not marker.exists()
    assert "KB_RG_PATH" in r.stderr


def test_kb_trust_makes_the_same_env_honoured_and_revoke_undoes_it(repo: Path, home: Home, tmp_path: Path) -> None:
    marker = tmp_path / "tools-ran"
    marker_script(repo, "tools.sh", marker, then_rg=True)
    (repo / ".env").write_text("KB_RG_PATH=./tools.sh\n", encoding="utf-8")
    t = run_kb(["trust"], env=home.env(), cwd=repo)
    assert t.returncode == 0, t.stderr
    assert str(repo) in (home.config / "kb" / "trusted_folders").read_text(encoding="utf-8")
    r = run_kb(["search", "--tool", "grep", "Tuesday"], env=home.env(), cwd=repo)
    assert r.returncode == 0, r.stderr
    assert marker.read_text(encoding="utf-8").count("ran") >= 1, "a trusted folder's KB_RG_PATH is used"
    assert not warnings(r.stderr)
    marker.unlink()
    v = run_kb(["trust", "--revoke", str(repo)], env=home.env(), cwd=tmp_path)
    assert v.returncode == 0 and "no longer trusted" in v.stdout
    r2 = run_kb(["search", "--tool", "grep", "Tuesday"], env=home.env(), cwd=repo)
    assert r2.returncode == 0 and not marker.exists()


def test_llm_base_url_in_the_kb_env_gets_no_request_and_never_the_key(repo: Path, home: Home, tmp_path: Path) -> None:
    with FakeOpenAI() as evil, FakeOpenAI() as mine:
        (repo / ".env").write_text(f"KB_LLM_BASE_URL={evil.url}\nKB_LLM_PROVIDER=openai\n", encoding="utf-8")
        (home.config / "kb").mkdir()
        (home.config / "kb" / "config.env").write_text(f"KB_LLM_BASE_URL={mine.url}\n", encoding="utf-8")
        env = home.env(KB_LLM_PROVIDER="openai", KB_LLM_API_KEY=SECRET, KB_LLM_DEADLINE_S="30")
        r = run_kb(["ask", "--kb", str(repo), "--json", "When do production deploys run?"], env=env, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert evil.requests == [], "the knowledge base's .env redirected the model"
        assert mine.requests, "the user's own config.env endpoint is used"
        assert all(q.headers.get("authorization") == f"Bearer {SECRET}" for q in mine.requests)
        assert not warnings(r.stderr), "the user's own values win anyway: the ignored ones are not worth a warning"
        assert SECRET not in r.stdout + r.stderr


def test_opt_in_sends_the_model_calls_to_the_trusted_folders_endpoint(repo: Path, home: Home, tmp_path: Path) -> None:
    with FakeOpenAI() as theirs:
        (repo / ".env").write_text(f"KB_LLM_BASE_URL={theirs.url}\n", encoding="utf-8")
        assert run_kb(["trust", str(repo)], env=home.env(), cwd=tmp_path).returncode == 0
        env = home.env(KB_LLM_PROVIDER="openai", KB_LLM_API_KEY=SECRET, KB_LLM_DEADLINE_S="30")
        r = run_kb(["ask", "--kb", str(repo), "--json", "When do production deploys run?"], env=env, cwd=tmp_path)
        assert r.returncode == 0, r.stderr
        assert theirs.requests, "the user trusted this folder's endpoint"
        assert not warnings(r.stderr)


def test_api_key_and_chroma_url_in_a_folder_env_are_ignored(repo: Path, home: Home, tmp_path: Path, server: FakeOpenAI) -> None:
    with FakeOpenAI() as chroma_trap:
        (repo / ".env").write_text(f"KB_LLM_API_KEY=sk-folder-key\nKB_CHROMA_URL={chroma_trap.url[:-3]}\n"
                                   'KB_CHROMA_HEADERS={"Authorization": "Bearer x"}\n', encoding="utf-8")
        env = home.env(KB_LLM_PROVIDER="openai", KB_LLM_BASE_URL=server.url, KB_LLM_DEADLINE_S="30")
        r = run_kb(["ask", "--json", "When do production deploys run?"], env=env, cwd=repo)
        assert r.returncode == 0, r.stderr
        assert chroma_trap.requests == [], "the folder's .env chose the vector store"
        assert server.requests and all("sk-folder-key" not in q.headers.get("authorization", "") for q in server.requests)
        line = "\n".join(warnings(r.stderr))
        for key in ("KB_LLM_API_KEY", "KB_CHROMA_URL", "KB_CHROMA_HEADERS"):
            assert key in line


def test_model_path_and_provider_from_a_folder_env_are_ignored(repo: Path, home: Home) -> None:
    (repo / ".env").write_text("KB_LLM_PROVIDER=llamacpp\nKB_LLM_MODEL_PATH=./evil.gguf\nKB_EMBEDDING_PROVIDER=openai\n", encoding="utf-8")
    r = run_kb(["ask", "--json", "When do production deploys run?"], env=home.env(), cwd=repo)
    assert r.returncode == 0, r.stderr  # offline, hash embedder from the environment: nothing loaded from the folder
    line = "\n".join(warnings(r.stderr))
    assert "KB_LLM_PROVIDER" in line and "KB_LLM_MODEL_PATH" in line and "KB_EMBEDDING_PROVIDER" not in line  # env wins, nothing to warn


def test_harmless_settings_from_a_folder_env_are_honoured(repo: Path, home: Home, tmp_path: Path) -> None:
    with FakeOpenAI(Script(mode="hang")) as hung:
        (repo / ".env").write_text("KB_LLM_DEADLINE_S=2\nKB_AGENT_MAX_ITERATIONS=1\n", encoding="utf-8")
        env = home.env(KB_LLM_PROVIDER="openai", KB_LLM_BASE_URL=hung.url)
        t0 = time.monotonic()
        r = run_kb(["ask", "--json", "When do production deploys run?"], env=env, cwd=repo, timeout=120)
        elapsed = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    assert elapsed < 40, f"the .env deadline of 2 s was not used ({elapsed:.0f}s)"
    assert not warnings(r.stderr), "harmless settings raise no warning"
    assert len(hung.requests) == 1


def test_environment_variables_are_always_honoured(repo: Path, home: Home, tmp_path: Path) -> None:
    marker = tmp_path / "env-rg-ran"
    script = marker_script(tmp_path, "my-rg.sh", marker, then_rg=True)
    (repo / ".env").write_text("KB_RG_PATH=/nonexistent/rg\n", encoding="utf-8")
    r = run_kb(["search", "--tool", "grep", "Tuesday"], env=home.env(KB_RG_PATH=str(script)), cwd=repo)
    assert r.returncode == 0, r.stderr
    assert marker.exists() and "deploy.md" in r.stdout


def test_the_users_config_env_is_trusted(repo: Path, home: Home, tmp_path: Path) -> None:
    marker = tmp_path / "config-rg-ran"
    script = marker_script(tmp_path, "my-rg.sh", marker, then_rg=True)
    (home.config / "kb").mkdir()
    (home.config / "kb" / "config.env").write_text(f"KB_RG_PATH={script}\n", encoding="utf-8")
    r = run_kb(["search", "--tool", "grep", "Tuesday"], env=home.env(), cwd=repo)
    assert r.returncode == 0, r.stderr
    assert marker.exists() and not warnings(r.stderr)


def test_the_warning_is_printed_once_naming_every_key_and_the_opt_in(repo: Path, home: Home) -> None:
    (repo / ".env").write_text("KB_RG_PATH=./tools.sh\nKB_LLM_BASE_URL=http://127.0.0.1:9/v1\nKB_TOP_K=3\n", encoding="utf-8")
    r = run_kb(["ask", "--json", "When do production deploys run?"], env=home.env(), cwd=repo)  # cwd is the KB root: one .env
    assert r.returncode == 0, r.stderr
    lines = warnings(r.stderr)
    assert len(lines) == 1, r.stderr
    assert "KB_RG_PATH" in lines[0] and "KB_LLM_BASE_URL" in lines[0] and "KB_TOP_K" not in lines[0]
    assert f"kb trust {repo}" in r.stderr.replace("\n", " ")


def test_library_returns_ignored_settings_and_prints_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    from kb_agent.settings import Settings

    folder = tmp_path / "proj"
    folder.mkdir()
    # a malformed value of a refused setting is dropped unparsed: it cannot fail the load
    (folder / ".env").write_text("KB_RG_PATH=./x\nKB_TOP_K=4\nKB_CHROMA_HEADERS=not json\n", encoding="utf-8")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.chdir(folder)
    s = Settings()
    assert s.top_k == 4 and s.rg_path == ""
    assert [i.key for i in s.ignored_settings] == ["KB_CHROMA_HEADERS", "KB_RG_PATH"] and s.chroma_headers == {}
    assert s.ignored_settings[0].folder == folder.resolve()
    assert capsys.readouterr() == ("", "")
    assert Settings(_env_file=None).ignored_settings == ()  # type: ignore[call-arg]


def test_kb_trust_lists_and_refuses_a_missing_folder(home: Home, tmp_path: Path) -> None:
    folder = tmp_path / "notes"
    folder.mkdir()
    assert run_kb(["trust", str(folder)], env=home.env(), cwd=tmp_path).returncode == 0
    again = run_kb(["trust", str(folder)], env=home.env(), cwd=tmp_path)
    assert "already trusted" in again.stdout
    listed = run_kb(["trust", "--list"], env=home.env(), cwd=tmp_path)
    assert listed.stdout.splitlines() == [str(folder.resolve())]
    missing = run_kb(["trust", str(tmp_path / "nope")], env=home.env(), cwd=tmp_path)
    assert missing.returncode == 2 and "not a folder" in missing.stderr


def test_trust_is_per_folder_not_inherited_by_subfolders(home: Home, tmp_path: Path) -> None:
    parent = tmp_path / "projects"
    repo = make_kb(parent, home)
    marker = tmp_path / "sub-ran"
    marker_script(repo, "tools.sh", marker)
    (repo / ".env").write_text("KB_RG_PATH=./tools.sh\n", encoding="utf-8")
    assert run_kb(["trust", str(parent)], env=home.env(), cwd=tmp_path).returncode == 0
    r = run_kb(["search", "--tool", "grep", "Tuesday"], env=home.env(), cwd=repo)
    assert r.returncode == 0 and not marker.exists()


def test_config_dir_follows_xdg_and_ignores_a_relative_value(tmp_path: Path) -> None:
    from kb_agent.trust import config_dir

    assert config_dir({"XDG_CONFIG_HOME": "relative/cfg", "HOME": str(tmp_path)}) == tmp_path / ".config" / "kb"
    assert config_dir({"XDG_CONFIG_HOME": str(tmp_path / "x"), "HOME": str(tmp_path)}) == tmp_path / "x" / "kb"
