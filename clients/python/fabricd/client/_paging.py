"""Pages of the daemon's lists (AIP-158): read every page by default, or one page when asked."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, TypeVar

T = TypeVar("T")


class Page(list[T]):
    """A list of items that also carries `next_page_token`: "" once the list was read to its end.

    The list calls return every item (reading page after page) unless given a
    `page_size` or a `page_token`; then they return that one page, and its
    `next_page_token` fetches the next.
    """

    def __init__(self, items: Iterable[T] = (), next_page_token: str = "") -> None:
        super().__init__(items)
        self.next_page_token = next_page_token

    def __repr__(self) -> str:
        return f"Page({list.__repr__(self)}, next_page_token={self.next_page_token!r})"


async def read_pages(fetch: Callable[[int, str], Awaitable[Any]], items: Callable[[Any], Iterable[T]],
                     page_size: int, page_token: str) -> Page[T]:
    """One page when `page_size` or `page_token` is given; otherwise every page, in order."""
    if page_size or page_token:
        response = await fetch(page_size, page_token)
        return Page(items(response), response.next_page_token)
    out: Page[T] = Page()
    token = ""
    while True:
        response = await fetch(0, token)
        out.extend(items(response))
        token = response.next_page_token
        if not token:
            return out
