"""The deterministic analyzer: query types (English and Chinese), exact terms, fast path, and its
route accuracy on the labelled sample questions."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb_agent.agent.analyzer import analyze_question, comparison_subjects, find_exact_terms

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "sample_questions.jsonl"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("What is the default for cache.ttl_seconds?", "exact"),
        ("What happened in OPS-1234?", "exact"),
        ("What does warning W0201 mean?", "exact"),
        ("Where is NW_CONFIG_PATH read?", "exact"),
        ('What does "connection reset by peer" mean?', "exact"),
        ("what does getUserName return", "exact"),
        ("How many retries does the client make?", "exact"),
        ("Which file documents the Redis failover?", "file_discovery"),
        ("Where is the on-call rotation documented?", "file_discovery"),
        ("Is there a guide for local development?", "file_discovery"),
        ("What docs are related to the deploy runbook?", "relational"),
        ("Which ADR supersedes ADR-0005?", "relational"),
        ("What depends on the orders database?", "relational"),
        ("How do we roll back a bad deploy?", "conceptual"),
        ("Why did we choose Kafka?", "conceptual"),
        ("Can I just bump db.pool_size to make queries faster?", "conceptual"),
        ("orders.events 的分区数是多少？", "exact"),
        ("OPS-2188 的影响范围", "exact"),
        ("哪个文件记录了证书续期？", "file_discovery"),
        ("发布流程写在哪个文档里？", "file_discovery"),
        ("Redis 运维文档关联了哪些其他文档？", "relational"),
        ("Kafka 和 RabbitMQ 的关系是什么？", "relational"),
        ("怎么避免缓存雪崩？", "conceptual"),
        ("为什么选择 Kafka？", "conceptual"),
    ],
)
def test_query_type(question: str, expected: str) -> None:
    assert analyze_question(question).query_type == expected


def test_exact_terms_in_order() -> None:
    assert find_exact_terms("Is `cache.ttl_seconds` or OPS-1234 or NW_CONFIG_PATH or /etc/nw/app.yaml involved?") == [
        "cache.ttl_seconds", "OPS-1234", "NW_CONFIG_PATH", "/etc/nw/app.yaml",
    ]


def test_leading_dash_flag_is_an_exact_term() -> None:
    assert "--set" in find_exact_terms("How do I use --set flags?")
    assert find_exact_terms("arthas 怎么在运行时把 JVM 的最大堆内存 -Xmx 调大？") == ["-Xmx"]
    assert find_exact_terms("What does -XX:+UseG1GC change?") == ["-XX:+UseG1GC"]
    assert find_exact_terms("tar -xzf or tar -zxvf, and rm -rf?") == [], "lower-case bundles are written many ways"
    assert find_exact_terms("a re-run of the x-ray") == []


def test_an_operator_named_by_itself_is_an_exact_term() -> None:
    assert find_exact_terms("设置默认值时用 ?? 和用 || 有什么区别") == ["??", "||"]
    assert find_exact_terms("What does => mean in an arrow function?") == ["=>"]
    assert find_exact_terms("how do I append with >> instead of > ?") == [">>"]
    # punctuation is not an operator: a question ending in "??", an ellipsis, a dash, a word's own "?"
    for q in ["what is this??", "有什么区别？？", "比如...怎么办", "a -- b", "is it fast?!", "what??"]:
        assert find_exact_terms(q) == [], q


def test_routing_table() -> None:
    assert analyze_question("What is cache.ttl_seconds?").suggested_tools == ("grep", "vector")
    assert analyze_question("How do deploys work?").suggested_tools == ("vector", "hybrid")
    assert analyze_question("What links to the rollback runbook?").suggested_tools == ("related", "vector")
    assert analyze_question("Which file covers backups?").suggested_tools == ("files", "hybrid")


def test_simple_question_takes_fast_path_and_comparison_does_not() -> None:
    assert analyze_question("What is the default TTL?").fast_path
    cmp = analyze_question("What is the difference between Redis Sentinel and Redis Cluster?")
    assert not cmp.fast_path
    assert cmp.sub_questions == ("Redis Sentinel", "Redis Cluster")
    assert comparison_subjects("Redis 和 Kafka 有什么区别") == ["Redis", "Kafka"]
    long_q = " ".join(["word"] * 30) + "?"
    assert not analyze_question(long_q).fast_path


def test_chinese_keywords_come_from_jieba() -> None:
    kws = analyze_question("Redis 故障切换的步骤是什么？").grep_keywords
    assert "Redis" in kws and "故障" in kws


def test_route_accuracy_on_labelled_questions() -> None:
    rows = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines() if line.strip()]
    right = sum(analyze_question(r["question"]).query_type == r["query_type"] for r in rows)
    assert right / len(rows) >= 0.90, f"route accuracy {right}/{len(rows)}"


def test_a_scope_before_a_chinese_comparison_is_not_a_side() -> None:
    assert comparison_subjects("Rust 里宏和函数有什么区别？") == ["宏", "函数"]
    # a side starts at its clause, and one that points back (两者 …) compares what it says of things named before: no
    # sides, rather than a sentence of situation as one (session 30, EventMesh: "…换成 Jaeger。两者在 EventMesh 里填写服务
    # 地址的配置项和默认端口有什么不同？" was refused as "nothing found about '链路追踪原来接的是 Zipkin，…的配置项'")
    assert comparison_subjects("补数的时候，串行补数和并行补数有什么区别？") == ["串行补数", "并行补数"]
    assert comparison_subjects("项目用了 gin。ShouldBind 和 Bind 有什么区别？") == ["ShouldBind", "Bind"]
    assert comparison_subjects("链路追踪原来接的是 Zipkin，现在想换成 Jaeger。两者在 EventMesh 里填写服务地址的配置项和默认端口有什么不同？") == []
    assert comparison_subjects("设置默认值时用 ?? 和用 || 有什么区别") == ["设置默认值时用 ??", "用 ||"]
    assert comparison_subjects("Java 中的接口和抽象类有什么区别") == ["接口", "抽象类"]
    assert comparison_subjects("中间件和插件有什么区别") == ["中间件", "插件"]  # 中 inside a word is no scope


def test_haishi_meaning_still_is_no_comparison() -> None:
    """"可是下载还是报 401" is "the download still fails with 401", not "download, or 401?": the question was refused as
    covering neither side. 还是 asks which only between two things, not before what happens."""
    from kb_agent.agent.subjects import comparison_subjects

    assert comparison_subjects("已经开了匿名读取，可是下载还是报 401 Unauthorized。怎么让 brew 请求时不带认证头？") == []
    assert comparison_subjects("重启以后还是连不上怎么办？") == []
    assert comparison_subjects("改完配置还是没有生效，为什么？") == []
    assert comparison_subjects("部署用 Docker 还是 Kubernetes？") == ["部署用 Docker", "Kubernetes"]


def test_the_kind_both_sides_are_is_no_word_of_the_second() -> None:
    """"the flat-playlist and lazy-playlist switches": the plural kind after the second side names both, so a page
    about `--lazy-playlist` need not write "switches" (session 27); "Vue mixins and React hooks" keeps its words."""
    from kb_agent.agent.subjects import comparison_subjects as subjects

    assert subjects("What is the difference between the flat-playlist and lazy-playlist switches?") == ["the flat-playlist", "lazy-playlist"]
    assert comparison_subjects("What is the difference between git fetch and git pull commands?") == ["git fetch", "git pull"]
    assert comparison_subjects("What is the difference between the --soft and --hard options?") == ["the --soft", "--hard"]
    assert comparison_subjects("What is the difference between Vue mixins and React hooks?") == ["Vue mixins", "React hooks"]
