"""`activation cache info` and `activation cache clear [--older-than AGE]`: the response
cache's entries, size and folder, and removing them."""

from __future__ import annotations

import os

from activation.commands.flags import CACHE
from activation.commands.session import Session
from activation.store import cache_folder, cache_info, clear_cache


def size_text(size: int) -> str:
    if size < 1000:
        return f"{size} bytes"
    value = float(size)
    for unit in ("KB", "MB", "GB"):
        value /= 1000
        if value < 1000 or unit == "GB":
            break
    return f"{value:.1f} {unit}"


def main_cache(session: Session, argv: list[str]) -> int:
    args = CACHE.parse(argv)
    folder = cache_folder(args.cache_dir, os.environ)
    if args.action == "info":
        info = cache_info(folder)
        session.out.print(f"folder: {info.folder}", soft_wrap=True, markup=False)
        session.out.print(f"entries: {info.entries}")
        session.out.print(f"size: {size_text(info.size)}")
        return 0
    removed = clear_cache(folder, args.older_than)
    scope = "" if args.older_than is None else " older than the given age"
    session.out.print(
        f"removed {removed} entr{'y' if removed == 1 else 'ies'}{scope} from {folder}",
        soft_wrap=True,
        markup=False,
    )
    return 0
