"""The offline answer on units: translated twins folded (question language preferred), a comparison
cites both subjects' pages, "which pages mention X" lists the files, the length cap, and the CLI on
sample_kb ("Compare ADR 0005 and ADR 0006" covers both ADRs, no front matter)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.support.fakes import FakeTools, evidence_from
from typer.testing import CliRunner

from kb_agent.agent.engine import Engine
from kb_agent.agent.language import language_variants, question_language, twin_key
from kb_agent.agent.subjects import comparison_subjects, mention_target
from kb_agent.agent.synthesize import MAX_ANSWER_CHARS, MAX_UNITS, extractive_answer
from kb_agent.agent.units import UnitCache
from kb_agent.cli import app
from kb_agent.llm.offline import OfflineModel
from kb_agent.settings import Settings
from kb_agent.types import Evidence, SearchFilters

EN_PAGE = """# Run the server

To start the server in development mode, run:

```console
$ fastapi dev main.py
```
"""
ZH_PAGE = """# 运行服务器

以开发模式启动服务器，运行：

```console
$ fastapi dev main.py
```
"""


def write(root: Path, rel: str, text: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    (root / rel).write_text(text, encoding="utf-8")


def settings_for(root: Path) -> Settings:
    return Settings(root=root, llm_provider="none", llm_max_retries=0, _env_file=None)  # type: ignore[call-arg]


def test_twin_keys_and_question_language() -> None:
    assert twin_key("en/tutorial/x.md")[0] == twin_key("zh/tutorial/x.md")[0]
    assert twin_key("en/tutorial/x.md")[1] == "en" and twin_key("zh/tutorial/x.md")[1] == "zh"
    assert twin_key("docs/zh-cn/a.md")[0] == twin_key("docs/en/a.md")[0]
    assert twin_key("pages.zh/a.md")[0] == twin_key("pages.en/a.md")[0]
    assert twin_key("guide/x.zh-CN.md")[0] == twin_key("guide/x.en.md")[0]
    assert twin_key("notes/x.md") == ("notes/x.md", None)
    # the language named in Chinese (casey/just's `README.中文.md`; `README_英文.md`), not any Chinese word after a dot
    assert twin_key("README.中文.md") == ("README.md", "zh") and twin_key("docs/README_英文.md") == ("docs/README.md", "en")
    assert twin_key("笔记/第1章.概述.md") == ("笔记/第1章.概述.md", None)
    assert "README.中文.md" in language_variants("README.md", "zh")
    assert "zh/tutorial/x.md" in language_variants("en/tutorial/x.md", "zh")
    assert question_language("怎么启动服务器？") == "zh" and question_language("How do I start it?") == "en"


@pytest.mark.parametrize(("question", "lang_dir"), [("How do I start the server in development mode?", "en"), ("怎么以开发模式启动服务器？", "zh")])
def test_translated_twins_are_folded_in_the_question_language(tmp_path: Path, question: str, lang_dir: str) -> None:
    write(tmp_path, "en/run.md", EN_PAGE)
    write(tmp_path, "zh/run.md", ZH_PAGE)
    items = [(evidence_from(tmp_path, p, 1, 7, score=0.9, tool="x"), 0.9) for p in ("zh/run.md", "en/run.md")]
    draft = extractive_answer(question, items, UnitCache(tmp_path))
    assert {s.path for s in draft.sources} == {f"{lang_dir}/run.md"}, draft.body
    assert draft.body.count("fastapi dev main.py") == 1
    assert "```console" in draft.body, "code is kept as code"


def test_other_language_page_answers_when_the_question_language_lacks_it(tmp_path: Path) -> None:
    write(tmp_path, "en/run.md", EN_PAGE)
    items = [(evidence_from(tmp_path, "en/run.md", 1, 7, score=0.9, tool="x"), 0.9)]
    draft = extractive_answer("怎么用 fastapi dev 启动？", items, UnitCache(tmp_path))
    assert [s.path for s in draft.sources] == ["en/run.md"]


@dataclass
class _ByQuery(FakeTools):
    """Fake tools that find one more passage only when the query names its word (and only once the
    first plan ran, so the answer depends on the coverage re-search)."""

    found_by: dict[str, Evidence] = field(default_factory=dict)

    def search(self, tool: Any, query: str, *, k: int = 10, filters: SearchFilters = SearchFilters()) -> list[Evidence]:
        first_round = len(self.calls) < 3
        out = super().search(tool, query, k=k, filters=filters)
        extra = [e for word, e in self.found_by.items() if word in query.split() and not first_round]
        return [*extra, *out][:k]


def test_comparison_that_needs_two_files_cites_both(tmp_path: Path) -> None:
    write(tmp_path, "docs/put.md", "# PUT\n\n## Summary\n\nPUT replaces the whole stored item with the body you send.\n")
    write(tmp_path, "docs/patch.md", "# PATCH\n\n## Summary\n\nPATCH updates only the fields you send; the rest stay as they were.\n")
    write(tmp_path, "docs/noise.md", "# Methods\n\nGET reads an item.\n")
    assert comparison_subjects("What is the difference between PUT and PATCH?") == ["PUT", "PATCH"]
    assert comparison_subjects("PUT 和 PATCH 有什么区别？") == ["PUT", "PATCH"]
    put = evidence_from(tmp_path, "docs/put.md", 1, 5, score=0.9, tool="hybrid", heading=("PUT",))
    patch = evidence_from(tmp_path, "docs/patch.md", 1, 5, score=0.8, tool="hybrid", heading=("PATCH",))
    noise = evidence_from(tmp_path, "docs/noise.md", 1, 3, score=0.7, tool="hybrid", heading=("Methods",))
    tools = _ByQuery(root=tmp_path, results={"hybrid": [put, noise], "vector": [put, noise], "grep": [put]}, found_by={"PATCH": patch})
    a = Engine(settings_for(tmp_path), model=OfflineModel(), tools=tools).answer_query("What is the difference between PUT and PATCH?")
    assert any("PATCH" in q for _t, q in tools.calls)
    assert [g.action for g in a.iterations][:1] == ["refine"], "the uncovered subject turned GENERATE into REFINE"
    # the first retrieval never found PATCH: the grader's coverage check searched again for it
    assert a.found, a.fallback_reason
    assert {c.path for c in a.citations} >= {"docs/put.md", "docs/patch.md"}
    assert "replaces the whole stored item" in a.text and "updates only the fields" in a.text


def test_comparison_with_an_uncovered_subject_is_not_answered(tmp_path: Path) -> None:
    write(tmp_path, "docs/put.md", "# PUT\n\nPUT replaces the whole stored item with the body you send.\n")
    put = evidence_from(tmp_path, "docs/put.md", 1, 3, score=0.9, tool="hybrid", heading=("PUT",))
    tools = FakeTools(root=tmp_path, results={"hybrid": [put], "vector": [put], "grep": [put], "files": [put], "related": [put]})
    a = Engine(settings_for(tmp_path), model=OfflineModel(), tools=tools).answer_query("What is the difference between PUT and TRACE?")
    assert not a.found and "TRACE" in (a.fallback_reason or "")


def test_which_pages_mention_x_lists_each_file_cited(tmp_path: Path) -> None:
    write(tmp_path, "a.md", "# A\n\nUse Celery for heavy jobs.\n")
    write(tmp_path, "b.md", "# B\n\nSee also:\n\n- [Celery](https://docs.celeryq.dev)\n")
    write(tmp_path, "c.md", "# C\n\nNothing here.\n")
    assert mention_target("Which pages refer to Celery?") == "Celery"
    assert mention_target("哪些文档提到了 MongoDB？") == "MongoDB"
    hits = [evidence_from(tmp_path, p, 1, n, score=1.0, tool="grep") for p, n in (("a.md", 3), ("b.md", 5))]
    tools = FakeTools(root=tmp_path, results={"grep": hits, "related": [evidence_from(tmp_path, "c.md", 1, 3, score=0.5, tool="related")]})
    a = Engine(settings_for(tmp_path), model=OfflineModel(), tools=tools).answer_query("Which pages refer to Celery?")
    assert a.found
    assert [c.path for c in a.citations] == ["a.md", "b.md"]
    assert ("grep", "Celery") in tools.calls, "grep searched for the term itself"


def test_answer_length_is_capped(tmp_path: Path) -> None:
    steps = "\n\n".join(f"- Step {i} of the cache rebuild: flush shard {i} " + "and wait " * 10 + f"\n\n  `cache flush --shard {i}`" for i in range(20))
    write(tmp_path, "r.md", f"# Cache rebuild\n\n{steps}\n")
    n = len((tmp_path / "r.md").read_text(encoding="utf-8").split("\n"))
    items = [(evidence_from(tmp_path, "r.md", 1, n, score=0.9, tool="x"), 0.9)]
    draft = extractive_answer("How do I rebuild the cache shard?", items, UnitCache(tmp_path))
    assert 1 <= len(draft.sources) <= MAX_UNITS
    shown = draft.body.replace("\n", "")
    assert len(shown) <= MAX_ANSWER_CHARS + 12 * len(draft.sources)  # bullets and [n] markers
    assert all("`cache flush --shard" in line for line in draft.body.split("\n")), "each step keeps its command"


def test_compare_adrs_on_sample_kb_covers_both_and_prints_no_front_matter(indexed_hash_kb: Path) -> None:
    r = CliRunner().invoke(app, ["ask", "--kb", str(indexed_hash_kb), "Compare ADR 0005 and ADR 0006"], env={"KB_EMBEDDING_PROVIDER": "hash"})
    assert r.exit_code == 0, r.output
    body, footer = r.stdout.rsplit("\n---\n", 1)
    assert "adr/0005-redis-cluster-sharding.md" in footer and "adr/0006-redis-sentinel-over-cluster.md" in footer
    for marker in ("title:", "tags:", "owner:", "updated:", "Related to"):
        assert marker not in body
    assert "Redis Cluster" in body and "Sentinel" in body


@pytest.mark.parametrize("label", ["Rotate the signing keys with these flags:", "**Rotate the signing keys with these flags:**"])
def test_an_intro_ending_in_a_colon_brings_its_list_items(tmp_path: Path, label: str) -> None:
    write(tmp_path, "k.md", f"# Keys\n\n{label}\n\n- `--rotate-now` replaces the keys at once\n- `--keep-old 2` keeps two old keys\n")
    items = [(evidence_from(tmp_path, "k.md", 1, 6, score=0.9, tool="x"), 0.9)]
    draft = extractive_answer("How do I rotate the signing keys?", items, UnitCache(tmp_path))
    assert "--rotate-now" in draft.body and "--keep-old 2" in draft.body, draft.body


def test_an_intro_brings_its_items_with_the_items_nested_under_them(tmp_path: Path) -> None:
    """The items an intro brings are counted as the list's own items: the sub-items under one (a URL's user
    name and password) come with it, so the second service's password is not cut off as a fifth item."""
    write(tmp_path, "p.md", "# Playground\n\n## Dashboards\n\nAfter start-up, open these addresses in a browser:\n\n"
          "- Dashboard: `http://127.0.0.1:2379/dashboard`\n\n    - default user: `root`\n    - default password: empty\n\n"
          "- Grafana: `http://127.0.0.1:3000`\n\n    - default user: `admin`\n    - default password: `admin`\n")
    items = [(evidence_from(tmp_path, "p.md", 1, 16, score=0.9, tool="x"), 0.9)]
    draft = extractive_answer("Which addresses do I open in a browser after start-up?", items, UnitCache(tmp_path))
    assert "http://127.0.0.1:3000" in draft.body and "default password: `admin`" in draft.body, draft.body


