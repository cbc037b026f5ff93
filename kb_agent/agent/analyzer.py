"""The deterministic question analyzer (English and Chinese): query type, exact terms, keywords,
comparison subjects, and whether the question is simple enough for the fast path."""

from __future__ import annotations

import re
from dataclasses import dataclass

from kb_agent.agent.state import QueryType
from kb_agent.index.tokenize import STOPWORDS, has_cjk, tokenize

# longer questions, or ones joining several asks, get decomposed instead of the one-step fast path
FAST_PATH_MAX_WORDS = 16
FAST_PATH_MAX_CJK_CHARS = 30
MAX_EXACT_TERMS = 4
MAX_KEYWORDS = 8

ROUTING_TABLE: dict[QueryType, tuple[str, ...]] = {
    "exact": ("grep", "vector"),
    "conceptual": ("vector", "hybrid"),
    "relational": ("related", "vector"),
    "file_discovery": ("files", "hybrid"),
}

# A Latin word character: Python's \w also matches CJK, and a Chinese question rarely puts spaces
# around an identifier ("cache.ttl_seconds默认是多少", "2021年香港GDP增长了多少"): an identifier, a name or
# a boundary is made of these, so CJK next to one ends it instead of joining it.
LATIN_WORD_CHARS = _L = "A-Za-z0-9_\u00c0-\u024f"
_QUOTED = re.compile(
    r'"([^"\n]{2,80})"|“([^”\n]{2,80})”|「([^」\n]{2,80})」|『([^』\n]{2,80})』|`([^`\n]{1,80})`'
    rf"|(?<![{_L}])'([^'\n]{{2,60}})'(?![{_L}])"
)
_EXACT_PATTERNS = [
    re.compile(rf"(?<![{_L}-])[A-Z][A-Z0-9]{{1,9}}-\d{{1,6}}(?![{_L}-])"),  # tickets: OPS-1234, ADR-0005
    re.compile(rf"(?<![{_L}])[A-Z]{{1,3}}\d{{3,5}}(?![{_L}])"),  # error codes: W0201, E1042
    re.compile(rf"(?<![{_L}.])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![{_L}])"),  # env vars: NW_CONFIG_PATH
    re.compile(rf"(?<![{_L}:])[A-Za-z_][{_L}]*(?:::[A-Za-z_][{_L}]*)+(?:\(\))?(?![{_L}])"),  # paths in code: std::thread::scope
    re.compile(rf"(?<![{_L}.])\.[A-Za-z_][{_L}]*\(\)"),  # a method by itself: .take()
    re.compile(rf"(?<![{_L}.])[A-Za-z_][{_L}]*(?:\.[A-Za-z_][{_L}]*)+(?:\(\))?(?![{_L}])"),  # dotted: cache.ttl_seconds
    re.compile(rf"(?<![{_L}])[a-z0-9]+(?:_[a-z0-9]+)+(?![{_L}])"),  # snake_case
    re.compile(rf"(?<![{_L}])[a-z]+(?:[A-Z][a-z0-9]+)+(?![{_L}])"),  # camelCase: getUserName
    re.compile(rf"(?<![{_L}])(?:[A-Z]{{2,}}|[A-Z][a-z0-9]+)(?:[A-Z][a-z0-9]+){{2,}}(?![{_L}])"),  # PascalCase names: KafkaConsumerLagHigh
    # paths: /etc/northwind/x.yaml, docs/a.md, zh/常见问题.md — the first folder in Latin letters (so a
    # Chinese word before it stays out), the file name up to its extension (so one after it does too)
    re.compile(rf"(?<![{_L}])(?:\.{{0,2}}/)?[{_L}.-]+/(?:[\w.-]+/)*(?:[\w.-]*?\.[A-Za-z0-9]+(?![A-Za-z0-9]|\.[A-Za-z0-9])|[{_L}.-]+)"),
    re.compile(rf"(?<![{_L}-])--[a-z][a-z0-9-]+"),  # CLI flags: --set
    # a one-dash option typed with a capital (-Xmx, -XX:+UseG1GC, -Dfile.encoding=UTF-8, -Werror): a literal flag; not
    # lower-case letters (-xzf, -rf), which a page may bundle another way (-zxvf)
    re.compile(rf"(?<![{_L}-])-(?=[A-Za-z0-9]*[A-Z])[A-Za-z][A-Za-z0-9]+(?:[:=][^\s，。？、]+)?"),
]
# an operator the question names by itself (`??`, `||`, `&&`, `=>`, `?.`, `>>`): two to four operator
# characters with no word or other operator character on either side, not `?`, `!` and `.` ending the
# question ("what is this??" is punctuation); runs of one repeated `.`, `-` or `:` are prose
_OPERATOR_CHARS = r"?|&=<>!*%^~+:.\-"
_OPERATOR = re.compile(rf"(?<![{_L}{_OPERATOR_CHARS}`])[{_OPERATOR_CHARS}]{{2,4}}(?![{_L}{_OPERATOR_CHARS}`])")
_OPERATOR_TERM = re.compile(rf"[{_OPERATOR_CHARS}]{{2,4}}")
_NOT_OPERATORS = re.compile(r"(.)\1*|[?!]+")
_DOUBLED_OPERATORS = frozenset(("??", "**", "||", "&&", ">>", "<<", "=="))
# dotted words that are prose, not identifiers
_NOT_IDENTIFIERS = {"e.g", "i.e", "etc.", "vs.", "a.m", "p.m"}

