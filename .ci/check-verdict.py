#!/usr/bin/env python3
"""Checks a bench run's results.json and report.md: the verdict is the report's first section,
with a row per use case and per criterion, and (with --adoption CLIENTS) that the adoption
suite measured each client named, its probe having run and printed a rate.

Usage: check-verdict.py [--adoption ureq,hyper] RESULTS.json REPORT.md
"""

import json
import re
import sys

USE_CASES = [
    "A high-throughput async service",
    "A service already on actix-web",
    "A service under a CPU limit",
    "An upstream that closes idle connections",
    "A service calling many hosts",
    "An upstream across a WAN",
    "An upstream behind a NAT or load balancer",
    "Blocking or CLI code",
    "The smallest binary",
    "The fastest builds",
    "A service with a small memory budget",
]
CRITERIA = [
    "Capacity",
    "CPU per request",
    "Instructions per payment, whole service",
    "Memory held, pool warm",
    "Client construction",
    "Fan-out",
    "Behaviour under faults",
    "Calls lost to an idle close",
    "DNS questions per new connection",
    "P99 across a lossy WAN link",
    "Payments lost to a forgotten flow",
    "Build time",
    "Binary size",
    "Dependencies",
]


def fail(message):
    print(f"check-verdict: {message}", file=sys.stderr)
    sys.exit(1)


def main(argv):
    adoption = []
    if argv[:1] == ["--adoption"]:
        adoption = argv[1].split(",")
        argv = argv[2:]
    if len(argv) != 2:
        fail(__doc__.strip())
    results = json.load(open(argv[0], encoding="utf-8"))
    report = open(argv[1], encoding="utf-8").read()

    headings = re.findall(r"^## (.+)$", report, re.M)
    if not headings or headings[0] != "Verdict":
        fail(f"the first section of report.md is {headings[:1]}, not the verdict")
    verdict = report.split("\n## ")[1]
    for name in USE_CASES + CRITERIA:
        if f"| {name}" not in verdict:
            fail(f"the verdict has no row for {name!r}")

    if not adoption:
        # A run that used the adoption figures an earlier run stored says whose they are
        # instead.
        stored = results.get("adoption", {}).get("stored_from")
        if stored:
            if stored["measured_utc"] not in report:
                fail("the report uses stored adoption figures without saying which run made them")
        elif "adoption" not in results["settings"]["suites"] and "--suite adoption" not in report:
            fail("the report does not say how to run the adoption suite it left out")
        print(f"check-verdict: {argv[1]}: the verdict is first, with every use case and criterion")
        return
    skipped = [entry for entry in results.get("not_run", []) if entry["suite"] == "adoption"]
    if skipped:
        fail(f"the adoption suite could not measure: {skipped}")
    suite = results.get("adoption") or fail("results.json has no adoption results")
    base = suite.get("base") or fail("no base probe (no HTTP client)")
    rows = {row["client"]: row for row in suite.get("rows", [])}
    if sorted(rows) != sorted(adoption):
        fail(f"adoption rows {sorted(rows)}, expected {sorted(adoption)}")
    for client, row in rows.items():
        build = row["build"]
        if not build["output"].startswith("EURUSD "):
            fail(f"{client}: the probe printed {build['output']!r}")
        if not build["binary_bytes"] > base["binary_bytes"]:
            fail(f"{client}: its binary is no larger than the probe without a client")
        if not build["crates"] > base["crates"] or build["build_wall_s"] <= 0:
            fail(f"{client}: {build['crates']} crates, {build['build_wall_s']} s")
        if row.get("adapter_lines", 0) <= 0:
            fail(f"{client}: no adapter lines counted")
        print(
            f"check-verdict: adoption {client}: {build['binary_bytes']} bytes "
            f"(+{row['added_bytes']}), {build['crates']} crates, "
            f"{build['build_wall_s']:.0f} s to build, printed {build['output']!r}"
        )
    for client in adoption:
        if f"| {client} " not in report:
            fail(f"the report's adoption tables have no row for {client}")


if __name__ == "__main__":
    main(sys.argv[1:])
