"""The pull request comment of `pairbench ci`: one verdict table, how it was judged, how to redo it.

Why a format of its own: the comment is read on a pull request by people who did not run it, so it
leads with the answer (a confirmed regression or not), says what "slower" means here (the noise
band and how it was set, the second interleaved run that confirmed it), names the machine, and
ends with the command that reproduces it locally. The hidden marker lets the next run find and
update this comment instead of adding one per push.

Names come from the pull request's own files (benchmark names, branch names). `comment_escape`
makes them inert: no link, no @mention, no #reference, no HTML, no table break.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from pairbench.model import Comparison, Notice, Run
from pairbench.report.format import format_value
from pairbench.report.markdown import _fence, md_escape
from pairbench.report.summary import Spread, ci_header, ci_mixed, ci_text, metric_of, ratio_text, sentence_of, spreads
from pairbench.report.wording import verdict_word

__all__ = ["CommentFacts", "render_comment", "render_build_failure", "render_run_failure", "comment_escape", "MARKER",
           "COMMENT_LIMIT"]

COMMENT_LIMIT = 65_000
"""Characters a comment may hold, a little under GitHub's 65,536 (GitLab allows 1,000,000)."""

NOTES_SHOWN = 10
"""Notes of each run the details list; the others are counted (they are in the run file and the log)."""

MARKER = "<!-- pairbench-ci-comment -->"
"""The hidden HTML comment by which a later run finds this comment (never shown by the forge)."""

ZWSP = "&#8203;"
"""A zero-width space: splits `@name`, `#12` and `https://` so the forge links none of them."""

_AUTOLINK = re.compile(r"(?i)(https?|ftp)(:)(//)|(www)(\.)")


@dataclass(frozen=True, slots=True)
class CommentFacts:
    """What the comment says beside the runs: which commits, how the band was set, what to type."""

    base_ref: str
    """The branch or ref the comparison is against (as given or found in the CI environment)."""
    base_commit: str
    """The merge-base of the base ref and the head: what is measured as the base."""
    head_commit: str
    threshold_source: str
    """How the noise band was set, in words ("the default", "--threshold 3", "calibrated on this machine")."""
    reproduce: str
    """The command that measures the same on a developer's machine."""
    gated: tuple[tuple[str, str], ...] = ()
    """(benchmark, metric) pairs the gate judges (the primary metric of each benchmark)."""
    notes: tuple[str, ...] = field(default_factory=tuple)
    """Extra lines for the details section (build times, warnings)."""


def comment_escape(text: object) -> str:
    """`md_escape` plus what a forge adds on top of Markdown: autolinks, @mentions, #references."""
    s = re.sub(r"([@#!])(?=[A-Za-z0-9_])", lambda m: m.group(1) + ZWSP, md_escape(text))
    return _AUTOLINK.sub(lambda m: ZWSP.join(g for g in m.groups() if g), s)


def _short(commit: str) -> str:
    return commit[:12]


def _confirmed(facts: CommentFacts, confirm: Run | None) -> dict[tuple[str, str], Comparison]:
    if confirm is None:
        return {}
    return {(c.benchmark, c.metric): c for c in confirm.comparisons if (c.benchmark, c.metric) in set(facts.gated)}


def _verdict(c: Comparison, run: Run, again: Comparison | None, confirmation_ran: bool) -> str:
    word = verdict_word(c.verdict, metric_of(run, c.benchmark, c.metric))
    if c.verdict != "slower" or not confirmation_ran:
        return f"**{word}**" if c.verdict == "faster" else word
    if again is None:
        return f"{word}, not measured again"
    if again.verdict == "slower" and again.meaningful:
        return f"**{word}, confirmed** ({ratio_text(again)} {ci_text(again)})"
    return f"{word} at first, not confirmed ({ratio_text(again)} {ci_text(again)}: {again.verdict})"


