"""The link graph: resolve markdown links and [[wikilinks]] to KB files; neighbours and backlinks."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote

from kb_agent.corpus.discover import MARKDOWN_SUFFIXES, page_name
from kb_agent.index.manifest import Catalog, FileRow


@dataclass(frozen=True, slots=True)
class LinkResolver:
    paths: frozenset[str]
    wiki_keys: dict[str, str]

    @classmethod
    def from_files(cls, files: Iterable[FileRow]) -> LinkResolver:
        rows = [f for f in files if f.status == "ok"]
        paths = frozenset(f.path for f in rows)
        keys: dict[str, str] = {}
        # weakest first, so that exact paths win over titles and aliases
        for f in rows:
            for k in (*f.aliases, f.title):
                if k:
                    keys.setdefault(k.strip().lower(), f.path)
        for f in rows:
            stem = page_name(f.path).lower()
            keys[stem] = keys.get(stem, f.path) if stem in keys and keys[stem].count("/") < f.path.count("/") else f.path
        for f in rows:
            keys[f.path.rsplit(".", 1)[0].lower()] = f.path
            keys[f.path.lower()] = f.path
        return cls(paths, keys)

    def resolve(self, src: str, target: str, kind: str) -> str | None:
        """The KB path a link points at, or None when it points nowhere in the KB."""
        if kind == "wiki":
            t = target.strip().lower().lstrip("./")
            if not t:
                return src
            return self.wiki_keys.get(t) or self.wiki_keys.get(t.rsplit(".", 1)[0] if t.endswith(MARKDOWN_SUFFIXES) else t)
        if not target:
            return src
        t = unquote(target)
        base = "" if t.startswith("/") else posixpath.dirname(src)
        norm = posixpath.normpath(posixpath.join(base, t.lstrip("/")))
        if norm.startswith("../") or norm == "..":
            return None
        candidates = [norm]
        if not norm.lower().endswith(MARKDOWN_SUFFIXES):
            candidates += [norm + s for s in MARKDOWN_SUFFIXES] + [f"{norm}/README.md", f"{norm}/index.md"]
        return next((c for c in candidates if c in self.paths), None)


def resolve_all_links(cat: Catalog) -> None:
    """Recompute every link's resolved target (cheap; a change can fix or break links elsewhere)."""
    resolver = LinkResolver.from_files(cat.files().values())
    rows = []
    for path, line, target, _anchor, kind, _text, old in cat.links():
        new = resolver.resolve(path, target, kind)
        if new != old:
            rows.append((new, path, line, target, kind))
    if rows:
        cat.set_link_resolutions(rows)


def neighbours(cat: Catalog, paths: set[str]) -> list[tuple[str, str, int, str | None, str]]:
    """Links out of and into `paths`: (direction, other path, line in the linking file, anchor, via)."""
    out: list[tuple[str, str, int, str | None, str]] = []
    for path, line, _target, anchor, _kind, _text, resolved in cat.links_touching(paths):
        if resolved is None or resolved == path:
            continue
        if path in paths and resolved not in paths:
            out.append(("links_to", resolved, line, anchor, path))
        elif resolved in paths and path not in paths:
            out.append(("linked_from", path, line, None, resolved))
    return out
