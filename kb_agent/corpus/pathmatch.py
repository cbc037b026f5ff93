"""Path globs with one meaning everywhere — search filters (`--path`, `path:`), `cites` in checks and
ignore files: gitignore's (through pathspec), matched against paths relative to the KB root.

- `*` and `?` stay inside one folder; `**` crosses folders (`docs/**/deploy.md`).
- A pattern without a `/` (other than a trailing one) matches a name at any depth: `deploy*.md`.
- A pattern with a `/` is anchored at the root: `runbooks/*.md` is the .md files directly in runbooks/.
- A pattern that matches a folder matches everything under it: `runbooks/` and `runbooks/*` both
  take the nested `runbooks/db/restore.md` too (as git would ignore it).
- Several patterns: a path matches when the last pattern that decides on it is not a `!` negation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

import pathspec

from kb_agent.errors import InvalidQuery


class PathGlobs:
    """Compiled globs; call it with a root-relative POSIX path.

    Args:
        patterns: gitignore-style patterns (see the module docstring).

    Raises:
        InvalidQuery: a pattern is not a valid glob.
    """

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(_normalise(p) for p in patterns if p.strip())
        try:
            self._spec = pathspec.GitIgnoreSpec.from_lines(self.patterns)
        except (ValueError, re.error) as e:  # pathspec compiles a bad range like `[z-a]` into a bad regex
            raise InvalidQuery(f"not a valid path glob: {e}", hint="globs are gitignore-style: runbooks/, docs/**/*.md, *deploy*") from None

    def __call__(self, path: str) -> bool:
        return bool(self.patterns) and bool(self._spec.match_file(path))


def glob_match(path: str, pattern: str) -> bool:
    """Whether the root-relative `path` matches one gitignore-style `pattern`.

    Raises:
        InvalidQuery: the pattern is not a valid glob.
    """
    return _compiled(pattern)(path)


def ignore_spec(lines: Iterable[str]) -> PathGlobs | None:
    """The rules of an ignore file (.gitignore, .kbignore); lines git would reject are skipped, as git does."""
    good = []
    for line in lines:
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except (ValueError, re.error):
            continue
        good.append(line)
    rules = [line for line in good if line.strip() and not line.startswith("#")]
    return PathGlobs(rules) if rules else None


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> PathGlobs:
    return PathGlobs([pattern])


def _normalise(pattern: str) -> str:
    p = pattern.strip()
    return p[2:] if p.startswith("./") else p
