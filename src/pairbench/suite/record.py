"""What the run file keeps of a suite: the file as written, its parsed form and the matrix."""

from __future__ import annotations

from typing import Any, Sequence

from pairbench.model import Variant
from pairbench.suite.schema import Suite

__all__ = ["suite_record", "json_safe"]


def json_safe(value: Any) -> Any:
    """TOML dates and times become strings, so the document can go into the run file."""
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_safe(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def suite_record(suite: Suite, variants: Sequence[Variant] | None = None) -> dict[str, Any]:
    """What the run file keeps of the suite: the file as written, its parsed form and the matrix."""
    matrix = variants if variants is not None else suite.matrix
    return {
        "path": suite.path,
        "name": suite.name,
        "text": suite.text,
        "document": json_safe(dict(suite.document)),
        "sweeps": [{"name": s.name, "values": list(s.values), "as": s.as_, "variants": list(s.variants),
                    "numeric": s.numeric} for s in suite.sweeps],
        "matrix": [{"name": v.name, "base": v.meta.get("base", v.name), "params": dict(v.params),
                    "baseline": v.baseline, **({"git_commit": v.meta["git_commit"], "build_log": v.meta.get("build_log")}
                                              if "git_commit" in v.meta else {})}
                   for v in matrix],
    }