RESIZE = """# Volume filling up

## Mitigation

Check that the storage class allows volume expansion before you start. Expansion needs a storage class
whose `allowVolumeExpansion` is true; most cloud providers' default classes have it, local volumes do not.

```shell
$ kubectl get storageclass standard -o jsonpath='{.allowVolumeExpansion}'
true
```

To resize the volume run:

```shell
$ kubectl -n <my-namespace> edit pvc <my-pvc>
```

And edit `.spec.resources.requests.storage` to the new desired storage size.

You can check the resize with:

```shell
$ kubectl -n <my-namespace> get pvc <my-pvc>
```

Then restart the pod that mounts the volume.

## Notes

Then again, a full volume may mean the retention is too long.
"""


RESIZE_ZH = """# 存储卷快满了

## 处理

先确认存储类允许卷扩展。扩展需要存储类的 `allowVolumeExpansion` 为 true；多数云厂商的默认存储类都有，本地卷没有。

```shell
$ kubectl get storageclass standard -o jsonpath='{.allowVolumeExpansion}'
```

要扩容存储卷，运行：

```shell
$ kubectl -n <my-namespace> edit pvc <my-pvc>
```

然后把 `.spec.resources.requests.storage` 改成新的容量。

## 备注

然后再想想，卷满了也可能是保留时间太长。
"""


@pytest.mark.parametrize(("page", "question", "step"), [
    (RESIZE, "How do I resize a volume that is filling up?", "And edit `.spec.resources.requests.storage` to the new desired storage size."),
    (RESIZE_ZH, "存储卷快满了，怎么扩容？", "然后把 `.spec.resources.requests.storage` 改成新的容量。"),
])
def test_a_command_brings_the_sentence_that_goes_on_with_its_step(tmp_path: Path, page: str, question: str, step: str) -> None:
    """"To resize the volume run: `kubectl edit pvc`" is half a step: "And edit `.spec.resources.requests.storage`
    …" right under it comes with it (in its slot), though it shares few words with the question; a "Then …"
    in another section does not."""
    write(tmp_path, "v.md", page)
    n = len(page.split("\n"))
    draft = extractive_answer(question, [(evidence_from(tmp_path, "v.md", 1, n, score=0.9, tool="x"), 0.9)], UnitCache(tmp_path))
    assert "kubectl -n <my-namespace> edit pvc <my-pvc>" in draft.body, draft.body
    assert step in draft.body, draft.body
    assert "retention" not in draft.body and "保留时间" not in draft.body, draft.body
    assert len("".join(s.quote for s in draft.sources)) <= MAX_ANSWER_CHARS + 400


UPGRADE = """# tiup cluster upgrade

The command `tiup cluster upgrade` upgrades a cluster to the given version.

## Syntax

```shell
tiup cluster upgrade <cluster-name> <version> [flags]
```

- `<version>` is the version to go to, such as `v8.5.0`. It must be newer than the cluster's version: no downgrade.

## Options

- `--force`: run `tiup cluster upgrade` on a cluster without moving its leaders first.
- `--transfer-timeout`: how long `tiup cluster upgrade` waits for a cluster's leaders to move.
- `--ignore-config-check`: `tiup cluster upgrade` then skips the cluster's config check.
- `--offline`: `tiup cluster upgrade` on a cluster that is stopped.
- `--pd-version`: the PD version `tiup cluster upgrade` puts on the cluster.
- `--tidb-version`: the TiDB version `tiup cluster upgrade` puts on the cluster.
"""


def test_the_answer_adds_the_line_that_holds_what_the_other_units_leave_out(tmp_path: Path) -> None:
    """Every unit of the page names `tiup cluster upgrade`; only one says "no downgrade", the rare word the
    question asks about. Six units that each repeat the name would fill the answer; once the name is
    quoted, the unit that adds the rest of the question is worth more."""
    write(tmp_path, "upgrade.md", UPGRADE)
    n = len(UPGRADE.split("\n"))
    items = [(evidence_from(tmp_path, "upgrade.md", 1, n, score=0.9, tool="x"), 0.9)]

    def idf(terms: Sequence[str]) -> dict[str, float]:  # upgrade and downgrade are rare words, tiup is everywhere
        return {t: {"tiup": 0.5, "upgrad": 4.0, "downgrad": 4.0}.get(t, 1.0) for t in terms}

    draft = extractive_answer("Can tiup cluster upgrade downgrade a cluster?", items, UnitCache(tmp_path), term_weights=idf)
    assert "no downgrade" in draft.body, draft.body


RM_ZH = """# rm

删除文件或目录。

## 实例

删除一个目录及其中的全部文件：

```shell
rm -r 目录名
```

查看当前目录下的文件：

```shell
ls -l
```
"""


def test_an_english_question_is_answered_from_a_chinese_page_through_its_words_glosses(tmp_path: Path) -> None:
    """In a KB written in Chinese an English question shares few words with the page that answers it: there
    删除, 目录 and 文件 count (for part of their weight) as "delete", "directory" and "file", so the command
    comes first rather than an English line that only says "directory"."""
    write(tmp_path, "zh/rm.md", RM_ZH)
    write(tmp_path, "en/notes.md", "# Notes\n\nThe directory layout is described in the README.\n")
    n = len(RM_ZH.split("\n"))
    items = [(evidence_from(tmp_path, "en/notes.md", 1, 3, score=0.9, tool="x"), 0.8),
             (evidence_from(tmp_path, "zh/rm.md", 1, n, score=0.8, tool="x"), 0.8)]
    draft = extractive_answer("How do I delete a directory and all the files in it with rm?", items, UnitCache(tmp_path))
    assert draft.sources[0].path == "zh/rm.md" and "rm -r 目录名" in draft.body, draft.body


WORKERS = """# Server workers

## Multiple workers

If you use the `fastapi` command:

```console
$ fastapi run --workers 4 main.py
```

```console
INFO   Started parent process [27365]
INFO   Started server process [27368]
INFO   Started server process [27369]
```
"""


def test_a_terminals_output_is_not_described_by_its_heading(tmp_path: Path) -> None:
    """A fence with no sentence of its own is labelled by its heading ("## Stage parts of a file" + `git add -p`),
    but not a shell session's output: "Multiple workers" says what the command does, not what it printed."""
    from kb_agent.agent.synthesize import rank_units

    write(tmp_path, "w.md", WORKERS)
    items = [(evidence_from(tmp_path, "w.md", 1, 16, score=0.9, tool="x"), 0.9)]
    ranked = [s for s in rank_units("How do I get multiple workers?", items, UnitCache(tmp_path)) if s.unit.code]
    assert "--workers 4" in ranked[0].unit.code, [s.unit.code for s in ranked]


RULES = """# Ownership

Ownership rules govern how a program manages memory.

The ownership rules are checked by the compiler.

If any of the ownership rules are violated, the program won't compile.

## Ownership Rules

Keep these ownership rules in mind:

- Each value has an owner.
- There can only be one owner at a time.
- When the owner goes out of scope, the value is dropped.

## Scope

The ownership rules apply to every variable scope.

Ownership rules also decide when memory is returned.

Learning the ownership rules takes time.
"""


def test_a_strong_intro_and_its_list_are_one_unit_even_when_the_slots_are_full(tmp_path: Path) -> None:
    """"Keep these rules in mind:" is answered by the rules under it, not by six sentences about rules."""
    write(tmp_path, "o.md", RULES)
    n = len(RULES.split("\n"))
    draft = extractive_answer("What are the ownership rules?", [(evidence_from(tmp_path, "o.md", 1, n, score=0.9, tool="x"), 0.9)], UnitCache(tmp_path))
    assert "There can only be one owner at a time." in draft.body and "the value is dropped" in draft.body, draft.body
    assert len(draft.sources) > MAX_UNITS  # the three items ride on the intro's slot
    assert len("".join(s.quote for s in draft.sources)) <= MAX_ANSWER_CHARS


CLI_EN = """# CLI

Intro.

## `app dev`

Runs in development mode. It listens on `127.0.0.1`.

## `app run`

Runs in production mode. It listens on `0.0.0.0`.
"""
CLI_ZH = """# 命令行

简介。

## `app dev`

以开发模式运行。它监听 `127.0.0.1`。

## `app run`

以生产模式运行。它监听 `0.0.0.0`。
"""


def test_a_section_found_in_one_language_is_read_from_the_translation_in_the_question_language(tmp_path: Path) -> None:
    write(tmp_path, "en/cli.md", CLI_EN)
    write(tmp_path, "zh/cli.md", CLI_ZH)
    # retrieval found only the English page's sections, the question is Chinese
    items = [(evidence_from(tmp_path, "en/cli.md", 5, 11, score=0.9, tool="x"), 0.9), (evidence_from(tmp_path, "zh/cli.md", 1, 3, score=0.5, tool="x"), 0.5)]
    draft = extractive_answer("app dev 和 app run 有什么区别？", items, UnitCache(tmp_path))
    assert {s.path for s in draft.sources} == {"zh/cli.md"}, draft.body
    assert "`127.0.0.1`" in draft.body and "`0.0.0.0`" in draft.body, draft.body
    assert "以开发模式运行" in draft.body and "development mode" not in draft.body


