"""Subjects of a question: the things a comparison compares and the term a "which pages mention X"
question lists files for, and whether retrieved text covers each subject."""

from __future__ import annotations

import re
from collections.abc import Iterable

from kb_agent.agent.analyzer import LATIN_WORD_CHARS as _L
from kb_agent.agent.analyzer import OPTION, POINTS_BACK_ZH, comparison_text, distinct_subjects, operators, second_side
from kb_agent.agent.analyzer import comparison_subjects as _analyzer_subjects
from kb_agent.index.tokenize import matching_terms, tokenize
from kb_agent.types import Evidence

# subject words that say nothing about which thing is meant
_SUBJECT_FILLER = frozenset("the a an of in on for to with using use when what which how is are do does 的 在 用 使用".split())
# cut off as a word of its own at the end of a side, where the thing is ("Pod 上", "过滤器里"), not what it is
_WHERE_AFTER = frozenset("上 里 中 内".split())
_MORE_COMPARISONS = [
    re.compile(r"\b(?:should\s+(?:i|we)\s+(?:use|go\s+with|pick|choose|prefer)|when\s+(?:should\s+(?:i|we)\s+)?(?:to\s+)?use)\s+(?P<a>.+?)\s+(?:or|vs\.?|versus)\s+(?P<b>.+?)[?.!]*$", re.I),
    re.compile(r"\bhow\s+(?:does|do|is|are)\s+(?P<a>.+?)\s+differ(?:ent)?\s+from\s+(?P<b>.+?)[?.!]*$", re.I),
    re.compile(r"(?P<a>[^，,？?。！!；;]+?)\s*(?:和|与|跟)\s*(?P<b>[^，,？?。！!；;]+?)\s*(?:(?:有)?(?:什么|啥)?(?:区别|不同|差别|差异|不一样)|(?:是)?(?:一样|相同|一回事)(?:的)?吗)"),
    # "硬链接和软链接分别怎么创建？", "A 和 B 各自支持哪些 shell": one question asked of each of two things
    re.compile(r"(?P<a>[^，,？?。：:]+?)\s*(?:和|与|跟)\s*(?P<b>[^，,？?。：:]+?)\s*(?:分别|各自)(?:都)?(?:怎么|如何|会|要|是|有|支持|用|做|写|对应|在)"),
    # "how does X differ between A and B"
    re.compile(r"\bdiffer(?:s|ent)?\s+between\s+(?:the\s+)?(?P<a>[^.?!:;,—]+?)\s+and\s+(?:the\s+)?(?P<b>[^.?!:;,—]+?)\s*(?:[.?!:;,—]|$)", re.I),
    # "A 还是 B？" asks which; 还是 before what happens ("重启以后还是连不上", "可是下载还是报 401") means "still"
    re.compile(r"(?P<a>[^，,？?。！!；;]+?)(?<!以后)(?<!之后)(?<!可是)(?<!但是)(?<![但却后])\s*(?:还是)\s*"
               r"(?!不|没|无法|报|一直|依然|仍|会|失败|出错|有问题|一样)(?P<b>[^，,？?。！!；;]+?)[？?。]*$"),
    re.compile(r"(?P<a>[^，,？?。！!；;]+?)\s*(?:和|与|跟)\s*(?P<b>[^，,？?。！!；;]+?)\s*(?:该|应该|要)?(?:怎么选|如何选择?|选哪个|用哪个)"),
    # a two-word name before "compared" stays whole when both words are capitalised ("Google Drive compared with OneDrive":
    # Drive alone is a word of OneDrive too)
    re.compile(rf"(?P<a>(?:(?-i:[A-Z])[{_L}.\-]*\s+(?=(?-i:[A-Z])))?[{_L}.\-]+)\s+compared\s+(?:with|to)\s+(?P<b>[{_L}.\-]+)", re.I),
    # "I'm choosing between the rsync and the FTPSync deployer. …", "在 A 和 B 之间选哪个" (the sentence ends the pair)
    re.compile(r"\b(?:choos(?:e|ing)|decid(?:e|ing)|pick(?:ing)?|torn)\s+between\s+(?:the\s+)?(?P<a>[^.?!:;,—]+?)\s+and\s+(?:the\s+)?(?P<b>[^.?!:;,—]+?)\s*(?:[.?!:;,—]|$)", re.I),
    re.compile(r"在\s*(?P<a>[^，,？?。]+?)\s*(?:和|与|跟)\s*(?P<b>[^，,？?。]+?)\s*(?:之间|中间)(?:选|挑|做选择|纠结|犹豫)"),
    # "A or B: when should I use which?", "A or B — which one?" — A starts the sentence: a sentence of situation before
    # it ("… I no longer maintain it. Should I deprecate it or unpublish it — what happens …") is no word of A
    re.compile(r"(?:^|(?<=[.!;]\s))(?P<a>(?:[^:?,—.!;]|[.!](?!\s))+?)\s+or\s+(?P<b>[^:?,—]+?)\s*[:?,—-]+\s*(?:when|which|what|how)\b", re.I),
    # "PUT vs PATCH for updating an item — …": one or two words either side of vs (the second's second word
    # only an option: "ssh -L vs ssh -R port forwarding"); a word may be code (`v[100] vs v.get(100)`)
    re.compile(rf"(?P<a>[{_L}.\-\[\]():]+(?:\s+[{_L}.\-]+)?)\s+(?:vs\.?|versus)\s+(?P<b>[{_L}.\-\[\]():]*[{_L}\])](?:\s+--?[A-Za-z][\w-]*)?)", re.I),
]
# a side that only points back at an earlier sentence ("静态 Pod 是什么？它跟 … 有啥不一样？") names nothing to search for
_PRONOUN = re.compile(r"它|它们|他|她|这|那|这个|那个|其|this|that|it|they|them", re.I)
# "A 和 B 这两种策略，结果有什么不同？": the pair named as "these two …" (the difference may be asked after a comma; the sides
# end where "这两种" begins)
_THESE_TWO = re.compile(r"(?P<a>[^，,？?。]+?)\s*(?:和|与|跟)\s*(?P<b>[^，,？?。]+?)\s*(?:这|那)?(?:两|二)(?:种|个|类|款|项|者)"
                        r"(?=[^？?]*(?:区别|不同|差别|差异|分别|各自))")
