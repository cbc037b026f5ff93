"""The `kb check` spec: load a YAML file of checks and validate it, every error naming file and line.

Validation walks yaml's node tree (not the loaded dict) so each key keeps its line number.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb_agent.corpus.pathmatch import PathGlobs
from kb_agent.errors import InvalidQuery, UsageError
from kb_agent.names import QUERY_TYPES, TOOL_NAMES
from kb_agent.retrieval.query import MAX_QUESTION_CHARS, clean_text
from kb_agent.types import SearchFilters

SPEC_VERSION = 1
CHECK_KEYS = ("id", "question", "description", "cites", "contains", "not_found", "min_confidence", "query_type", "tool", "paths", "tags")
DEFAULT_KEYS = ("min_confidence", "tool")
TOP_KEYS = ("version", "defaults", "checks")
# these take path globs (kb_agent.corpus.pathmatch: gitignore-style, the same as `kb search --path`)
GLOB_KEYS = ("cites", "paths")
# A spec of a thousand checks is well under 1 MB; a bigger "spec" is not one, and is not read.
MAX_SPEC_BYTES = 4 * 1024 * 1024
# Values a spec may hold once YAML aliases are expanded: generous for real specs, fatal to alias bombs.
MAX_SPEC_NODES = 200_000
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,99}$")
_STR = "tag:yaml.org,2002:str"
_BOOL = "tag:yaml.org,2002:bool"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_NULL = "tag:yaml.org,2002:null"


class SpecError(UsageError):
    """The check spec cannot be used: bad YAML, an unknown key, a missing or ill-typed value."""

    def __init__(self, file: str, line: int, reason: str, hint: str | None = None) -> None:
        where = f"{file}:{line}" if line > 0 else file
        super().__init__(f"{where}: {reason}", hint=hint or "see docs/CHECKS.md for the spec format")
        self.file = file
        self.line = line
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Expect:
    """One expected value (a citation glob or a text) and the spec line it was written on."""

    value: str
    line: int


@dataclass(frozen=True, slots=True)
class Check:
    """One check: a question and what the answer must (or must not) show."""

    id: str
    question: str
    line: int  # where the check starts in the spec
    cites: tuple[Expect, ...] = ()
    contains: tuple[Expect, ...] = ()
    not_found: bool = False
    min_confidence: float | None = None
    query_type: str | None = None
    tool: str | None = None
    filters: SearchFilters = SearchFilters()
    description: str = ""
    key_lines: dict[str, int] = field(default_factory=dict, compare=False, hash=False)

    def line_of(self, key: str) -> int:
        """The spec line of `key` in this check (the check's own line when the key is absent)."""
        return self.key_lines.get(key, self.line)


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """A validated spec: its path as the user gave it and its checks in file order."""

    path: str
    checks: tuple[Check, ...]


def load_spec(path: Path | str, *, display: str | None = None) -> CheckSpec:
    """Read and validate a check spec.

    Args:
        path: the YAML file.
        display: how to name the file in errors and reports (default: `path` as given).

    Returns:
        The CheckSpec.

    Raises:
        SpecError: unreadable file, YAML syntax error, or any invalid key or value (file:line: reason).
    """
    from kb_agent.corpus.fileio import UnsafeFile, read_regular_bytes

    name = display or str(path)
    try:
        text = read_regular_bytes(path, MAX_SPEC_BYTES).decode("utf-8")
    except UnsafeFile as e:  # `kb check /dev/zero`, a FIFO, a huge file: refused before reading
        raise SpecError(name, 0, f"cannot read the spec: {e.strerror}", hint="pass the path of a YAML check spec, e.g. kb-checks.yaml") from None
    except FileNotFoundError:
        raise SpecError(name, 0, "spec file not found", hint="pass the path of a YAML check spec, e.g. kb-checks.yaml") from None
    except UnicodeDecodeError as e:
        raise SpecError(name, 1, f"not valid UTF-8 ({e.reason})") from None
    except OSError as e:
        raise SpecError(name, 0, f"cannot read the spec ({e.strerror or e})") from None
    return parse_spec(text, name)


def parse_spec(text: str, name: str = "<spec>") -> CheckSpec:
    """Validate spec text; `name` is used in error messages. Raises SpecError."""
    import yaml

    from kb_agent.corpus.markdown import FrontMatterRefused, check_yaml_expansion

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
        if root is not None:
            check_yaml_expansion(root, MAX_SPEC_NODES)
    except FrontMatterRefused as e:
        raise SpecError(name, 1, f"YAML refused: {e}") from None
    except RecursionError:
        raise SpecError(name, 1, "YAML refused: nested too deeply") from None
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else 1
        problem = " ".join(f"{e.context or ''} {e.problem or ''}".split()) or "invalid YAML"
        raise SpecError(name, line, f"YAML syntax error: {problem}") from None
    except yaml.YAMLError as e:
        raise SpecError(name, 1, f"YAML error: {e}") from None
    return _Validator(name).spec(root)


class _Validator:
    def __init__(self, name: str) -> None:
        self.name = name

    def fail(self, node: Any, reason: str, hint: str | None = None) -> SpecError:
        return SpecError(self.name, _line(node), reason, hint)

    def mapping(self, node: Any, allowed: tuple[str, ...], what: str) -> dict[str, tuple[Any, Any]]:
        import yaml

        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, f"{what} must be a mapping of keys to values")
        out: dict[str, tuple[Any, Any]] = {}
        for k, v in node.value:
            key = k.value if isinstance(k, yaml.ScalarNode) else None
            if not isinstance(key, str) or key == "":
                raise self.fail(k, f"{what}: keys must be plain names")
            if key in out:
                raise self.fail(k, f"{what}: duplicate key {key!r}")
            if key not in allowed:
                near = difflib.get_close_matches(key, allowed, n=1)
                hint = f"did you mean {near[0]!r}?" if near else f"allowed keys: {', '.join(allowed)}"
                raise self.fail(k, f"{what}: unknown key {key!r}", hint)
            out[key] = (k, v)
        return out

    def spec(self, root: Any) -> CheckSpec:
        import yaml

        if root is None:
            raise SpecError(self.name, 1, "the spec is empty", hint="it needs a `checks:` list")
        if isinstance(root, yaml.SequenceNode):
            raise self.fail(root, "the spec must be a mapping with a `checks:` list, not a bare list", hint="put the list under `checks:`")
        top = self.mapping(root, TOP_KEYS, "spec")
        if "version" in top:
            _k, v = top["version"]
            if not (isinstance(v, yaml.ScalarNode) and v.tag == _INT and int(v.value) == SPEC_VERSION):
                raise self.fail(v, f"unsupported spec version {getattr(v, 'value', '?')!r}", hint=f"this kb reads version {SPEC_VERSION}")
        defaults: dict[str, Any] = {}
        if "defaults" in top:
            dmap = self.mapping(top["defaults"][1], DEFAULT_KEYS, "defaults")
            if "min_confidence" in dmap:
                defaults["min_confidence"] = self.confidence(dmap["min_confidence"][1])
            if "tool" in dmap:
                defaults["tool"] = self.choice(dmap["tool"][1], TOOL_NAMES, "tool")
        if "checks" not in top:
            raise self.fail(root, "the spec has no `checks:` list")
        seq = top["checks"][1]
        if not isinstance(seq, yaml.SequenceNode) or not seq.value:
            raise self.fail(seq, "`checks:` must be a non-empty list of checks")
        checks: list[Check] = []
        seen: dict[str, int] = {}
        for item in seq.value:
            check = self.check(item, defaults)
            if check.id in seen:
                raise self.fail(item, f"duplicate check id {check.id!r} (first at line {seen[check.id]})")
            seen[check.id] = check.line
            checks.append(check)
        return CheckSpec(self.name, tuple(checks))

    def check(self, node: Any, defaults: dict[str, Any]) -> Check:
        m = self.mapping(node, CHECK_KEYS, "check")
        line = _line(node)
        where = f"check at line {line}"
        if "id" not in m:
            raise self.fail(node, f"{where} has no `id`")
        cid = self.string(m["id"][1], "id")
        if not _ID.match(cid):
            raise self.fail(m["id"][1], f"check id {cid!r} must be letters, digits, '.', '_' or '-' (≤ 100 chars)")
        where = f"check {cid!r}"
        if "question" not in m:
            raise self.fail(node, f"{where} has no `question`")
        question = clean_text(self.string(m["question"][1], "question"))
        if not question:
            raise self.fail(m["question"][1], f"{where}: `question` is empty")
        if len(question) > MAX_QUESTION_CHARS:
            raise self.fail(m["question"][1], f"{where}: `question` is {len(question):,} characters; the limit is {MAX_QUESTION_CHARS:,}")
        not_found = self.boolean(m["not_found"][1], "not_found") if "not_found" in m else False
        cites = self.expects(m["cites"][1], "cites") if "cites" in m else ()
        contains = self.expects(m["contains"][1], "contains") if "contains" in m else ()
        min_conf = self.confidence(m["min_confidence"][1]) if "min_confidence" in m else None
        if not_found:
            clash = [k for k in ("cites", "contains", "min_confidence") if k in m]
            if clash:
                raise self.fail(m[clash[0]][0], f"{where}: `{clash[0]}` cannot be combined with `not_found: true`")
        elif min_conf is None:
            min_conf = defaults.get("min_confidence")
        query_type = self.choice(m["query_type"][1], QUERY_TYPES, "query_type") if "query_type" in m else None
        tool = self.choice(m["tool"][1], TOOL_NAMES, "tool") if "tool" in m else defaults.get("tool")
        paths = tuple(e.value for e in self.expects(m["paths"][1], "paths")) if "paths" in m else ()
        tags = tuple(e.value for e in self.expects(m["tags"][1], "tags")) if "tags" in m else ()
        description = self.string(m["description"][1], "description") if "description" in m else ""
        return Check(
            id=cid, question=question, line=line, cites=cites, contains=contains, not_found=not_found,
            min_confidence=min_conf, query_type=query_type, tool=tool, filters=SearchFilters(tags=tags, path_globs=paths),
            description=description, key_lines={k: _line(kn) for k, (kn, _v) in m.items()},
        )

    def string(self, node: Any, key: str) -> str:
        """A scalar's text as written (so `contains: 0.10` stays "0.10", not 0.1)."""
        import yaml

        if not isinstance(node, yaml.ScalarNode) or node.tag == _NULL or node.value == "":
            raise self.fail(node, f"`{key}` must be a non-empty text")
        if node.tag not in (_STR, _INT, _FLOAT, _BOOL):
            raise self.fail(node, f"`{key}` must be a text, not {node.tag}")
        return str(node.value)

    def expects(self, node: Any, key: str) -> tuple[Expect, ...]:
        import yaml

        items = node.value if isinstance(node, yaml.SequenceNode) else [node]
        if not items:
            raise self.fail(node, f"`{key}` is an empty list")
        out = []
        for it in items:
            value = self.string(it, key).strip()
            if not value:
                raise self.fail(it, f"`{key}` has an empty entry")
            if key in GLOB_KEYS:
                try:
                    PathGlobs([value])
                except InvalidQuery as e:
                    raise self.fail(it, f"`{key}`: {e.message}") from None
            out.append(Expect(value, _line(it)))
        return tuple(out)

    def boolean(self, node: Any, key: str) -> bool:
        import yaml

        if not (isinstance(node, yaml.ScalarNode) and node.tag == _BOOL):
            raise self.fail(node, f"`{key}` must be true or false")
        return node.value.lower() in ("true", "yes", "on")

    def confidence(self, node: Any) -> float:
        import yaml

        if isinstance(node, yaml.ScalarNode) and node.tag in (_INT, _FLOAT):
            try:
                value = float(node.value)
            except ValueError:
                value = -1.0
            if 0.0 <= value <= 1.0:
                return value
        raise self.fail(node, f"`min_confidence` must be a number from 0 to 1, got {getattr(node, 'value', '?')!r}")

    def choice(self, node: Any, allowed: tuple[str, ...], key: str) -> str:
        value = self.string(node, key)
        if value not in allowed:
            raise self.fail(node, f"`{key}` must be one of {', '.join(allowed)}; got {value!r}")
        return value


def _line(node: Any) -> int:
    mark = getattr(node, "start_mark", None)
    return mark.line + 1 if mark is not None else 1
