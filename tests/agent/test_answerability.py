"""When the offline answer is an answer: the question's rare names must appear in what it quotes, a
changelog line is not a how-to, Chinese words match inside differently-cut passages, a question's
jieba artefacts are not evidence that the KB lacks the topic, and translations without a folder
marker (`README.md` / `README-zh.md`, tldr's `pages/` / `pages.zh/`) fold into one page."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.support.fakes import evidence_from
from tests.support.sample import hash_settings

from kb_agent.agent.analyzer import find_exact_terms, named_words
from kb_agent.agent.grade import UNKNOWN_TERM_WEIGHT, idf_weights, uniform_weights
from kb_agent.agent.language import language_variants, page_language, twin_key, twin_paths
from kb_agent.agent.plan import PlanRequest, make_plan
from kb_agent.agent.synthesize import ScoredUnit, code_form, code_gap, extractive_answer, focus_terms, foreign_words
from kb_agent.agent.units import UnitCache
from kb_agent.index.build import build_index
from kb_agent.index.tokenize import matching_terms, tokenize
from kb_agent.retrieval.tools import Retriever

DEPLOY = """# Deploy

## Deploy to the cloud

Deploy your app with one command:

```console
$ app deploy --prod
```
"""
KAFKA_NOTE = """# Release notes

## 1.2.0

* Add external link: consume Kafka messages with the app and aiokafka. PR #12.
"""


@contextmanager
def indexed_weights(root: Path) -> Iterator[tuple[Retriever, object]]:
    """Index `root` (hash embeddings) and yield its Retriever with the engine's term weights (IDF and `rg -l`)."""
    build_index(hash_settings(root))
    r = Retriever(hash_settings(root))
    try:
        n_docs, _avg = r.index.catalog.bm25_stats()  # type: ignore[union-attr]
        yield r, idf_weights(r.index.catalog.document_frequencies, n_docs, literal_files=r.literal_files)  # type: ignore[union-attr]
    finally:
        r.close()


def write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")


def rare(*names: str) -> object:
    """Term weights where `names` (their tokens) are rare and everything else common."""
    rare_tokens = {t for n in names for t in tokenize(n)}

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: 3.9 if t in rare_tokens else 1.0 for t in terms}

    return weights


def test_named_words_are_names_not_rare_ordinary_words() -> None:
    assert named_words("How do we roll back a bad deploy?") == []
    assert named_words("How do I consume Kafka messages in a FastAPI app?") == ["Kafka", "FastAPI"]
    assert named_words("How do I enable HTTP/3 (QUIC)?") == ["HTTP/3", "QUIC"]
    assert named_words("如何用 OpenTelemetry 做链路追踪？") == ["OpenTelemetry"]


def test_an_answer_that_never_names_the_asked_thing_is_not_an_answer(tmp_path: Path) -> None:
    write(tmp_path, "deploy.md", DEPLOY)
    items = [(evidence_from(tmp_path, "deploy.md", 1, 9, score=0.9, tool="vector"), 0.8)]
    q = "How do I deploy the app to AWS Lambda?"
    draft = extractive_answer(q, items, UnitCache(tmp_path), term_weights=rare("Lambda", "AWS"))  # type: ignore[arg-type]
    assert draft.uncovered, draft.body
    # the same passage answers a question whose rare word is an ordinary one ("cloud" is not a name)
    q2 = "How do I deploy the app to the cloud quickly?"
    draft2 = extractive_answer(q2, items, UnitCache(tmp_path), term_weights=rare("cloud", "quickly"))  # type: ignore[arg-type]
    assert not draft2.uncovered and "app deploy --prod" in draft2.body
    assert focus_terms(q2, rare("cloud", "quickly")) == []  # type: ignore[arg-type]


def test_a_changelog_line_is_not_a_how_to_answer(tmp_path: Path) -> None:
    write(tmp_path, "docs/release-notes.md", KAFKA_NOTE)
    items = [(evidence_from(tmp_path, "docs/release-notes.md", 1, 5, score=0.9, tool="grep"), 0.8)]
    draft = extractive_answer("How do I consume Kafka messages?", items, UnitCache(tmp_path), term_weights=rare("Kafka"))  # type: ignore[arg-type]
    assert not draft.body
    # asked about changes (or which pages mention it), the changelog answers
    asked = extractive_answer("In which release was the Kafka link added?", items, UnitCache(tmp_path), term_weights=rare("Kafka"))  # type: ignore[arg-type]
    assert "aiokafka" in asked.body


def test_a_page_named_history_is_a_changelog_only_in_capitals(tmp_path: Path) -> None:
    """HISTORY.md / NEWS.md are changelogs by convention; a shell's `history` command page is a topic."""
    write(tmp_path, "command/history.md", "# history\n\n环境变量`HISTSIZE`决定了历史文件中命令的存储数量，默认存储1000条。\n")
    write(tmp_path, "HISTORY.md", "# History\n\n## 1.2.0\n\n* The HISTSIZE default is now 1000.\n")
    items = [(evidence_from(tmp_path, p, 1, 5, score=0.9, tool="grep"), 0.8) for p in ("command/history.md", "HISTORY.md")]
    draft = extractive_answer("HISTSIZE 默认存储多少条命令？", items, UnitCache(tmp_path), term_weights=rare("HISTSIZE"))  # type: ignore[arg-type]
    assert {s.path for s in draft.sources} == {"command/history.md"}, draft.body


def test_chinese_terms_match_inside_differently_cut_words() -> None:
    assert "关闭" in matching_terms(["关闭"], "可以把它关闭了以后再试")
    assert matching_terms(tokenize("cache"), "the caches are warm") == set(tokenize("cache")), "Latin terms match as stems"
    assert matching_terms(["关闭"], "disable it") == set()


def test_question_segmentation_artefacts_weigh_nothing() -> None:
    seen = {"测试": 3, "的": 80, "kubelet": 5}
    written = {"前要"}  # the KB's text holds these characters together, but never as a word

    weights = idf_weights(lambda ts: {t: seen[t] for t in ts if t in seen}, 100, literal_files=lambda t: int(t in written))
    w = weights(["测试", "前要", "先装", "改成", "防火墙"])
    assert w["前要"] == 0.0, "written in the KB, only not as a word: an artefact of cutting the question"
    assert w["先装"] == 0.0, "nowhere in the KB, but no word either (jieba glued two characters of 写测试前要先装): an artefact too"
    assert w["改成"] == 0.0, "an everyday two-character word the KB words differently (修改为): no evidence either way"
    assert w["防火墙"] == UNKNOWN_TERM_WEIGHT, "a term of art the KB never writes: evidence the topic is absent"
    assert 0 < w["测试"] < UNKNOWN_TERM_WEIGHT


def test_a_piece_of_a_word_the_kb_writes_and_the_words_of_how_long_are_no_absent_terms() -> None:
    """"开启 mise 的环境变量缓存之后，缓存默认多长时间过期？" over a KB with a few Chinese lines: jieba's search cut gives
    环境变 (a dictionary noun) beside 环境变量, and 长时间 / 多长时间 (how long); each weighed as a term of art the KB lacks,
    so every passage scored 0 and the question was refused. 环境变 is a piece of a word the KB writes; 多长时间 is what is
    asked, not what it is about. A term of art the KB lacks is still absent."""
    from kb_agent.agent.grade import question_terms

    terms = question_terms("开启 mise 的环境变量缓存之后，缓存默认多长时间过期？")
    assert "长时间" not in terms and "多长时间" not in terms and "缓存" in terms and "过期" in terms, terms
    seen = {"环境变量": 4, "缓存": 6, "的": 80}
    weights = idf_weights(lambda ts: {t: seen[t] for t in ts if t in seen}, 100, literal_files=lambda t: 0)
    w = weights(["环境变量", "环境变", "缓存", "防火墙"])
    assert w["环境变"] == 0.0 and 0 < w["环境变量"] < UNKNOWN_TERM_WEIGHT, w
    assert w["防火墙"] == UNKNOWN_TERM_WEIGHT


def test_a_chinese_question_about_an_english_kb_is_judged_by_its_shared_words() -> None:
    english_only = {"kubelet": 5, "logs": 20}
    weights = idf_weights(lambda ts: {t: english_only[t] for t in ts if t in english_only}, 100, literal_files=lambda t: 0)
    w = weights(["查看", "kubelet", "日志"])
    assert w["查看"] == w["日志"] == 0.0, "no Chinese in the KB: its words cannot be matched, nor are they missing"
    assert w["kubelet"] > 0


def test_names_get_a_grep_step_whatever_the_route() -> None:
    req = PlanRequest(question="How can I serve a Flask app?", routing=("vector", "hybrid"), exact_terms=(), keywords=("serve", "Flask", "app"),
                      sub_questions=(), fast_path=True, iteration=1, tried=frozenset(), top_k=10, names=("Flask",))
    steps = make_plan(req)
    assert [s.tool for s in steps] == ["vector", "grep"] and steps[1].tool_input == "Flask"


def test_translations_without_a_folder_marker_are_twins(tmp_path: Path) -> None:
    assert twin_key("README-zh.md") == ("README.md", "zh") and twin_key("README_zh-CN.md") == ("README.md", "zh")
    assert twin_key("pages.zh/common/tar.md") == ("pages/common/tar.md", "zh")
    assert twin_key("notes/do-it.md") == ("notes/do-it.md", None), "-it is not Italian here"
    on_disk = {"pages/common/tar.md", "pages.zh/common/tar.md", "README.md", "README-zh.md"}
    assert page_language("pages/common/tar.md", on_disk.__contains__) == "en"
    assert page_language("README.md", on_disk.__contains__) == "en"
    assert page_language("notes/x.md", on_disk.__contains__) is None
    assert twin_paths("README.md", "zh", sorted(on_disk), on_disk.__contains__) == ["README-zh.md"]
    assert "pages.zh/common/tar.md" in language_variants("pages/common/tar.md", "zh")
    assert "pages/common/tar.md" in language_variants("pages.zh/common/tar.md", "en")


def test_tldr_style_pages_fold_to_the_question_language(tmp_path: Path) -> None:
    en = "# tar\n\n> Archiving utility.\n\n- Create an archive from files:\n\n`tar cf {{target.tar}} {{file1 file2}}`\n"
    zh = "# tar\n\n> 归档工具。\n\n- 从文件创建归档：\n\n`tar cf {{target.tar}} {{file1 file2}}`\n"
    write(tmp_path, "pages/common/tar.md", en)
    write(tmp_path, "pages.zh/common/tar.md", zh)
    items = [(evidence_from(tmp_path, p, 1, 7, score=0.9, tool="x"), 0.9) for p in ("pages.zh/common/tar.md", "pages/common/tar.md")]
    for q, want in (("How do I create a tar archive from files?", "pages/common/tar.md"), ("如何用 tar 从文件创建归档？", "pages.zh/common/tar.md")):
        draft = extractive_answer(q, items, UnitCache(tmp_path))
        assert {s.path for s in draft.sources} == {want}, draft.body
        assert draft.body.count("tar cf {{target.tar}} {{file1 file2}}") == 1


def test_a_chinese_term_of_art_the_kb_never_writes_is_not_answered_about(tmp_path: Path) -> None:
    write(tmp_path, "zh/deploy.md", "# 部署\n\n## 容器\n\n用 Docker 部署应用：\n\n```console\n$ docker run app\n```\n")
    items = [(evidence_from(tmp_path, "zh/deploy.md", 1, 9, score=0.9, tool="vector"), 0.8)]

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: UNKNOWN_TERM_WEIGHT if t == "防火墙" else 1.0 for t in terms}

    draft = extractive_answer("怎么用 Docker 配置防火墙？", items, UnitCache(tmp_path), term_weights=weights)
    assert draft.uncovered == ("防火墙",), draft.body