TLDR_EN = "# tar\n\n> Archiving utility.\n\n- Extract an archive into a directory:\n\n`tar xf {{path/to/source.tar}} -C {{path/to/directory}}`\n"
TLDR_ZH = "# tar\n\n> 归档工具。\n\n- 将归档解压到目录：\n\n`tar xf {{路径/到/源.tar}} -C {{路径/到/目录}}`\n"


def test_a_translated_example_whose_placeholders_differ_is_shown_once(tmp_path: Path) -> None:
    write(tmp_path, "pages/common/tar.md", TLDR_EN)
    write(tmp_path, "pages.zh/common/tar.md", TLDR_ZH)
    items = [(evidence_from(tmp_path, "pages/common/tar.md", 1, 7, score=0.9, tool="x"), 0.9)]
    draft = extractive_answer("怎么把 tar 归档解压到目录？", items, UnitCache(tmp_path))
    assert [s.path for s in draft.sources] == ["pages.zh/common/tar.md"], draft.body
    assert "{{路径/到/目录}}" in draft.body and "path/to" not in draft.body


def test_code_on_either_side_of_vs_is_a_subject_whole() -> None:
    """`Rc::clone vs Rc::downgrade` compares two functions, not `clone` and `Rc`; "vs" itself is no search word."""
    from kb_agent.agent.grade import question_terms

    assert comparison_subjects("Rc::clone vs Rc::downgrade?") == ["Rc::clone", "Rc::downgrade"]
    assert comparison_subjects("v[100] vs v.get(100) on a Vec — what happens when the index is out of range?") == ["v[100]", "v.get(100)"]
    assert comparison_subjects("HashMap vs BTreeMap (ordered)?") == ["HashMap", "BTreeMap"]
    assert "vs" not in question_terms("HashMap vs BTreeMap: which one keeps keys sorted?")


def test_the_sides_of_a_comparison_are_the_things_compared() -> None:
    """The second side keeps its option (`ssh -R`, not `ssh`, which any line about ssh covers) and loses what
    trails it: a clause ("for a panel I toggle …", "in rust") and an aside in brackets."""
    assert comparison_subjects("ssh -L vs ssh -R port forwarding: which way does each one go?") == ["ssh -L", "ssh -R"]
    assert comparison_subjects("v-if or v-show for a panel I toggle all the time? what's the real difference") == ["v-if", "v-show"]
    assert comparison_subjects("difference between strong and weak references (Rc::clone vs Rc::downgrade)") == ["strong", "weak references"]
    assert comparison_subjects("unit tests vs integration tests in rust") == ["unit tests", "integration tests"]
    assert comparison_subjects("What is the difference between a list and a tuple in Python?") == ["a list", "a tuple"]
    assert comparison_subjects("PUT vs PATCH for updating an item") == ["PUT", "PATCH"]


def test_a_side_is_bounded_by_its_sentence_and_clause() -> None:
    """A sentence of situation before "A or B — …" is no word of A; a second side ends where a dash or colon starts
    another clause; and a side that ends in a pronoun keeps the clause that names what the pronoun points at."""
    assert comparison_subjects("My old major version has a bad bug. Should I deprecate it or unpublish it — what happens to installs?") \
        == ["Should I deprecate it", "unpublish it"]
    assert comparison_subjects("v1.2 or v1.3 — which one?") == ["v1.2", "v1.3"]
    assert comparison_subjects("What's the difference between a login shell and a non-login shell — which startup files does each one run?") \
        == ["a login shell", "a non-login shell"]
    assert comparison_subjects("Difference between wrapping a component in <ClientOnly> and creating it with defineClientComponent?") \
        == ["wrapping a component in <ClientOnly>", "creating it with defineClientComponent"]


def test_more_ways_to_ask_for_a_comparison() -> None:
    """"A 和 B 有什么不一样 / 一样吗", "A 和 B 分别怎么 …", "should I go with A or B", "how does X differ between A
    and B" compare two things as "what is the difference" does; a side that only points back ("它跟 … 有啥不一样")
    names nothing to search for."""
    assert comparison_subjects("sudo -i 和 sudo -s 有什么不一样？") == ["sudo -i", "sudo -s"]
    assert comparison_subjects("Object.is 和 === 一样吗") == ["Object.is", "==="]
    assert comparison_subjects("硬链接和软链接分别怎么创建？") == ["硬链接", "软链接"]
    assert comparison_subjects("MkDocs 里的提示框，默认收起和默认展开分别怎么写？") == ["默认收起", "默认展开"]
    assert comparison_subjects("Should I go with the containerd worker or the OCI worker?") == ["the containerd worker", "the OCI worker"]
    assert comparison_subjects("How does the in-place syntax differ between GNU sed and BSD sed?") == ["GNU sed", "BSD sed"]
    assert comparison_subjects("静态 Pod 是什么？它跟 Deployment 管的 Pod 有啥不一样？") == []
    assert comparison_subjects("重启以后还是连不上，和昨天一样吗？") == []


def test_a_section_headed_by_both_subjects_is_quoted_whole_first(tmp_path: Path) -> None:
    """The page's own comparison ("## `v-if` vs. `v-show`") answers "v-if or v-show?" better than either subject's
    section: its paragraphs come first (up to MAX_UNITS minus one per subject), not just the first two of them."""
    write(tmp_path, "conditional.md", "# Conditional Rendering\n\n## `v-if`\n\nThe directive `v-if` is used to conditionally render a block.\n\n"
          "You can use `v-else` to indicate an else block for `v-if`.\n\nA `v-else-if` serves as an else-if block for `v-if`.\n\n"
          "## `v-show`\n\nAnother option for conditionally displaying an element is the `v-show` directive.\n\n"
          "An element with `v-show` will always be rendered and remain in the DOM.\n\n`v-show` does not support the template element.\n\n"
          "## `v-if` vs. `v-show`\n\n`v-if` is real conditional rendering: listeners and child components are destroyed and re-created during toggles.\n\n"
          "`v-if` is also lazy: if the condition is false on initial render, it will not do anything.\n\n"
          "In comparison, `v-show` is much simpler: the element is always rendered, with CSS-based toggling.\n\n"
          "Generally speaking, `v-if` has higher toggle costs while `v-show` has higher initial render costs.\n")
    items = [(evidence_from(tmp_path, "conditional.md", 1, 29, score=0.9, tool="x"), 0.8)]
    draft = extractive_answer("v-if or v-show for a panel I toggle all the time? what's the real difference between them", items, UnitCache(tmp_path))
    assert "CSS-based toggling" in draft.body and "higher initial render costs" in draft.body and not draft.uncovered, draft.body


def test_the_same_words_are_quoted_once_whatever_label_heads_them(tmp_path: Path) -> None:
    """Two runbooks give the same mitigation, one under its heading as a label ("**Mitigation**: Increase …"),
    one after a list: the answer quotes it once."""
    write(tmp_path, "a.md", "# PrometheusTSDBReloadsFailing\n\n## Mitigation\n\nIncrease Prometheus pod memory so that it caches more from disk.\n")
    write(tmp_path, "b.md", "# PrometheusTSDBCompactionsFailing\n\n## Mitigation\n\n- Check the disk.\n\nIncrease Prometheus pod memory so that it caches more from disk.\n")
    items = [(evidence_from(tmp_path, "a.md", 1, 5, score=0.9, tool="x"), 0.8), (evidence_from(tmp_path, "b.md", 1, 7, score=0.8, tool="x"), 0.8)]
    draft = extractive_answer("How do I get Prometheus to cache more from disk?", items, UnitCache(tmp_path))
    assert draft.body.count("Increase Prometheus pod memory") == 1, draft.body


def test_code_on_the_questions_own_example_is_covered_by_what_the_page_writes(tmp_path: Path) -> None:
    """`v[100]` and `v.get(100)` are the question's example: a page that explains them writes the indexing (`[]`)
    and the method (`get`), not the question's variable and index; the sentence that names `[]` answers for that
    side even when it shares no other word with the question."""
    write(tmp_path, "vectors.md", "# Vectors\n\n## Reading Elements of Vectors\n\n"
          "Rust provides two ways to reference an element so you can choose how the program behaves when you use an index "
          "value outside the range of existing elements.\n\n"
          "```rust\n{{#rustdoc_include ../listings/listing-08-05/src/main.rs:here}}\n```\n\n"
          "When we run this code, the first `[]` method will cause the program to panic because it references a nonexistent element.\n\n"
          "When the `get` method is passed an index that is outside the vector, it returns `None` without panicking.\n")
    items = [(evidence_from(tmp_path, "vectors.md", 1, 14, score=0.9, tool="x"), 0.7)]
    q = "v[100] vs v.get(100) on a Vec — what happens when the index is out of range?"
    draft = extractive_answer(q, items, UnitCache(tmp_path))
    assert not draft.uncovered, draft.uncovered
    assert "cause the program to panic" in draft.body and "without panicking" in draft.body, draft.body


def test_a_side_named_only_in_words_needs_a_unit_that_shares_a_word_with_the_question(tmp_path: Path) -> None:
    """"5 个还是 7 个" compares two numbers: lines that hold a 5 or a 7 and nothing else the question asks about
    ("5% of the gRPC requests failed") do not answer for them. Only a side named as written (`[]`, `-R`) is taken
    from a unit sharing no other word with the question."""
    write(tmp_path, "etcd.md", "# etcdHighNumberOfFailedGRPCRequests\n\n## Meaning\n\nThis alert fires when at least 5% of the gRPC "
          "requests failed in the past 10 minutes.\n\n## Diagnosis\n\nRestart at most 7 pods at a time.\n\n## etcd 集群\n\n"
          "生产环境的 etcd 集群成员的磁盘要快。\n")
    items = [(evidence_from(tmp_path, "etcd.md", 1, 14, score=0.9, tool="x"), 0.9)]
    draft = extractive_answer("生产环境的 etcd 集群应该有几个成员，5 个还是 7 个？", items, UnitCache(tmp_path))
    assert draft.uncovered == ("5 个", "7 个") and "5%" not in draft.body, draft.body