def render_comment(run: Run, confirm: Run | None, facts: CommentFacts, regressions: int,
                   limit: int | None = None) -> str:
    """The Markdown comment for the first run `run` and its confirmation run `confirm` (if any).

    With `limit` (a forge's longest comment, in characters), the details section is left out of a
    comment that would be longer, with a line saying where they are.
    """
    again = _confirmed(facts, confirm)
    gated = [c for c in run.comparisons if (c.benchmark, c.metric) in set(facts.gated)]
    spread = spreads(run)
    if regressions:
        head = f"### pairbench: :x: {regressions} confirmed regression{'s' if regressions != 1 else ''}"
    elif any(c.verdict == "slower" for c in gated):
        head = "### pairbench: :white_check_mark: no confirmed regression (a first slower result did not reproduce)"
    else:
        head = "### pairbench: :white_check_mark: no regression found"
    compared = {(c.benchmark, c.metric) for c in gated if not (c.verdict == "insufficient" and _failure(run, c.benchmark))}
    missing = [(b, m) for b, m in facts.gated if (b, m) not in compared]
    if missing:
        head += f" · :warning: {len(missing)} benchmark{'s' if len(missing) != 1 else ''} not compared"
    undecided = {c.benchmark for c in gated if (c.benchmark, c.metric) in compared and c.verdict == "insufficient"}
    if undecided:
        head += (f" · :warning: {len(undecided)} benchmark{'s' if len(undecided) != 1 else ''} without a verdict "
                 "(too few blocks: raise --max-time)")
    lines = [MARKER, head, "",
             f"Head `{_short(facts.head_commit)}` against `{_short(facts.base_commit)}`, the merge-base with "
             f"{comment_escape(facts.base_ref)}, built and measured interleaved on the same machine.", "",
             f"| Benchmark | Base | Head | Ratio | {ci_header(gated).replace('*', chr(92) + '*')} | Verdict |", "|---|--:|--:|--:|---|---|"]
    for c in gated:
        if (c.benchmark, c.metric) not in compared:
            continue
        m = metric_of(run, c.benchmark, c.metric)
        base, cand = spread.get((c.benchmark, c.metric, c.baseline)), spread.get((c.benchmark, c.metric, c.candidate))
        name = comment_escape(c.benchmark) + ("" if len(facts.gated) == len({b for b, _ in facts.gated})
                                              else f" · {comment_escape(c.metric)}")
        lines.append(f"| {name} | {_figure(c.baseline_value, base, m.unit)} | "
                     f"{_figure(c.candidate_value, cand, m.unit)} | {ratio_text(c)} | "
                     f"{ci_text(c).replace('*', chr(92) + '*')} | "
                     f"{_verdict(c, run, again.get((c.benchmark, c.metric)), confirm is not None)} |")
    lines += [_missing_row(run, b) for b, _ in missing]
    if not gated and not missing:
        lines.append("| (no comparison) | | | | | |")
    band = gated[0].threshold * 100 if gated else 1.0
    lines += ["", *_adjusted_caption(run, gated)]
    lines += [f"**Noise band** ±{band:g}% ({comment_escape(facts.threshold_source)}): a difference counts only when "
                  "its whole confidence interval lies outside the band. **Confirm, then alert**: a benchmark found "
                  "slower is measured again in a fresh interleaved run of just those benchmarks; the gate fails only "
                  "when the regression reproduces.", "",
              f"**Machine** {_machine(run)}", ""]
    fence = _fence(facts.reproduce)
    tail = ["Reproduce locally (in a clone with both commits):", "", f"{fence}sh", facts.reproduce, fence, ""]
    text = "\n".join(lines + _details(run, confirm, facts) + tail)
    if limit is not None and len(text) > limit:
        text = "\n".join(lines + ["The details (every comparison, both runs, the notices) are in the job summary: "
                                   "with them this comment would pass the forge's length limit.", ""] + tail)
    return text


def _figure(value: float | None, spread: Spread | None, unit: str) -> str:
    """The figure beside the ratio, as the terminal and the run file give it (the baseline's geometric
    mean, the candidate's that times the ratio); the median of the per-block values without one."""
    if value is not None:
        return format_value(value, unit)
    return format_value(spread.median, unit) if spread else "–"


def _adjusted_caption(run: Run, gated: list[Comparison]) -> list[str]:
    """What the table's header says beyond '95% CI': a level widened for the planned looks of
    adaptive stopping, and `(adj.)`, when they are there."""
    options = run.metadata.get("options", {})
    asked = float(options.get("confidence", 0.95))
    looks = len(run.metadata.get("adaptive", {}).get("looks", []))
    parts = []
    if gated and looks > 1 and abs(gated[0].confidence - asked) > 1e-9:
        parts.append(f"{ci_header(gated).split(' (')[0]}: the {asked * 100:g}% asked, across {looks} planned looks "
                     "(adaptive stopping may stop at any of them).")
    family = sum(1 for c in gated if c.adjusted_ci is not None)
    if family:
        mark = "(\\*adj.)" if ci_mixed(gated) else "(adj.)"
        parts.append(f"{mark}: each interval is widened for the {family} comparison{'' if family == 1 else 's'} of "
                     f"this table ({options.get('correction', 'holm')}), so that together they keep the level in "
                     "the header.")
    return [" ".join(parts), ""] if parts else []


