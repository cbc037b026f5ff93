"""The trust boundary for settings: which sources may set what, the user's config directory, and the
folders the user trusted (`kb trust`). A folder's `.env` sets only harmless settings unless trusted."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from pydantic_settings import BaseSettings, DotEnvSettingsSource

from kb_agent.errors import ConfigError
from kb_agent.names import LINK_PRESETS

CONFIG_ENV = "config.env"
TRUSTED_FOLDERS = "trusted_folders"
FOLDER_ENV = ".env"

# Settings a `.env` in an untrusted folder may set: they change how kb ranks, cuts and waits, never
# which program runs, which code or model loads, or where documents and credentials are sent. An
# allowlist, so a setting added later is protected until someone decides it is harmless.
HARMLESS = frozenset({
    "embedding_batch_size",
    "llm_timeout_s",
    "llm_deadline_s",
    "llm_max_retries",
    "llm_temperature",
    "llm_max_tokens",
    "agent_max_iterations",
    "grade_drop_below",
    "grade_generate_at",
    "grade_reretrieve_below",
    "top_k",
    "rg_timeout_s",
    "progress_interval",
})
# Settings a folder's `.env` may set to some values only. KB_LINK_FORMAT: a preset names the file
# itself in a local editor; a custom template could send every click (and the file's absolute path)
# to any URL or URL handler, so only your own config may set one.
HARMLESS_VALUES: dict[str, Callable[[str], bool]] = {
    "link_format": lambda value: value.strip().lower() in LINK_PRESETS,
}


@dataclass(frozen=True, slots=True)
class IgnoredSetting:
    """A value a folder's `.env` tried to set and kb did not take."""

    key: str  # e.g. KB_RG_PATH
    env_file: Path  # the `.env` it came from
    folder: Path  # the folder to trust to honour it

    @property
    def opt_in(self) -> str:
        return f"kb trust {self.folder}"


# filled by FolderDotEnvSource while Settings is built; Settings.model_post_init collects it
_IGNORED: ContextVar[list[IgnoredSetting] | None] = ContextVar("kb_ignored_settings", default=None)