def test_options_that_differ_only_in_case_are_two_subjects(tmp_path: Path) -> None:
    from kb_agent.agent.subjects import covers

    assert comparison_subjects("What's the difference between tail -f and tail -F?") == ["tail -f", "tail -F"]
    assert comparison_subjects("tail -f 和 tail -F 有什么区别？") == ["tail -f", "tail -F"]
    assert comparison_subjects("PUT vs put") == [], "the same word in another case is one thing"
    assert not covers("tail -F", ["tail -f follows the descriptor"]) and covers("tail -F", ["tail -F retries the name"])
    assert not covers("--force", ["git push --force-with-lease"]), "an option is matched whole"
    write(tmp_path, "tail.md", "# tail\n\n- Follow a file by descriptor:\n\n`tail -f app.log`\n\n- Follow a file by name, retrying:\n\n`tail -F app.log`\n")
    items = [(evidence_from(tmp_path, "tail.md", 1, 9, score=0.9, tool="x"), 0.9)]
    draft = extractive_answer("What's the difference between tail -f and tail -F?", items, UnitCache(tmp_path))
    assert "`tail -f app.log`" in draft.body and "`tail -F app.log`" in draft.body and not draft.uncovered, draft.body


OPERATOR_PAGE = """# 运算符

## Null 判断运算符

读取对象属性的时候，如果某个属性的值是`null`或`undefined`，有时候需要为它们指定默认值。常见做法是通过`||`运算符指定默认值。

```javascript
const headerText = response.settings.headerText || 'Hello, world!';
```

上面的代码通过`||`运算符指定默认值，但是属性的值如果为空字符串或`false`或`0`，默认值也会生效。

为了避免这种情况，ES2020 引入了一个新的 Null 判断运算符`??`。它的行为类似`||`，但是只有运算符左侧的值为`null`或`undefined`时，才会返回右侧的值。
"""
PARAMS_PAGE = """# 函数参数的默认值

ES6 允许为函数的参数设置默认值，即直接写在参数定义的后面。

```javascript
function log(x, y = 'World') {}
```

通常情况下，定义了默认值的参数，应该是函数的尾参数。如果非尾部的参数设置默认值，实际上这个参数是没法省略的。
"""


def test_a_comparison_of_two_operators_quotes_the_lines_that_name_them(tmp_path: Path) -> None:
    """`??` and `||` are the subjects, not "设置默认值时用" and "用": the answer is the lines that name each
    operator, the one that tells them apart among them, though it shares no other word with the question."""
    from kb_agent.agent.subjects import covers

    assert not covers("用 ||", ["定义了默认值的参数，应该是函数的尾参数"]), "an operator subject is matched as written"
    assert covers("用 ||", ["通过`||`运算符指定默认值"])
    write(tmp_path, "operator.md", OPERATOR_PAGE)
    write(tmp_path, "function.md", PARAMS_PAGE)
    items = [(evidence_from(tmp_path, "function.md", 1, 9, score=0.9, tool="x"), 0.9),
             (evidence_from(tmp_path, "operator.md", 1, 13, score=0.8, tool="x"), 0.8)]
    draft = extractive_answer("设置默认值时用 ?? 和用 || 有什么区别", items, UnitCache(tmp_path), exact_terms=("??", "||"))
    assert "只有运算符左侧的值为`null`或`undefined`时" in draft.body, draft.body
    assert "空字符串或`false`或`0`" in draft.body and not draft.uncovered, draft.body


def test_a_passage_whose_file_is_gone_brings_no_translation(tmp_path: Path) -> None:
    write(tmp_path, "pages/common/tar.md", TLDR_EN)
    write(tmp_path, "pages.zh/common/tar.md", TLDR_ZH)
    items = [(evidence_from(tmp_path, "pages/common/tar.md", 1, 7, score=0.9, tool="x"), 0.9)]
    (tmp_path / "pages/common/tar.md").unlink()  # deleted after it was indexed and retrieved
    cache = UnitCache(tmp_path)
    assert cache.aligned_range("pages/common/tar.md", 1, 7, "pages.zh/common/tar.md") is None
    draft = extractive_answer("怎么把 tar 归档解压到目录？", items, cache)
    assert not draft.sources


def test_a_sentence_pointing_elsewhere_gives_way_to_the_section_it_points_to(tmp_path: Path) -> None:
    """Long guides announce what later sections explain; the announcement shares the question's words."""
    write(tmp_path, "ch11-01.md", "# Writing tests\n\nYou can mark a test as ignored so that it does not run when you run all tests; "
          "we’ll cover how to run ignored tests in the [Ignoring Tests](ch11-02.md#ignoring-tests) section later in this chapter.\n")
    write(tmp_path, "ch11-02.md", "# Running tests\n\n## Ignoring tests\n\nIf you want to run all tests whether they are ignored or not, "
          "you can run `cargo test -- --include-ignored`.\n")
    items = [(evidence_from(tmp_path, "ch11-01.md", 1, 3, score=0.9, tool="hybrid"), 0.86),
             (evidence_from(tmp_path, "ch11-02.md", 1, 5, score=0.8, tool="hybrid"), 0.7)]
    draft = extractive_answer("How do I run all tests, including ignored tests?", items, UnitCache(tmp_path))
    assert [s.path for s in draft.sources] == ["ch11-02.md"] and "--include-ignored" in draft.body, draft.body


def test_a_chinese_questions_latin_word_is_a_name_and_its_page_answers(tmp_path: Path) -> None:
    """`find 批量删掉 txt 文件怎么写？`: "find" is the command (in an English question it is filler), and
    the page filed under it answers before another page that shares more of the question's words."""
    from kb_agent.agent.grade import question_terms

    assert "find" in question_terms("find 批量删掉 txt 文件怎么写？")
    assert "find" not in question_terms("How do I find large files?")
    write(tmp_path, "command/bulk-rename.md", "# bulk-rename\n\n## 实例\n\n批量删掉文件名中的.txt\n\n```bash\nrename 's/.txt//' *\n```\n")
    write(tmp_path, "command/find.md", "# find\n\n## 实例\n\n批量删除当前目录下所有.txt文件\n\n```shell\nfind . -type f -name \"*.txt\" -delete\n```\n")
    items = [(evidence_from(tmp_path, "command/bulk-rename.md", 1, 9, score=0.9, tool="hybrid"), 0.75),
             (evidence_from(tmp_path, "command/find.md", 1, 9, score=0.8, tool="hybrid"), 0.75)]
    draft = extractive_answer("find 批量删掉 txt 文件怎么写？", items, UnitCache(tmp_path))
    assert draft.sources[0].path == "command/find.md" and "-delete" in draft.body.split("\n- ")[0], draft.body


def test_the_page_filed_under_a_name_the_question_writes_ranks_first(tmp_path: Path) -> None:
    from kb_agent.agent.synthesize import PAGE_BONUS, rank_units

    body = "# Usage\n\nDelete every .txt file under the current folder:\n\n```shell\nfind . -name '*.txt' -delete\n```\n"
    for rel in ("command/find.md", "command/a-find-cheatsheet.md", "command/Generator.md"):
        write(tmp_path, rel, body)
    items = [(evidence_from(tmp_path, rel, 1, 7, score=0.9, tool="hybrid"), 0.75) for rel in ("command/a-find-cheatsheet.md", "command/find.md")]
    ranked = rank_units("find 怎么删除 txt 文件？", items, UnitCache(tmp_path))
    assert [s.unit.path for s in ranked] == ["command/find.md", "command/a-find-cheatsheet.md"]
    assert round(ranked[0].score - ranked[1].score, 6) == PAGE_BONUS
    # a capitalised everyday word names a concept a long guide has a chapter on, not a reference page
    items = [(evidence_from(tmp_path, rel, 1, 7, score=0.9, tool="hybrid"), 0.75) for rel in ("command/a-find-cheatsheet.md", "command/Generator.md")]
    ranked = rank_units("How does a Generator delete .txt files?", items, UnitCache(tmp_path))
    assert ranked[0].score == ranked[1].score


def test_a_match_through_a_translation_never_ranks_a_unit_above_one_that_writes_the_words(tmp_path: Path) -> None:
    """sample_kb: "What format do release tags use?" — the Chinese page matches `format` only through
    格式; the English runbook writes the question's words and answers first."""
    from kb_agent.agent.grade import item_features, uniform_weights

    write(tmp_path, "zh/release-process.md", "# 发布流程\n\n## 版本号规则\n\n所有服务的 release tag 使用 `vYYYY.MM.DD-N` 格式。\n")
    write(tmp_path, "runbooks/deploy.md", "# Deploy\n\n## Release\n\nRelease tags follow the pattern `vYYYY.MM.DD-N`.\n")
    zh = evidence_from(tmp_path, "zh/release-process.md", 1, 5, score=0.9, tool="hybrid")
    en = evidence_from(tmp_path, "runbooks/deploy.md", 1, 5, score=0.8, tool="hybrid")
    q = "What format do release tags use?"
    draft = extractive_answer(q, [(zh, 0.8), (en, 0.8)], UnitCache(tmp_path))
    assert draft.sources[0].path == "runbooks/deploy.md", draft.body
    # the grader still sees that the Chinese page is about the question (format ~ 格式)
    terms = ["format", "releas", "tag", "use"]
    assert item_features(terms, uniform_weights(terms), [], zh, 0).coverage > item_features(terms, uniform_weights(terms), [], en, 1).coverage


def test_a_long_paragraph_that_also_points_elsewhere_keeps_its_score(tmp_path: Path) -> None:
    """cmrc2018: "真君庙位于什么地方？" is answered by a paragraph that also says "参见：真君大帝"."""
    from kb_agent.agent.synthesize import POINTER_MAX_CHARS, rank_units

    long = "真君庙是香港一所庙宇，位于新界青衣岛，供奉灵昭真君（俗称真君大帝）。" + "当时广东各地皆建庙奉祀，至今香火不断。" * 15
    assert len(long) > POINTER_MAX_CHARS
    write(tmp_path, "a.md", f"# 真君庙\n\n{long}参见：真君大帝。\n")
    write(tmp_path, "b.md", f"# 真君庙\n\n{long}\n")
    write(tmp_path, "c.md", "# 真君庙\n\n真君庙位于新界青衣岛，详见《青衣岛》一章。\n")
    write(tmp_path, "d.md", "# 真君庙\n\n真君庙位于新界青衣岛。\n")
    items = [(evidence_from(tmp_path, p, 1, 3, score=0.9, tool="hybrid"), 0.8) for p in ("a.md", "b.md", "c.md", "d.md")]
    score = {s.unit.path: s.score for s in rank_units("真君庙位于什么地方？", items, UnitCache(tmp_path))}
    assert score["a.md"] == score["b.md"]  # the pointer is not what the paragraph says
    assert score["c.md"] < score["d.md"]  # a short sentence that points elsewhere gives way


