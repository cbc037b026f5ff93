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


def test_estimate_tokens_counts_cjk_per_char() -> None:
    assert estimate_tokens("缓存过期") >= 4
    assert estimate_tokens("") == 1


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