_FILE_DISCOVERY = [
    re.compile(
        r"\b(which|what)\s+(\w+\s+)?(files?|docs?|documents?|pages?|runbooks?|notes?|guides?|postmortems?)\b(?!\s+(say|says|recommend))",
        re.I,
    ),
    re.compile(r"\bwhere\s+(is|are|do|does|can)\b.*\b(documented|described|written|explained|covered|mentioned|find|kept)\b", re.I),
    re.compile(r"\bwhere('s| is| are)\s+(the|a|an|our)\s+(\w+\s+){0,2}(postmortem|runbook|doc|docs|document|guide|page|notes?|write-?up|list|adr)\b", re.I),
    re.compile(r"\b(is|are)\s+there\s+(a|an|any)\s+(\w+\s+)?(guide|doc|docs|document|page|runbook|write-?up|checklist|tutorial)s?\b", re.I),
    re.compile(r"\b(find|list|show)\s+(me\s+)?(the\s+|all\s+)?(files?|docs?|documents?|pages?|runbooks?|adrs?)\b", re.I),
    re.compile(r"\bin which (file|doc|document|page|runbook)\b", re.I),
    re.compile(
        r"哪个文件|哪些文件|哪个文档|哪些文档|哪篇|哪份文档|哪一篇|哪个页面|哪个手册|哪些手册|在哪个文件|写在哪|"
        r"文档是哪|文件是哪|在哪里|哪里有.{0,10}(文档|说明)|有没有.{0,12}(文档|术语表|指南|手册|说明|清单)"
    ),
]
# cues that a question is about how documents or events connect (checked first)
_RELATIONAL = [
    re.compile(
        r"\b(related\s+to|relate[sd]?\s+to|relationship|depends?\s+on|dependenc(y|ies)|links?\s+to|linked\s+(from|to)|"
        r"linking\s+to|backlinks?|refer(s|red)?\s+to|references?\s+to|point(s|ing)?\s+to|supersed(e|es|ed|ing)|"
        r"superseded\s+by|replaced|replaces|connected\s+to|led\s+(us\s+)?to|made\s+us|came\s+out\s+of|follow-?up\s+tickets?|"
        r"resulted\s+in|because\s+of\s+which)\b",
        re.I,
    ),
    re.compile(r"关系|依赖|链接|引用|取代|替代|关联|指向|因为哪次|哪次事故|之后写了|后开了|改进工单|后续工单|导致了哪"),
]
# weak relational cues (相关 also means "-related" in "值班相关的文档"), checked after file discovery
_RELATIONAL_WEAK = re.compile(r"(和|与|跟).{1,20}(相关|有关)|相关的(ADR|事故|决策|工单)")
# questions that ask for an explanation, a procedure or a judgement
_CONCEPTUAL = [
    re.compile(
        r"^\s*(why|if|in what order|anything|can i|could i|should i|should we|is it (ok|safe|possible))\b|\bwhy\b|"
        r"\bhow\s+(do|does|did|can|could|should|would|to)\b|\bwhat\s+(happens|has to|should|would)\b|\busual\s+cause\b|"
        r"\b(best practice|trade-?offs?|pros and cons)\b",
        re.I,
    ),
    re.compile(r"为什么|为何|怎么(?!样)|如何|能不能|能否|可不可以|是否|根本原因|会不会|吗[？?]?\s*$"),
]
# questions that ask for one specific fact: a number, a value, a name, a time, a format, a command
_FACT = [
    re.compile(
        r"\bhow\s+(many|much|often|long|big|large)\b|\bat\s+what\b|\bwhen\s+(do|does|did|is|are|was|will)\b|"
        r"\bwhat('s|\s+is|\s+are|\s+was)?\s+(the\s+)?(\w+\s+){0,2}(default|exact|largest|smallest|maximum|minimum|max|min|name|codename|"
        r"format|port|command|value|limit|timeout|password|version|size|number|address|url)\b|"
        r"\bwhat\s+(port|format|command|value|time|version|share|percentage|percent|fraction|ratio|threshold)\b|"
        r"\bwhich\s+(\w+\s+)?(environment\s+variable|env\s+var|variable|port|consumer\s+group|command|flag|key|setting|"
        r"option|header|topic|queue|team|channel|version|region|cluster|role|user)\b|\bby default\b|\bwhat does\b.*\bmean\b",
        re.I,
    ),
    re.compile(r"多少|多久|多长时间|多大|几个|几次|几点|星期几|什么格式|哪个时间段|什么时候|什么条件|默认值|超时时间|是什么意思"),
    # "which <thing>" asks for one named value: 哪个 IP / 哪个库 / 什么命令
    re.compile(r"(哪个|哪一个|哪些|什么)\s*(IP|ip|地址|端口|库|包|版本|命令|参数|选项|字段|变量|环境变量|函数|类|方法|状态码|请求头|标志|文件名)"),
]
# the Chinese patterns' first side starts at its clause (comparison_subjects)
_CHINESE_COMPARISON = [
    re.compile(r"(?:比较|对比)\s*(?P<a>.+?)\s*(?:和|与|跟)\s*(?P<b>.+?)(?:的区别|的不同|有什么区别|有什么不同)?[？?。]*$"),
    re.compile(r"^(?P<a>.+?)\s*(?:和|与|跟)\s*(?P<b>.+?)\s*(?:的区别|的不同|有什么区别|有什么不同|哪个更好)[？?。]*$"),
]
_COMPARISON = [
    re.compile(r"\bdifferences?\s+between\s+(?P<a>.+?)\s+and\s+(?P<b>.+?)[?.!]*$", re.I),
    re.compile(r"\bcompare\s+(?P<a>.+?)\s+(?:and|with|to|vs\.?|versus)\s+(?P<b>.+?)[?.!]*$", re.I),
    re.compile(rf"^(?:(?:what|how|which)\b.*?\b)?(?P<a>[{_L} .-]+?)\s+(?:vs\.?|versus)\s+(?P<b>[{_L} .-]+?)[?.!]*$", re.I),
    *_CHINESE_COMPARISON,
]
# where a Chinese clause ends, and a side that points back to things named before it (两者, 它们的 …)
_CLAUSE_BREAK = re.compile(r"[，,。！？；;]")
POINTS_BACK_ZH = re.compile(r"(?:两者|二者|它们|他们|双方)")
# "Rust 里 / Java 中的 …" before the first side of a Chinese comparison names where, not what, is compared
_SCOPE = re.compile(rf"^[A-Za-z0-9][{_L}.+#-]*\s*(?:里面|里|中)的?\s*(?P<rest>\S.*)$")
# question words and filler that carry no search signal (on top of the tokenizer's stopwords)
_FILLER = frozenset(
    """how what which where when why who whom whose does do did is are was were can could should would
    tell explain describe show find list give please documented described mentioned written file files
    doc docs document documents page pages kb knowledge base about there mean means meaning
    compare comparison difference differences between versus vs related relate relates relationship""".split()
)
# a Latin word as a question writes it (`cache.ttl_seconds`, `HTTP/3`, `responses`)
LATIN_WORD = re.compile(rf"[A-Za-z0-9][{_L}.\-/]*[A-Za-z0-9]|[A-Za-z0-9]")


