"""Types of the epoll loop's C step (_fastpath.c)."""

from typing import Any

def pump(epfd: int, handlers: dict[int, Any], transport_type: type, load: Any, until_ns: int, tls: bool,
         size: int, want: tuple[type[BaseException], ...], head_state: int) -> list[tuple[Any, int, Any]]: ...
def direct_tls() -> bool: ...