_MENTION = [
    re.compile(
        r"\b(?:which|what|list(?:\s+all)?|find(?:\s+all)?|show(?:\s+all)?)\s+(?:other\s+)?(?:pages?|files?|docs?|documents?|runbooks?|notes?|adrs?)\s+"
        r"(?:mention|mentions|refer\s+to|refers\s+to|reference|references|link\s+to|links\s+to|cite|cites|talk\s+about|use|uses|discuss|discusses)\s+"
        r"(?P<x>.+?)[?.!]*$",
        re.I,
    ),
    re.compile(r"(?:哪些|哪个|哪几个|列出)(?:页面|文档|文件|手册|笔记)(?:里|中)?(?:提到|提及|引用|涉及|链接到|讲到|用到)了?(?P<x>.+?)[？?。]*$"),
]


def comparison_subjects(question: str) -> list[str]:
    """The things a comparison question compares ("difference between A and B", "A vs B",
    "比较 A 和 B", "A 和 B 有什么区别"); [] when it is not a comparison."""
    q = comparison_text(question)
    m = _THESE_TWO.search(q) if q else None
    if m and distinct_subjects(a := m.group("a").strip(" ,，的"), b := m.group("b").strip(" ,，的")):
        return [a, b]
    found = _analyzer_subjects(question)
    if found:
        return found
    for pattern in _MORE_COMPARISONS:
        m = pattern.search(q) if q else None
        if m:
            a = m.group("a").strip(" ,，的")
            b = second_side(m.group("b").strip(" ,，的"), a)
            # a side that points back ("两者在 … 的配置项和默认端口有什么不同？") compares what it says of things named before
            if distinct_subjects(a, b) and not (_PRONOUN.fullmatch(a) or _PRONOUN.fullmatch(b) or POINTS_BACK_ZH.match(a)):
                return [a, b]
    return []


def mention_target(question: str) -> str | None:
    """X in "which pages mention X" / "哪些文档提到了 X", quotes removed; None otherwise."""
    q = comparison_text(question)
    for pattern in _MENTION:
        m = pattern.search(q) if q else None
        if m:
            x = m.group("x").strip().strip("\"'`“”「」")
            return x or None
    return None


