"""Labels for the HTML plots: names shortened to the part that varies, and text measured to lay
them out (an SVG cannot wrap or measure text, and the page runs no script to do it).

Sweep variants share most of their name (`app/PAIRBENCH_DEMO_WORK=1`, `…=4`); cutting each name
at a fixed length leaves only the shared part. Instead the common prefix and suffix (cut back to a
separator, so `fast`/`faster` stay whole) are removed from every label and said once on the page.

Widths are estimated from DejaVu Sans's advance widths (the sans-serif a Linux desktop draws
`system-ui` with, and wider than Helvetica, Arial, Segoe UI or Roboto), without kerning: an
estimate on the generous side, so labels get room rather than overlap. A browser test checks it
against the widths Chromium draws.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Labels", "shorten", "text_width", "fit_width"]

# DejaVu Sans advance widths (per 1000 em) of the printable ASCII characters, from ' ' to '~',
# as Chromium draws them (getComputedTextLength at 1000 px, measured 2026-12-01).
_ASCII_WIDTHS = (
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
    636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531,
    1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787,
    603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500,
    500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
    635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
)
_OTHER_WIDTHS = {"·": 318, "…": 1000, "±": 838, "−": 838, "★": 896, "×": 838}
_OTHER_WIDTH = 1000  # anything else: as wide as an em, so a label gets room rather than overlaps
_WIDE = 1.02  # rounding, and fonts a shade wider than DejaVu Sans
_SEPARATORS = frozenset("/=,;:_-. @+|()[]{}")
MIN_NAME_LENGTH = 16
"""Names this short are shown whole: shortening them would save little and read worse."""


def text_width(text: str, size: float) -> float:
    """Estimated width in pixels of `text` at font size `size` (an upper estimate)."""
    units = sum(_ASCII_WIDTHS[ord(ch) - 32] if 32 <= ord(ch) < 127 else _OTHER_WIDTHS.get(ch, _OTHER_WIDTH)
                for ch in text)
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
