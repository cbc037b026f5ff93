"""The import rules of docs/ARCHITECTURE.md, checked on the source (an AST walk, no import-time side effects)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "kb_agent"

# Top to bottom. A part may import parts in tiers below its own and nothing above; parts sharing a
# tier are independent of each other, except in the foundation tier (the last), whose modules build
# on each other.
TIERS: tuple[tuple[str, ...], ...] = (
    ("__main__",),
    ("cli",),
    ("chat", "checks", "mcp"),
    ("render",),
    ("agent", "status"),
    ("llm", "retrieval"),
    ("index",),
    ("corpus",),
    ("__init__", "errors", "types", "names", "settings", "trust", "plugins"),
)

# (importing module, imported module) pairs tolerated while the `render` layer is being built
# (issue 11): empty since kb_agent/render/ was merged; an entry here must be a known, temporary import — the
# test below fails on an entry that no longer occurs, so it cannot go stale.
KNOWN_VIOLATIONS: frozenset[tuple[str, str]] = frozenset()


@dataclass(frozen=True, slots=True)
class Violation:
    importer: str
    imported: str
    line: int

    def __str__(self) -> str:
        return f"{self.importer}:{self.line} imports {self.imported}"


def part_of(module: str) -> str:
    """`kb_agent.index.build` → "index"; `kb_agent.settings` → "settings"; `kb_agent` → "__init__"."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def tier_of(part: str) -> int:
    for i, tier in enumerate(TIERS):
        if part in tier:
            return i
    raise LookupError(f"kb_agent.{part} is in no tier of TIERS (docs/ARCHITECTURE.md): add it")


def allowed(importer: str, imported: str) -> bool:
    a, b = part_of(importer), part_of(imported)
    if a == b:
        return True
    ta, tb = tier_of(a), tier_of(b)
    return tb > ta or (tb == ta == len(TIERS) - 1)


def module_name(path: Path, package: Path) -> str:
    rel = path.relative_to(package.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def runtime_imports(tree: ast.Module, module: str, is_package: bool, package: Path) -> list[tuple[str, int]]:
    """kb_agent modules imported at run time (lazy imports inside functions count; `if TYPE_CHECKING:` blocks do not)."""
    found: list[tuple[str, int]] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.extend((a.name, node.lineno) for a in node.names if a.name.split(".")[0] == "kb_agent")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".") if is_package else module.split(".")[:-1]
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join([*pkg, base] if base else pkg)
            if base.split(".")[0] == "kb_agent":
                if base == "kb_agent":  # `from kb_agent import names` imports a module; `__version__` is the package's
                    found.extend((f"kb_agent.{a.name}" if _is_module(package, a.name) else "kb_agent", node.lineno) for a in node.names)
                else:
                    found.append((base, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _is_module(package: Path, name: str) -> bool:
    return (package / f"{name}.py").is_file() or (package / name / "__init__.py").is_file()


def violations(package: Path) -> list[Violation]:
    """Every runtime import in `package` that breaks the tier rules."""
    out = []
    for path in sorted(package.rglob("*.py")):
        module = module_name(path, package)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for imported, line in runtime_imports(tree, module, path.name == "__init__.py", package):
            if not allowed(module, imported):
                out.append(Violation(module, imported, line))
    return out


def test_kb_agent_keeps_its_layers() -> None:
    found = violations(PACKAGE)
    new = [str(v) for v in found if (v.importer, v.imported) not in KNOWN_VIOLATIONS]
    assert not new, "imports that break docs/ARCHITECTURE.md:\n" + "\n".join(new)
    stale = KNOWN_VIOLATIONS - {(v.importer, v.imported) for v in found}
    assert not stale, f"KNOWN_VIOLATIONS lists imports that are gone; remove them: {sorted(stale)}"


def test_every_part_has_a_tier() -> None:
    parts = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir() if (p.suffix == ".py" or (p / "__init__.py").exists())}
    for part in parts:
        tier_of(part)


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    pkg = tmp_path / "kb_agent"
    for rel, text in files.items():
        f = pkg / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text, encoding="utf-8")
    return pkg


@pytest.mark.parametrize(
    ("rel", "source", "imported"),
    [
        ("corpus/chunking.py", "from kb_agent.agent.engine import Engine\n", "kb_agent.agent.engine"),
        ("index/store.py", "def f():\n    import kb_agent.retrieval.grep\n", "kb_agent.retrieval.grep"),  # lazy imports count
        ("retrieval/grep.py", "from ..llm import base\n", "kb_agent.llm"),  # siblings are independent; relative form
        ("render/answer.py", "from kb_agent.cli import app\n", "kb_agent.cli"),  # render knows no command
        ("chat/repl.py", "from kb_agent import checks\n", "kb_agent.checks"),
        ("settings.py", "from kb_agent.index import build\n", "kb_agent.index"),
    ],
)
def test_a_synthetic_violation_is_caught(tmp_path: Path, rel: str, source: str, imported: str) -> None:
    pkg = _package(tmp_path, {"__init__.py": "", "checks/__init__.py": "", rel: source})
    assert [(v.imported, v.line > 0) for v in violations(pkg)] == [(imported, True)]


def test_allowed_imports_pass(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {
        "__init__.py": "",
        "agent/nodes.py": "from kb_agent.retrieval.query import clean_query\nfrom kb_agent.llm.base import ChatModel\n",
        "cli/ask_cmd.py": "from kb_agent.chat import session\nfrom kb_agent.render import answer\n",
        "settings.py": "from kb_agent.names import INDEX_DIR\n",
        "plugins.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from kb_agent.llm.base import ChatModel\n",
        "index/build.py": "from .manifest import Catalog\nfrom kb_agent.corpus.chunking import parse_document\n",
    })
    assert violations(pkg) == []