# code written on the question's own example: a one- or two-letter variable indexed or calling a method
# (`v[100]`, `v.get(100)`): what a page that explains it writes is the indexing (`[]`) and the method (`get`)
_EXAMPLE_INDEX = re.compile(r"[A-Za-z_]\w?\[[^\]]*\]")
_EXAMPLE_CALL = re.compile(r"[A-Za-z_]\w?\.(?P<method>[A-Za-z_]\w*)\(.*\)")


def _as_written(subject: str) -> tuple[str, list[str]]:
    """The subject as a page writes it, and what a text must hold as written (`[]` for `v[100]`, `get` for `v.get(100)`)."""
    s = subject.strip().strip("`")
    if _EXAMPLE_INDEX.fullmatch(s):
        return "", ["[]"]
    if (m := _EXAMPLE_CALL.fullmatch(s)) is not None:
        return "", [m.group("method")]  # as written: `get` is a stopword to the tokenizer
    return subject, []


def subject_terms(subject: str) -> list[str]:
    """The subject's content tokens (what a passage must contain to be about it)."""
    subject = _as_written(subject)[0]
    terms = [t for t in tokenize(subject, drop_stopwords=True) if t not in _SUBJECT_FILLER]
    # 上 / 里 / 中 / 内 cut off at the end of a side say where the thing is ("Pod 上和过滤器里分别要怎么配": the Pod, the
    # filter); 线上, 其中 stay whole words, and one inside a side is left as it is ("tar 参数里小写 j")
    if len(terms) > 1 and terms[-1] in _WHERE_AFTER:
        terms.pop()
    return list(dict.fromkeys(terms))


def as_written(subject: str) -> list[str]:
    """What a text must hold exactly as the subject writes it: its options, operators, and the indexing or method of
    code on the question's own example (`-R`, `??`, `[]`, `get`)."""
    written, literal = _as_written(subject)
    return [*OPTION.findall(written), *operators(written, sentence=False), *literal]


_ONE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*")


def covers(subject: str, texts: Iterable[str]) -> bool:
    """True when one of `texts` holds all of the subject's content tokens (at least half for long subjects)."""
    terms = subject_terms(subject)
    options = as_written(subject)
    if not terms and not options:
        return True
    need = len(terms) if len(terms) <= 2 else (len(terms) + 1) // 2
    if any(not OPTION.fullmatch(o) for o in options):
        need = 0  # an operator is the subject, its words the setting ("设置默认值时用 ??" and "用 ||")
    # a one-word name written in any case inside a longer identifier (`OneDrive` in `--onedrive-chunk-size`, whose parts
    # the tokenizer stems apart from the camel-case name's)
    word = re.compile(rf"(?<![A-Za-z0-9]){re.escape(subject.strip())}(?![A-Za-z0-9])", re.I) if _ONE_NAME.fullmatch(subject.strip()) and not options else None
    for text in texts:
        if word is not None and word.search(text):
            return True
        # an option or operator is matched as written, case and all (`-F` is not `-f`, `--force` is not `--force-with-lease`)
        if len(matching_terms(terms, text)) >= need and all(re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", text) for o in options):
            return True
    return False


def uncovered(subjects: Iterable[str], texts: list[str]) -> list[str]:
    """The subjects no text covers."""
    return [s for s in subjects if not covers(s, texts)]


def subject_gaps(question: str, items: Iterable[Evidence]) -> list[str]:
    """The comparison subjects of `question` that no item (its path, headings or text) is about."""
    subjects = comparison_subjects(question)
    if not subjects:
        return []
    texts = [f"{e.path.replace('/', ' ').replace('-', ' ')} {' '.join(e.heading_path)} {e.text}" for e in items]
    return uncovered(subjects, texts)


def mention_route(question: str, routing: list[str], exact_terms: list[str], keywords: list[str]) -> tuple[list[str], list[str], list[str]] | None:
    """For "which pages mention X": grep for X and the link graph around X come first (both count as
    evidence), with X as the exact term; None for other questions."""
    target = mention_target(question)
    if target is None:
        return None
    return (list(dict.fromkeys(["grep", "related", *routing])), list(dict.fromkeys([target, *exact_terms])), list(dict.fromkeys([target, *keywords])))
