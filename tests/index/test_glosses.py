"""A Chinese question over English pages: its words' English glosses (CC-CEDICT) match the words the
page writes, and the plan searches them (index/glosses.py)."""

from __future__ import annotations

from pathlib import Path

from kb_agent.agent.answer import Answer
from kb_agent.agent.plan import ENGLISH_OBJECTIVE, PlanRequest, make_plan
from kb_agent.index.glosses import english_query, glosses, lookup
from kb_agent.index.tokenize import matching_terms, tokenize

GIT_TIPS = """# Branching

## List all local and remote branches

```sh
git branch -a
```

## Rename the current branch

```sh
git branch -m <new-branch-name>
```

## Delete remote branch

```sh
git push origin --delete <remote_branchname>
```

## Delete a local branch

```sh
git branch -d <local_branchname>
```
"""
ZIP_ZH = """# zip

zip 是一个应用广泛的跨平台的压缩工具，可以用来解压缩文件，或者对文件进行打包操作。

## 实例

从压缩包中删除文件：

```shell
zip -d myfile.zip smart.txt
```

把 /home/html 目录压缩成 html.zip：

```shell
zip -q -r html.zip /home/html
```
"""


def test_glosses_are_short_english_phrases_commonest_first() -> None:
    assert glosses("删除")[0] == "delete"
    assert "remote" in glosses("远程") and "branch" in glosses("分支")
    assert "close" in glosses("关闭") and "shut" in glosses("关闭"), "one sense 'to close; to shut (a window etc)' is two phrases, without 'to' and notes"
    assert glosses("delete") == () and glosses("") == (), "only Chinese is looked up"
    assert glosses("这不是一个词语吧") == ()
    assert lookup(["删除", "x", "远程"]).keys() == {"删除", "远程"}


def test_english_query_translates_the_chinese_words_and_keeps_the_latin_ones() -> None:
    q = english_query("如何删除远程分支？", ["删除", "远程", "分支"])
    assert {"delete", "remote", "branch"} <= set(q.split()), q
    assert english_query("git 怎么删除分支？", ["git", "删除", "分支"]).startswith("git "), "names are kept as written"
    assert english_query("git怎么删除分支？", ["git", "删除", "分支"]).split()[0] == "git", "a name ends where the Chinese typed after it begins"
    assert english_query("How do I delete a remote branch?", ["delet", "remot", "branch"]) == ""
    assert english_query("统计信息", ["统计信息", "统计", "信息"]).split()[0] == "statistics", "the whole word is glossed, not its parts"


def test_english_query_searches_the_glosses_the_kb_writes_first() -> None:
    """"提交信息自动换行…": 换行's first glosses are "newline", "line break"; over a KB that writes only "wrap"
    (lazygit's `autoWrapWidth: 72`, "the width to wrap to") the search missed the line. With the index's document
    frequencies the written gloss goes first; a word the KB writes no gloss of keeps the dictionary's order."""
    plain = english_query("自动换行", ["换行"]).split()
    assert "wrap" not in plain[:2], plain
    df = {"wrap": 3}
    q = english_query("自动换行", ["换行"], lambda ts: {t: df.get(t, 0) for t in ts}).split()
    assert q[0] == "wrap", q
    assert english_query("删除", ["删除"], lambda ts: dict.fromkeys(ts, 0)).split()[0] == "delete", "nothing written: the dictionary's order"


def test_a_chinese_term_matches_an_english_text_that_writes_its_translation() -> None:
    assert matching_terms(["删除", "远程", "分支"], "Delete remote branch") == {"删除", "远程", "分支"}
    assert matching_terms(["删除", "分支"], "Rename the current branch") == {"分支"}
    assert matching_terms(["关闭"], "disable it") == set(), "only the dictionary's translations count"
    assert matching_terms(["删除"], "用 delete 参数") == set(), "a Chinese text is matched as written, never through glosses"
    assert matching_terms(["删除"], "用 -d 参数删除文件") == {"删除"}


def test_a_gloss_that_is_an_irregular_verb_matches_its_past_forms() -> None:
    """隐藏 glosses as "hide", a page writes "Hidden files"; 保存 as "keep", a question asks where files are "kept".
    The stemmer never joins these forms; a past form that is another word too ("left") is not taken."""
    assert matching_terms(["隐藏", "文件", "搜索"], "Hidden files and directories can be searched with the `--hidden` flag.") == {"隐藏", "文件", "搜索"}
    assert "kept" in matching_terms(tokenize("Where are crontab files kept?", drop_stopwords=True), "crontab 文件保存在 /var/spool/cron 目录下")
    assert matching_terms(["离开"], "Click the left column.") == set()