STATS_FAQ = """# Backup FAQ

## Why does restoring statistics use so much memory?

Before v7.6.0 the statistics of a backup were stored with the table schemas and loaded into memory on restore.
"""
STATS_MANUAL = """# Snapshot backup

To back up the statistics of the tables together with the data, set the flag:

```shell
br backup full --ignore-stats=false
```
"""


def test_a_second_file_that_answers_part_of_the_question_is_quoted(tmp_path: Path) -> None:
    """A question in two parts, each answered on its own page: the FAQ line ranks first, the manual's command
    scores 0.78 of it. A unit of another file needs 0.7 × the best score (OTHER_FILE_RELATIVE_MIN), so both
    pages answer; at 0.8 the command that a person needs was left out."""
    write(tmp_path, "faq.md", STATS_FAQ)
    write(tmp_path, "manual.md", STATS_MANUAL)
    items = [(evidence_from(tmp_path, "faq.md", 1, 5, score=0.9, tool="x"), 0.9),
             (evidence_from(tmp_path, "manual.md", 1, 7, score=0.8, tool="x"), 0.8)]
    draft = extractive_answer("How do I back up table statistics, and why does restoring statistics use memory?", items, UnitCache(tmp_path))
    assert "so much memory" in draft.body and "br backup full --ignore-stats=false" in draft.body, draft.body


def test_words_the_kb_cannot_weigh_leave_the_passage_found_by_meaning_to_decide(tmp_path: Path) -> None:
    """A Chinese question over English pages is matched only by its Latin words (`provide`, `inject`), which a
    unit that merely names them holds as fully as the one that answers: their coverage counts for the share of
    the question they are, and the passage's grade decides."""
    from kb_agent.agent.synthesize import rank_units
    from kb_agent.index.tokenize import has_cjk

    write(tmp_path, "intro.md", "# Intro\n\nVue components provide values and inject them.\n")
    write(tmp_path, "app.md", "# App\n\nWe can also provide at the app level, for every component to inject:\n\n```js\napp.provide('message', 'hello!')\n```\n")
    items = [(evidence_from(tmp_path, "app.md", 1, 8, score=0.9, tool="vector"), 0.95),
             (evidence_from(tmp_path, "intro.md", 1, 3, score=0.5, tool="vector"), 0.4)]

    def weights(terms: Sequence[str]) -> dict[str, float]:
        return {t: 0.0 if has_cjk(t) else 2.0 for t in terms}  # an English-only KB: Chinese words weigh 0

    ranked = rank_units("Vue 里怎么在整个应用级别 provide 一个值，让所有组件都能 inject 到？", items, UnitCache(tmp_path), term_weights=weights)
    assert "app.provide(" in ranked[0].unit.code, [(s.unit.path, round(s.score, 3)) for s in ranked]
    ranked = rank_units("Vue: provide and inject?", items, UnitCache(tmp_path), term_weights=weights)
    assert ranked[0].unit.path == "intro.md", "a question the KB can read is matched by its words first"


def test_an_index_line_linking_to_a_page_that_was_found_gives_way_to_the_page(tmp_path: Path) -> None:
    """README's "[OPS-2051](incidents/ops-2051.md) — expired TLS certificate" names the incident as the question does,
    but only points to the page that says what happened; when that page was found too, its lines come first."""
    from kb_agent.agent.synthesize import rank_units

    write(tmp_path, "README.md", "# Northwind\n\n## Incidents\n\n- [OPS-2051](incidents/ops-2051.md) — expired TLS certificate on search-gateway\n")
    write(tmp_path, "incidents/ops-2051.md", "# OPS-2051: Expired TLS certificate\n\n## Root cause\n\n"
          "The root cause was an expired TLS certificate on `search-gateway`: cert-manager had stopped renewing it.\n")
    readme = (evidence_from(tmp_path, "README.md", 1, 5, score=0.9, tool="grep"), 0.9)
    page = (evidence_from(tmp_path, "incidents/ops-2051.md", 1, 6, score=0.8, tool="grep"), 0.9)
    ranked = rank_units("What caused the OPS-2051 outage?", [readme, page], UnitCache(tmp_path))
    assert ranked[0].unit.path == "incidents/ops-2051.md", [(s.unit.path, round(s.score, 3)) for s in ranked]
    alone = rank_units("What caused the OPS-2051 outage?", [readme], UnitCache(tmp_path))
    assert alone[0].unit.path == "README.md" and alone[0].score > ranked[-1].score, "without the page, the index line is the evidence"


def test_a_sentence_that_cites_a_page_on_the_way_is_no_index_line() -> None:
    from kb_agent.agent.synthesize import _links_to
    from kb_agent.agent.units import AnswerUnit

    def unit(text: str) -> AnswerUnit:
        return AnswerUnit("runbooks/redis.md", 53, 53, "paragraph", text, "", text)

    found = {"incidents/ops-1234.md", "runbooks/redis.md"}
    assert _links_to(unit("- [OPS-1234](../incidents/ops-1234.md) — stale cache after a failover"), found)
    assert _links_to(unit("* **[OPS-1234](../incidents/ops-1234.md)**: stale cache"), found)
    assert not _links_to(unit("The last unplanned failover was [OPS-1234](../incidents/ops-1234.md), on 2025-08-14."), found)
    assert not _links_to(unit("- [Deploy](../runbooks/deploy.md) — how to deploy"), found), "a page that was not found"


QOS = """# Quality of service classes

## Guaranteed

For a Pod of QoS class `Guaranteed`:

- Every container must have a memory limit and a memory request.
- For every container, the memory limit must equal the memory request.

The Guaranteed QoS class is shown in the Pod status.

A Guaranteed Pod is the last to be evicted when QoS classes compete.

## Burstable

A Pod gets the QoS class `Burstable` if:

- The Pod does not meet the criteria for QoS class `Guaranteed`.
- At least one container has a memory or CPU request or limit.

The Burstable QoS class is shown in the Pod status.

A Burstable Pod is evicted before a Guaranteed one when QoS classes compete.

Burstable and Guaranteed QoS classes both reserve what the Pod requests.
"""


def test_a_weaker_intro_brings_its_short_list_when_the_slots_are_full(tmp_path: Path) -> None:
    """"What is the difference between Guaranteed and Burstable?": each side's intro ("For a Pod of QoS class
    `Guaranteed`:") says nothing without the short conditions under it. Its list rides on its slot even when
    sentences about both classes fill the others, so both sides' defining lines are printed."""
    write(tmp_path, "qos.md", QOS)
    n = len(QOS.split("\n"))
    draft = extractive_answer("What is the difference between the Guaranteed and Burstable QoS classes?",
                              [(evidence_from(tmp_path, "qos.md", 1, n, score=0.9, tool="x"), 0.9)], UnitCache(tmp_path))
    assert "the memory limit must equal the memory request" in draft.body, draft.body
    assert "At least one container has a memory or CPU request" in draft.body, draft.body
    assert len("".join(s.quote for s in draft.sources)) <= MAX_ANSWER_CHARS


def test_a_question_that_asks_for_a_number_prefers_the_unit_that_writes_one(tmp_path: Path) -> None:
    """"浏览器默认访问哪个端口？": the sentence that writes the port (`9080`) ranks above those that only talk about the
    browser and the address."""
    from kb_agent.agent.synthesize import rank_units
    from kb_agent.agent.units import UnitCache

    (tmp_path / "install.md").write_text(
        "# 安装\n\n安装后默认访问安装页面。\n\n默认端口是 `9080`。\n", encoding="utf-8")
    items = [(evidence_from(tmp_path, "install.md", 1, 7, score=0.9, tool="vector"), 0.8)]
    ranked = rank_units("浏览器默认访问哪个端口？", items, UnitCache(tmp_path))
    assert "9080" in ranked[0].unit.text, [s.unit.text for s in ranked]


def test_a_chinese_pair_named_as_these_two_is_a_comparison() -> None:
    """"按分片项平均分配和按作业名哈希奇偶分配这两种分片策略，分出来的结果有什么不同？" compares two things although the difference is
    asked after a comma; a plain list of two things is no comparison."""
    assert comparison_subjects("按分片项平均分配和按作业名哈希奇偶分配这两种分片策略，分出来的结果有什么不同？") == ["按分片项平均分配", "按作业名哈希奇偶分配"]
    assert comparison_subjects("Redis 和 Memcached 这两个缓存各自适合什么场景？") == ["Redis", "Memcached"]
    assert comparison_subjects("日志和指标这两种数据要怎么采集？") == []


def test_a_comparison_quotes_the_definition_of_each_sides_section(tmp_path: Path) -> None:
    """ElasticJob's strategy page: "## 平均分片策略 / 类型：AVG_ALLOCATION" was quoted, but under "## 奇偶分片策略" only its
    sentences and examples, not "类型：ODEVITY" — what the question asks for each side. The definition of a sibling
    section the answer quotes joins it, in place of the weakest unit of the section quoted most."""
    write(tmp_path, "sharding.md", "## 平均分片策略\n\n类型：AVG_ALLOCATION\n\n根据分片项平均分片。\n\n举例说明：\n"
          "1. 如果 3 台作业服务器且分片总数为9，则分片结果为：1=[0,1,2], 2=[3,4,5], 3=[6,7,8]；\n"
          "2. 如果 3 台作业服务器且分片总数为8，则分片结果为：1=[0,1,6], 2=[2,3,7], 3=[4,5]；\n\n"
          "## 奇偶分片策略\n\n类型：ODEVITY\n\n根据作业名称哈希值的奇偶数决定按照作业服务器 IP 升序或是降序的方式分片。\n\n"
          "如果作业名称哈希值是偶数，则按照 IP 地址进行升序分片；\n如果作业名称哈希值是奇数，则按照 IP 地址进行降序分片。\n\n举例说明：\n"
          "1. 如果 3 台作业服务器，分片总数为2且作业名称的哈希值为偶数，则分片结果为：1 = [0], 2 = [1], 3 = []；\n"
          "2. 如果 3 台作业服务器，分片总数为2且作业名称的哈希值为奇数，则分片结果为：3 = [0], 2 = [1], 1 = []。\n")
    items = [(evidence_from(tmp_path, "sharding.md", 1, 26, score=0.9, tool="hybrid"), 0.8)]
    q = "按分片项平均分配和按作业名哈希奇偶分配这两种分片策略，分出来的结果有什么不同？配置时类型分别写什么？"
    draft = extractive_answer(q, items, UnitCache(tmp_path), sub_questions=comparison_subjects(q))
    assert "AVG_ALLOCATION" in draft.body and "ODEVITY" in draft.body, draft.body
    assert draft.body.count("\n- ") + 1 <= MAX_UNITS


