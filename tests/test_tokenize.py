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


def test_tokenize_is_safe_across_threads() -> None:
    # the agent runs plan steps in a thread pool and each tokenizes; a shared stemmer raced
    # ("string index out of range") and dropped a step
    from concurrent.futures import ThreadPoolExecutor

    from kb_agent.index import tokenize as T

    from itertools import product

    syllables = ("ra", "ti", "on", "ge", "ne", "al", "iz", "op", "er", "ful")
    words = ["".join(p) + end for p in product(syllables, repeat=3) for end in ("ational", "izations", "fulness")]
    expected = [T.tokenize(w) for w in words[:8]]
    T._stem.cache_clear()
    T._word_tokens.cache_clear()

    def run(chunk: list[str]) -> list[list[str]]:
        return [T.tokenize(w) for w in chunk]

    with ThreadPoolExecutor(max_workers=8) as pool:
        out = [tok for part in pool.map(run, [words[i::8] for i in range(8)]) for tok in part]
    assert len(out) == len(words)
    assert [T.tokenize(w) for w in words[:8]] == expected