def test_a_latin_word_in_an_unspaced_chinese_question_is_only_that_word() -> None:
    """Python's \\w matches CJK: "RCEP具体包括哪些国家" once made the whole question a "name" the KB never
    writes, and kb refused it. A name, an identifier, a keyword or a comparison subject ends where the
    Chinese begins — with or without a space, as people type."""
    from kb_agent.agent.analyzer import analyze_question, keywords_for
    from kb_agent.agent.subjects import comparison_subjects as subjects

    assert named_words("RCEP具体包括哪些国家") == ["RCEP"]
    assert named_words("2021年香港GDP增长了多少？") == ["GDP"]
    assert named_words("iPhone SE 3的起售价是多少？") == ["iPhone", "SE"]
    assert named_words("10·29索马里首都汽车炸弹爆炸死亡人数") == []
    for q, exact in [("cache.ttl_seconds默认是多少？", ("cache.ttl_seconds",)), ("OPS-2051是什么事故", ("OPS-2051",)),
                     ("NW_CONFIG_PATH在哪里设置", ("NW_CONFIG_PATH",)), ("--set参数怎么用", ("--set",)),
                     ("docs/a.md讲了什么", ("docs/a.md", "a.md")), ("zh/常见问题.md 讲了什么", ("zh/常见问题.md",)),
                     ("查看/etc/northwind/x.yaml", ("/etc/northwind/x.yaml", "x.yaml")), ("x/a.b.c.md", ("x/a.b.c.md", "a.b.c.md"))]:
        assert analyze_question(q).exact_terms == exact, q
    assert keywords_for("RCEP具体包括哪些国家", [])[0] == "RCEP"
    assert subjects("PUT vs PATCH有什么区别") == ["PUT", "PATCH"]
    assert subjects("Redis vs Memcached哪个好？") == ["Redis", "Memcached"]


def test_an_unspaced_chinese_question_is_answered(tmp_path: Path) -> None:
    write(tmp_path, "trade/rcep.md", "# RCEP\n\nRCEP成员国包括东盟十国以及中国、日本、韩国、澳大利亚和新西兰。\n")
    items = [(evidence_from(tmp_path, "trade/rcep.md", 1, 3, score=0.9, tool="vector"), 0.8)]

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: UNKNOWN_TERM_WEIGHT if has_cjk_only(t) and t not in "RCEP成员国包括东盟十国以及中国、日本、韩国、澳大利亚和新西兰" else 2.0 for t in terms}

    draft = extractive_answer("RCEP具体包括哪些国家", items, UnitCache(tmp_path), term_weights=weights)
    assert not draft.uncovered and "新西兰" in draft.body, (draft.uncovered, draft.body)


def has_cjk_only(term: str) -> bool:
    return bool(term) and all("\u4e00" <= c <= "\u9fff" for c in term)


def test_a_name_glued_to_the_next_character_is_split_into_the_kbs_own_term() -> None:
    from kb_agent.agent.grade import question_terms

    seen = {"索莫尼": 2, "索莫尼自": 1, "发行": 36, "开始": 168}
    weights = idf_weights(lambda ts: {t: seen[t] for t in ts if t in seen}, 1000, literal_files=lambda t: 0)
    plain = question_terms("索莫尼是什么时候开始发行的？")
    assert "索莫尼是" in plain, "jieba glues the name to 是 in the question (the premise of this test)"
    terms = question_terms("索莫尼是什么时候开始发行的？", weights)
    assert "索莫尼" in terms and "索莫尼是" not in terms, terms
    assert weights(terms)["索莫尼"] > 0
    assert question_terms("怎么配置超时？", weights) == question_terms("怎么配置超时？"), "a dictionary word is never split"


def test_how_a_question_is_put_is_not_what_it_is_about(tmp_path: Path) -> None:
    """Everyday words jieba's dictionary knows (想做到 v, 不能不 d, 一万亿 m) and a slash pair of written
    words (`import/export`) are not names the KB must write; 防火墙 (a noun) and `HTTP/3` still are."""
    from kb_agent.agent.grade import is_term_of_art

    assert [is_term_of_art(t) for t in ("想做到", "不能不", "一万亿", "防火墙", "服务器")] == [False, False, False, True, True]
    write(tmp_path, "zh/obs.md", "# 观察者模式\n\n观察者模式指的是函数自动观察数据对象，一旦对象有变化，函数就会自动执行。\n")
    items = [(evidence_from(tmp_path, "zh/obs.md", 1, 3, score=0.9, tool="vector"), 0.8)]

    def unseen(*never: str) -> object:
        def weights(terms: Sequence[str]) -> dict[str, float]:
            return {t: UNKNOWN_TERM_WEIGHT if t in never else 1.0 for t in terms}

        return weights

    draft = extractive_answer("想做到对象一改就自动执行函数，观察者模式是什么", items, UnitCache(tmp_path), term_weights=unseen("想做到"))
    assert draft.uncovered == () and "观察者模式指的是" in draft.body, draft.body
    assert focus_terms("Node 里想用 import/export 咋整", unseen("import/export")) == []
    assert focus_terms("does it speak HTTP/3", unseen("http/3")) == ["http/3"]


def test_an_english_number_word_answers_how_often(tmp_path: Path) -> None:
    from kb_agent.agent.synthesize import amount_gap

    assert amount_gap("How often does Rust ship a new stable release?", ["A new stable release ships every six weeks."]) == ()
    assert amount_gap("How often does it run?", ["It runs on a schedule."]) == ("a duration (How often)",)


def test_which_port_is_answered_by_a_port_number_not_any_number() -> None:
    """"cert-manager 的监控指标在哪个端口？" was answered with the metrics page's PodMonitor YAML, not its "on port `9402`"
    (session 31). A question that asks which port wants a port number: beside the word port, after a host's colon, as a
    setting's value; any other number (a count of ports, a version) is none."""
    from kb_agent.agent.synthesize import amount_gap

    q = "cert-manager 的监控指标在哪个端口？"
    assert amount_gap(q, ["prometheus:\n  enabled: true\n  podmonitor:\n    enabled: true"]) == ("a port (哪个端口)",)
    assert amount_gap(q, ["These are available at the standard `/metrics` endpoint on port `9402` of each component Pod."]) == ()
    assert amount_gap("Which port does the dev server listen on?", ["Open http://localhost:5173 in a browser."]) == ()
    assert amount_gap("Which port does the dev server listen on?", ["Requires Node.js 18 and 3 ports."]) == ("a port (Which port)",)
    assert amount_gap("runtime 的 gRPC 默认端口是多少？", ["eventMesh.server.grpc.port=10205"]) == ()
    row = "Variable: `SEARCH_GATEWAY_PORT` · Required: no · Default: `8090` · Description: Listen port for `search-gateway`."
    assert amount_gap("What port does search-gateway listen on unless configured otherwise?", [row]) == (), "a table row names it"
    assert amount_gap("调试器默认监听哪个端口？", ["默认监听 9229 端口。"]) == ()
    assert amount_gap("How do I set up port forwarding?", ["Use ssh -L."]) == (), "no port number asked"


def test_how_long_is_what_is_asked_not_what_it_is_about() -> None:
    """"How long does the server keep its monitoring statistics?" over "frps will save monitor data in cache for 7 days"
    was refused (session 31): "long" counted as a word the answer must share, and the page, which says how long, never
    writes it. The words of "how long / how often" are what is asked, as 多长时间 is in a Chinese question."""
    from kb_agent.agent.grade import question_terms
    from kb_agent.agent.synthesize import amount_gap

    assert question_terms("How long does the server keep its monitoring statistics?") == ["server", "keep", "monitor", "statist"]
    assert "long" in question_terms("How long is a long poll held?"), "a word the question writes again is a term"

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: 1.0 for t in terms}

    q = "How long does the server keep its monitoring statistics?"
    assert amount_gap(q, ["README.md Monitor When web server is enabled, frps will save monitor data in cache for 7 days."], weights) == ()


def test_the_amount_is_about_what_the_asking_sentence_asks_not_the_situation() -> None:
    """"My firewall only lets TCP through and clients never manage to register their IDs with my server. Which port has to
    be open for UDP as well?" over "You need port `21114`-`21119` TCP and `21116` UDP open" was refused (session 31): the
    line holds a port about what is asked, but not 0.4 of the situation's words as well. The unit must be about the
    sentences that ask; a Chinese question's clauses of one sentence stay together."""
    from kb_agent.agent.synthesize import amount_gap, asking_sentences

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: 1.0 for t in terms}

    q = ("My firewall only lets TCP through and clients never manage to register their IDs with my server. "
         "Which port has to be open for UDP as well?")
    assert asking_sentences(q) == "Which port has to be open for UDP as well?"
    assert amount_gap(q, ["You need port `21114`-`21119` TCP and `21116` UDP open."], weights) == ()
    assert amount_gap(q, ["The web console listens on port 21114."], weights) != (), "a port of something else"
    assert asking_sentences("curl 写出的 cookie 文件里，一行 cookie 有几个字段？") == "curl 写出的 cookie 文件里，一行 cookie 有几个字段？"
    assert asking_sentences("我用的是内置的本地搜索。它默认的模糊匹配参数设的是多少？") == "它默认的模糊匹配参数设的是多少？"


def test_the_default_of_a_named_setting_is_said_where_it_is_named() -> None:
    """"挂载参数 --max-readahead 的默认值是多少 MiB？" was answered with the defaults of other settings (a Hadoop SDK table)
    beside a paragraph that names `--max-readahead` without one (session 26, JuiceFS). A question about the default of a
    setting it names as code is answered only where a section names it and says what its default is."""
    from kb_agent.agent.analyzer import find_exact_terms
    from kb_agent.agent.synthesize import default_gap

    def gap(q: str, shown: list[str]) -> tuple[str, ...]:
        return default_gap(q, shown, find_exact_terms(q))

    q = "挂载参数 --max-readahead 的默认值是多少 MiB？"
    assert gap(q, ["配置项: `juicefs.memory-size` · 默认值: 300", "可以增加 `--max-readahead` 和 `--buffer-size`，来放大预读窗口"]) == ("the default of --max-readahead",)
    assert gap(q, ["`--max-readahead` 预读窗口的最大值，单位 MiB（默认：根据 --buffer-size 计算）"]) == ()
    assert gap("If I leave out bind_address, which port does the server listen on by default?", ["bind_address = 'host:8080'"]) == ("the default of bind_address",)
    assert gap("What is scrollback_lines by default?", ["How many lines of scrollback to retain. Defaults to 3500.", "scrollback_lines"]) == ("the default of scrollback_lines",)
    assert gap("What is scrollback_lines by default?", ["`scrollback_lines`: how many lines to retain. Defaults to 3500."]) == ()
    assert gap("开了 --cache 以后，缓存文件默认存放在哪个路径？", ["Path to the cache file used by `--cache` flag. If you don't explicit "
               "`--cache-location`, Prettier saves cache file at `./node_modules/.cache/prettier/.prettier-cache`."]) == (), "a default said by what happens without"
    assert gap("What is the default cache size?", ["The cache holds 100 MiB."]) == (), "no setting named as code: amount_gap's to judge"
    assert gap("Which flag sets --max-readahead?", ["`--max-readahead` sets the window."]) == (), "no default asked"
    # a method named in three capitalised parts is code too (session 28, GORM: the pool's default was "answered" by an example)
    q = "如果不调用 SetMaxIdleConns，连接池默认最多保留几个空闲连接？"
    assert gap(q, ["// SetMaxIdleConns 设置空闲连接池中连接的最大数量。\nsqlDB.SetMaxIdleConns(10)"]) == ("the default of SetMaxIdleConns",)
    assert gap(q, ["SetMaxIdleConns 默认为 2"]) == ()
    assert gap("What port does GitHub use by default?", ["GitHub listens on 443."]) == (), "a brand is no setting"


def test_the_most_there_may_be_is_answered_by_a_number_said_to_be_a_limit() -> None:
    """"每分钟最多能请求多少次？" was answered with "大概需要 1 分钟的时间完成同步", and "What's the maximum length of text
    images.QR can encode?" with "The size of the generated image depends on three factors": numbers, but none said to be
    the most there may be. A question that asks for a maximum wants a number the page calls a limit."""
    from kb_agent.agent.synthesize import amount_gap

    assert amount_gap("JumpServer 的 API 有没有调用频率限制？每分钟最多能请求多少次？", ["修改完成后，大概需要 1 分钟的时间完成同步。"]) == ("a limit (多少)",)
    assert amount_gap("What's the maximum length of text images.QR can encode?", ["The size of the image depends on three factors."]) != ()
    assert amount_gap("npm 包名最长能有多少个字符？", ["The name must be less than or equal to 214 characters."]) == ()
    assert amount_gap("单个进程最多能同时打开多少个文件？", ["ulimit -n 显示最多能打开的文件数：1024"]) == ()
    assert amount_gap("What's the upper limit on parallel downloads?", ["Use up to 16 connections."]) == ()
    # a number of the thing, not the most of it, answers a question that does not ask for a maximum
    assert amount_gap("How many workers does it start?", ["It starts 4 workers."]) == ()