def test_a_comparison_quotes_the_other_sides_section_beside_the_one_it_quotes(tmp_path: Path) -> None:
    """mise's task properties: "### `wait_for`" was quoted for one side, the other ("depends") only from lines elsewhere
    that mention it, never "### `depends`": "Tasks that must be run before this task". The sibling section about that
    side is quoted too, retrieved or not, in place of the weakest units of the section quoted most."""
    write(tmp_path, "tasks.md", "# Task Configuration\n\n## Task properties\n\n### `depends`\n\n- **Type**: `string[]`\n\n"
          "Tasks that must be run before this task. This is a list of task names or aliases.\n\n### `depends_post`\n\n"
          "Tasks to run after this task.\n\n### `wait_for`\n\n- **Type**: `string[]`\n\nSimilar to `depends`, it will wait for these tasks "
          "to complete before running. Unlike `depends`, `wait_for` does not add matching tasks to the run.\n\n"
          "Supports the same syntax as `depends`.\n")
    write(tmp_path, "monorepo.md", "# Monorepo\n\n## Upstream Task Dependencies\n\nPrefix a task dependency with `^` to run it in "
          "upstream projects first: `depends = [\"^build\"]`.\n\nThe `^` prefix is supported only in `depends`, not in `wait_for`.\n")
    items = [(evidence_from(tmp_path, "monorepo.md", 1, 7, score=0.9, tool="hybrid"), 0.8),
             (evidence_from(tmp_path, "tasks.md", 15, 22, score=0.85, tool="hybrid"), 0.8)]
    q = "What's the practical difference between listing another task under depends and listing it under wait_for?"
    draft = extractive_answer(q, items, UnitCache(tmp_path), sub_questions=comparison_subjects(q))
    assert "must be run before this task" in draft.body and "does not add matching tasks" in draft.body, draft.body
    assert ("tasks.md", 9) in {(src.path, src.start_line) for src in draft.sources}, "cited where the file writes it"


def test_a_how_to_answer_quotes_the_sentence_that_names_the_means(tmp_path: Path) -> None:
    """lazygit's Config.md: "How do I make it use the macOS key defaults?" quoted "A few keybindings have different
    defaults on macOS …" but not the next sentence of that paragraph, "… override that with the
    `LAZYGIT_KEYBINDING_PLATFORM` environment variable", the means the question asks for. A following sentence without
    code stays out."""
    para = ("A few keybindings have different defaults on macOS than on Linux and Windows (e.g. word-wise cursor movement in text "
            "inputs uses `alt` on macOS but `ctrl` elsewhere). Lazygit picks these based on the OS it's running on, but you can "
            "override that with the `LAZYGIT_KEYBINDING_PLATFORM` environment variable. Set it to `darwin`, `linux`, or `windows`. "
            "Any other value is ignored and the actual operating system is used instead of it.")
    write(tmp_path, "Config.md", f"# Config\n\n### Overriding the platform for default keybindings\n\n{para}\n")
    items = [(evidence_from(tmp_path, "Config.md", 1, 5, score=0.9, tool="hybrid"), 0.8)]
    draft = extractive_answer("How do I make lazygit use the macOS default keybindings for word-wise cursor movement?", items, UnitCache(tmp_path))
    assert "LAZYGIT_KEYBINDING_PLATFORM" in draft.body and "`darwin`" in draft.body, draft.body
    assert "Any other value is ignored" not in draft.body, draft.body


def test_a_how_to_answer_without_code_takes_it_from_another_page_among_the_best(tmp_path: Path) -> None:
    """"备份的时候怎么把表的统计信息一起备份？": the FAQ on restoring statistics ranked first and the manual's fence with
    `--ignore-stats=false` (among the three best units, but under the other-file share) was kept out, so the answer was
    refused for showing no command (session 30, TiDB's Chinese docs). Code from another page is taken only from the very
    best units."""
    write(tmp_path, "faq.md", "# 备份与恢复常见问题\n\n## 恢复统计信息时为什么会占用大量内存？\n\n在 v7.6.0 之前，备份的统计信息数据会与库表信息存放到"
          "一起，在恢复的时候加载到内存中。因此，当表的统计信息数据非常大时，就需要占用大量的内存。\n\n从 v7.6.0 开始，备份的统计信息会单独存放在特定的"
          "文件中，从而可以节省内存空间。\n")
    write(tmp_path, "manual.md", "# 快照备份与恢复命令行手册\n\n## 备份统计信息\n\n备份表的统计信息，示例如下：\n\n"
          "```shell\ntiup br backup full --storage local:///br_data/ --ignore-stats=false\n```\n")
    items = [(evidence_from(tmp_path, "faq.md", 1, 7, score=0.9, tool="hybrid"), 0.8),
             (evidence_from(tmp_path, "manual.md", 1, 9, score=0.5, tool="hybrid"), 0.25)]
    draft = extractive_answer("备份的时候怎么把表的统计信息一起备份？", items, UnitCache(tmp_path))
    assert not draft.uncovered and "--ignore-stats=false" in draft.body, (draft.uncovered, draft.body)


def test_what_to_add_or_set_asks_for_the_means(tmp_path: Path) -> None:
    """"My Postgres container logs 'could not resize shared memory segment …' under load. What should I add to docker run?"
    quoted the sentence naming the error, not the next one, "You will want to pass `--shm-size=256MB` …": "what do I add /
    put / pass / set" asks for the means as "how do I" does (session 30, the postgres image's page)."""
    para = ("Also note that the default `/dev/shm` size for containers is 64MB. If the shared memory is exhausted you will "
            "encounter `ERROR:  could not resize shared memory segment . . . : No space left on device`. You will want to "
            "pass `--shm-size=256MB` for example to `docker run`, or alternatively set it in the compose file next to the "
            "service definition, which keeps the value with the rest of the configuration for everyone.")
    write(tmp_path, "postgres.md", f"# Postgres\n\n## Caveats\n\n{para}\n")
    items = [(evidence_from(tmp_path, "postgres.md", 1, 5, score=0.9, tool="hybrid"), 0.8)]
    q = "My Postgres container logs 'could not resize shared memory segment ... No space left on device' under load. What should I add to docker run?"
    draft = extractive_answer(q, items, UnitCache(tmp_path))
    assert "--shm-size=256MB" in draft.body, draft.body


def test_choosing_between_two_things_is_a_comparison() -> None:
    """"I'm choosing between the rsync and the FTPSync deployer. … which option controls that for each?" was answered
    from FTPSync's section alone (session 22): "choosing / deciding between A and B" and "在 A 和 B 之间选" name two
    sides, each of which the answer must cover."""
    q = "I'm choosing between the rsync and the FTPSync deployer. Out of the box, which one wipes old files on the remote host?"
    assert comparison_subjects(q) == ["rsync", "FTPSync deployer"]
    assert comparison_subjects("Deciding between Redis and Memcached for sessions, which keeps data on restart?") == ["Redis", "Memcached"]
    assert comparison_subjects("我在 rsync 和 FTPSync 之间纠结，哪个会删除旧文件？") == ["rsync", "FTPSync"]
    assert comparison_subjects("How do I pick between two options in a select box?") == []


def test_a_how_to_answer_quotes_the_list_of_means_its_best_paragraph_introduces(tmp_path: Path) -> None:
    """Apollo's Java client guide: "…怎样才能和界面上一致？" quoted the paragraph that says the OrderedProperties feature can be
    switched on, not the list under "配置方式按照优先级从高到低分别为：" that says how (`-Dapollo.property.order.enable=true`;
    session 22). The intro line and the first MEANS_ITEMS items follow the answer's best paragraph."""
    doc = ("# Java 客户端\n\n#### 设置内存中的配置项是否保持和页面上的顺序一致\n\n"
           "默认情况下，客户端内存中的配置不会刻意保持和页面上看到的顺序一致。针对这种情况，可以开启OrderedProperties特性来使得内存中的配置顺序和页面上看到的一致。\n\n"
           "配置方式按照优先级从高到低分别为：\n"
           "1. 通过Java System Property `apollo.property.order.enable`\n"
           "    * 在Java程序启动脚本中，可以指定`-Dapollo.property.order.enable=true`\n"
           "2. 通过Spring Boot的配置文件\n"
           "    * 可以在`application.properties`中指定`apollo.property.order.enable=true`\n"
           "3. 通过`app.properties`配置文件\n")
    write(tmp_path, "java.md", doc)
    items = [(evidence_from(tmp_path, "java.md", 1, 6, score=0.9, tool="hybrid"), 0.8)]
    draft = extractive_answer("客户端读到的配置顺序怎样才能和页面上看到的一致？", items, UnitCache(tmp_path))
    assert "可以开启OrderedProperties特性" in draft.body, draft.body
    assert "配置方式按照优先级从高到低分别为：" in draft.body and "-Dapollo.property.order.enable=true" in draft.body, draft.body
    assert "app.properties" not in draft.body, draft.body  # MEANS_ITEMS items, not the whole list