@dataclass(frozen=True, slots=True)
class Analysis:
    """What the deterministic analyzer concluded about a question."""

    query_type: QueryType
    exact_terms: tuple[str, ...]
    grep_keywords: tuple[str, ...]
    sub_questions: tuple[str, ...]
    suggested_tools: tuple[str, ...]
    fast_path: bool


def analyze_question(question: str) -> Analysis:
    """Classify a question and pull out its search terms, without a model.

    Args:
        question: the cleaned question (English, Chinese or mixed).

    Returns:
        The Analysis: type (exact / conceptual / relational / file_discovery), exact terms, grep
        keywords (exact terms first), comparison sub-questions, tools from the routing table, and
        whether it takes the fast path.
    """
    exact = find_exact_terms(question)
    subjects = comparison_subjects(question)
    query_type = classify(question, exact)
    keywords = keywords_for(question, exact)
    sub_questions = tuple(subjects) if subjects else ()
    return Analysis(
        query_type=query_type,
        exact_terms=tuple(exact),
        grep_keywords=tuple(keywords),
        sub_questions=sub_questions,
        suggested_tools=ROUTING_TABLE[query_type],
        fast_path=is_simple(question) and not sub_questions,
    )


def classify(question: str, exact_terms: list[str] | None = None) -> QueryType:
    """The query type by cue words, in priority order.

    relational (how things connect) → file_discovery (which document) → weak relational (和…相关)
    → conceptual (comparisons; why / how do / can I …) → exact (identifiers, or a question after one specific
    fact: how many, default, which port …) → conceptual.
    """
    if any(p.search(question) for p in _RELATIONAL):
        return "relational"
    if any(p.search(question) for p in _FILE_DISCOVERY):
        return "file_discovery"
    if _RELATIONAL_WEAK.search(question):
        return "relational"
    # a comparison asks for an explanation of a difference, even between two identifiers
    if comparison_subjects(question) or any(p.search(question) for p in _CONCEPTUAL):
        return "conceptual"
    if exact_terms is None:
        exact_terms = find_exact_terms(question)
    if exact_terms or any(p.search(question) for p in _FACT):
        return "exact"
    return "conceptual"


