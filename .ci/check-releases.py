#!/usr/bin/env python3
"""CI: the releases suite's small run (one library, two releases) measured what it claims.

Usage: check-releases.py RESULTS_JSON REPORT_MD LIBRARY VERSION...

Each release named built from crates.io with its own lock file (the library resolved to the
release pinned), and has every figure of a call over http and https in every round, checked
(HTTP/1.1 answers), its instructions per call, its concurrent large answers over http, and the
half-closing peer's outcome; over h2 either HTTP/2 figures or the finding that the release
does not negotiate h2. The report's section judges the older release against the newest.
"""

import json
import sys


def fail(message):
    sys.exit(f"check-releases: {message}")


def main():
    if len(sys.argv) < 5:
        fail(__doc__.strip().splitlines()[2])
    results_path, report_path, library, *versions = sys.argv[1:]
    results = json.load(open(results_path))
    releases = results.get("releases") or fail("results.json has no releases suite")
    if releases.get("skipped"):
        fail(f"skipped: {releases['skipped']}")
    settings = releases["settings"]
    rounds = settings["rounds"]
    rows = releases["rows"]
    labels = [(row["library"], row["release"]) for row in rows]
    if labels != [(library, version) for version in versions]:
        fail(f"rows {labels}, expected {library} {versions}")
    for row in rows:
        label = f"{row['library']} {row['release']}"
        if row.get("failed"):
            fail(f"{label}: {row['failed']}")
        build = row["build"]
        if not (build["binary_bytes"] > 0 and build["crates"] > 0 and build["build_wall_s"] > 0):
            fail(f"{label}: build {build}")
        resolved = {krate["name"]: krate["version"] for krate in row["stack"]}
        if resolved.get(library) != row["release"]:
            fail(f"{label}: resolved {resolved.get(library)}")
        figures = {(f["measure"], f["protocol"]): f for f in row["figures"]}

        def measured(measure, protocol, count=rounds):
            figure = figures.get((measure, protocol)) or fail(f"{label}: no {measure} {protocol}")
            if figure.get("not_measured"):
                fail(f"{label}: {measure} {protocol}: {figure['not_measured']}")
            values = figure["rounds"]
            if len(values) != count or not all(value > 0 for value in values):
                fail(f"{label}: {measure} {protocol}: rounds {values}")
            return figure

        for protocol in ["http", "https"]:
            if measured("latency", protocol).get("version") != "HTTP/1.1":
                fail(f"{label}: latency {protocol} not over HTTP/1.1")
            measured("allocations", protocol)
        measured("new_connection", "https")
        measured("instructions", "http", len(settings["instruction_calls"]) - 1)
        for measure in ["concurrent_wall", "concurrent_slowest", "concurrent_cpu"]:
            measured(measure, "http")
        half_close = measured("half_close_cpu", "http")
        if not half_close.get("outcome"):
            fail(f"{label}: the half-closing peer's call has no outcome")
        h2 = figures.get(("latency", "h2")) or fail(f"{label}: no h2 latency figure")
        if h2.get("not_measured"):
            # Answered over another HTTP version: the release does not negotiate h2.
            if h2["not_measured"].get("cause") != "wrong_version":
                fail(f"{label}: h2: {h2['not_measured']}")
        elif h2.get("version") != "HTTP/2":
            fail(f"{label}: h2 latency answered over {h2.get('version')}")
        print(
            f"{label}: built in {build['build_wall_s']:.0f} s, {build['binary_bytes']} bytes, "
            f"{build['crates']} crates; latency http {figures[('latency', 'http')]['rounds']} us; "
            f"half-close: {half_close['outcome']}"
        )
    report = open(report_path).read()
    if "### releases: what upgrading to the newest release changed" not in report:
        fail("report.md has no releases section")
    older, newest = versions[0], versions[-1]
    if f"| {library} {older} " not in report or f"| {newest} " not in report:
        fail(f"report.md does not judge {library} {older} against {newest}")


if __name__ == "__main__":
    main()
