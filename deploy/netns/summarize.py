#!/usr/bin/env python3
"""Prints compare.sh's figures side by side: each round's loopback and namespace figure and
their ratio (namespaces over loopback), and the geometric mean of the ratios over the rounds.

Usage: python3 deploy/netns/summarize.py OUT-DIR ROUNDS
"""
import json
import math
import os
import sys


def load(out, where, round_):
    with open(os.path.join(out, f"{where}-{round_}", "results.json")) as file:
        return json.load(file)


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def table(title, unit, rows, runs):
    """rows: (label, [(loopback, netns) per round]); None where a run lacks the row."""
    rounds = len(runs)
    print(f"\n{title}\n")
    header = ["Row"] + [f"Round {r + 1}: loopback / namespaces ({unit})" for r in range(rounds)] + ["Ratio (geomean)"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for label, pairs in rows:
        cells, ratios = [], []
        for pair in pairs:
            if pair is None or not pair[0] or not pair[1]:
                cells.append("-")
                continue
            cells.append(f"{pair[0]:.0f} / {pair[1]:.0f} ({pair[1] / pair[0]:.2f}x)")
            ratios.append(pair[1] / pair[0])
        mean = f"{geomean(ratios):.2f}x" if ratios else "-"
        print(f"| {label} | " + " | ".join(cells) + f" | {mean} |")


def main():
    out, rounds = sys.argv[1], int(sys.argv[2])
    runs = [(load(out, "loopback", r), load(out, "netns", r)) for r in range(1, rounds + 1)]

    def pairs(suite, key, field):
        labels = []
        for row in runs[0][0].get(suite) or []:
            if key(row) not in labels:
                labels.append(key(row))
        result = []
        for label in labels:
            per_round = []
            for loopback, netns in runs:
                found = [next((r[field] for r in (run.get(suite) or []) if key(r) == label), None) for run in (loopback, netns)]
                per_round.append(None if None in found else tuple(found))
            result.append((label, per_round))
        return result

    print(f"Namespaces (veth) against loopback, {rounds} round(s), alternated; {out}")
    if runs[0][0].get("latency"):
        table("Latency, one call at a time from the bench (median)", "µs", pairs("latency", lambda r: f"{r['client']} {r['protocol']}", "median_us"), runs)
    if runs[0][0].get("load"):
        label = lambda r: f"{r['scenario']} {r['protocol']}" + (f", {r['body_bytes']} B answer" if r.get("body_bytes") else "")
        table("Load through the api, open model (p50)", "µs", pairs("load", label, "p50_us"), runs)
        table("Load through the api, open model (p99)", "µs", pairs("load", label, "p99_us"), runs)
    print("\nHypervisor steal, most in a half second, per run (loopback / namespaces):")
    for r, (loopback, netns) in enumerate(runs, 1):
        steal = [max((m.get("steal_percent_max") or 0) for m in run.get("machine", [])) for run in (loopback, netns)]
        print(f"- round {r}: {steal[0]:.1f}% / {steal[1]:.1f}%")

    # A row with failures measures errors, not the network: the comparison does not stand.
    failed = [
        f"round {r} {where}: {row['scenario']} failed {row['fail']} of {row['scheduled']}"
        for r, pair in enumerate(runs, 1)
        for where, run in zip(("loopback", "namespaces"), pair)
        for row in run.get("load") or []
        if row["fail"]
    ]
    if failed:
        print("\nsummarize: FAIL: requests failed, so these figures do not compare:\n" + "\n".join(failed), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