def test_an_english_word_matches_a_chinese_text_that_writes_its_translation() -> None:
    """An English question over Chinese pages (a Chinese book read by an English speaker)."""
    text = "Object.assign()方法实行的是浅拷贝，而不是深拷贝。如果源对象某个属性的值是对象，那么目标对象拷贝得到的是这个对象的引用。"
    terms = tokenize("Does Object.assign make a deep copy of nested objects?", drop_stopwords=True)
    got = matching_terms(terms, text)
    assert {"copi", "object", "object.assign"} <= got, got  # 拷贝 ~ copy, 对象 ~ object
    assert "nest" not in got and "make" not in got, "only words a Chinese word of the text translates"
    assert "deep" not in got, "one character (深) is not glossed: it stands for too many words"
    # a Chinese question that writes a term in English is matched through the glosses too (session 20: "每台机器的
    # hostname 都不一样" over "各节点主机名不重复" was refused as covering too little of the question)
    assert "hostnam" in matching_terms(tokenize("为什么每台机器的 hostname 都要不一样", drop_stopwords=True), "安装前必须确保各节点主机名不重复")
    assert matching_terms(["calico"], "各节点主机名不重复") == set(), "a name no gloss writes matches only as written"


def _request(question: str, english: str, *, safety_net: bool = True) -> PlanRequest:
    return PlanRequest(question=question, routing=("hybrid",), exact_terms=(), keywords=("删除", "远程", "分支"), sub_questions=(),
                       fast_path=True, iteration=1, tried=frozenset(), top_k=10, safety_net=safety_net, english=english)


def test_a_chinese_question_also_searches_its_english_words() -> None:
    steps = make_plan(_request("如何删除远程分支？", "delete remote branch"))
    assert [(s.tool, s.tool_input, s.objective) for s in steps][-1] == ("hybrid", "delete remote branch", ENGLISH_OBJECTIVE)
    assert ENGLISH_OBJECTIVE not in [s.objective for s in make_plan(_request("如何删除远程分支？", ""))]
    assert ENGLISH_OBJECTIVE not in [s.objective for s in make_plan(_request("如何删除远程分支？", "delete", safety_net=False))], "a pinned --tool plans only that tool"


def test_a_chinese_question_is_answered_from_an_english_page(tmp_path: Path) -> None:
    """End to end with the bundled embedder: the English page is the only one that answers, and a Chinese
    page that writes 删除 about something else competes for it."""
    answer = _ask(tmp_path, {"git/branching.md": GIT_TIPS, "cmd/zip.md": ZIP_ZH}, "如何删除远程分支？")
    assert answer.found, answer.text
    assert "git push origin --delete <remote_branchname>" in answer.text, answer.text
    assert any(c.path == "git/branching.md" for c in answer.citations)


def _ask(root: Path, files: dict[str, str], question: str) -> Answer:
    """Index `files` under `root` with the bundled embedder and ask `question` offline."""
    from kb_agent.agent.engine import Engine
    from kb_agent.index.build import build_index
    from kb_agent.settings import Settings

    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    settings = Settings(root=root, _env_file=None)  # type: ignore[call-arg]
    build_index(settings)
    return Engine(settings).answer_query(question)


def test_a_chinese_term_a_mixed_kb_writes_only_in_english_weighs_what_its_gloss_weighs() -> None:
    from kb_agent.agent.grade import UNKNOWN_TERM_WEIGHT, idf_weights
    from kb_agent.index.tokenize import tokenize
    from kb_agent.retrieval.lexical import bm25_idf

    english = {tokenize(w)[0]: df for w, df in (("delete", 3), ("remote", 2), ("branch", 4))}
    mixed = {"的": 50, **english}
    w = idf_weights(lambda ts: {t: mixed[t] for t in ts if t in mixed}, 100, literal_files=lambda t: 0)(["删除", "远程", "分支", "挂起", "悬空"])
    assert w["远程"] == bm25_idf(100, 2) and w["删除"] == bm25_idf(100, 3)
    assert w["挂起"] == 0.0, "no gloss of it is written: an everyday verb, no evidence either way"
    assert w["悬空"] == UNKNOWN_TERM_WEIGHT, "a noun (jieba's tag n) no file writes, in either language: the thing is absent"
    only_english = idf_weights(lambda ts: {t: english[t] for t in ts if t in english}, 100, literal_files=lambda t: 0)
    assert only_english(["git", "删除", "远程"]) == {"git": UNKNOWN_TERM_WEIGHT, "删除": bm25_idf(100, 3), "远程": bm25_idf(100, 2)}, (
        "a Chinese question with a Latin name is judged by its words' glosses too, not by its names alone")
    assert only_english(["删除", "远程"]) == {"删除": bm25_idf(100, 3), "远程": bm25_idf(100, 2)}, (
        "a question wholly in Chinese is judged by its words' English glosses: else no word of it weighs anything")
    assert only_english(["删除", "防火墙"])["防火墙"] == UNKNOWN_TERM_WEIGHT, "a term of art no page writes in any language"
    cut_apart = idf_weights(lambda ts: {t: mixed[t] for t in ts if t in mixed}, 100, literal_files=lambda t: 1)
    assert cut_apart(["防火墙"]) == {"防火墙": 0.0}, "a term the files write, which jieba cut differently there, is no absence"