def find_exact_terms(question: str) -> list[str]:
    """Quoted strings, identifiers, ticket IDs, error codes, env vars, paths and flags, in order."""
    found: list[tuple[int, str]] = []
    spans: list[tuple[int, int]] = []
    for m in _QUOTED.finditer(question):
        text = next(g for g in m.groups() if g is not None).strip()
        if text:
            found.append((m.start(), text))
            spans.append(m.span())
    for pattern in _EXACT_PATTERNS:
        for m in pattern.finditer(question):
            if any(s <= m.start() < e for s, e in spans):
                continue
            term = m.group().rstrip(".")
            if term.lower() in _NOT_IDENTIFIERS or len(term) < 3:
                continue
            found.append((m.start(), term))
            spans.append(m.span())
    for start, op in _operators(question):
        if not any(s <= start < e for s, e in spans):
            found.append((start, op))
    ordered = [t for _, t in sorted(found)]
    return list(dict.fromkeys(ordered))[:MAX_EXACT_TERMS]


# a number with a unit of size, time, frequency or length, typed without the space a page may put in (4KB, 100ms, 2GHz):
# searched for as typed (a name's grep step), but no name a page must write so (synthesize.question_names)
QUANTITY = re.compile(r"\d+(?:\.\d+)?(?:[KMGTP]i?B|[KMGT]|bytes?|ms|us|µs|ns|s|sec|secs|min|mins|h|hrs?|d|days?|[KMG]?Hz|px|em|rem|x)", re.I)
_NAME_WORD = re.compile(rf"(?<![{_L}.\-/])[A-Za-z0-9][{_L}.\-/+]*[{_L}+]|(?<![{_L}.\-/])[A-Z]")

# what a question gives as an example of its own ("某个文件（比如 src/main.go）", "a file, e.g. `app.py`"): the
# user's value, searched for like any word, but no name the KB must write for the question to be answered
_EXAMPLE = re.compile(r"(?:比如|例如|譬如|比方说|\be\.g\.|\bfor (?:example|instance)\b)[\s,:：，]*([^，,。；;）)?？!！\n]{1,40})", re.I)


def example_words(question: str) -> set[str]:
    """The names the question writes inside an example it gives (`src/main.go` in "（比如 src/main.go）")."""
    return {m.group() for ex in _EXAMPLE.finditer(question) for m in _NAME_WORD.finditer(ex.group(1))}