def test_how_long_or_how_often_is_answered_by_a_duration_not_any_number() -> None:
    """"多久执行一次？" over "从 4.9 开始，operator 会定期整理碎片" was answered: a number was shown, but not how often. A
    question that asks how long or how often wants a duration or a schedule; other amounts any number."""
    from kb_agent.agent.synthesize import amount_gap

    assert amount_gap("cluster-etcd-operator 自动整理碎片，多久执行一次？", ["从 4.9 开始，operator 会定期整理碎片。"]) == ("a duration (多久)",)
    assert amount_gap("重试之间间隔多久？", ["HOMEBREW_CURL_RETRIES 默认为 3。"]) == ("a duration (多久)",)
    # a question that names the unit wants the number, which a script may write without it
    assert amount_gap("证书有效期设的是多少天？", ['_days="365" ; openssl req -x509 -days ${_days}']) == ()
    assert amount_gap("How many seconds does DomainResolve wait?", ['local _timeout="15"']) == ()
    assert amount_gap("How long is the cluster CA valid?", ["The CA expiry defaults to 2 releases of etcd 3.5."]) == ()
    for shown in ("expiry: 876000h", "有效期 100年", "it waits 30s", "runs every night", 'schedule: "*/5 * * * *"', "每天凌晨备份", "twice a day, every day"):
        assert amount_gap("How often does the backup run, and how long is it kept?", [shown]) == (), shown
    assert amount_gap("How many snapshots are kept?", ["Snapshots are kept in /var/backup since 4.9."]) == ()
    # a number whose unit of time the sentence names apart from it
    assert amount_gap("how long do browsers cache CORS responses by default", ["`max_age` - Sets a maximum time in seconds for browsers to cache CORS responses. Defaults to `600`."]) == ()
    assert amount_gap("how long is it cached", ["It is cached for some time (see version 4.9)."]) == ("a duration (how long)",)


def test_an_api_the_kb_never_writes_is_not_answered_from_its_neighbours(tmp_path: Path) -> None:
    """A name written as code must be written as is (any case, in a page or its path): `Float16Array`
    is another API than the `Float32Array` the KB explains, though the KB uses every part of it."""
    write(tmp_path, "typed-arrays.md", "# Typed arrays\n\n## Views\n\nA `Float32Array` view reads and writes 32-bit floats; "
          "a `Float64Array` view reads 64-bit floats.\n\n```js\nconst view = new Float32Array(buffer);\n```\n")
    write(tmp_path, "alerts/CPUThrottlingHigh.md", "# CPU throttling\n\n## Meaning\n\nProcesses experience elevated CPU throttling.\n\n"
          "## Mitigation\n\nRaise the CPU limit of the container, or remove the limit.\n")
    write(tmp_path, "threads.md", "# Threads\n\n## Scoped threads\n\nUse `thread::scope` to spawn threads that borrow local variables:\n\n"
          "```rust\nuse std::thread;\n\nthread::scope(|s| { s.spawn(|| println!(\"{v:?}\")); });\n```\n")
    with indexed_weights(tmp_path) as (r, weights):
        assert r.literal_files("Float16Array") == 0 and r.literal_files("float32array") == 1
        assert r.literal_files("CPUThrottlingHigh") == 1  # the page's path names the alert

        def answer(q: str, path: str) -> object:
            items = [(evidence_from(tmp_path, path, 1, 20, score=0.9, tool="vector"), 0.8)]
            return extractive_answer(q, items, UnitCache(tmp_path), exact_terms=find_exact_terms(q), term_weights=weights)

        draft = answer("How do I create a Float16Array view?", "typed-arrays.md")
        assert draft.uncovered == ("Float16Array",), draft.body  # type: ignore[attr-defined]
        draft = answer("How do I create a Float32Array view?", "typed-arrays.md")
        assert not draft.uncovered and "new Float32Array(buffer)" in draft.body  # type: ignore[attr-defined]
        draft = answer("Should I raise CPU limits when CPUThrottlingHigh fires?", "alerts/CPUThrottlingHigh.md")
        assert not draft.uncovered and "Raise the CPU limit" in draft.body  # type: ignore[attr-defined]
        draft = answer("How do I spawn scoped threads with std::thread::scope?", "threads.md")  # a page may import the rest
        assert not draft.uncovered and "thread::scope(|s|" in draft.body  # type: ignore[attr-defined]
        draft = answer("How do I spawn threads with std::thread::Builder?", "threads.md")
        assert draft.uncovered == ("std::thread::Builder",), draft.body  # type: ignore[attr-defined]


def test_a_package_the_kb_never_writes_is_not_answered_from_its_namesake() -> None:
    """`oh-my-zsh` is another package than the `oh-my-posh` the page sets up, though the page writes the rare
    parts of its name (`oh`, `zsh`); a phrase of English words joined by hyphens is how a question is put."""
    from kb_agent.agent.synthesize import focus_gap

    class Weights:
        """A KB that writes `oh-my-posh` and `zsh` (rare words there) but never `oh-my-zsh`."""

        def __call__(self, terms: Sequence[str]) -> dict[str, float]:
            rare = {"oh-my-zsh": UNKNOWN_TERM_WEIGHT, "oh": 3.9, "zsh": 3.9, "oh-my-posh": 3.9}
            return {t: rare.get(t, 1.0) for t in terms}

        def written(self, text: str) -> bool:
            return text.lower() != "oh-my-zsh"

    shown = ["Third-party prompts oh-my-posh To use oh-my-posh, generate the theme file and source it, as zsh users do:"]
    assert focus_gap("How do I use an oh-my-zsh theme for my prompt?", shown, Weights()) == ("oh-my-zsh",)
    assert focus_gap("提示符怎么使用 oh-my-zsh 的主题？", shown, Weights()) == ("oh-my-zsh",)
    assert focus_gap("How do I set up an oh-my-posh theme?", shown, Weights()) == ()
    from kb_agent.agent.synthesize import _package_name

    assert [_package_name(n) for n in ("kube-state-metrics", "find-and-replace", "v-model", "oh-my-posh")] == [True, False, False, True]


def test_code_form_is_the_part_a_page_must_write() -> None:
    assert code_form("std::thread::scope") == "thread::scope"
    assert code_form("RegExp.escape()") == "RegExp.escape" and code_form("#[non_exhaustive]") == "non_exhaustive"
    assert code_form("Float16Array") == "Float16Array" and code_form("waitAsync") == "waitAsync"
    assert code_form(".take()") == ".take("  # a method named by itself: a page that explains it calls it
    assert find_exact_terms("How do I use helpers like .map() and .take() on iterators?") == [".map()", ".take()"]
    # not code: a path, a version, an ordinary name, a member of the question's own one-letter variable
    assert [code_form(n) for n in ("backend/main.py", "HTTP/3", "Kafka", "k8s", "ES2015", "v.get", "Rc::clone")] == [None] * 7


def test_a_tool_typed_in_lower_case_that_the_kb_never_writes_is_not_answered_about(tmp_path: Path) -> None:
    """"How do I diagnose X with chronyc?": `chronyc` is no English word (CC-CEDICT's English senses) and
    no file writes it, so the page about X does not answer; everyday words and words the KB writes, even
    inside longer ones (`repo` in "repository"), never count as absent."""
    assert foreign_words("How do I diagnose NodeClockNotSynchronising with chronyc?") == ["chronyc"]
    assert foreign_words("What command removes dangling images from a node?") == [], "everyday English"
    assert foreign_words("怎么用 chronyc 排查？") == [], "a Chinese question's Latin words are names already"
    write(tmp_path, "NodeClockNotSynchronising.md", "# NodeClockNotSynchronising\n\n## Diagnosis\n\n"
          "Check the time service on the node and its offset from the reference clock.\n\n## Repository\n\nThe repository holds the alert rules.\n")
    with indexed_weights(tmp_path) as (_r, weights):
        items = [(evidence_from(tmp_path, "NodeClockNotSynchronising.md", 1, 10, score=0.9, tool="vector"), 0.8)]

        def draft(q: str) -> object:
            return extractive_answer(q, items, UnitCache(tmp_path), exact_terms=find_exact_terms(q), term_weights=weights)

        assert draft("How do I diagnose NodeClockNotSynchronising with chronyc?").uncovered == ("chronyc",)  # type: ignore[attr-defined]
        assert not draft("How do I diagnose NodeClockNotSynchronising on a node?").uncovered  # type: ignore[attr-defined]
        assert not draft("Which repo holds the NodeClockNotSynchronising rules?").uncovered  # type: ignore[attr-defined]
        # without index statistics nothing is judged absent
        assert not extractive_answer("How do I diagnose NodeClockNotSynchronising with chronyc?", items, UnitCache(tmp_path)).uncovered


def test_everyday_words_a_dictionary_lists_only_as_their_root_are_not_foreign() -> None:
    """CC-CEDICT glosses "to forget", never "forgot", and "to type", never "retype": a question in everyday
    English ("I forgot to include a file … without retyping the message") was refused as naming a tool the
    KB never writes (`forgot`). Irregular past forms and re-/pre-/mis-/over-/un- words are English; tools stay
    foreign."""
    assert foreign_words("I forgot to include a file in my last commit. How do I add it without retyping the message?") == []
    assert foreign_words("The build broke and nobody woke up: who threw the error?") == []
    assert foreign_words("How do I misconfigure or preinstall nothing with chronyc?") == ["chronyc"]
    # un- undoes an English verb (unset, untar: session 21); a tool's name behind it stays foreign
    assert foreign_words("unrar it with rsync") == ["unrar", "rsync"], "a tool's name is no English word behind a prefix"


def test_a_name_that_qualifies_the_page_the_answer_comes_from_is_covered(tmp_path: Path) -> None:
    """"… in tmux, and in GNU screen?" answered from screen.md, which never writes "GNU": the name only
    qualifies the word that names the page, so the answer is about it. A name the answer's pages do not
    stand for is still missing ("in GNU make" over screen.md)."""
    write(tmp_path, "screen.md", "# Screen\n\n| Keybind | Description |\n| --- | --- |\n"
          "| `ctrl+a ctrl+d` | Detach the current screen and go back to the terminal (the session keeps running) |\n")
    write(tmp_path, "other.md", "# GNU\n\nThe GNU project writes free software.\n")
    for i in range(30):  # enough pages that GNU is a rare name (IDF above FOCUS_MIN_WEIGHT)
        write(tmp_path, f"tool{i}.md", f"# Tool {i}\n\nRun tool{i} in a terminal session to detach it.\n")
    with indexed_weights(tmp_path) as (_r, weights):
        assert focus_terms("How do I detach and leave the session running in GNU screen?", weights) == ["gnu"], "premise"
        items = [(evidence_from(tmp_path, "screen.md", 1, 5, score=0.9, tool="vector"), 0.8)]

        def draft(q: str) -> object:
            return extractive_answer(q, items, UnitCache(tmp_path), exact_terms=find_exact_terms(q), term_weights=weights)

        done = draft("How do I detach and leave the session running in GNU screen?")
        assert not done.uncovered and "ctrl+a ctrl+d" in done.body, (done.uncovered, done.body)  # type: ignore[attr-defined]
        assert draft("How do I detach and leave the session running in GNU make?").uncovered == ("GNU",)  # type: ignore[attr-defined]


def test_a_unit_of_the_page_a_question_word_names_is_about_the_question(tmp_path: Path) -> None:
    """"Using curl in a script, how do I print just the HTTP status code of a URL …?": `URL` is the question's rare
    name, but the entry that answers (curl.md, `-w "%{http_code}"`) never writes it; a page filed under a word of the
    question (curl) is about the question, so its units stay candidates beside the ones naming `URL`."""
    write(tmp_path, "curl.md", "# curl\n\n## Examples\n\n```bash\n# post data\ncurl -d password=x http://x.com/y\n"
          "# upload a file to a URL\ncurl -F upload=@file.txt URL\n```\n\n## Status\n\n```bash\n"
          "# check if a remote file exists: print the status code only\ncurl -o /dev/null --silent -Iw '%{http_code}' https://example.com/a.tgz\n```\n")
    for i in range(80):  # enough pages that URL is a rare name (IDF above FOCUS_MIN_WEIGHT)
        write(tmp_path, f"tool{i}.md", f"# Tool {i}\n\nRun tool{i} in a script to print the HTTP status of a file.\n")
    write(tmp_path, "links.md", "# Links\n\nA URL names a page.\n")
    with indexed_weights(tmp_path) as (_r, weights):
        q = "Using curl in a script, how do I print just the HTTP status code of a URL (to check the file exists)?"
        assert focus_terms(q, weights, find_exact_terms(q)) == ["url"], "premise: URL is the question's focus"
        items = [(evidence_from(tmp_path, "curl.md", 1, 17, score=0.9, tool="vector"), 0.8)]
        draft = extractive_answer(q, items, UnitCache(tmp_path), exact_terms=find_exact_terms(q), term_weights=weights)
        assert "%{http_code}" in draft.body and not draft.uncovered, (draft.uncovered, draft.body)