ETCD_MAINTENANCE = """# Maintenance

## Defragmentation

After compacting the keyspace, the backend database may exhibit internal fragmentation. Defragmentation
releases the free space back to the file system.

Defragmentation is issued on a per-member basis. To defragment every member of the cluster at once, run:

```sh
etcdctl defrag --cluster
```

## Space quota

The default storage size limit is 2 GB, configurable with the `--quota-backend-bytes` flag.
"""
ETCD_TUNING = """# Tuning

## Time parameters

The heartbeat interval is the frequency with which the leader notifies followers that it is still the leader.
By default, etcd uses a `100ms` heartbeat interval.

The election timeout is how long a follower waits without hearing a heartbeat before it tries to become the
leader. By default, etcd uses a `1000ms` election timeout.
"""


def test_a_question_wholly_in_chinese_is_answered_from_english_pages(tmp_path: Path) -> None:
    files = {"op-guide/maintenance.md": ETCD_MAINTENANCE, "tuning.md": ETCD_TUNING}
    answer = _ask(tmp_path, files, "怎么对集群所有成员做碎片整理？")
    assert answer.found, answer.text
    assert "etcdctl defrag --cluster" in answer.text, answer.text
    assert not _ask(tmp_path / "2", files, "怎么给集群配置防火墙规则？").found, "what the pages never say stays not found"


def test_a_word_of_computing_has_its_computing_sense_first() -> None:
    assert glosses("集群")[0] == "cluster" and "clan" in glosses("集群"), "CC-CEDICT's senses follow"
    assert glosses("镜像")[0] == "image" and "roll back" in glosses("回滚")
    assert glosses("碎片整理")[0] == "defragment", "a word CC-CEDICT lacks"
    assert glosses("删除")[0] == "delete", "a word with no entry keeps CC-CEDICT's glosses"
    assert matching_terms(["集群", "成员"], "Add a member to the cluster") == {"集群", "成员"}
    q = "怎么对集群所有成员做碎片整理？"
    words = english_query(q, tokenize(q, drop_stopwords=True)).split()
    assert "defragment" in words and "fragment" not in words, "a term jieba cuts in two (碎片 / 整理) is glossed whole"


def test_the_glosses_are_cached_and_a_damaged_cache_is_rebuilt(tmp_path: Path, monkeypatch: object) -> None:
    import pytest

    from kb_agent.index import glosses as G

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(G, "_dictionary", None)
    monkeypatch.setattr(G, "_reverse_map", None)
    assert G.glosses("删除")[0] == "delete"
    assert G.is_english_word("dangling") is True and G.is_english_word("chronyc") is False
    [cached] = (tmp_path / "kb").glob("cedict-*.sqlite")
    assert not list((tmp_path / "kb").glob("cedict_reverse-*")), "the reverse map is built only when an English question needs it"
    assert "密码" in G.chinese_words(["password"])["password"]
    [reverse] = (tmp_path / "kb").glob("cedict_reverse-*.sqlite")
    cached.write_bytes(b"not a database")
    monkeypatch.setattr(G, "_dictionary", None)
    assert G.glosses("删除")[0] == "delete" and G.glosses("信号") == ("signal",)
    assert cached.read_bytes()[:15] == b"SQLite format 3", "rebuilt for the next process"
    assert reverse.is_file(), "rebuilding the map leaves the reverse map's own file alone"
    monkeypatch.setattr(G, "_dictionary", None)
    cached.unlink()
    monkeypatch.setattr(G, "_write_cache", lambda path, glossary, english: False)  # a cache folder kb cannot write
    monkeypatch.setattr(G, "_write_reverse", lambda path, reverse: False)
    monkeypatch.setattr(G, "_reverse_map", None)
    reverse.unlink()
    assert G.glosses("删除")[0] == "delete", "the maps are held in memory instead"
    assert G.is_english_word("diagnosing") is True and G.is_english_word("ufw") is False
    assert "密码" in G.chinese_words(["password"])["password"], "the reverse map too"
    assert not list((tmp_path / "kb").glob("cedict-*.sqlite"))
    monkeypatch.setattr(G, "_dictionary", None)
    monkeypatch.setattr(G, "_dictionary_path", lambda: None)
    assert G.glosses("删除") == () and G.english_query("如何删除远程分支？", ["删除"]) == "", "without the package: no glosses, no error"
    assert G.is_english_word("chronyc") is None, "and no word is judged foreign"


