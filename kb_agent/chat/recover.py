"""Opening a chat session, and what to do when the chat database is corrupt: say so, move it aside
(after asking, on a terminal) and start fresh — never open the broken file again."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kb_agent.chat.session import ChatSession
from kb_agent.chat.threads import CHAT_DB, ChatStoreCorrupt, chat_state_dir, quarantine
from kb_agent.render.console import print_error
from kb_agent.render.safe import safe_markup

if TYPE_CHECKING:
    from rich.console import Console

    from kb_agent.agent.execute import SearchTools
    from kb_agent.llm.base import ChatModel
    from kb_agent.settings import Settings


def offer_fresh_store(e: ChatStoreCorrupt, path: Path, *, interactive: bool, ask: Callable[[str], bool], err: Console) -> bool:
    """Report a corrupt chat database and move it aside (after asking, on a terminal); False when declined."""
    print_error(err, e.message)
    if interactive and not ask("Move it aside and start a fresh thread?"):
        err.print(f"[dim]left {safe_markup(str(path), one_line=True)} as it is[/]", highlight=False)
        return False
    moved = quarantine(path)
    err.print(f"moved the unreadable chat database to {safe_markup(str(moved), one_line=True)}; starting fresh", highlight=False, soft_wrap=True)
    return True


def open_session(settings: Settings, *, thread: str | None, tools: SearchTools | None, model: ChatModel | None,
                 interactive: bool, ask: Callable[[str], bool], err: Console) -> ChatSession:
    """A ChatSession on the KB of `settings`, recovering once from a corrupt chat database.

    Raises:
        ChatStoreCorrupt: the database is corrupt and the user chose to keep it.
    """
    try:
        return ChatSession(settings, thread=thread, tools=tools, model=model)
    except ChatStoreCorrupt as e:
        path = chat_state_dir(settings.kb_root())[0] / CHAT_DB
        if not offer_fresh_store(e, path, interactive=interactive, ask=ask, err=err):
            raise ChatStoreCorrupt(e.message, hint="move it aside yourself, or answer yes to start fresh") from None
        return ChatSession(settings, thread=thread, tools=tools, model=model)
