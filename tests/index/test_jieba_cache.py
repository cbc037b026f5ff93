"""jieba's dictionary read by first character from kb's cache file: the same cuts as a fully initialized
jieba, a fraction of the dictionary loaded, and every cache problem falling back to the whole dictionary."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from kb_agent.index.jieba_cache import MAGIC, cache_file, import_jieba, load_segmenter
from tests.support.sample import SAMPLE_KB, kb_free_env

CJK_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
# rare names jieba does not know (its HMM cuts them), a long run, traditional characters, punctuation-free prose
TRICKY = ["雍闿蟒鳗", "缓存的默认过期时间是多少", "中華人民共和國憲法", "蟎蟏蟐蟑螂", "发布流程" * 20, "龘靐齉齾爩鱻麤"]


@pytest.fixture(scope="module")
def reference() -> object:
    jieba = import_jieba()
    tk = jieba.Tokenizer()
    tk.initialize()
    return tk


def sample_runs() -> list[str]:
    runs = [m.group() for p in sorted(SAMPLE_KB.rglob("*.md")) for m in CJK_RUN.finditer(p.read_text(encoding="utf-8"))]
    assert len(runs) > 100
    return [*runs, *TRICKY]


def test_cached_cuts_equal_jiebas_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference: object) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    stale = tmp_path / "kb" / "jieba-0.0.1-1-1.v1.bin"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"an older cache")
    first = load_segmenter()  # no file yet: the whole dictionary, and the file is written
    jieba = import_jieba()
    assert cache_file(jieba).is_file() and cache_file(jieba).is_relative_to(tmp_path / "kb")
    assert not stale.exists()  # files of other versions are removed when a new one is written
    seg = load_segmenter()  # from the file
    assert seg.entries_loaded == 0
    for run in sample_runs():
        seg.prepare(run)
        want = list(reference.cut_for_search(run))  # type: ignore[attr-defined]
        assert list(seg.tokenizer.cut_for_search(run)) == want, run
        assert list(first.tokenizer.cut_for_search(run)) == want, run
    assert 0 < seg.entries_loaded < len(reference.FREQ) / 2  # type: ignore[attr-defined]


def test_a_fresh_process_loads_a_sliver_of_the_dictionary(tmp_path: Path) -> None:
    code = ("import sys\nfrom kb_agent.index.tokenize import tokenize, _segmenter\n"
            "print(tokenize('缓存的默认过期时间是多少？'))\n"
            "print(_segmenter().entries_loaded, sys.modules['jieba'].dt.initialized, 'pkg_resources' in sys.modules)")
    env = kb_free_env(XDG_CACHE_HOME=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout.splitlines()
            for _ in range(2)]
    assert runs[0][0] == runs[1][0] == "['缓存', '的', '默认', '过期', '时间', '是', '多少']"
    loaded, default_initialized, pkg_resources = runs[1][1].split()
    assert int(loaded) < 2_000 and default_initialized == "False" and pkg_resources == "False"
    assert int(runs[0][1].split()[0]) > 400_000  # the first process had no file: it read the whole dictionary


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty"])
def test_a_damaged_cache_file_falls_back_to_the_whole_dictionary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 reference: object, damage: str) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    load_segmenter()
    path = cache_file(import_jieba())
    data = path.read_bytes()
    path.write_bytes({"garbage": b"not a cache at all", "truncated": data[: len(data) // 2], "empty": b""}[damage])
    seg = load_segmenter()
    assert seg.entries_loaded > 400_000
    run = "缓存的默认过期时间是多少"
    assert list(seg.tokenizer.cut_for_search(run)) == list(reference.cut_for_search(run))  # type: ignore[attr-defined]
    assert path.read_bytes()[: len(MAGIC)] == MAGIC  # rewritten whole


def test_an_unwritable_cache_folder_still_segments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file-not-folder"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # kb/ cannot be created under a file
    seg = load_segmenter()
    assert list(seg.tokenizer.cut_for_search("发布流程")) == ["发布", "流程"]


def test_threads_cutting_at_once_get_jiebas_cuts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference: object) -> None:
    """Plan steps tokenize in parallel: groups load under a lock while other threads cut."""
    import concurrent.futures as cf

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    load_segmenter()  # writes the file
    seg = load_segmenter()  # reads it, nothing loaded yet
    runs = sample_runs() * 3

    def cut(run: str) -> list[str]:
        seg.prepare(run)
        return list(seg.tokenizer.cut_for_search(run))

    with cf.ThreadPoolExecutor(8) as pool:
        got = list(pool.map(cut, runs))
    assert got == [list(reference.cut_for_search(r)) for r in runs]  # type: ignore[attr-defined]


def test_dictionary_words_are_jiebas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reference: object) -> None:
    from kb_agent.index import tokenize as T

    words = ["缓存", "过期时间", "中华人民共和国", "雍闿", "蟒鳗", "一", "发布流程", "开发模式", "zz"]
    assert [T.is_dictionary_word(w) for w in words] == [bool(reference.FREQ.get(w)) for w in words]  # type: ignore[attr-defined]
    assert T.is_dictionary_word("缓存") and not T.is_dictionary_word("")