def test_superlatives_and_comparatives_of_english_words_are_english() -> None:
    """"quickest way to make a .orig copy?": `quickest` is everyday English, not a tool typed in lower case that the KB
    must write (the refusal was "nothing found about 'quickest'")."""
    from kb_agent.index.glosses import is_english_word

    assert [is_english_word(w) for w in ("quickest", "easiest", "simplest", "safest", "busier")] == [True] * 5
    assert [is_english_word(w) for w in ("chronyc", "ufw")] == [False, False]


READ_ZH = """# read 命令

## 参数

- `-t`：设置超时的秒数。如果超过了指定时间，用户仍然没有输入，脚本将放弃等待，继续向下执行。
- `-s`：使得用户的输入不显示在屏幕上，这常常用于输入密码或保密信息。
- `-r`：raw 模式，表示不把用户输入的反斜杠字符解释为转义字符。
"""
ECHO_ZH = """# echo 命令

`echo`命令的作用是在屏幕输出一行文本，可以将该命令的参数原样输出。

```bash
$ echo hello world
hello world
```
"""


def test_the_reverse_glosses_give_an_english_word_its_chinese_words() -> None:
    from kb_agent.index.glosses import chinese_words

    found = chinese_words([tokenize("password")[0], tokenize("images")[0], "zzqx"])
    assert "密码" in found["password"], found
    assert found[tokenize("images")[0]][0] == "镜像", "a computing sense first (tech_glosses), then CC-CEDICT's"
    assert found["zzqx"] == (), "a word no entry glosses"


def test_an_english_word_a_chinese_kb_writes_only_in_chinese_weighs_what_its_translation_weighs() -> None:
    from kb_agent.agent.grade import UNKNOWN_TERM_WEIGHT, idf_weights
    from kb_agent.retrieval.lexical import bm25_idf

    zh = {"的": 50, "密码": 2, "屏幕": 5, "屏风": 1}
    w = idf_weights(lambda ts: {t: zh[t] for t in ts if t in zh}, 100, literal_files=lambda t: 0)
    got = w(["password", "screen", "selinux"])
    assert got["password"] == bm25_idf(100, 2), got
    assert got["selinux"] == UNKNOWN_TERM_WEIGHT, "a name with no translation stays evidence that the topic is absent"
    assert w(["慢查询", "elk"])["elk"] == UNKNOWN_TERM_WEIGHT, "a Chinese question's Latin word is a name (`ELK`), never translated"
    assert w(["keep", "password"])["keep"] == 0.0, "an English word whose translations the KB never writes: how the question is put"
    assert w.translations(["screen", "password"]) == {"screen": ("屏幕", "屏风"), "password": ("密码",)}, "the commonest first"
    query = w.chinese_query("How do I hide the password on screen with `read`?", ["password", "screen"], ["read"])
    assert query.split() == ["read", "密码", "屏幕", "屏风"], query
    assert w.chinese_query("密码怎么隐藏？", ["密码"], []) == "", "a Chinese question is searched as written"
    english = idf_weights(lambda ts: {t: 3 for t in ts if t == "password"}, 100, literal_files=lambda t: 0)
    assert english.translations(["password"]) == {}, "a KB without Chinese has nothing to translate into"


def test_an_english_question_also_searches_its_chinese_words() -> None:
    from kb_agent.agent.plan import CHINESE_OBJECTIVE

    req = PlanRequest(question="hide the password", routing=("hybrid",), exact_terms=(), keywords=("password",), sub_questions=(),
                      fast_path=True, iteration=1, tried=frozenset(), top_k=10, chinese="密码 屏幕")
    assert [(s.tool, s.tool_input, s.objective) for s in make_plan(req)][-1] == ("hybrid", "密码 屏幕", CHINESE_OBJECTIVE)


def test_an_english_question_is_answered_from_a_chinese_page(tmp_path: Path) -> None:
    """End to end with the bundled embedder: the Chinese page is the only one that answers; its English
    words (`read`, `-s`) are not what the question asks in."""
    answer = _ask(tmp_path, {"docs/read.md": READ_ZH, "docs/echo.md": ECHO_ZH}, "How do I keep a typed password from showing on the screen?")
    assert answer.found, answer.text
    assert "`-s`：使得用户的输入不显示在屏幕上" in answer.text, answer.text


def test_the_reverse_map_reads_one_word_senses_and_phrases_only_when_asked() -> None:
    from kb_agent.index import glosses as G

    senses = {"日志": ("log",), "登录": ("log in",), "库": ("library",)}
    assert G._reverse(senses) == {"log": ("日志",)}, "a phrase of several words is an explanation; one character is too loose"
    assert G._reverse(senses, min_chars=1, phrases=True) == {"log": ("日志", "登录"), "librari": ("库",)}, (
        "the computing senses: a phrasal verb and one character are sure")