def test_a_how_to_question_answered_by_no_code_at_all_is_not_answered(tmp_path: Path) -> None:
    """"How do I set up database migrations with Alembic?" over a page that only says Alembic can be used: no
    quoted unit shows a command, a setting or code, so the steps asked for are not in the KB. A "how do I" question
    whose answer writes its command inline, and a question that is not asking for steps, are still answered."""
    write(tmp_path, "sql.md", "# SQL databases\n\nSQLModel will have migration utilities wrapping Alembic, but for now you can use "
          "Alembic directly.\n\n## Reload\n\nTo reload on changes, run `fastapi dev main.py` while you edit the app.\n")
    for i in range(40):
        write(tmp_path, f"page{i}.md", f"# Page {i}\n\nThe app {i} serves requests.\n")
    with indexed_weights(tmp_path) as (_r, weights):
        items = [(evidence_from(tmp_path, "sql.md", 1, 7, score=0.9, tool="vector"), 0.8)]

        def draft(q: str) -> object:
            return extractive_answer(q, items, UnitCache(tmp_path), exact_terms=find_exact_terms(q), term_weights=weights)

        assert draft("How do I set up database migrations with Alembic?").uncovered == ("a command or code",)  # type: ignore[attr-defined]
        assert draft("如何用 Alembic 做数据库迁移？").uncovered == ("a command or code",)  # type: ignore[attr-defined]
        done = draft("How do I reload the app on changes?")
        assert not done.uncovered and "fastapi dev main.py" in done.body  # type: ignore[attr-defined]
        assert not draft("Does SQLModel wrap Alembic for migrations?").uncovered  # type: ignore[attr-defined]


def test_a_how_to_answer_shows_the_command_its_page_writes_under_a_weaker_sentence(tmp_path: Path) -> None:
    """"StatefulSet 的 Pod 一直删不掉，怎么强制删？": the sentences that share most of the question's words only talk
    about forcing a delete; the command stands under a sentence that shares fewer ("请执行下面命令："). The answer
    quotes that unit from the page it already quotes instead of finding no command and refusing."""
    write(tmp_path, "force-delete.md", "# 强制删除 StatefulSet 的 Pod\n\n"
          "在正常操作 StatefulSet 时，永远不需要强制删除 StatefulSet 管理的 Pod。\n\n"
          "当你强制删除 StatefulSet 类型的 Pod 时，你要确保有问题的 Pod 不会再和 StatefulSet 管理的其他 Pod 通信。\n\n"
          "如果要使用 kubectl 1.5 以上版本强制删除 Pod，请执行下面命令：\n\n"
          "```shell\nkubectl delete pods <pod> --grace-period=0 --force\n```\n\n"
          "请始终谨慎地执行强制删除 StatefulSet 类型的 Pod。\n")
    draft = _answer_from(tmp_path, "force-delete.md", 12, "# 页面 {i}\n\nStatefulSet {i} 管理 Pod。\n", "StatefulSet 的 Pod 一直删不掉，怎么强制删？")
    assert not draft.uncovered and "--grace-period=0 --force" in draft.body, (draft.uncovered, draft.body)


def _answer_from(root: Path, page: str, last_line: int, filler: str, q: str) -> Any:
    """The offline answer to `q` from lines 1..last_line of `page`, in a KB of it and 30 filler pages (for the IDF)."""
    for i in range(30):
        write(root, f"page{i}.md", filler.format(i=i))
    with indexed_weights(root) as (_r, weights):
        items = [(evidence_from(root, page, 1, last_line, score=0.9, tool="vector"), 0.8)]
        return extractive_answer(q, items, UnitCache(root), exact_terms=find_exact_terms(q), term_weights=weights)


def test_words_a_question_is_put_in_are_not_names_it_asks_about() -> None:
    """`one-liner` (English words joined by hyphens) and 删不掉 (a verb with a potential complement, which jieba's
    HMM glues into one word) say how a question is put: never "nothing found about 'one-liner'"."""
    from kb_agent.agent.grade import is_new_word
    from kb_agent.agent.synthesize import focus_gap

    class Weights:
        """A KB that never writes `one-liner`, `liner`, 删不掉, `I/O`."""

        def __call__(self, terms: Sequence[str]) -> dict[str, float]:
            rare = {"linux": 3.5, **dict.fromkeys(("one-liner", "liner", "删不掉", "kube-proxi", "proxi", "i/o"), UNKNOWN_TERM_WEIGHT)}
            return {t: rare.get(t, 1.0) for t in terms}

        def written(self, text: str) -> bool:
            return text.lower() not in ("one-liner", "kube-proxy", "i/o")

    shown = ["Create the autoscaler: kubectl autoscale deployment php-apache --cpu-percent=50 --min=1 --max=10"]
    assert focus_gap("one-liner to autoscale a deployment between 1 and 10 replicas?", shown, Weights()) == ()
    assert focus_gap("How do I restart kube-proxy on a node?", shown, Weights()) != (), "a name with a part that is no word"
    ionice = ["On Linux, etcd's disk priority can be configured with `ionice`: sudo ionice -c2 -n0 -p `pgrep etcd`"]
    assert focus_gap("How can I give etcd a higher disk I/O priority on Linux?", ionice, Weights()) == (), (
        "I/O is two letters however it is typed: too short to say the topic is absent")
    assert [is_new_word(w) for w in ("删不掉", "连不上", "扩缩容")] == [False, False, True]
    # a function word is part of such a phrase (session 25: "how long does the built-in HTTP client keep an idle socket?"
    # quoted the features list's "Built-in cluster" line, the only one writing `built-in`)
    from kb_agent.agent.synthesize import _english_compound

    assert [_english_compound(w) for w in ("built-in", "step-by-step", "opt-in", "read-only")] == [True] * 4
    assert [_english_compound(w) for w in ("kube-proxy", "oh-my-zsh", "x-forwarded-for")] == [False] * 3


def test_a_question_about_how_a_thing_is_or_came_to_be_asks_for_no_steps() -> None:
    """怎么/如何/怎样 ask for steps only before what to do: "溢坝通常是怎么产生的？", "是一种怎样的铠甲？", "崇陵规模如何？" and
    "这个名字怎么来的？" ask how a thing is or came about, and a sentence answers them (cmrc2018: 7 such answers of the test
    split and 2 of the dev split were refused by the first version of the rule)."""
    from kb_agent.agent.units import AnswerUnit

    prose = [ScoredUnit(1.0, 0.5, 0.8, AnswerUnit("a.md", 1, 1, "paragraph", "溢坝是由于水位过高而产生的。", "", "溢坝是由于水位过高而产生的。"))]
    for q in ("溢坝通常是怎么产生的？", "腹卷相对于大铠来说是一种怎样的铠甲？", "崇陵规模如何？", "劲松站这个名字怎么来的？", "廖立听到诸葛亮逝世是怎么想的？",
              "How is the dam's overflow produced?"):
        assert code_gap(q, prose) == (), q
    for q in ("怎么把配置文件复制一份？", "如何实现 OAuth2 的刷新令牌？", "How do I copy the config file?", "how to copy the config file",
              # asking for the command itself (session 25: "… without validating the tag or uploading anything. What do I run?")
              "I want a local build without uploading anything. What do I run?", "Which command lists the stashes?", "只想编一个二进制，用什么命令？"):
        assert code_gap(q, prose) == ("a command or code",), q
    assert code_gap("What is the command pattern?", prose) == (), "a question about a thing called a command asks no steps"


def test_a_numbered_chinese_step_shows_how() -> None:
    """An FAQ answers "如何找到失败的消息？" by numbered steps in words ("1）使用按时间的主题查询…", "（2）检查…", "3、重启…"),
    under the question set in bold: each is a step, as an English "1) Check …" is; a sentence merely using the
    verb is not."""
    from kb_agent.agent.units import AnswerUnit

    def unit(text: str) -> list[ScoredUnit]:
        return [ScoredUnit(1.0, 0.5, 0.8, AnswerUnit("faq.md", 1, 1, "paragraph", text, "", text))]

    q = "消费失败以后怎么找到失败的那条消息？"
    for text in ("**当消费失败的时候如何找到失败的消息？** 1）使用按时间的主题查询，可以查询到一段时间内的消息。", "（2）检查消费日志。", "3、重启消费者。"):
        assert code_gap(q, unit(text)) == (), text
    assert code_gap(q, unit("这是我们使用消息队列的原因。")) == ("a command or code",)
    assert code_gap(q, unit("**使用 scopes 的高级用法**: OAuth2 支持作用域。")) == ("a command or code",), "a bold label opening with a verb is no step"


def test_a_coined_chinese_term_the_kb_never_writes_is_not_answered_about(tmp_path: Path) -> None:
    """"Kubernetes 自动扩缩容怎么配置？" over deployment pages that mention Kubernetes: jieba's HMM glues
    扩缩容 (no dictionary word, so not a term of art), and no file writes it or any two of its characters
    together — the topic is absent. A coined word whose characters the KB does pair (a name written
    inside a longer one) is still answered."""
    from kb_agent.agent.grade import is_new_word
    from kb_agent.index.tokenize import is_dictionary_word

    assert "扩缩容" in tokenize("Kubernetes 自动扩缩容怎么配置？") and not is_dictionary_word("扩缩容"), "premise: jieba's HMM word"
    assert is_new_word("扩缩容") and not is_new_word("防火墙") and not is_new_word("配置") and not is_new_word("k8s扩容")
    write(tmp_path, "zh/deploy.md", "# 部署\n\n## 容器\n\n在 Kubernetes 集群中，通常在集群层面处理容器复制和负载均衡。\n\n"
          "## 配置\n\n用环境变量配置应用的端口和 worker 数量。\n")
    write(tmp_path, "zh/fish.md", "# 班卡雀鲷\n\n班卡雀鲷生活在水深1至12公尺的海域。\n")
    with indexed_weights(tmp_path) as (_r, weights):
        items = [(evidence_from(tmp_path, "zh/deploy.md", 1, 9, score=0.9, tool="vector"), 0.8)]
        q = "Kubernetes 自动扩缩容怎么配置？"
        draft = extractive_answer(q, items, UnitCache(tmp_path), exact_terms=find_exact_terms(q), term_weights=weights)
        assert draft.uncovered == ("扩缩容",), draft.body
        assert weights(["扩缩容"])["扩缩容"] == UNKNOWN_TERM_WEIGHT  # type: ignore[operator]
        q = "Kubernetes 集群在哪一层做负载均衡？"
        assert not extractive_answer(q, items, UnitCache(tmp_path), exact_terms=find_exact_terms(q), term_weights=weights).uncovered
        fish = [(evidence_from(tmp_path, "zh/fish.md", 1, 3, score=0.9, tool="vector"), 0.8)]
        q = "班卡雀鲷生活在水深多少的海域？"
        draft = extractive_answer(q, fish, UnitCache(tmp_path), exact_terms=find_exact_terms(q), term_weights=weights)
        assert not draft.uncovered and "1至12公尺" in draft.body, (draft.uncovered, draft.body)


def test_a_chinese_noun_the_kb_never_writes_is_evidence_the_topic_is_absent(tmp_path: Path) -> None:
    """"接口怎么做灰度发布？" over pages about 接口 and 发布: 灰度 (a noun, jieba's tag n) is written nowhere, so
    the question is about something the KB lacks; a verb the KB never uses (改成) stays how the question is
    put, and a noun written inside a longer word (合格 in 不合格) is not absent."""
    from kb_agent.agent.grade import deterministic_scores, is_thing_word

    assert is_thing_word("灰度") and is_thing_word("助手") and not is_thing_word("改成") and not is_thing_word("彻底")
    write(tmp_path, "zh/api.md", "# 接口\n\n## 发布\n\n新版本的接口通过 CI 发布到生产环境，发布前检查不合格的项。\n")
    with indexed_weights(tmp_path) as (_r, weights):
        w = weights(["灰度", "改成", "合格"])  # type: ignore[operator]
        assert w["灰度"] == UNKNOWN_TERM_WEIGHT and w["改成"] == 0.0 and w["合格"] < UNKNOWN_TERM_WEIGHT, w
        item = [evidence_from(tmp_path, "zh/api.md", 1, 5, score=0.9, tool="vector")]
        absent, present = (deterministic_scores(q, item, term_weights=weights)[0] for q in ("接口怎么做灰度发布？", "接口怎么发布？"))  # type: ignore[arg-type]
        assert absent < 0.5 <= present, (absent, present)