def config_dir(environ: Mapping[str, str] | None = None) -> Path:
    """The user's kb config folder: `$XDG_CONFIG_HOME/kb`, else `~/.config/kb`."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CONFIG_HOME", "").strip()
    if base and os.path.isabs(base):  # the XDG spec says a relative value is invalid and ignored
        return Path(base) / "kb"
    home = env.get("HOME", "").strip() or os.path.expanduser("~")
    return Path(home) / ".config" / "kb"


def trusted_folders() -> list[Path]:
    """The folders whose `.env` the user trusted, as recorded in the config folder."""
    path = config_dir() / TRUSTED_FOLDERS
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    except OSError as e:
        raise ConfigError(f"cannot read {path}: {e.strerror or e}", hint="fix its permissions or remove it") from None
    return [Path(line.strip()) for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]


def is_trusted(folder: Path) -> bool:
    """True when `folder` (compared by its resolved absolute path) was trusted with `kb trust`."""
    try:
        wanted = folder.resolve()
        return any(wanted == p for p in trusted_folders())
    except ConfigError:
        return False


def trust_folder(folder: Path) -> tuple[Path, bool]:
    """Record `folder` as trusted.

    Returns:
        The resolved folder and whether it was newly added (False: already trusted).

    Raises:
        ConfigError: the folder does not exist, or the config file cannot be written.
    """
    resolved = _existing_folder(folder)
    current = trusted_folders()
    if resolved in current:
        return resolved, False
    _write_trusted([*current, resolved])
    return resolved, True


def revoke_folder(folder: Path) -> tuple[Path, bool]:
    """Remove `folder` from the trusted folders.

    Returns:
        The resolved folder and whether it had been trusted.

    Raises:
        ConfigError: the config file cannot be written.
    """
    resolved = folder.expanduser().resolve()
    current = trusted_folders()
    if resolved not in current:
        return resolved, False
    _write_trusted([p for p in current if p != resolved])
    return resolved, True


def _existing_folder(folder: Path) -> Path:
    resolved = folder.expanduser().resolve()
    if not resolved.is_dir():
        raise ConfigError(f"not a folder: {folder}", hint="kb trust takes the folder that holds the .env to honour")
    return resolved


def _write_trusted(folders: Sequence[Path]) -> None:
    path = config_dir() / TRUSTED_FOLDERS
    text = "# folders whose .env kb honours in full (kb trust PATH / kb trust --revoke PATH)\n"
    text += "".join(f"{p}\n" for p in folders)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as e:
        raise ConfigError(f"cannot write {path}: {e.strerror or e}", hint="check the permissions of your config folder") from None


class FolderDotEnvSource(DotEnvSettingsSource):
    """A folder's `.env`: every setting when the folder is trusted, else only the HARMLESS ones.

    Refused values are dropped before they are parsed, so a malformed one cannot fail the load.
    """

    def __init__(self, settings_cls: type[BaseSettings], env_file: Path, *, trusted: bool, shadowed: frozenset[str] = frozenset()) -> None:
        super().__init__(settings_cls, env_file=env_file)
        self.path = env_file
        self.trusted = trusted
        if trusted:
            return
        prefix = (self.env_prefix or "").lower()
        fields = set(settings_cls.model_fields)
        refused: list[str] = []
        kept: dict[str, str | None] = {}
        for key, value in self.env_vars.items():
            name = key.lower()[len(prefix) :] if key.lower().startswith(prefix) else ""
            if name in HARMLESS or name not in fields or (name in HARMLESS_VALUES and HARMLESS_VALUES[name](value or "")):
                kept[key] = value
            else:
                refused.append(name)
        self.env_vars = kept
        ignored = _IGNORED.get()
        if ignored is not None:
            # set by a trusted source above: ignoring it changes nothing, so no warning
            for name in sorted(set(refused) - shadowed):
                ignored.append(IgnoredSetting(f"KB_{name.upper()}", self.path, self.path.parent))


def begin_collecting() -> list[IgnoredSetting]:
    """Start collecting ignored settings for the Settings object being built (same thread)."""
    found: list[IgnoredSetting] = []
    _IGNORED.set(found)
    return found


def end_collecting() -> tuple[IgnoredSetting, ...]:
    """The ignored settings collected since begin_collecting, deduplicated; collection stops."""
    found = _IGNORED.get() or []
    _IGNORED.set(None)
    return tuple(dict.fromkeys(found))


def folder_sources(settings_cls: type[BaseSettings], roots: Iterable[Path], shadowed: frozenset[str] = frozenset()) -> list[FolderDotEnvSource]:
    """One source per existing `.env` in `roots` (deduplicated, in the order given); `shadowed` names
    the settings a trusted source already set."""
    out: list[FolderDotEnvSource] = []
    seen: set[Path] = set()
    for root in roots:
        try:
            folder = root.resolve()
        except OSError:
            continue
        env_file = folder / FOLDER_ENV
        if folder in seen or not env_file.is_file():
            continue
        seen.add(folder)
        out.append(FolderDotEnvSource(settings_cls, env_file, trusted=is_trusted(folder), shadowed=shadowed))
    return out


def user_config_source(settings_cls: type[BaseSettings]) -> DotEnvSettingsSource | None:
    """The user's `config.env` (trusted in full), when it exists."""
    path = config_dir() / CONFIG_ENV
    return DotEnvSettingsSource(settings_cls, env_file=path) if path.is_file() else None


def describe_ignored(ignored: Sequence[IgnoredSetting]) -> list[str]:
    """One warning line per `.env` file whose values were ignored, naming the keys and the opt-in."""
    by_file: dict[Path, list[IgnoredSetting]] = {}
    for item in ignored:
        by_file.setdefault(item.env_file, []).append(item)
    lines = []
    for env_file, items in by_file.items():
        keys = ", ".join(dict.fromkeys(i.key for i in items))
        lines.append(
            f"ignored {keys} from {env_file}: a folder's .env may not choose programs, endpoints, keys or models "
            f"(trust it with `{items[0].opt_in}`, or set them in the environment or {config_dir() / CONFIG_ENV})"
        )
    return lines
