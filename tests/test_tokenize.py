from kb_agent.index.tokenize import estimate_tokens, has_cjk, tokenize


def test_identifiers_keep_whole_and_parts() -> None:
    toks = tokenize("Set cache.ttl_seconds and getUserName; see OPS-1234")
    assert "cache.ttl_seconds" in toks and "ttl" in toks and "second" in toks
    assert "getusername" in toks and "user" in toks
    assert "ops-1234" in toks and "1234" in toks


def test_english_is_stemmed_and_stopwords_optional() -> None:
    assert tokenize("running configurations") == ["run", "configur"]
    assert "the" in tokenize("the cache")
    assert "the" not in tokenize("the cache", drop_stopwords=True)


def test_chinese_goes_through_jieba_mixed_with_latin() -> None:
    toks = tokenize("在 orders-api 中把缓存过期时间设为 300 秒", drop_stopwords=True)
    assert "缓存" in toks and "过期" in toks
    assert "orders-api" in toks and "300" in toks
    assert has_cjk("缓存") and not has_cjk("cache")


def test_chinese_determiners_are_stopwords_as_english_ones_are() -> None:
    """"恢复到某个时间点" asks about a point in time as "restore to some point" does: 某个 is no more a
    search word than "some" (it weighed more than PITR in a KB that writes it rarely)."""
    assert "某个" not in tokenize("PITR 恢复到某个时间点用什么命令？", drop_stopwords=True)
    assert "some" not in tokenize("restore to some point in time", drop_stopwords=True)
    assert "某个" in tokenize("恢复到某个时间点"), "the index keeps every word"


def test_estimate_tokens_counts_cjk_per_char() -> None:
    assert estimate_tokens("缓存过期") >= 4
    assert estimate_tokens("") == 1


def test_english_stems_equal_snowballstemmers_public_api_without_importing_it() -> None:
    """The stemmer is loaded from snowballstemmer's own files without its 30 other languages (start-up);
    the stems are the public API's."""
    import re
    import subprocess
    import sys

    from tests.support.sample import SAMPLE_KB

    code = ("import sys\nfrom kb_agent.index.tokenize import _stemmer\nprint(type(_stemmer()).__module__, 'snowballstemmer' in sys.modules,"
            " sum(m.startswith('snowballstemmer.') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["_kb_snowballstemmer.english_stemmer", "False", "0"], out

    import snowballstemmer

    from kb_agent.index.tokenize import _stemmer

    words = sorted({w.lower() for p in SAMPLE_KB.rglob("*.md") for w in re.findall(r"[A-Za-z]+", p.read_text(encoding="utf-8"))})
    words += ["running", "policies", "generously", "caresses", "ponies", "agreed", "hopping", "sized", "relational", "conditional"]
    ref = snowballstemmer.stemmer("english")
    assert len(words) > 1000
    assert [_stemmer().stemWord(w) for w in words] == [ref.stemWord(w) for w in words]


def test_stemming_is_thread_safe() -> None:
    """The agent runs plan steps in threads that tokenize at once; a shared Snowball stemmer mixed up
    their words (wrong stems, IndexError) — each thread has its own."""
    import concurrent.futures as cf
    import random
    import string

    import snowballstemmer

    from kb_agent.index import tokenize as T

    rng = random.Random(7)
    words = list({"".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(5, 14))) for _ in range(20_000)})
    want = [snowballstemmer.stemmer("english").stemWord(w) for w in words]
    T._stem.cache_clear()
    with cf.ThreadPoolExecutor(8) as pool:
        got = list(pool.map(T._stem, words))
    assert got == want


def test_tokenize_lines_is_tokenize_term_for_term() -> None:
    """Ranking tokenizes passages line by line from a memo; every passage of every sample_kb file (and
    text built to tempt a term across a newline) gives exactly tokenize's terms, in order."""
    from pathlib import Path

    from kb_agent.index.tokenize import tokenize_lines

    tempting = ["cache.\nttl_seconds", "缓存\n过期时间", "foo-\nbar", "HTTP/\n3", "a\r\nb", "\n\n", "", "x\n", "OPS-2051\n回滚"]
    for text in tempting:
        assert tokenize_lines(text) == tokenize(text), text
    sample = Path(__file__).resolve().parents[1] / "sample_kb"
    checked = 0
    for path in sorted(sample.rglob("*.md")):
        lines = path.read_text(encoding="utf-8", errors="replace").split("\n")
        for start in range(0, len(lines), 7):
            text = "\n".join(lines[start : start + 21])
            assert tokenize_lines(text) == tokenize(text), (path.name, start)
            assert tokenize_lines(text) == tokenize(text)  # the memo's second answer too
            checked += 1
    assert checked > 100