def test_an_answer_that_holds_a_third_of_the_question_is_not_an_answer(tmp_path: Path) -> None:
    """"How do I cache endpoint responses in Redis?" over a page that lists Redis among images to run: the
    units name Redis and nothing else the question asks (cache, endpoint, responses), so the answer is
    about something else; a question the same units do answer ("Which Redis image can I run?") stands."""
    from kb_agent.agent.synthesize import coverage_gap

    write(tmp_path, "deploy/docker.md", "# Docker\n\n## Images\n\nYou can run other services next to your app:\n\n"
          "- [Redis](https://hub.docker.com/_/redis), etc.\n- [PostgreSQL](https://hub.docker.com/_/postgres)\n\n"
          "## Endpoints\n\nEach endpoint returns JSON responses.\n\n## Cache\n\nThe build cache speeds up images.\n")
    with indexed_weights(tmp_path) as (_r, weights):
        items = [(evidence_from(tmp_path, "deploy/docker.md", 5, 8, score=0.9, tool="vector"), 0.8)]
        q = "How do I cache endpoint responses in Redis?"
        draft = extractive_answer(q, items, UnitCache(tmp_path), exact_terms=find_exact_terms(q), term_weights=weights)
        assert draft.uncovered == ("cache endpoint responses",), (draft.uncovered, draft.body)
        q = "Which Redis image can I run next to my app?"
        assert not extractive_answer(q, items, UnitCache(tmp_path), exact_terms=find_exact_terms(q), term_weights=weights).uncovered
        # without index statistics (every word weighs 1) the rule still reads the words; a Chinese question
        # answered from English pages is not judged by it
        assert coverage_gap("Redis 缓存怎么配置？", ["- [Redis](https://hub.docker.com/_/redis), etc."], weights) == ()  # type: ignore[arg-type]


def test_an_everyday_locution_is_not_the_thing_a_question_is_about(tmp_path: Path) -> None:
    """从头再来 ("start over", jieba's locution tag l, made of a verb and an adverb) is how the question is put: it
    and its piece 从头 (whose gloss "start" an English page writes in `<start>`) do not make a page about `git blame`
    the answer. A locution with a noun among its words (交换文件, 站内搜索) still names a thing."""
    from kb_agent.agent.grade import is_term_of_art

    assert [is_term_of_art(t) for t in ("从头再来", "翻译成", "连不上", "交换文件", "站内搜索", "正则表达式")] == [False, False, False, True, True, True]
    # a verb done briefly (试一下 "try it", which jieba's dictionary tags a noun) names nothing either (session 26, frp:
    # "想试一下虚拟组网…" was refused: "nothing found about '试一下'")
    from kb_agent.agent.grade import is_new_word

    assert not is_term_of_art("试一下") and not is_new_word("试一下") and not is_new_word("测一下子")
    write(tmp_path, "git.md", "# Log\n\n## blame on certain range\n\n```sh\ngit blame -L <start>,<end>\n```\n")
    write(tmp_path, "wget.md", "# wget\n\n使用`wget -c`重新启动下载中断的文件，对于下载大文件时突然中断非常有帮助，可以接着下载而不是重新下载一个文件。\n")
    items = [(evidence_from(tmp_path, "wget.md", 1, 3, score=0.9, tool="vector"), 0.64),
             (evidence_from(tmp_path, "git.md", 1, 7, score=0.8, tool="vector"), 0.55)]
    q = "大文件下载到一半断了，怎么接着下，而不是从头再来？"
    weights = rare("从头再来", "从头", "一半", "接着", "下载")
    assert focus_terms(q, weights) == []  # type: ignore[arg-type]
    draft = extractive_answer(q, items, UnitCache(tmp_path), term_weights=weights)  # type: ignore[arg-type]
    assert "wget -c" in draft.body and "git blame" not in draft.body and not draft.uncovered, draft.body


def test_a_verb_and_its_particle_count_as_the_word_the_kb_writes(tmp_path: Path) -> None:
    """"Command to back up all Argo CD data?" over a page that writes "Export to a backup:": the question's "back up" is
    the KB's "backup" as well (session 25, Argo CD's disaster-recovery page); a join the KB never writes ("time in ISO
    8601" → "timein") is no term."""
    from kb_agent.agent.grade import question_terms

    write(tmp_path, "recovery.md", "# Disaster Recovery\n\nExport to a backup:\n\n```bash\nargocd admin export > backup.yaml\n```\n")
    for k in range(5):
        write(tmp_path, f"page{k}.md", f"# Page {k}\n\nThe command {k} prints the time and the data of the cluster.\n")
    with indexed_weights(tmp_path) as (_r, weights):
        assert "backup" in question_terms("Command to back up all Argo CD data?", weights)  # type: ignore[arg-type]
        assert "timein" not in question_terms("print the current time in ISO 8601", weights)  # type: ignore[arg-type]
        assert "backup" not in question_terms("Command to back up all Argo CD data?"), "without an index: the words as typed"


def test_an_everyday_word_the_kb_never_writes_is_how_the_question_is_put(tmp_path: Path) -> None:
    """"I staged a file by accident. How do I unstage it?" over an FAQ that never writes "accident": the page
    that unstages a staged file answers. A name the KB never writes (`LFS`), or a question made mostly of words
    the KB never writes, is still not found."""
    from kb_agent.agent.grade import deterministic_scores

    write(tmp_path, "faq.md", "# Git flight rules\n\n## I want to unstage a specific staged file\n\nTo unstage a file that was staged:\n\n"
          "```sh\n$ git reset -- <filename>\n```\n\n## I want to delete a tag\n\n```sh\n$ git tag -d <tag_name>\n```\n")
    write(tmp_path, "more.md", "# More\n\n## Tags\n\nA tag names a commit. Pushing a tag shares it with the remote.\n")
    with indexed_weights(tmp_path) as (_r, weights):
        items = [evidence_from(tmp_path, "faq.md", 3, 10, score=0.9, tool="vector")]

        def score(q: str) -> float:
            return deterministic_scores(q, items, exact_terms=find_exact_terms(q), term_weights=weights)[0]  # type: ignore[arg-type]

        assert weights(["accid"])["accid"] == UNKNOWN_TERM_WEIGHT, "premise: the KB never writes it"  # type: ignore[operator]
        assert score("I staged a file by accident. How do I unstage it?") >= 0.5
        assert score("How do I unstage a file with Git LFS?") < 0.5, "a name the KB never writes is the topic"
        assert score("How do I bring up all services with docker compose?") < 0.5, "mostly words the KB never writes"


def test_an_amount_spelled_out_is_the_users_value(tmp_path: Path) -> None:
    """"How can I kill a single command in a task if it hangs for more than five minutes?" over a page that writes
    `timeout: 5m`: "five" and "minutes" are the user's value, which the page writes its own way, not a topic the KB
    lacks (every passage scored near 0 and the question was "not found"). Other words the KB never writes still are."""
    from kb_agent.agent.grade import deterministic_scores

    write(tmp_path, "guide.md", "# Guide\n\n## Timeouts\n\nUse `timeout` to limit how long a command of a task may run:\n\n"
          "```yaml\ntasks:\n  deploy:\n    cmds:\n      - cmd: ./deploy.sh\n        timeout: 5m\n```\n")
    written = {"kill": 3.9, "singl": 3.7, "command": 1.4, "task": 0.2, "hang": 3.9}  # the KB's IDF; any other word is never written

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: written.get(t, UNKNOWN_TERM_WEIGHT) for t in terms}

    items = [evidence_from(tmp_path, "guide.md", 3, 13, score=0.9, tool="vector")]

    def score(q: str) -> float:
        return deterministic_scores(q, items, term_weights=weights)[0]

    plain = score("How can I kill a single command in a task if it hangs?")
    assert plain >= 0.5
    assert score("How can I kill a single command in a task if it hangs for more than five minutes?") == plain
    assert score("How can I kill a single command in a task if it hangs in a cron daemon?") < 0.5, "words the KB never writes"


def test_a_number_with_its_unit_is_a_value_not_a_name() -> None:
    """"SSD 随机读 4KB 大概要多久？" over a table that writes "Read 4 KB randomly from SSD": `4KB` is a value typed
    without the space, never "nothing found about '4KB'"; names with digits stay names."""
    from kb_agent.agent.synthesize import question_names

    assert question_names("SSD 随机读 4KB 大概要多久？") == ["SSD"]
    assert question_names("Does a 100ms timeout at 2GHz fit in 512MiB?") == []
    assert question_names("Is 2FA supported over HTTP2 with ES2015 and k8s?") == ["2FA", "HTTP2", "ES2015", "k8s"]
    # a version says which release the user runs; pages write the releases that changed something (session 25: "My AList
    # (v3.30) … lost the admin password" was "nothing found about 'v3.30'" over pages that write "above v3.25.0")
    assert question_names("My AList (v3.30) runs in Docker. What command resets the password?") == ["AList", "Docker"]
    assert question_names("How does the sub-path differ between portal 1.6.x and 1.7?") == ["sub-path"]
    assert "4KB" in named_words("SSD 随机读 4KB 大概要多久？"), "still searched for as typed (the plan's grep step for names)"
    assert "don" not in tokenize("Why don't my prices round?", drop_stopwords=True), "a contraction's stem is no word"


def test_an_amount_answer_shows_the_line_that_writes_the_number(tmp_path: Path) -> None:
    """"SCAN 不传 COUNT 默认是多少？": the lines sharing most words talk about COUNT; the number is on a shorter line of
    the same page ("The default `COUNT` value is 10."), which the answer quotes instead of refusing for want of one."""
    write(tmp_path, "scan.md", "# SCAN\n\n## The COUNT option\n\n"
          "While `SCAN` does not provide guarantees about the number of elements returned, it is possible to adjust the "
          "behavior of `SCAN` using the **COUNT** option.\n\n"
          "* The default `COUNT` value is 10.\n"
          "* When iterating the key space, the server will usually return *count* or a few more than *count* elements with `SCAN`.\n"
          "* When iterating small sets, all the elements are returned in the first `SCAN` call regardless of the `COUNT` value.\n"
          + "".join(f"\nWith `SCAN` the **COUNT** option hint {w} changes how much work each call does.\n"
                    for w in ("alone", "often", "sometimes", "rarely", "usually", "also", "still")))
    draft = _answer_from(tmp_path, "scan.md", 30, "# Command {i}\n\nThe command {i} returns a reply.\n", "SCAN 不传 COUNT 默认是多少？")
    assert not draft.uncovered and "value is 10" in draft.body, (draft.uncovered, draft.body)


def test_an_amount_is_read_from_the_section_of_the_sentences_that_are_quoted(tmp_path: Path) -> None:
    """"By default, how often does tool re-download external archives, and how can I force a fresh download?": the
    sentences sharing the question's words say what the field does and how to force it; the durations (`24h`, `168h`)
    are on a line of the same section that shares few of them. The answer quotes that line instead of refusing for
    want of a duration (session 24's chezmoi set, dev)."""
    write(tmp_path, "external.md", "# External format\n\n## refreshPeriod\n\n"
          "The optional duration `refreshPeriod` field specifies how often tool will re-download the URL. "
          "The default is zero meaning that tool will never re-download unless forced. "
          "To force tool to re-download URLs, pass the `--refresh-externals` flag.\n\n"
          "Suitable refresh periods for archives include one day (`24h`), one week (`168h`), or four weeks (`672h`).\n\n"
          "## url\n\nThe `url` field gives where to download external archives from; archives are unpacked.\n")
    draft = _answer_from(tmp_path, "external.md", 14, "# Archive {i}\n\nThe archive {i} is downloaded from the remote and unpacked.\n",
                         "By default, how often does tool re-download external archives, and how can I force a fresh download?")
    assert not draft.uncovered and "168h" in draft.body and "--refresh-externals" in draft.body, (draft.uncovered, draft.body)