def _note(n: Notice) -> str:
    """A notice in the details, named by its benchmark and variant as the terminal names it (a
    message that names its benchmark already, as a failure's does, is left as it is)."""
    who = "" if n.benchmark and n.benchmark in n.message else " · ".join(p for p in (n.benchmark, n.variant) if p)
    return f"- note: {comment_escape(who) + ': ' if who else ''}{comment_escape(n.message)}"


def _missing_row(run: Run, benchmark: str) -> str:
    """The row of a benchmark without a comparison: why (it failed on a side), from the run's notices."""
    failed = _failure(run, benchmark)
    why = "not compared"
    if failed is not None:
        why = f"failed on {failed.variant}: {_error(failed)}"
    return f"| {comment_escape(benchmark)} | – | – | – | – | **{comment_escape(why)}** |"


def _error(failed: Notice) -> str:
    """The error of a failure notice, without the words that name its benchmark and variant."""
    return (failed.message.split(f"variant {failed.variant!r}: ", 1)[-1].splitlines() or [""])[0][:160]


def _failure(run: Run, benchmark: str) -> Notice | None:
    """The notice that `benchmark` failed on a variant, if it did."""
    return next((n for n in run.notices if n.kind == "benchmark-failed" and n.benchmark == benchmark), None)


def _machine(run: Run) -> str:
    md = run.metadata
    load = md.get("load_average")
    parts = [comment_escape(md.get("cpu_model") or "unknown CPU"), f"{md.get('cpu_count') or '?'} cores",
             comment_escape(md.get("kernel") or "")]
    if isinstance(load, (list, tuple)) and load:
        parts.append(f"load {float(load[0]):.2f} at the start")
    return ", ".join(p for p in parts if p)


def _details(run: Run, confirm: Run | None, facts: CommentFacts) -> list[str]:
    lines = ["<details>", "<summary>Details: every comparison, the runs, the notices</summary>", ""]
    for label, r in (("First run", run), ("Confirmation run", confirm)):
        if r is None:
            continue
        blocks, elapsed = r.metadata.get("blocks", "?"), r.metadata.get("elapsed_s")
        took = f" in {float(elapsed):.1f} s" if isinstance(elapsed, (int, float)) else ""
        lines.append(f"**{label}**: {blocks} interleaved blocks{took}, {len(r.benchmarks)} benchmark"
                     f"{'s' if len(r.benchmarks) != 1 else ''}.")
        lines.append("")
        for c in r.comparisons:
            m = metric_of(r, c.benchmark, c.metric)
            if m.direction == "none" and c.verdict not in ("faster", "slower"):
                continue
            failed = _failure(r, c.benchmark) if c.n == 0 else None
            said = f"no verdict: it failed on {failed.variant} ({_error(failed)})" if failed else sentence_of(c, m)
            lines.append(f"- {comment_escape(c.benchmark)} · {comment_escape(c.metric)}: {comment_escape(said)}")
        lines += [_note(n) for n in r.notices[:NOTES_SHOWN]]
        if len(r.notices) > NOTES_SHOWN:
            more = len(r.notices) - NOTES_SHOWN
            lines.append(f"- {more} more note{'s' if more != 1 else ''}: in the job's log and the run file")
        lines.append("")
    lines += [f"- {comment_escape(note)}" for note in facts.notes]
    lines += ["", "</details>", ""]
    return lines


def render_build_failure(role: str, commit: str, build: str, log_tail: str, base_ref: str, base: str, head: str) -> str:
    """The comment when the base or the head does not build: which, the command, the log's last lines."""
    fence = _fence(log_tail + build)
    return "\n".join([
        MARKER, f"### pairbench: :warning: the {role} ({_short(commit)}) does not build, nothing was measured", "",
        f"Head `{_short(head)}` against `{_short(base)}`, the merge-base with {comment_escape(base_ref)}.", "",
        "Build command:", "", f"{fence}sh", build, fence, "",
        "The last lines of its log:", "", fence, log_tail, fence, ""])


def render_run_failure(error: str, base_ref: str, base: str, head: str) -> str:
    """The comment when a benchmark cannot be measured on a side (it exits non-zero, times out...).

    It replaces the comment of an earlier push, whose results describe code that is gone."""
    fence = _fence(error)
    return "\n".join([
        MARKER, "### pairbench: :warning: a benchmark failed, nothing to compare", "",
        f"Head `{_short(head)}` against `{_short(base)}`, the merge-base with {comment_escape(base_ref)} "
        "(variant 'base' is the merge-base, 'head' the head).", "",
        fence, error, fence, ""])
