"""Matrix expansion: every variant as written times the values of the sweeps that apply to it,
minus the exclusions, with exactly one baseline."""

from __future__ import annotations

import fnmatch
import itertools
import math
from dataclasses import replace
from typing import Any, Mapping, Sequence

from pairbench.model import Variant
from pairbench.suite.schema import MAX_MATRIX, Sweep, VariantSpec
from pairbench.suite.tomlcheck import Reader, choices, suggest

__all__ = ["expand_points", "expand_point", "expand_matrix", "pick_baseline"]


def expand_points(r: Reader, variants: tuple[VariantSpec, ...], sweeps: tuple[Sweep, ...],
            exclude: list[tuple[int, dict[str, tuple[str, ...]]]]) -> list[Variant]:
    total = sum(math.prod(len(s.values) for s in sweeps if v.name in s.variants) for v in variants)
    if total > MAX_MATRIX:
        raise r.fail(("sweeps",), f"the matrix has {total} points, more than {MAX_MATRIX}; "
                                  "narrow the sweeps or exclude combinations")
    used = [False] * len(exclude)
    points: list[Variant] = []
    for spec in variants:
        mine = [s for s in sweeps if spec.name in s.variants]
        for combo in itertools.product(*(s.values for s in mine)):
            coords = {"variant": spec.name, **{s.name: val for s, val in zip(mine, combo)}}
            hit = False
            for j, (_, cond) in enumerate(exclude):
                if all(coords.get(k) is not None and any(fnmatch.fnmatchcase(coords[k], pat) for pat in pats)
                       for k, pats in cond.items()):
                    used[j] = hit = True
            if hit:
                continue
            points.append(expand_point(spec, mine, combo))
    for j, (i, cond) in enumerate(exclude):
        if not used[j]:
            shown = ", ".join(f"{k} = {list(v) if len(v) > 1 else v[0]!r}" for k, v in cond.items())
            raise r.fail(("exclude", i), f"exclude #{i + 1} ({shown}) matches no point of the matrix; check the names and values")
    if not points:
        raise r.fail(("exclude",), "exclude removes every point of the matrix; nothing is left to run")
    names = [p.name for p in points]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup:
        raise r.fail(("variants",), f"duplicated variant name {dup!r} in the matrix")
    return points


def expand_point(spec: VariantSpec, sweeps: Sequence[Sweep], combo: Sequence[str]) -> Variant:
    """One point of the matrix: the base variant with each sweep's value applied."""
    env = dict(spec.env)
    args = list(spec.args)
    params = dict(spec.params)
    name = spec.name
    for s, value in zip(sweeps, combo):
        name += f"/{s.name}={value}"
        params[s.name] = value
        if s.as_ == "env":
            env[s.name] = value
        elif s.as_ == "arg":
            args.extend(s.args_for(value))
    meta: dict[str, Any] = {"base": spec.name}
    if spec.git:
        meta["git"] = {"repo": spec.git.repo, "ref": spec.git.ref, "build": spec.git.build,
                       **({"timeout": spec.git.timeout} if spec.git.timeout is not None else {})}
    return Variant(name=name, command=spec.command, args=tuple(args), env=env,
                   unset_env=tuple(u for u in spec.unset_env if u not in env), cwd=spec.cwd, baseline=False,
                   params=params, meta=meta)


def expand_matrix(variants: Sequence[VariantSpec], sweeps: Sequence[Sweep]) -> list[Variant]:
    """Every point of variants × sweeps (no exclusions, first point of the first variant as baseline)."""
    r = Reader("<matrix>", "")
    points = expand_points(r, tuple(variants), tuple(sweeps), [])
    return pick_baseline(r, {}, tuple(variants), points)


def pick_baseline(r: Reader, doc: Mapping[str, Any], variants: tuple[VariantSpec, ...],
                   points: list[Variant]) -> list[Variant]:
    names = [p.name for p in points]
    if "baseline" in doc:
        wanted = r.string(doc["baseline"], ("baseline",))
        chosen = next((p for p in points if p.name == wanted), None) or next(
            (p for p in points if p.meta.get("base") == wanted), None)
        if chosen is None:
            valid = [v.name for v in variants] + [n for n in names if "/" in n]
            raise r.fail(("baseline",), f"baseline {wanted!r} is not a variant{suggest(wanted, valid)}; "
                                        f"valid: {choices(valid)}")
        flagged = [v.name for v in variants if v.baseline]
        if flagged and chosen.meta.get("base") != flagged[0]:
            raise r.fail(("baseline",), f"baseline = {wanted!r} disagrees with variant {flagged[0]!r}, "
                                        "which says baseline = true; keep one of them")
    else:
        flagged = [v.name for v in variants if v.baseline]
        base = flagged[0] if flagged else variants[0].name
        chosen = next((p for p in points if p.meta.get("base") == base), None)
        if chosen is None:
            raise r.fail(("variants", base), f"every point of baseline variant {base!r} is excluded; "
                                              "set baseline = \"...\" at the top of the file to another variant")
    if len(points) < 2:
        raise r.fail(("variants",), f"the suite has one variant ({points[0].name}) and nothing to compare it with; "
                                    "add a variant or a sweep")
    return [replace(p, baseline=(p is chosen)) for p in points]