def _backend_page(name: str, title: str, size: str) -> str:
    return (f"# {title}\n\n## Configuration\n\n### Sharing one {title} account with a team\n\n"
            f"Let's say you administer a {title} account for a team and want every upload to land in one place.\n\n"
            f"### Metadata\n\n{title} supports system metadata for both files and directories, read on upload.\n\n"
            f"### Advanced options\n\n#### --{name}-chunk-size\n\nUpload chunk size.\n\n"
            "Making this larger will improve performance, but note that each chunk is buffered in memory.\n\n"
            f"Properties:\n\n- Config:      chunk_size\n- Env Var:     RCLONE_{name.upper()}_CHUNK_SIZE\n- Default:     {size}\n\n"
            f"#### --{name}-upload-cutoff\n\nCutoff for switching to chunked upload.\n\nProperties:\n\n- Default:     200Mi\n")


def test_a_comparison_of_defaults_quotes_each_sides_option_and_its_default(tmp_path: Path) -> None:
    """rclone: "what default upload chunk size does rclone use for Google Drive compared with OneDrive?" quoted Drive's
    chunk-size description without its default and OneDrive's metadata section (session 22). "Google Drive" stays one
    side (Drive alone is a word of OneDrive); on a side's own page the section whose heading holds what is compared comes
    first; `OneDrive` covers `--onedrive-chunk-size`; a question about a default brings the section's "Default:" line."""
    write(tmp_path, "drive.md", _backend_page("drive", "Google Drive", "8Mi"))
    write(tmp_path, "onedrive.md", _backend_page("onedrive", "Microsoft OneDrive", "10Mi"))
    q = "I'm tuning memory use: what default upload chunk size does rclone use for Google Drive compared with OneDrive?"
    assert comparison_subjects(q) == ["Google Drive", "OneDrive"]
    items = [(evidence_from(tmp_path, "onedrive.md", 1, 30, score=0.9, tool="hybrid"), 0.8),
             (evidence_from(tmp_path, "drive.md", 1, 30, score=0.8, tool="hybrid"), 0.7)]
    draft = extractive_answer(q, items, UnitCache(tmp_path))
    assert draft.uncovered == (), draft.uncovered
    assert "Default:     8Mi" in draft.body and "Default:     10Mi" in draft.body, draft.body
    assert "--drive-chunk-size" in draft.body and "RCLONE_ONEDRIVE_CHUNK_SIZE" in draft.body, draft.body
    assert "200Mi" not in draft.body, draft.body  # the other option's default stays out


def test_a_line_cut_off_before_its_list_brings_the_list_and_its_total(tmp_path: Path) -> None:
    """rclone's crypt page: "1 byte file will encrypt to" / "- 32 bytes header" / "- 17 bytes data chunk" / "49 bytes total".
    The answer quoted the line alone (session 22). A short line that ends on the word leading into a list introduces it as
    a colon does, and the list's short closing line comes with it; a Chinese item without a stop introduces nothing."""
    doc = ("# Crypt\n\n## File encryption\n\n#### Examples\n\n1 byte file will encrypt to\n\n- 32 bytes header\n- 17 bytes data chunk\n\n"
           "49 bytes total\n\n1 MiB (1048576 bytes) file will encrypt to\n\n- 32 bytes header\n- 16 chunks of 65552 bytes\n\n"
           "1048864 bytes total (a 0.03% overhead). This is the overhead for big files.\n")
    write(tmp_path, "crypt.md", doc)
    items = [(evidence_from(tmp_path, "crypt.md", 5, 8, score=0.9, tool="hybrid"), 0.8)]
    draft = extractive_answer("If a 1 byte file goes through crypt, how big is the encrypted file?", items, UnitCache(tmp_path))
    assert "1 byte file will encrypt to" in draft.body and "17 bytes data chunk" in draft.body and "49 bytes total" in draft.body, draft.body
    write(tmp_path, "zh.md", "# 组件\n\n## 可选组件\n\n- Kuboard 中英文语言包\n- 资源层监控套件\n\n其他说明\n")
    items = [(evidence_from(tmp_path, "zh.md", 5, 5, score=0.9, tool="hybrid"), 0.8)]
    draft = extractive_answer("Kuboard 有中英文语言包吗", items, UnitCache(tmp_path))
    assert "资源层监控套件" not in draft.body and "其他说明" not in draft.body, draft.body


TOKEN_CACHE = """# 鉴权

## 开启Token缓存功能

#### 背景
服务端解析Token进行鉴权。解析的动作比较耗时，如果想要提升接口的性能，可以考虑开启缓存Token的功能。

#### 开启方式
```
nacos.core.auth.plugin.nacos.token.cache.enable=true
```

#### 注意事项
服务端签发的令牌默认有效期，配置如下：
```
nacos.core.auth.plugin.nacos.token.expire.seconds=18000
```
"""


def test_a_fence_under_a_heading_that_only_says_how_is_labelled_by_its_section_too(tmp_path: Path) -> None:
    """A fence with no sentence of its own under "#### 开启方式" ("how to turn it on") is described by the section
    it belongs to as well ("## 开启Token缓存功能"): it is the how-to answer, not the notes' fence."""
    from kb_agent.agent.synthesize import rank_units

    write(tmp_path, "auth.md", TOKEN_CACHE)
    items = [(evidence_from(tmp_path, "auth.md", 1, 19, score=0.9, tool="x"), 0.9)]
    fences = [s for s in rank_units("Token 缓存功能怎么打开？", items, UnitCache(tmp_path)) if s.unit.code]
    assert "token.cache.enable=true" in fences[0].unit.code, [s.unit.code for s in fences]
    assert fences[0].score > fences[1].score, [(s.score, s.unit.code) for s in fences]


def test_a_unit_that_made_room_for_a_default_is_not_completed_with_its_own(tmp_path: Path) -> None:
    """Two sections of one page quoted, neither stating its default: making room for the first one's default line
    drops the second section's unit, which then gets no default of its own (it crashed: nothing of its section was
    left to put the default after)."""
    from kb_agent.agent.synthesize import ScoredUnit, _add_defaults

    filler = "It is read once at start-up, applies to every worker of the process, and is logged with the other settings. " * 2
    write(tmp_path, "f.md", f"# Conf\n\n## Alpha\n\nAlpha sets how the alpha stage runs. {filler}\n\nThe default is 5.\n\n"
          f"## Beta\n\nBeta sets how the beta stage runs. {filler}\n\nThe default value is 7.\n")
    write(tmp_path, "g.md", f"# G\n\nG explains the gamma stage. {filler}{filler[:150]}\n")
    write(tmp_path, "h.md", f"# H\n\nH explains the delta stage. {filler}{filler[:150]}\n")
    cache = UnitCache(tmp_path)
    alpha, _a_default, beta, _b_default = cache.file_units("f.md")
    (g,), (h,) = cache.file_units("g.md"), cache.file_units("h.md")
    chosen = [ScoredUnit(1.0, 0.5, 0.9, alpha), ScoredUnit(0.95, 0.5, 0.9, g), ScoredUnit(0.95, 0.5, 0.9, h), ScoredUnit(0.85, 0.5, 0.9, beta)]
    assert sum(c.unit.size for c in chosen) + _a_default.size > MAX_ANSWER_CHARS, "the fixture must be full"
    _add_defaults(chosen, cache)
    assert [c.unit.text for c in chosen] == [alpha.text, "The default is 5.", g.text, h.text]


def test_a_table_cut_by_retrieval_is_read_whole(tmp_path: Path) -> None:
    """Retrieval returned the first rows of an options table; the row that answers ("retry POST requests too") is
    further down the same table: the table's best rows bring the rest of it in."""
    rows = [("attempts", "number of times the request should be retried."), ("initialInterval", "first wait time of the retry backoff."),
            ("timeout", "how long the middleware may retry the request."), ("maxRequestBodyBytes", "maximum size of a retried request body."),
            ("status", "HTTP status codes to retry on."), ("disableRetryOnNetworkError", "no retry when sending the request fails."),
            ("retryNonIdempotentMethod", "retry non-idempotent methods (`POST`, `LOCK`, `PATCH`) as well.")]
    table = "| Field | Description |\n|:--|:--|\n" + "".join(f"| `{k}` | {v} |\n" for k, v in rows)
    write(tmp_path, "retry.md", "# Retry\n\n## Configuration Options\n\n" + table)
    items = [(evidence_from(tmp_path, "retry.md", 1, 10, score=0.9, tool="hybrid"), 0.8)]
    draft = extractive_answer("How do I make the retry middleware retry POST requests too?", items, UnitCache(tmp_path))
    assert "retryNonIdempotentMethod" in draft.body, draft.body


def test_the_example_between_two_quoted_lines_of_a_section_is_quoted(tmp_path: Path) -> None:
    """The answer quotes the sentence before an example and the note after it ("Open it …" / the `plugins=(…)` fence /
    "Note that the plugins are separated by whitespace"): the example between them is what they are about (session 26,
    Oh My Zsh's README). A unit between them that shows no code, or one two units away, is not brought."""
    from kb_agent.agent.synthesize import ScoredUnit, _fill_gaps

    write(tmp_path, "README.md", "# Oh My Zsh\n\n## Enabling plugins\n\nOpen `~/.zshrc` and list the plugins you want to load.\n\n"
          "For example:\n\n```sh\nplugins=(git rake)\n```\n\nNote that plugins are separated by whitespace, not commas.\n\n"
          "## Themes\n\nSet the theme in `~/.zshrc`.\n\nThemes live in the themes folder.\n\nPick one you like.\n")
    cache = UnitCache(tmp_path)
    opening, example, note, theme, folder, pick = cache.file_units("README.md")
    assert "plugins=(git rake)" in example.code and not folder.code
    chosen = [ScoredUnit(1.0, 0.5, 0.9, opening), ScoredUnit(0.9, 0.5, 0.9, note), ScoredUnit(0.8, 0.5, 0.9, theme), ScoredUnit(0.7, 0.5, 0.9, pick)]
    _fill_gaps(chosen, cache)
    assert [c.unit for c in chosen] == [opening, example, note, theme, pick], [c.unit.text for c in chosen]
    # a full answer stays as it is: the units it quotes were chosen for the question's words, the example only sits
    # between two of them ("What's the difference between fastapi dev and fastapi run?" lost the two lines that say
    # which address each listens on to the next piece of a console fence)
    long = "\n".join(f"fastapi run --host 0.0.0.0 --port {8000 + k}  # listens on every address" for k in range(9))
    write(tmp_path, "more.md", f"# More\n\n## Dev\n\n```sh\n{long}\n```\n\n## Run\n\n```sh\n{long}\n```\n")
    dev, run = cache.file_units("more.md")
    full = [ScoredUnit(1.0, 0.5, 0.9, opening), ScoredUnit(0.9, 0.5, 0.9, note), ScoredUnit(0.5, 0.5, 0.9, dev), ScoredUnit(0.5, 0.5, 0.9, run)]
    assert sum(c.unit.size for c in full) + example.size > MAX_ANSWER_CHARS, "the fixture must be full"
    _fill_gaps(full, cache)
    assert [c.unit for c in full] == [opening, note, dev, run]


