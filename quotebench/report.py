"""Render the metrics of a results file as text for a terminal (JSON comes straight from metrics)."""

from __future__ import annotations


def _pct(value: float | None) -> str:
    return "  n/a" if value is None else f"{100 * value:5.1f}%"


def text(header: dict, m: dict) -> str:
    lines = [
        f"QuoteBench {header.get('quotebench_version')}  adapter={header.get('adapter')}  "
        f"model={header.get('model') or '-'}  contract={header.get('contract')}  mode={header.get('mode')}"
        + ("" if header.get("benchmark", True) else "  (retry mode: exploration, not a benchmark score)"),
        f"{m['pairs']} attempts over {m['tasks']} tasks x {m['trials']} trial(s); "
        f"excluded: {', '.join(f'{n} {s}' for s, n in m['excluded'].items()) or 'none'}"
        f"{' (rerun with --resume)' if m['excluded'] else ''}; "
        f"{m['no_reply']} without reply",
        "",
        f"Quoting Gap  {_pct(m['quoting_gap'])}   (control {_pct(m['control_pass'])} - hostile "
        f"{_pct(m['hostile_pass'])})",
        f"pass rate    {_pct(m['pass_rate'])}   tiers: "
        + "  ".join(f"{t} {_pct(v)}" for t, v in m["tiers"].items()),
    ]
    if m["stale"]:
        lines.append(
            f"WARNING: {m['stale']} attempt(s) answered an older revision of their task; "
            "rerun them (--resume redoes them) before comparing numbers"
        )
    if m["pass_hat_k"]:
        lines.append("pass^k       " + "  ".join(f"k={k} {_pct(v)}" for k, v in m["pass_hat_k"].items()))
    if m.get("retry_pass_rate") is not None:
        lines.append(f"after retries {_pct(m['retry_pass_rate'])} (exploration only)")
    lines += ["", "failure classes (first attempt):"]
    lines += [f"  {c:20} {n}" for c, n in m["failure_classes"].items()]
    if m["silent_wrong_share"] is not None:
        lines.append(f"  silent-wrong share of failures: {_pct(m['silent_wrong_share'])}")
    lines.append(f"marker leakage: {m['marker_leakage']}   reply cleanup: {m['reply_cleanup'] or 'none'}")
    lines += ["", f"{'scenario':20} control  hostile"]
    lines += [f"  {s:18} {_pct(v['control'])}  {_pct(v['hostile'])}" for s, v in m["scenarios"].items()]
    lines += ["", "hostile pass rate by hazard:"]
    lines += [
        f"  {h:20} {_pct(v)}" for h, v in sorted(m["hazards"].items(), key=lambda kv: (kv[1] or 0, kv[0]))
    ]
    if "tokens" in m:
        t = m["tokens"]
        lines += [
            "",
            "tokens: "
            + ", ".join(f"{k} {v}" for k, v in t["totals"].items())
            + "  (mean per attempt: "
            + ", ".join(f"{k} {v}" for k, v in t["mean_per_attempt"].items())
            + ")",
        ]
        if "cost_usd" in t:
            c = t["cost_usd"]
            lines.append(
                f"cost: ${c['run']} this run, ${c['per_task']} per task, ${c['per_full_pass']} per full pass"
            )
    if "latency_s" in m:
        lat = m["latency_s"]
        lines.append(f"latency: p50 {lat['p50']} s, p95 {lat['p95']} s, mean {lat['mean']} s")
    return "\n".join(lines)