def test_a_paragraph_that_refers_back_with_the_command_completes_the_answer(tmp_path: Path) -> None:
    """"I want to try a full release locally … without validating the tag or uploading anything. What do I run?": the
    sentence sharing the question's words ("Sometimes we want to generate a full build … but neither want to validate
    anything nor upload it") is followed by the one that says how, referring back to it ("GoReleaser supports this with
    the `--snapshot` flag"); the answer quotes both, in place of weaker units from other pages (session 25)."""
    write(tmp_path, "snapshots.md", "# Snapshots\n\nSometimes we want to generate a full build of our project locally,\n"
          "but neither want to validate anything nor upload it to anywhere.\n\n"
          "Tool supports this with the `--snapshot` flag and with the `snapshot` customization section:\n\n"
          "```yaml\nsnapshot:\n  # Allows you to change the name of the generated snapshot\n  version_template: \"{{ .Version }}-devel\"\n```\n")
    for k in range(3):
        write(tmp_path, f"publish{k}.md", f"# Publish {k}\n\n```yaml\n  # Setting this skips the upload of the release {k};\n"
              f"  # the tag is validated locally, useful to try your config.\n  skip_upload_{k}: true\n  # and more {k}\n```\n")
    items = [(evidence_from(tmp_path, "snapshots.md", 1, 12, score=0.9, tool="hybrid"), 0.6),
             *((evidence_from(tmp_path, f"publish{k}.md", 1, 8, score=0.8, tool="hybrid"), 0.6) for k in range(3))]
    q = "I want to try a full release locally to see if my config works, without validating the tag or uploading anything. What do I run?"
    draft = extractive_answer(q, items, UnitCache(tmp_path), term_weights=uniform_weights)
    assert "--snapshot" in draft.body and "Sometimes we want" in draft.body, draft.body


OPTIONS_PAGE = """# Options

## Tab Width

Specify the number of spaces per indentation-level.

| Default | CLI Override        | API Override      |
| ------- | ------------------- | ----------------- |
| `2`     | `--tab-width <int>` | `tabWidth: <int>` |

## Tabs

Indent lines with tabs instead of spaces.

| Default | CLI Override | API Override      |
| ------- | ------------ | ----------------- |
| `false` | `--use-tabs` | `useTabs: <bool>` |

Setting `indent_style` in an `.editorconfig` file will configure the tab usage, unless overridden.
"""


def test_an_options_description_brings_the_short_table_that_names_it(tmp_path: Path) -> None:
    """"团队想统一用 Tab 缩进而不是空格，配置里该加哪一项？" over a reference page that gives each option a heading, a sentence
    ("Indent lines with tabs instead of spaces.") and a one-row table with its flag and key: the sentence shares the
    question's words, the table names the option (`--use-tabs`, `useTabs`); the answer quotes both (session 25)."""
    write(tmp_path, "options.md", OPTIONS_PAGE)
    items = [(evidence_from(tmp_path, "options.md", 1, 22, score=0.9, tool="hybrid"), 0.7)]
    for q in ("Which option makes it indent lines with tabs instead of spaces?", "How do I indent lines with tabs instead of spaces?"):
        draft = extractive_answer(q, items, UnitCache(tmp_path), term_weights=uniform_weights)
        assert "`--use-tabs`" in draft.body and "Indent lines with tabs" in draft.body, (q, draft.body)


def test_a_value_and_what_it_is_of_may_be_two_units_of_one_section(tmp_path: Path) -> None:
    """"调度日志一直显示“运行中”，系统多久之后会自动把它标成失败？": one paragraph of the section says what goes wrong (the
    question's words), the next one gives the duration (10min) in few of them; read together they answer it (it was
    refused for want of a duration about what is asked)."""
    write(tmp_path, "manual.md", "# 手册\n\n## 调度结果丢失处理\n\n"
          "执行器因网络抖动回调失败或宕机等异常情况，会导致任务调度结果丢失，调度日志永远处于 \"运行中\" 状态。\n\n"
          "针对该问题，调度中心提供内置组件进行处理：记录停留在 \"运行中\" 超过10min，则将本地调度主动标记失败。\n")
    draft = _answer_from(tmp_path, "manual.md", 8, "# 页面 {i}\n\n调度中心 {i} 的日志显示任务状态。\n",
                         "执行器宕机没能回调，调度日志一直显示“运行中”，系统多久之后会自动把它标成失败？")
    assert not draft.uncovered and "10min" in draft.body, (draft.uncovered, draft.body)


def test_an_option_typed_with_its_dashes_must_be_written_as_is() -> None:
    """"HEALTHCHECK 的 --start-interval 默认是多少？" over a book that documents `--interval`, `--start-period` but never
    `--start-interval`: the page that documents an option writes it, so the neighbours do not answer."""
    from kb_agent.agent.synthesize import focus_gap

    class Weights:
        def __call__(self, terms: Sequence[str]) -> dict[str, float]:
            return {t: 2.0 for t in terms}

        def written(self, text: str) -> bool:
            return text.lower() != "--start-interval"

    shown = ["HEALTHCHECK 支持下列选项：--interval=<间隔>、--timeout=<时长>、--start-period=<时长>、--retries=<次数>"]
    q = "HEALTHCHECK 的 --start-interval 默认是多少？"
    assert focus_gap(q, shown, Weights(), find_exact_terms(q)) == ("--start-interval",)
    q = "HEALTHCHECK 的 --start-period 默认是多少？"
    assert focus_gap(q, shown, Weights(), find_exact_terms(q)) == ()


def test_a_how_to_answer_that_only_names_an_option_shows_the_fence_of_its_section(tmp_path: Path) -> None:
    """"When restoring for Kubernetes, how do I make sure revisions never go backwards and the caches get invalidated?":
    the sentences sharing the question's words name `--mark-compacted` in backticks, and the full command stands in
    the fence under "A full invocation may look like this:" in the same section, which names neither Kubernetes nor
    the caches. The answer quotes that fence, not only the sentences that name the option."""
    write(tmp_path, "recovery.md", "# Restoring a cluster\n\n## Revision difference\n\n"
          "Restoring to an older revision may not refresh the informer caches of Kubernetes controllers.\n\n"
          "## Restoring with revision bump\n\n"
          "To ensure the revisions never go backwards after a restore, supply the `--bump-revision` option.\n\n"
          "For Kubernetes controllers, also mark the revisions as compacted using `--mark-compacted`, which invalidates "
          "the informer caches.\n\n"
          "A full invocation may look like this:\n\n"
          "```sh\n$ etcdutl snapshot restore snapshot.db --bump-revision 1000000000 --mark-compacted --data-dir out\n```\n\n"
          "## Restoring with updated membership\n\nSupply the new membership as follows:\n\n"
          "```sh\n$ etcdutl snapshot restore snapshot.db --name m1 --initial-cluster m1=http://host1:2380\n```\n")
    q = ("When restoring a snapshot for a cluster that backs Kubernetes, how do I make sure revisions never go backwards "
         "and the informer caches get invalidated?")
    draft = _answer_from(tmp_path, "recovery.md", 24, "# Page {i}\n\nThe member {i} stores keys.\n", q)
    assert not draft.uncovered and "--bump-revision 1000000000 --mark-compacted" in draft.body, (draft.uncovered, draft.body)
    assert "--initial-cluster" not in draft.body, "the fence of another section is not the how"


def test_a_chinese_word_counts_in_an_english_name_a_chinese_page_defines() -> None:
    """"不小心把密码登录关掉了，能用命令行改回默认吗？" is answered by `answer config --with allow_password_login` on a
    Chinese page: 密码 and 登录 are written there in the setting's English name. A loose English word in Chinese text
    (a button called "Releases only") is no such name: 发布 is not matched through it."""
    assert matching_terms(["密码", "登录"], "- 示例\n  - `answer config -C ./data/ --with allow_password_login`") == {"密码", "登录"}
    assert matching_terms(["发布"], "在那里你可以选择「Releases only」。") == set()
    assert matching_terms(["删除"], "Delete the pod first.") == {"删除"}, "an English text: through its words, as before"


def test_a_call_written_without_backticks_shows_how(tmp_path: Path) -> None:
    """"SQL 任务里想用参数拿到上个月最后一天的日期，应该怎么写？" is answered by a reference line that writes the
    parameter as a call without backticks (`$[month_last_day(yyyy-MM-dd,-N)]`): that is code, the how asked for."""
    write(tmp_path, "built-in.md", "# 内置参数\n\n## 衍生内置参数\n\n"
          "- 前(-)/后(+) N 月第一天：$[month_first_day(yyyy-MM-dd,-N)]，如：N=1时 2022-08-26 => 2022-07-01\n"
          "- 前(-)/后(+) N 月最后一天：$[month_last_day(yyyy-MM-dd,-N)]，如：N=1时 2022-08-28 => 2022-07-31\n")
    draft = _answer_from(tmp_path, "built-in.md", 7, "# 页面 {i}\n\nSQL 任务 {i} 按时运行。\n", "SQL 任务里想用参数拿到上个月最后一天的日期，应该怎么写？")
    assert not draft.uncovered and "month_last_day(yyyy-MM-dd,-N)" in draft.body, (draft.uncovered, draft.body)


def test_a_chinese_compound_the_kb_writes_in_its_parts_is_no_absent_term(tmp_path: Path) -> None:
    """"第一次登录用什么账号密码？" over a page that writes 账号 and 密码 but never 账号密码: the compound is made of
    words the KB writes, so it is no term of art the KB lacks (it was refused as "nothing found about '账号密码'").
    A compound only partly written (排行榜 where the KB writes 排行) is still absent."""
    write(tmp_path, "zh/grafana.md", "# 监控\n\n## 登录\n\n访问 grafana 的 web 界面，默认账号 admin，密码 `Admin1234!`。\n\n排行在首页。\n")
    items = [(evidence_from(tmp_path, "zh/grafana.md", 1, 7, score=0.9, tool="vector"), 0.8)]
    unknown = {"账号密码", "排行榜", "榜"}

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: UNKNOWN_TERM_WEIGHT if t in unknown else 1.0 for t in terms}

    draft = extractive_answer("grafana 第一次登录用什么账号密码？", items, UnitCache(tmp_path), term_weights=weights)
    assert not draft.uncovered and "Admin1234!" in draft.body, draft.uncovered
    assert extractive_answer("grafana 的排行榜在哪里看？", items, UnitCache(tmp_path), term_weights=weights).uncovered == ("排行榜",)


def test_a_chinese_determiner_is_no_name_that_narrows_the_answer(tmp_path: Path) -> None:
    """"同一个 JSON 请求体我想先…绑定到结构体 A，失败了再绑定到结构体 B，…该用哪个方法？": 同一个 ("the same", a distinguishing
    word to jieba's dictionary) was taken for a name, and only the paragraph that says 同一个 (the problem) was quoted, not
    the next one with the method (session 30, gin's Chinese docs). 多线程 and 国家级 (also b) still name things."""
    from kb_agent.agent.grade import is_new_word, is_term_of_art

    assert not any(is_term_of_art(t) or is_new_word(t) for t in ("同一个", "这一个", "每一个", "另一个", "所有的"))
    assert is_term_of_art("多线程")
    write(tmp_path, "zh/bind.md", "# 将请求体绑定到不同的结构体\n\n标准的绑定方法如 `c.ShouldBind` 会消费 `c.Request.Body`，一旦读取后就无法再次读取。"
          "这意味着你不能对同一个请求多次调用 `c.ShouldBind` 来尝试不同的结构体。\n\n要解决这个问题，请使用 `c.ShouldBindBodyWith`。"
          "它会读取一次请求体并将其存储在上下文中，允许后续的绑定重用缓存的请求体。\n")
    items = [(evidence_from(tmp_path, "zh/bind.md", 1, 5, score=0.9, tool="vector"), 0.8)]
    q = "同一个 JSON 请求体我想先尝试绑定到结构体 A，失败了再绑定到结构体 B，但第二次绑定读不到内容了，该用哪个方法？"
    draft = extractive_answer(q, items, UnitCache(tmp_path), term_weights=rare("同一个", "同一"))  # type: ignore[arg-type]
    assert "c.ShouldBindBodyWith" in draft.body, draft.body


def test_the_paragraph_that_works_around_a_stated_error_is_quoted_with_it(tmp_path: Path) -> None:
    """kind's rootless page states an error in a fence, explains it in three sentences, then "A workaround to this is to
    configure Podman to use a different log driver … One option is to use the `k8s-file` log driver:" with its config;
    "What Podman setting works around that?" quoted the error and the explanation, not the workaround (session 31). The
    paragraph that opens by solving the stated problem, a few sentences on in the same section, comes with it; one in
    another section does not."""
    write(tmp_path, "rootless.md", "# Rootless\n\n## Podman Log Driver\n\n"
          "When using rootless Podman, kind may fail with the following error even though the cluster appears\nto have started successfully:\n\n"
          "```\nERROR: failed to create cluster: could not find a log line that matches \"Reached target .*Multi-User System.*\"\n```\n\n"
          "This failure can have many different root causes, but if it looks like the node container has initialized,\n"
          "it may be caused by an architectural issue with rootless Podman's log handling. kind monitors cluster\n"
          "startup by tailing `podman logs`, but in rootless mode Podman uses a userspace log relay. As a result,\n"
          "kind's log watcher never sees the line and times out.\n\n"
          "A workaround to this is to configure Podman to use a different log driver so kind can reliably\ntail the logs.\n"
          "One option is to use the `k8s-file` log driver:\n\n"
          "```sh\ncat >> ~/.config/containers/containers.conf <<EOF\n[containers]\nlog_driver = \"k8s-file\"\nEOF\n```\n\n"
          "## Other\n\nA workaround to this is to use `docker` instead.\n")
    items = [(evidence_from(tmp_path, "rootless.md", 5, 10, score=0.9, tool="vector"), 0.8)]
    q = ("I'm on rootless Podman and kind create cluster times out waiting for the 'Multi-User System' line, although the node "
         "container seems to have booted. What Podman setting works around that?")
    draft = extractive_answer(q, items, UnitCache(tmp_path), term_weights=rare("podman"))  # type: ignore[arg-type]
    assert 'log_driver = "k8s-file"' in draft.body, draft.body
    assert "use `docker` instead" not in draft.body, draft.body