def test_the_error_a_question_quotes_brings_what_the_page_says_to_do_about_it(tmp_path: Path) -> None:
    """A troubleshooting page shows the message under what causes it, then says what to do: a question that quotes the
    message is answered with both, not with the message alone (session 26, JuiceFS's troubleshooting page; in English the
    paragraph after the fence, in Chinese the line that opens a list of ways out and its items)."""
    from kb_agent.agent.analyzer import find_exact_terms
    from kb_agent.agent.synthesize import ScoredUnit, _add_remedy, _error_messages

    write(tmp_path, "t.md", "# Troubleshooting\n\n## Invalid Redis URL\n\nWith Redis below 6.0.0, `juicefs format` fails when a username"
          " is given:\n\n```\nformat: ERR wrong number of arguments for 'auth' command\n```\n\nOmit the `username` from the URL, e.g."
          " `redis://:password@host:6379/1`.\n\n## 卸载错误\n\n卸载时如果文件正在被使用，会报错：\n\n```shell\numount: /jfs: target is busy.\n```\n\n"
          "这种情况下可以：\n\n* 用 `lsof /jfs` 找出正在使用的文件。\n* 运行 `juicefs umount --force` 强制卸载。\n\n## Other\n\nUnrelated `x` text.\n")
    cache = UnitCache(tmp_path)
    redis, omit, busy, intro, lsof, force, other = cache.file_units("t.md")
    q = "juicefs format fails with \"ERR wrong number of arguments for 'auth' command\". How should I write the Redis address?"
    chosen = [ScoredUnit(1.0, 0.5, 0.9, redis), ScoredUnit(0.5, 0.2, 0.9, other)]
    _add_remedy(chosen, cache, _error_messages(q, find_exact_terms(q)))
    assert [c.unit for c in chosen] == [redis, omit, other]
    q = "卸载挂载点时一直报 target is busy，只想马上卸掉，怎么办？"
    assert _error_messages(q, find_exact_terms(q)) == ["target is busy"]
    chosen = [ScoredUnit(1.0, 0.5, 0.9, busy)]
    _add_remedy(chosen, cache, _error_messages(q, find_exact_terms(q)))
    assert [c.unit for c in chosen] == [busy, intro, lsof, force]
    chosen = [ScoredUnit(1.0, 0.5, 0.9, redis)]
    _add_remedy(chosen, cache, _error_messages("How do I format with Redis 5?", []))
    assert [c.unit for c in chosen] == [redis], "no message quoted: nothing brought"


def test_a_side_named_with_where_it_is_is_the_thing_itself(tmp_path: Path) -> None:
    """"Pod 上和过滤器里分别要怎么配？" asks of the Pod and of the filter: 上 / 里 cut off after a side say where, they are no
    word a page about it must write (session 28: the answer was refused "nothing found about 'Pod 上'")."""
    write(tmp_path, "kubernetes.md", "# Kubernetes filter\n\n## Exclude a pod's logs\n\n"
          "Annotate the pod with `fluentbit.io/exclude: \"true\"` to suggest that its logs are skipped.\n\n"
          "The filter honours the annotation only with `K8S-Logging.Exclude On` set in the filter (过滤器).\n")
    items = [(evidence_from(tmp_path, "kubernetes.md", 1, 8, score=0.9, tool="x"), 0.8)]
    draft = extractive_answer("想跳过某个 Pod 的日志，Pod 上和过滤器里分别要怎么配？", items, UnitCache(tmp_path))
    assert "fluentbit.io/exclude" in draft.body and not draft.uncovered, (draft.body, draft.uncovered)


RETRY = """# Client

## Retries

The client retries a failed request on its own when the server answers with an error that can pass, such as a busy
server or a dropped connection, and it waits a little longer before each retry so that a server under load can recover
before the next request arrives at it again from the same client, which keeps a busy server from being flooded by
the very clients that are waiting for it.

Retries of a request are logged at the warning level with the reason the server gave, so that you can tell from the
log of the client why a request was retried and how the server answered each retry of the request before it passed; the
log line names the request, its retry and the wait before it.

A request that still fails after its retries is reported to the caller with the last error of the server, and the
client gives up on it; the caller may then retry the whole operation itself, with its own backoff between attempts, or report the
failure to its user with the error of the server.

Unless you set `max_attempts` in the config, at most 5 attempts are made, the first included, with a wait between 1
and 30 seconds between them; a body that cannot be replayed, such as a stream read from standard input, is never sent
twice, whatever the setting says, because it is gone after the first attempt is made, so an upload from a pipe gets one
attempt only and fails at once when the server is busy.
"""


def test_the_unit_that_gives_the_asked_number_joins_within_the_length_cap(tmp_path: Path) -> None:
    """An answer to "how many" that quotes no number takes the unit that gives one in place of its weakest (`_show_how`);
    it took it past the length cap (session 32: 1,388 characters of units here, over MAX_ANSWER_CHARS). The weakest
    units make room, in slots and in characters."""
    write(tmp_path, "client.md", RETRY)
    n = len(RETRY.split("\n"))
    cache = UnitCache(tmp_path)
    draft = extractive_answer("How many times does the client retry a failed request?",
                              [(evidence_from(tmp_path, "client.md", 1, n, score=0.9, tool="x"), 0.9)], cache)
    assert "at most 5 attempts" in draft.body, draft.body
    units = {u.start_line: u for u in cache.file_units("client.md")}
    assert sum(units[s.start_line].size for s in draft.sources) <= MAX_ANSWER_CHARS


EVACUATION_ZH = """# 节点疏散与集群负载重平衡

MQTT 是有状态的长连接接入协议，因此集群节点的升级、维护和扩容将变得更有挑战性。

## 节点疏散

在需要对集群中的某个节点进行维护或升级操作时，如果直接关闭节点，节点上的连接和会话将会丢失，还会造成大量设备的下线重连。

因此 EMQX 提供了节点疏散功能，以帮助您在关闭节点前将节点所有连接与会话数据迁移到集群其他节点。

## 集群负载重平衡

即使在节点扩容后，现有节点的连接也不会自动切换到新增节点中，新增节点会长时间处于负载不足的状态。

此时，您需要手动进行集群负载重平衡，将高负载节点迁移到低负载节点。
"""


def test_the_paragraph_that_draws_the_conclusion_comes_with_the_one_above_it(tmp_path: Path) -> None:
    """"节点疏散和集群负载重平衡有什么区别？" quoted the definition of 节点疏散 (what goes wrong when a node is shut down) but not
    the paragraph under it that says what the feature is for, "因此 EMQX 提供了节点疏散功能，以帮助您在关闭节点前…" (session 32).
    A paragraph that opens with 因此 / "Therefore" right under a quoted one joins it, as "And …" joins a command."""
    from kb_agent.agent.synthesize import ScoredUnit, _add_next_step

    write(tmp_path, "rebalancing.md", EVACUATION_ZH)
    cache = UnitCache(tmp_path)
    units = cache.file_units("rebalancing.md")
    definition = next(u for u in units if "在需要对集群中的某个节点" in u.text)
    chosen = [ScoredUnit(1.0, 0.5, 0.9, definition)]
    _add_next_step(chosen, chosen[0], cache)
    assert [c.unit.start_line for c in chosen] == [definition.start_line, definition.end_line + 2], [c.unit.text for c in chosen]
    assert chosen[1].unit.text.startswith("因此 EMQX 提供了节点疏散功能") and chosen[1].listed
    rebalance = next(u for u in units if "即使在节点扩容后" in u.text)
    chosen = [ScoredUnit(1.0, 0.5, 0.9, rebalance)]
    _add_next_step(chosen, chosen[0], cache)
    assert len(chosen) == 1, "此时 … draws no conclusion"


FAQ_PROBLEMS = """# FAQ

## Pods fail to start: `x509: certificate signed by unknown authority`

- Example Error Message:

  ```bash
  failed to pull image "docker.io/rancher/pause:3.1": x509: certificate signed by unknown authority
  ```

- Problem: inside the container, the certificate of the corporate proxy cannot be validated
- Possible Solution: Mounting the CA Certificate from your host into the node containers at start time via `k3d cluster create --volume /path/to/your/certs.crt:/etc/ssl/certs/yourcert.crt`
- Issue: [k3d-io/k3d#535](https://github.com/k3d-io/k3d/discussions/535)

## Nodes are evicted on disk pressure

- Problem: the disk of the host is almost full
- Solution: set lower eviction thresholds with `--kubelet-arg=eviction-hard=imagefs.available<1%`
"""


def test_a_quoted_problem_item_brings_the_item_labelled_as_its_solution(tmp_path: Path) -> None:
    """"怎样让 k3d 节点信任公司的 CA 证书?" quoted the FAQ's "- Problem: inside the container, the certificate of the corporate
    proxy cannot be validated" but not the item under it, "- Possible Solution: Mounting the CA Certificate … via
    `k3d cluster create --volume …`" (session 32). An item labelled as the solution (Solution:, Workaround:, 解决方法：)
    that names the means in code comes with the problem it solves, as a paragraph that says "To fix this, …" does."""
    write(tmp_path, "faq.md", FAQ_PROBLEMS)
    n = len(FAQ_PROBLEMS.split("\n"))
    draft = extractive_answer("The corporate proxy certificate cannot be validated inside the container. How do I fix it?",
                              [(evidence_from(tmp_path, "faq.md", 1, n, score=0.9, tool="x"), 0.9)], UnitCache(tmp_path))
    assert "certificate of the corporate proxy cannot be validated" in draft.body, draft.body
    assert "k3d cluster create --volume /path/to/your/certs.crt:/etc/ssl/certs/yourcert.crt" in draft.body, draft.body
