"""Labels for the HTML plots: names shortened to the part that varies, and text measured to lay
them out (an SVG cannot wrap or measure text, and the page runs no script to do it).

Sweep variants share most of their name (`app/PAIRBENCH_DEMO_WORK=1`, `…=4`); cutting each name
at a fixed length leaves only the shared part. Instead the common prefix and suffix (cut back to a
separator, so `fast`/`faster` stay whole) are removed from every label and said once on the page.

Widths are estimated from Helvetica's advance widths (Adobe's AFM metrics, per 1000 em) scaled up
by `_WIDE` for the wider sans-serif fonts a Linux desktop substitutes (DejaVu Sans is about 10%
wider): an estimate on the generous side, so labels get room rather than overlap.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Labels", "shorten", "text_width", "fit_width"]

# Helvetica advance widths (per 1000 em) of the printable ASCII characters, from ' ' to '~'.
_ASCII_WIDTHS = (
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
)
_OTHER_WIDTH = 700  # anything else (·, …, ±, CJK is wider still but rare in names): a wide letter
_WIDE = 1.12
_SEPARATORS = frozenset("/=,;:_-. @+|()[]{}")
MIN_NAME_LENGTH = 16
"""Names this short are shown whole: shortening them would save little and read worse."""


def text_width(text: str, size: float) -> float:
    """Estimated width in pixels of `text` at font size `size` (an upper estimate)."""
    units = sum(_ASCII_WIDTHS[ord(ch) - 32] if 32 <= ord(ch) < 127 else _OTHER_WIDTH for ch in text)
    return units * size / 1000 * _WIDE


def fit_width(text: str, size: float, limit: float) -> str:
    """`text`, cut in the middle with `…` only when it is wider than `limit` pixels.

    The middle goes, not the end: the ends of names (a build, a parameter's value) tell them apart.
    """
    if text_width(text, size) <= limit:
        return text
    keep = len(text)
    while keep > 2:
        keep -= 1
        head = (keep + 1) // 2
        cut = text[:head] + "…" + text[len(text) - (keep - head):]
        if text_width(cut, size) <= limit:
            return cut
    return text[:1] + "…"


@dataclass(frozen=True, slots=True)
class Labels:
    """Short labels of a set of names and the part they all share."""

    prefix: str
    """Removed from the start of every label (empty when nothing was removed)."""
    suffix: str
    """Removed from the end of every label."""
    short: dict[str, str]
    """Full name -> label."""

    def __call__(self, name: str) -> str:
        return self.short.get(name, name)

    @property
    def shortened(self) -> bool:
        return bool(self.prefix or self.suffix)

    @property
    def common(self) -> str:
        """The shared part with `…` where the labels go (`app/PAIRBENCH_DEMO_WORK=…`)."""
        return f"{self.prefix}…{self.suffix}" if self.shortened else ""


def _common_prefix(names: Sequence[str]) -> str:
    first, last = min(names), max(names)
    n = 0
    while n < min(len(first), len(last)) and first[n] == last[n]:
        n += 1
    prefix = first[:n]
    # Back to the last separator, so that a word is never split (`fast`/`faster` -> no prefix).
    while prefix and prefix[-1] not in _SEPARATORS:
        prefix = prefix[:-1]
    return prefix


def shorten(names: Sequence[str]) -> Labels:
    """Labels by the part that varies: the common prefix and suffix of the long names removed.

    The affixes are those of the names of `MIN_NAME_LENGTH` or more (a short baseline such as
    `app` beside `app/N=1`, `app/N=2` keeps its name). Names are kept whole when fewer than two
    are long, or when a label would be empty or two labels would be equal.
    """
    unique = list(dict.fromkeys(names))
    whole = Labels("", "", {n: n for n in unique})
    long = [n for n in unique if len(n) >= MIN_NAME_LENGTH]
    if len(long) < 2:
        return whole
    prefix = _common_prefix(long)
    suffix = _common_prefix([n[len(prefix):][::-1] for n in long])[::-1]
    short = {n: n[len(prefix): len(n) - len(suffix)] if n in long else n for n in unique}
    if any(not s for s in short.values()) or len(set(short.values())) < len(short):
        return whole
    return Labels(prefix, suffix, short)