def test_a_chinese_word_that_asks_is_no_absent_term(tmp_path: Path) -> None:
    """"芸香属原产于哪些地方？": 哪些地方 ("which places", a noun to jieba's dictionary) is what the question asks, not a name
    the KB must write (cmrc2018: such questions were refused as "nothing found about '哪些地方'"); nor are 哪一科, 几位数 or
    多少钱. 几内亚 (Guinea) stays a name."""
    from kb_agent.agent.grade import is_new_word, is_term_of_art

    assert not any(is_term_of_art(t) or is_new_word(t) for t in ("哪些地方", "哪一科", "几位数", "多少钱", "什么时候"))
    assert is_term_of_art("几内亚")
    write(tmp_path, "芸香属.md", "# 芸香属\n\n芸香属原产于地中海地区、密克罗尼西亚和亚洲西南部，分布于欧亚大陆及加那利群岛。\n")
    items = [(evidence_from(tmp_path, "芸香属.md", 1, 3, score=0.9, tool="vector"), 0.8)]
    unknown = {"哪些地方", "地方"}

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: UNKNOWN_TERM_WEIGHT if t in unknown else 1.0 for t in terms}

    draft = extractive_answer("芸香属原产于哪些地方？", items, UnitCache(tmp_path), term_weights=weights)
    assert not draft.uncovered and "地中海地区" in draft.body, (draft.uncovered, draft.body)


def test_a_chinese_compound_the_kb_writes_in_its_parts_does_not_narrow_the_answer(tmp_path: Path) -> None:
    """"任务运行日志文件只想留 7 天，过期自动删掉，该改哪个配置？" over a properties fence whose retention key is described as
    "执行器日志文件保存天数 … 过期日志自动清理": 运行日志 is rare as a whole, but the KB writes 运行 and 日志, so it is a phrase of
    the question, not a name only units writing it whole are about (the answer quoted the log-path key and a release note)."""
    more = "".join(f"### 执行器参数{k} [选填]：说明{k}；\nxxl.job.executor.param{k}={k}\n" for k in range(1, 6))
    write(tmp_path, "doc/manual.md", "# 手册\n\n## 执行器配置\n\n```\n" + more + "### 执行器运行日志文件存储磁盘路径 [选填]：为空则使用默认路径；\n"
          "xxl.job.executor.logpath=/data/applogs/xxl-job/jobhandler\n### 执行器日志文件保存天数 [选填]：过期日志自动清理，限制值大于等于3时生效；\n"
          "xxl.job.executor.logretentiondays=30\n```\n\n## 版本说明\n\n- 任务运行日志移除log4j组件依赖，改为自主实现；\n")
    items = [(evidence_from(tmp_path, "doc/manual.md", 1, 24, score=0.9, tool="hybrid"), 0.8)]

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: 3.99 if t == "运行日志" else 1.0 for t in terms}

    draft = extractive_answer("执行器上的任务运行日志文件只想留 7 天，过期自动删掉，该改哪个配置？", items, UnitCache(tmp_path), term_weights=weights)
    assert "xxl.job.executor.logretentiondays=30" in draft.body, draft.body


def test_a_chinese_noun_the_question_stands_on_does_not_narrow_the_answer(tmp_path: Path) -> None:
    """"在 Windows 服务器上想让 Gitea 开机自动运行，怎么把它装成系统服务？": 服务器 is rare in the KB and a term of art, but "在 …
    服务器上" says where the user is; the page that registers the service ("注册为Windows服务") never writes 服务器, and the
    answer was the config sheet's lines about the server (session 25, Gitea's docs). Not so where the question is about it."""
    write(tmp_path, "install/windows-service.md", "# 注册为Windows服务\n\n要注册为Windows服务，首先以Administrator身份运行 `cmd`，"
          "然后执行以下命令：\n\n```\nsc create gitea start= auto binPath= \"C:\\gitea\\gitea.exe web\"\n```\n")
    write(tmp_path, "config.md", "# 配置说明\n\n## Server\n\n- `DOMAIN`: 服务器域名。\n- `ROOT_URL`: Gitea服务器的对外 URL。\n"
          "- `START_SSH_SERVER`: 是否启用内部SSH服务器，开机后自动运行。\n")
    items = [(evidence_from(tmp_path, "install/windows-service.md", 1, 9, score=0.9, tool="hybrid"), 0.8),
             (evidence_from(tmp_path, "config.md", 1, 7, score=0.8, tool="hybrid"), 0.6)]

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: 3.6 if t in ("服务器", "务器") else 2.0 for t in terms}

    draft = extractive_answer("在 Windows 服务器上想让 Gitea 开机自动运行，怎么把它装成系统服务？", items, UnitCache(tmp_path), term_weights=weights)
    assert "sc create gitea" in draft.body, draft.body
    draft = extractive_answer("服务器的域名在哪里配置？", items, UnitCache(tmp_path), term_weights=weights)
    assert "sc create gitea" not in draft.body and "DOMAIN" in draft.body, draft.body


def test_a_noun_made_of_an_english_verb_is_no_tool_name() -> None:
    """CC-CEDICT glosses "to invoke" and "to delete" but not "invocation" or "deletion": "Which ezctl invocation
    creates it?" was refused as naming a tool the KB never writes. Such nouns are English by their shape."""
    assert foreign_words("Which ezctl invocation creates it, and is the deletion permanent?") == ["ezctl"]
    assert foreign_words("How do I diagnose NodeClockNotSynchronising with chronyc?") == ["chronyc"]


PSI_RUNBOOK = """# DeschedulerPSIDisabled

## Meaning

The descheduler runs a profile (`KubeVirtRelieveAndMigrate`) that needs PSI metrics, but PSI is not enabled on the
worker nodes.

## Impact

The `KubeVirtRelieveAndMigrate` profile cannot see PSI pressure on the worker nodes.

## Diagnosis

Open a debug session on a worker node:

```bash
oc debug node/<node-name>
```

## Mitigation

**Note:** Applying this MachineConfig reboots the nodes one by one.

```yaml
kind: MachineConfig
spec:
  kernelArguments:
    - psi=1
```
"""


def test_a_how_to_answer_quoting_a_runbooks_meaning_shows_its_mitigation(tmp_path: Path) -> None:
    """"PSI is not enabled on the workers, how do I turn it on?" quoted the runbook's Meaning and Impact (they share the
    most words) and, for the how, the debug command under Diagnosis: the command under the page's Mitigation heading is
    the how, whatever it scores."""
    write(tmp_path, "DeschedulerPSIDisabled.md", PSI_RUNBOOK)
    for i in range(30):
        write(tmp_path, f"page{i}.md", f"# Page {i}\n\nThe app {i} serves requests on worker nodes.\n")
    with indexed_weights(tmp_path) as (_r, weights):
        items = [(evidence_from(tmp_path, "DeschedulerPSIDisabled.md", 1, 30, score=0.9, tool="vector"), 0.8)]
        for q in ("The descheduler uses KubeVirtRelieveAndMigrate but PSI is not enabled on the worker nodes. How do I turn it on?",
                  "descheduler 配了 KubeVirtRelieveAndMigrate，但 worker 节点没有开启 PSI，应该怎么打开？"):
            draft = extractive_answer(q, items, UnitCache(tmp_path), exact_terms=find_exact_terms(q), term_weights=weights)
            assert "psi=1" in draft.body, draft.body


def test_a_name_the_question_gives_as_an_example_need_not_be_written(tmp_path: Path) -> None:
    """"我只想看改动过某个文件（比如 src/main.go）的那些提交…" was refused as "nothing found about 'src/main.go'": the path is
    the user's example, no name a page must write. A name the question asks about outside an example still must be."""
    write(tmp_path, "docs/filter.md", "# Filtering\n\nTo show only the commits that touched a file, run `lazygit -f path/to/file`.\n")
    items = [(evidence_from(tmp_path, "docs/filter.md", 1, 3, score=0.9, tool="vector"), 0.8)]
    unknown = {"src", "main.go", "main", "go", "src/main.go", "frobnicate"}

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: UNKNOWN_TERM_WEIGHT if t in unknown else 1.0 for t in terms}

    for q in ("我只想看改动过某个文件（比如 src/main.go）的 commits，lazygit 怎么 filter？",
              "How do I filter the commits to one file, e.g. src/main.go, in lazygit?"):
        draft = extractive_answer(q, items, UnitCache(tmp_path), term_weights=weights)
        assert not draft.uncovered and "lazygit -f" in draft.body, (q, draft.uncovered)
    assert extractive_answer("How do I filter commits with src/main.go in lazygit?", items, UnitCache(tmp_path), term_weights=weights).uncovered


def test_a_measure_word_glued_to_its_noun_is_that_noun() -> None:
    """jieba cuts "多少个字符" into 个字符 beside 字符: 个字符 is a dictionary word no page writes, and it vetoed the
    answer ("nothing found about '个字符'") although the page writes 字符."""
    from kb_agent.agent.grade import question_terms

    terms = question_terms("提交信息默认在多少个字符处折行？")
    assert "字符" in terms and "个字符" not in terms, terms
    assert "个人" in question_terms("个人信息怎么删除？") or "个人信息" in question_terms("个人信息怎么删除？"), "a word that only begins with 个 stays"


def test_the_config_file_the_user_edits_is_answered_by_a_fence_in_its_language(tmp_path: Path) -> None:
    """"What do I put in application.yml?" over a page that shows the settings in a ```yaml fence under **YAML** but never
    writes the file's name was refused ("nothing found about 'application.yml'"). A fence in another language answers
    nothing about the file."""
    write(tmp_path, "docs/tracing.md", "# Event trace\n\nExclude noisy jobs from tracing.\n\n**YAML**\n```yaml\nelasticjob:\n"
          "  tracing:\n    type: RDB\n    excludeJobNames: [ job-name-1 ]\n```\n")
    write(tmp_path, "docs/java.md", "# Event trace in Java\n\nExclude noisy jobs from tracing.\n\n```java\nnew TracingConfiguration(\"RDB\");\n```\n")
    unknown = {"application.yml", "applic", "yml"}

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: UNKNOWN_TERM_WEIGHT if t in unknown else 1.0 for t in terms}

    q = "How do I exclude noisy jobs from RDB tracing? What do I put in application.yml?"
    yaml_items = [(evidence_from(tmp_path, "docs/tracing.md", 1, 11, score=0.9, tool="vector"), 0.8)]
    draft = extractive_answer(q, yaml_items, UnitCache(tmp_path), term_weights=weights)
    assert not draft.uncovered and "excludeJobNames" in draft.body, draft.uncovered
    java_items = [(evidence_from(tmp_path, "docs/java.md", 1, 7, score=0.9, tool="vector"), 0.8)]
    assert extractive_answer(q, java_items, UnitCache(tmp_path), term_weights=weights).uncovered == ("application.yml",)


def test_a_verb_undone_by_un_is_english() -> None:
    """"leave the connection timeout unset" was refused as "nothing found about 'unset'": un- before a three-letter verb
    is as English as re- before a longer one; a tool name stays one."""
    words = foreign_words("If I leave the timeout unset, and unzip the archive, which default applies with chronyc?")
    assert "unset" not in words and "unzip" not in words and "chronyc" in words, words