def _operators(text: str, *, sentence: bool = True) -> list[tuple[int, str]]:
    """The operators `text` names by themselves, with where each starts (`sentence`: `text` is a whole
    question, whose last `??` is punctuation; a comparison's subject ends where its operator does)."""
    out = []
    for m in _OPERATOR.finditer(text):
        op = m.group()
        if sentence and m.end() == len(text.rstrip()) and set(op) <= set("?!."):
            continue  # "what is this??" ends in punctuation
        if not _NOT_OPERATORS.fullmatch(op) or op in _DOUBLED_OPERATORS:
            out.append((m.start(), op))
    return out


def operators(text: str, *, sentence: bool = True) -> list[str]:
    """The operators `text` names by themselves (`??`, `||`, `=>`), in order."""
    return [op for _, op in _operators(text, sentence=sentence)]


def is_operator(term: str) -> bool:
    """An exact term that is an operator (`??`, `||`): no word the tokenizer keeps, so it is matched as written."""
    return _OPERATOR_TERM.fullmatch(term) is not None


def named_words(question: str) -> list[str]:
    """Words the question writes as names: a capital after the first word (`Kafka`, `AWS Lambda`), a
    capital inside (`FastAPI`, `gRPC`), a digit or identifier punctuation (`HTTP/3`, `cache.ttl`); any
    Latin word of a Chinese question. Ordinary words (`bad`, `cost`) are not names even when rare."""
    out = []
    first = True
    for m in _NAME_WORD.finditer(question):
        w = m.group()
        if not any(c.isalpha() for c in w):
            continue  # a bare number is a value, not a name
        inner = any(c.isupper() for c in w[1:]) or any(c.isdigit() or c in "._-/+" for c in w)
        if inner or (w[0].isupper() and not first and w.lower() not in STOPWORDS) or has_cjk(question):
            out.append(w)
        first = False
    return [w for w in dict.fromkeys(out) if len(w) > 1]


def keywords_for(question: str, exact_terms: list[str]) -> list[str]:
    """Search keywords in surface form: exact terms first, then content words (CJK via jieba)."""
    words: list[str] = list(exact_terms)
    inside_exact = {t.lower() for term in exact_terms for t in re.split(r"[\s._/-]+", term)}
    filler = frozenset() if has_cjk(question) else _FILLER  # a Chinese question's Latin words are names (`find`)
    for m in LATIN_WORD.finditer(question):
        w = m.group()
        lw = w.lower()
        if lw in STOPWORDS or lw in filler or len(w) < 3 or lw in inside_exact or any(w in t for t in exact_terms):
            continue
        words.append(w)
    if has_cjk(question):
        for tok in tokenize(question, drop_stopwords=True):
            if has_cjk(tok) and len(tok) >= 2 and tok not in _CJK_FILLER:
                words.append(tok)
    seen: set[str] = set()
    out: list[str] = []
    for w in words:
        if w.lower() not in seen:
            seen.add(w.lower())
            out.append(w)
    return out[:MAX_KEYWORDS]


_CJK_FILLER = frozenset("文件 文档 哪个 哪些 哪里 什么 怎么 如何 为什么 多少 是否 说明 描述 记录 一下 告诉 请问 知识库".split())


# a comparison is asked in one sentence: the patterns read at most this much of the question — its last sentence
# (a pasted paragraph before "…what is the difference between A and B?" is context). Their lazy groups cost
# the cube of what they read: 600 characters of 和 took 4 s, the 4,000 a question may have would take minutes
COMPARISON_MAX_CHARS = 200
_SENTENCE_END = re.compile(r"(?<=[.!?。！？\n])\s*(?=\S)")


def comparison_text(question: str) -> str:
    """What the comparison patterns read: the question, or its last sentence when it is long; '' when even
    that is longer than COMPARISON_MAX_CHARS."""
    q = question.strip()
    if len(q) > COMPARISON_MAX_CHARS:
        q = _SENTENCE_END.split(q)[-1].strip()
    return q if len(q) <= COMPARISON_MAX_CHARS else ""