def test_a_question_that_asks_which_version_needs_a_version_number(tmp_path: Path) -> None:
    """"What's the oldest fish shell release that starship supports?" was answered with the page's fish setup lines: a
    question that asks which version (the minimum, the oldest release, 最低支持哪个版本) is answered by a version number."""
    write(tmp_path, "fish.md", "# Fish\n\nAdd the following to the end of `~/.config/fish/config.fish`:\n\n```fish\nstarship init fish | source\n```\n")
    write(tmp_path, "build.md", "# Build\n\nBuilding with plugins requires Go 1.18 or later.\n")
    fish = [(evidence_from(tmp_path, "fish.md", 1, 7, score=0.9, tool="vector"), 0.8)]
    build = [(evidence_from(tmp_path, "build.md", 1, 3, score=0.9, tool="vector"), 0.8)]
    assert extractive_answer("What's the oldest fish shell release that starship supports?", fish, UnitCache(tmp_path)).uncovered
    assert extractive_answer("fish 最低支持哪个版本？", fish, UnitCache(tmp_path)).uncovered
    draft = extractive_answer("What is the minimum Go version needed to build with plugins?", build, UnitCache(tmp_path))
    assert not draft.uncovered and "1.18" in draft.body, draft.uncovered
    assert not extractive_answer("How do I set up starship in fish?", fish, UnitCache(tmp_path)).uncovered


def test_the_number_that_answers_is_about_what_is_asked() -> None:
    """"执行日志默认保留多少天？" was answered with a number about something else on the page (session 22): the unit that
    gives the amount holds AMOUNT_MIN_COVERAGE of the question's weighted words (its headings count), or the answer
    has no amount."""
    from kb_agent.agent.synthesize import amount_gap

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: 1.0 for t in terms}

    q = "How many days does the event trace keep execution logs in the database?"
    other = "Connection pool: the database keeps at most 8 idle connections."
    assert amount_gap(q, [other]) == ()  # without weights any number still counts
    assert amount_gap(q, [other], weights) == ("a number (How many)",)
    assert amount_gap(q, [other, "Event trace: execution logs are kept in the database for 7 days."], weights) == ()
    # the heading beside the text counts: the number under "Event trace > Execution log retention"
    assert amount_gap(q, ["event-trace.md Event trace Execution log retention keep: 7"], weights) == ()
    # "how many" inside a how-to asks for the steps, not a number of something
    assert amount_gap("How do I get the prompt to print how many commits I'm ahead?", ["format: ⇡1"], weights) == ()


def test_a_chinese_amount_word_in_a_clause_that_tells_asks_nothing() -> None:
    """"我在几个项目里授予过信任，Helix 在 Linux 上把这些信任记录存放在哪个目录？" asks where, not how many (session 22: refused
    for want of a number). Only an amount word in a clause that ends the question (？ or the end) asks for one."""
    from kb_agent.agent.synthesize import amount_gap

    assert amount_gap("我在几个项目里授予过信任，信任记录存放在哪个目录？", ["存放在 ~/.local/share/helix/workspace_trust"]) == ()
    assert amount_gap("我的脚本有几个子命令，怎么给它注册补全？", ["complete -F _my my"]) == ()
    assert amount_gap("跳转列表最多能保存多少条记录？", ["跳转列表记录光标的位置。"]) == ("a limit (多少)",)
    assert amount_gap("执行日志默认保留多少天？会不会自动清理？", ["执行日志写进数据库。"]) == ("a number (多少)",)


def test_whats_the_longest_asks_a_length_but_the_shortest_way_asks_how() -> None:
    """"What's the longest name a remote can have?" was answered with a line on files not accessed "for the longest"
    (session 22): it asks a number; "What's the shortest way to create an empty file?" asks for a command."""
    from kb_agent.agent.synthesize import amount_gap

    assert amount_gap("What's the longest name a remote can have?", ["rclone will start with files that haven't been accessed for the longest."]) == ("a number (What's the longest)",)
    assert amount_gap("What's the maximum size of an upload?", ["Uploads up to 5 GiB are accepted."]) == ()
    assert amount_gap("What's the shortest way to create an empty file without touch?", ["> file"]) == ()


def test_release_before_the_noun_it_qualifies_asks_no_version() -> None:
    """"What format do release tags use?" was refused for want of a version number once the unit holding a number had to
    be about what is asked (session 22; sample_kb's kb-checks.yaml). "release tags / notes / branch" asks no version;
    "which release" and "what version number" do."""
    from kb_agent.agent.synthesize import amount_gap

    assert amount_gap("What format do release tags use?", ["Release tags follow the pattern `vYYYY.MM.DD-N`."]) == ()
    assert amount_gap("Which release added the flag?", ["The flag was added a while ago."]) == ("a version (Which release)",)
    assert amount_gap("What version number does the API report?", ["The API reports its build."]) != ()


def test_the_more_the_more_is_no_name() -> None:
    """越积越多 ("keeps piling up"): jieba's dictionary holds 越积越 as a person's name, but the construction names
    nothing — a question that uses it must not be refused for want of a page that writes it."""
    from kb_agent.agent.grade import is_new_word, is_term_of_art

    assert not any(f(w) for w in ("越积越", "越积越多", "越用越") for f in (is_term_of_art, is_new_word))
    assert is_term_of_art("交换文件") and is_new_word("扩缩容")


def test_what_a_question_tells_of_the_users_situation_is_no_subject_the_answer_must_name() -> None:
    """A name only in a sentence (a clause, in Chinese) that does not ask is where the user is: `sshd` in "My new worker
    runs sshd on port 10022. How do I join it …?" and nginx in "我把内网 nginx 暴露出去，…，怎么把访客的真实 IP 传给本地服务？"
    are not what the answer must name (session 27). A name in the sentence that asks still is, and so is one in a first
    clause with the question word ("怎么配置 ssh 的 ControlMaster，…？") or a first question of two."""
    from kb_agent.agent.synthesize import asking_part, focus_gap

    class Weights:
        """A KB that never writes sshd, nginx, ControlMaster or LDAP."""

        def __call__(self, terms: Sequence[str]) -> dict[str, float]:
            rare = dict.fromkeys(("sshd", "nginx", "controlmast", "ldap", "controlmaster"), UNKNOWN_TERM_WEIGHT)
            return {t: rare.get(t, 1.0) for t in terms}

        def written(self, text: str) -> bool:
            return text.lower() not in ("sshd", "nginx", "controlmaster", "ldap")

    assert asking_part("My worker runs sshd on port 10022. How do I join it to the cluster?") == "How do I join it to the cluster?"
    assert asking_part("我把内网 nginx 暴露出去，后端看到的 IP 不对，怎么传真实 IP？") == "怎么传真实 IP？"
    assert asking_part("How do I join a node?") == "How do I join a node?"
    join = ["Add a node with a custom SSH port: ezctl add-node k8s-01 192.168.1.11 ansible_ssh_port=10022"]
    assert focus_gap("My worker runs sshd on port 10022. How do I join it to the cluster?", join, Weights()) == ()
    assert focus_gap("How do I join a worker that runs sshd on port 10022?", join, Weights()) == ("sshd",)
    ip = ["proxy_protocol_version = \"v2\" 把访客的真实 IP 传给本地服务"]
    assert focus_gap("我把内网 nginx 暴露出去，后端看到的 IP 不对，怎么传真实 IP？", ip, Weights()) == ()
    ssh = ["多个会话复用同一条连接：在配置文件里写 Host *"]
    assert focus_gap("怎么配置 ssh 的 ControlMaster，让多个会话复用同一条连接？", ssh, Weights()) != ()
    assert focus_gap("Answer 能对接公司的 LDAP 账号登录吗？要怎么配置？", ["登录方式：账号密码"], Weights()) != ()


GETTING_STARTED = """# Getting started

## Configure

Save this as `server.yml`:

```yaml
listen: 8080
```

Start it:

```console
$ server --config.file=server.yml
```

## Reloading configuration

To get a running server to pick up a new configuration without restarting the process, send it the `SIGHUP`
signal: `kill -s SIGHUP <PID>`.
"""
INSTALL = """# Installation

## Docker

Bind-mount your `server.yml` from the host by running:

```console
$ docker run -v /path/to/server.yml:/etc/server/server.yml server
```
"""


def test_a_name_only_in_the_situation_says_which_page_not_which_lines(tmp_path: Path) -> None:
    """A name the question gives only in a sentence of situation ("I just edited server.yml …") narrows the answer to
    pages that name it, not to the lines that do: the page's "Reloading configuration" section answers "how do I get
    it to pick up the new config without restarting?" although it never writes `server.yml`. A name in the asking
    sentence still narrows to the lines that name it."""
    def weights(terms: Sequence[str]) -> dict[str, float]:  # the file's name is rare, its parts are words every page uses
        return {t: 3.9 if t == "server.yml" else 1.0 for t in terms}

    write(tmp_path, "getting_started.md", GETTING_STARTED)
    write(tmp_path, "installation.md", INSTALL)
    items = [(evidence_from(tmp_path, "getting_started.md", 1, 21, score=0.9, tool="vector"), 0.8),
             (evidence_from(tmp_path, "installation.md", 1, 9, score=0.8, tool="vector"), 0.7)]
    q = "I just edited server.yml on a box that is already running. How do I get the server to pick up the new config without restarting the process?"
    draft = extractive_answer(q, items, UnitCache(tmp_path), exact_terms=find_exact_terms(q), term_weights=weights)
    assert "SIGHUP" in draft.body, draft.body
    asked = "How do I get the server to pick up a new server.yml without restarting the process?"
    draft2 = extractive_answer(asked, items, UnitCache(tmp_path), exact_terms=find_exact_terms(asked), term_weights=weights)
    assert "SIGHUP" not in draft2.body and "server.yml" in draft2.body, draft2.body


def test_the_default_of_a_timeout_or_interval_is_a_value_of_its_own() -> None:
    """"What is the default heartbeat interval between frpc and frps, and how do I change it?" was answered (session 32)
    with the heartbeat message's JSON format (`<int64>`) and a health check's interval: a page on heartbeats that never
    says how often they go. The default of a timeout, an interval or a lifetime is a number of its own or "never"; the
    digits of a type name or a version are none. A question that asks for the setting's name asks no value."""
    from kb_agent.agent.synthesize import amount_gap

    q = "What is the default heartbeat interval between frpc and frps, and how do I change it?"
    assert amount_gap(q, ['Heartbeat from frpc\n{"timestamp": <int64>}', "Since v0.50.0 the default of tls.enable is true."]) == (
        "a value (default heartbeat interval)",)
    assert amount_gap(q, ["# A health check every 10 seconds\nhealthCheck.intervalSeconds = 10"]) != (), "another thing's interval"
    assert amount_gap(q, ["`transport.heartbeatInterval` sets how often frpc sends a heartbeat to frps; the default is 30."]) == ()
    assert amount_gap("Default expiration of entries in CacheModule?", ["By default, cached entries never expire."]) == ()
    assert amount_gap("Default request read timeout on an entrypoint?", ["| `readTimeout` | `60s` | read timeout of an entrypoint |"]) == ()
    assert amount_gap("the connection timeout is what by default?", ["See the connection timeout setting."]) != ()
    assert amount_gap("Is there an environment variable that sets a default timeout?", ["COMPOSE_HTTP_TIMEOUT"]) == ()
    assert amount_gap("Which option sets the default interval?", ["Use `--interval`."]) == ()


def test_a_question_that_tells_its_situation_first_is_covered_by_what_it_asks(tmp_path: Path) -> None:
    """"We're rolling new Datanode binaries out by hand, without the operator. What request do I send to metasrv first
    …?" was refused as "nothing found about 're rolling new binaries without request send first upgrade'" (session 32):
    the page that says which request to send does not retell the user's situation. The sentences that ask are enough;
    a unit that holds neither the situation nor the ask still leaves the gap."""
    from kb_agent.agent.synthesize import coverage_gap

    write(tmp_path, "admin/maintenance.md", "# Maintenance mode\n\nBefore you upgrade datanodes, enable maintenance mode on "
          "metasrv so it does not fail regions over:\n\n```bash\ncurl -X POST http://metasrv:4000/admin/maintenance/enable\n```\n")
    write(tmp_path, "ops/rollout.md", "# Rollout\n\nThe operator rolls binaries out to every node, by hand or on a schedule, "
          "without downtime; the laptop and the office network play no part.\n")
    with indexed_weights(tmp_path) as (_r, weights):
        unit = "Before you upgrade datanodes, enable maintenance mode on metasrv so it does not fail regions over: " \
               "curl -X POST http://metasrv:4000/admin/maintenance/enable"
        q = ("Our office laptop network schedule rolls the binaries out by hand, without the operator, on every node. "
             "Which request do I send to metasrv before I upgrade the datanodes?")
        assert coverage_gap(q, [unit], weights) == ()
        assert coverage_gap(q, ["Grafana dashboards show the cluster's health."], weights) != ()
        assert coverage_gap(q.split(". ")[0] + ".", [unit], weights) != (), "the situation alone is not covered by the ask's answer"