def comparison_subjects(question: str) -> list[str]:
    """The two things a comparison question compares, or [] when it is not a comparison."""
    q = comparison_text(question)
    for pattern in _COMPARISON:
        m = pattern.search(q)
        if m:
            a, b = m.group("a").strip(" ,，"), m.group("b").strip(" ,，")
            if pattern in _CHINESE_COMPARISON:
                # the first side starts at its clause ("我在用 Redis，Redis 和 Memcached 有什么区别？"), and one that points back
                # ("…换成 Jaeger。两者在 EventMesh 里的配置项和默认端口有什么不同？") compares what the clause names, not the things before
                a = _CLAUSE_BREAK.split(a)[-1].strip()
                if POINTS_BACK_ZH.match(a):
                    continue
            if (scoped := _SCOPE.match(a)) is not None:
                a = scoped.group("rest")  # "Rust 里宏和函数": the scope is not a side of the comparison
            b = second_side(b, a)
            if distinct_subjects(a, b):
                return [a, b]
    return []


# what may trail the second side of an English comparison without being part of it: an aside in brackets after a
# space ("weak references (Rc::clone vs Rc::downgrade)", not the call in `v.get(100)`) and a clause from a
# preposition or conjunction on ("v-show for a panel I toggle", "integration tests in rust")
_ASIDE = re.compile(r"\s+[(（][^()（）]*[)）]\s*$")
# a dash or a colon or semicolon before more words starts another clause ("… and B — which problem is each one meant for?")
_NEXT_CLAUSE = re.compile(r"\s+[—–]\s*|\s*[—–]\s+|\s*[:;]\s+")
# a side that ends in a pronoun points at what its trailing clause names
_POINTS_BACK = re.compile(r"\b(?:it|them|this|that|these|those|one|ones)$", re.I)
_TRAILING_CLAUSE = re.compile(r"\s+(?:for|in|on|when|if|with|to|inside|within|while|because|since)\s+[^\s].*$", re.I)


# the kind of thing both sides are, written once after the second ("the flat-playlist and lazy-playlist switches", "git
# fetch and git pull commands"): no word a page about the second side must write
_KIND = re.compile(r"\s+(?:switch|option|flag|command|subcommand|setting|mode|method|function|prop|propertie|parameter|param|"
                   r"argument|field|key|variable|attribute|directive|keyword|operator|endpoint|hook|annotation|decorator)e?s$", re.I)
_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.I)


def second_side(b: str, a: str = "") -> str:
    """The second side of a comparison as the thing compared: in English, without its trailing aside or clause, nor the
    plural kind of thing after it when what is left is as many words as the first side `a` (`lazy-playlist switches`
    beside `the flat-playlist`; not `React hooks` beside `Vue mixins`)."""
    if re.search(r"[A-Za-z]", b) and not re.search(r"[\u4e00-\u9fff]", b):
        b = _ASIDE.sub("", _NEXT_CLAUSE.split(b, maxsplit=1)[0])
        cut = _TRAILING_CLAUSE.sub("", b)
        # what is left must still name the thing: "creating it with defineClientComponent" is about defineClientComponent
        if cut and not _POINTS_BACK.search(cut):
            b = cut
        kind = _KIND.search(b)
        if kind and a and not _KIND.search(a):
            rest = b[: kind.start()]
            if len(_ARTICLE.sub("", rest).split()) == len(_ARTICLE.sub("", a).split()):
                b = rest
    return b


# a command-line option (`-F`, `--force`): its case is its meaning (`tail -f` is not `tail -F`)
OPTION = re.compile(r"(?<![\w-])--?[A-Za-z][\w-]*")


def distinct_subjects(a: str, b: str) -> bool:
    """Two different things to compare: not the same words in another case, unless an option's case
    is what tells them apart (`tail -f` and `tail -F`)."""
    if not a or not b or a == b:
        return False
    return a.lower() != b.lower() or bool(OPTION.search(a))


def is_simple(question: str) -> bool:
    """One short question: no decomposition needed."""
    words = len(question.split())
    cjk = sum(1 for ch in question if has_cjk(ch))
    several = question.count("?") + question.count("？") > 1 or bool(re.search(r"\?\s*\w.*\band\b.*\?", question))
    return not several and words <= FAST_PATH_MAX_WORDS and cjk <= FAST_PATH_MAX_CJK_CHARS


def analyze(question: str) -> Analysis:
    """Alias of analyze_question (the name `kb search --tool auto` imports)."""
    return analyze_question(question)
