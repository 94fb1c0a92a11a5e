#!/usr/bin/env python3
"""Opens the bench's report.html in headless Chromium and fails on what a reader would hit.

The page is loaded from file:// in a fresh browser (a throwaway profile, driven over the
DevTools protocol on a pipe: --remote-debugging-pipe, so no port is opened), and the check
fails on:
  - any console error (console.error or console.assert, and the browser's own error log
    entries) and any uncaught JavaScript exception;
  - any request the page makes other than for itself (file:, data:, about:), as the DevTools
    network log reports it; before loading, the source is searched for src/href/url()
    pointing at http(s):// or //host, and a page with one is not opened at all;
  - a suite that ran (settings.suites of the results.json beside the page) without its
    section (section[data-suite=NAME]) in the rendered DOM, no section#verdict, a verdict that
    is not the first section, or a contents link to an id the page lacks;
  - no pick table (table#picks, with rows, shown) within the first screen: laid out at a
    1400x900 viewport (the DevTools protocol sets the window's metrics), the table must end
    within the page's first 900 CSS pixels, so that the page opens with the answer.

    check-report-html.py REPORT.html [--results RESULTS.json]
    check-report-html.py --self-test [REPORT.html [--results RESULTS.json]]
        plant failures in copies of the page (a verdict added first if it has none; without a
        page, in a small page made here) and show that the page passes and each copy fails

Without a `chromium` on PATH (or $CHROMIUM) it prints "report.html check skipped: chromium not
found" and exits 0, unless CI is set: then it fails. Python 3 standard library only.
"""

import fcntl
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-extensions",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-sync",
    "--disable-component-update",
    "--mute-audio",
    # The pages are opened in tabs side by side: none may run its timers as a background tab.
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
    # Nothing the page asks for resolves: a request is seen in the network log, never sent
    # anywhere.
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--remote-debugging-pipe",
]
# The first screen the pick table must lie within: a 1400x900 window, in CSS pixels.
FIRST_SCREEN = {"width": 1400, "height": 900}
# How long a page may take to load, and how long to wait after its load event for late errors.
LOAD_TIMEOUT_S = 30.0
SETTLE_S = 0.3
# Schemes a self-contained page may load from.
LOCAL_SCHEMES = ("file:", "data:", "about:", "blob:")
# An attribute (inside a tag: text has its < escaped, so a URL in prose is no match) or a CSS
# url() or @import that makes the browser fetch from the network.
EXTERNAL = re.compile(
    r"""(?ix)
    (?:<[a-z][^>]*?\s(?:src|href|xlink:href|srcset|poster|action|data|formaction)\s*=\s*["']?\s*
     |url\(\s*["']?\s*
     |@import\s+["']?\s*)
    (?:https?:|//)
    """
)


class CheckError(Exception):
    pass


def find_chromium():
    override = os.environ.get("CHROMIUM")
    if override:
        return shutil.which(override) or (override if Path(override).is_file() else None)
    return shutil.which("chromium")


class Browser:
    """One headless Chromium, spoken to over the DevTools protocol on fds 3 and 4."""

    def __init__(self, binary):
        self.profile = tempfile.TemporaryDirectory(prefix="check-report-html-")
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()
        self.stderr = open(Path(self.profile.name) / "stderr.log", "wb")

        # Chromium reads commands from fd 3 and writes to fd 4. The pipes' own fds are
        # close-on-exec and may be 3 or 4 already: each is copied above 10 first, then onto 3
        # and 4 (copies dup2 makes are inheritable); nothing else is inherited.
        def wire():
            commands = fcntl.fcntl(to_browser_read, fcntl.F_DUPFD, 10)
            answers = fcntl.fcntl(from_browser_write, fcntl.F_DUPFD, 10)
            os.dup2(commands, 3)
            os.dup2(answers, 4)

        self.process = subprocess.Popen(
            [binary, *FLAGS, f"--user-data-dir={self.profile.name}/profile", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self.stderr,
            close_fds=False,
            preexec_fn=wire,
        )
        os.close(to_browser_read)
        os.close(from_browser_write)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        return self.next_id

    def read(self, deadline):
        """The next message, or None once `deadline` (time.monotonic()) has passed."""
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            ready, _, _ = select.select([self.from_browser], [], [], left)
            if not ready:
                return None
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise CheckError("chromium closed its DevTools pipe: " + self.stderr_tail())
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None, timeout=LOAD_TIMEOUT_S):
        """Sends a command and returns its result; events read meanwhile are kept."""
        wanted = self.send(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            message = self.read(deadline)
            if message is None:
                raise CheckError(f"no answer to {method} within {timeout:.0f} s")
            if message.get("id") == wanted:
                if "error" in message:
                    raise CheckError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_for(self, method, session, since, timeout):
        """Whether `method` came from `session` as the `since`-th event or later, waiting up to
        `timeout` seconds for it."""
        deadline = time.monotonic() + timeout
        for event in self.events[since:]:
            if event["method"] == method and event.get("sessionId") == session:
                return True
        while True:
            message = self.read(deadline)
            if message is None:
                return False
            if "method" in message:
                self.events.append(message)
                if message["method"] == method and message.get("sessionId") == session:
                    return True

    def drain(self, seconds):
        deadline = time.monotonic() + seconds
        while True:
            message = self.read(deadline)
            if message is None:
                return
            if "method" in message:
                self.events.append(message)

    def stderr_tail(self):
        self.stderr.flush()
        text = (Path(self.profile.name) / "stderr.log").read_text(errors="replace")
        return text[-2000:]

    def close(self):
        try:
            self.send("Browser.close")
            self.process.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait()
        for fd in (self.to_browser, self.from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self.stderr.close()
        self.profile.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()


# What the rendered DOM holds, read in the page once it has loaded.
DOM_QUERY = """JSON.stringify({
  title: document.title,
  sections: [...document.querySelectorAll("section")].map(s => ({
    id: s.id, suite: s.getAttribute("data-suite"),
    heading: (s.querySelector("h2") || {textContent: ""}).textContent})),
  brokenLinks: [...document.querySelectorAll('a[href^="#"]')]
    .map(a => a.getAttribute("href").slice(1))
    .filter(id => !document.getElementById(id)),
  svgs: document.querySelectorAll("figure.chart svg").length,
  images: document.querySelectorAll("img").length,
  viewport: {width: innerWidth, height: innerHeight},
  picks: (() => {
    const table = document.getElementById("picks");
    if (!table) return null;
    const box = table.getBoundingClientRect();
    return {
      tag: table.tagName.toLowerCase(),
      rows: table.querySelectorAll("tbody tr").length,
      shown: table.checkVisibility
        ? table.checkVisibility({opacityProperty: true, visibilityProperty: true})
        : getComputedStyle(table).visibility === "visible",
      // From the top of the page, however it was scrolled.
      top: box.top + scrollY, bottom: box.bottom + scrollY, height: box.height,
    };
  })(),
})"""


def load(browser, pages):
    """Opens every page in a tab of its own, all at once: for each, (what its DOM holds, the
    problems the browser reported)."""
    tabs = []
    try:
        for page in pages:
            target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = browser.call(
                "Target.attachToTarget", {"targetId": target, "flatten": True}
            )["sessionId"]
            tabs.append((target, session))
            for domain in ("Runtime", "Log", "Network", "Page"):
                browser.call(f"{domain}.enable", session=session)
            browser.call(
                "Emulation.setDeviceMetricsOverride",
                {**FIRST_SCREEN, "deviceScaleFactor": 1, "mobile": False},
                session=session,
            )
        start = len(browser.events)
        for page, (_, session) in zip(pages, tabs):
            browser.call("Page.navigate", {"url": page.resolve().as_uri()}, session=session)
        for page, (_, session) in zip(pages, tabs):
            # Only after the navigation: about:blank may report its own load late.
            if not browser.wait_for("Page.loadEventFired", session, start, LOAD_TIMEOUT_S):
                raise CheckError(f"{page} did not finish loading within {LOAD_TIMEOUT_S:.0f} s")
        # Errors a page raises after its load event (timers) arrive meanwhile.
        browser.drain(SETTLE_S)
        loaded = []
        for _, session in tabs:
            result = browser.call(
                "Runtime.evaluate",
                {"expression": DOM_QUERY, "returnByValue": True},
                session=session,
            )
            dom = json.loads(result["result"]["value"])
            problems = [
                problem
                for event in browser.events[start:]
                if event.get("sessionId") == session
                for problem in problem_in(event)
            ]
            loaded.append((dom, problems))
        return loaded
    finally:
        for target, _ in tabs:
            browser.call("Target.closeTarget", {"targetId": target})


def problem_in(event):
    method, params = event["method"], event.get("params", {})
    if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        text = " ".join(
            str(arg.get("value", arg.get("description", ""))) for arg in params.get("args", [])
        )
        yield f"console error: {text}"
    elif method == "Runtime.exceptionThrown":
        details = params.get("exceptionDetails", {})
        text = details.get("exception", {}).get("description") or details.get("text", "")
        yield f"uncaught exception: {text.splitlines()[0] if text else '?'}"
    elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
        yield f"browser error log: {params['entry'].get('text', '')}"
    elif method == "Network.requestWillBeSent":
        url = params.get("request", {}).get("url", "")
        if not url.startswith(LOCAL_SCHEMES):
            yield f"network request: {url}"


def external_references(source):
    """Each external reference in `source`, as the tag or rule up to its URL's scheme."""
    return [" ".join(match.group(0).split()) for match in EXTERNAL.finditer(source)]


def before_loading(page, results):
    """What is wrong with `page` before it is opened: (the suites to look for, the problems);
    a page with a problem here is not opened."""
    try:
        source = page.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        return [], [f"cannot read {page}: {error}"]
    try:
        suites = suites_of(results)
    except CheckError as error:
        return [], [str(error)]
    # Loading a page with one would send the request.
    return suites, [f"external reference in the source: {ref}" for ref in external_references(source)]


def in_the_dom(dom, suites):
    """What is wrong with the rendered page."""
    problems = []
    sections = dom["sections"]
    for suite in suites:
        if not any(section["suite"] == suite for section in sections):
            problems.append(f'no section for suite "{suite}" (section[data-suite="{suite}"])')
    if not any(section["id"] == "verdict" for section in sections):
        problems.append("no section#verdict")
    elif sections[0]["id"] != "verdict":
        problems.append(f'the first section is "{sections[0]["id"]}", not the verdict')
    problems.extend(on_the_first_screen(dom))
    for id in dom["brokenLinks"]:
        problems.append(f"a link to #{id}, which the page lacks")
    if dom["images"]:
        problems.append(f"{dom['images']} <img> elements (charts are to be inlined)")
    if not dom["title"]:
        problems.append("no title")
    return problems


def on_the_first_screen(dom):
    """What keeps the pick table off the first screen: the page must open with the answer."""
    picks = dom["picks"]
    viewport = dom["viewport"]
    if viewport != FIRST_SCREEN:
        # The metrics were not applied: a layout measured at another size proves nothing.
        return [f"laid out at {viewport['width']}x{viewport['height']}, not "
                f"{FIRST_SCREEN['width']}x{FIRST_SCREEN['height']}"]
    if picks is None:
        return ["no pick table (#picks)"]
    if picks["tag"] != "table" or not picks["rows"]:
        return [f"#picks is a <{picks['tag']}> with {picks['rows']} rows, not the pick table"]
    if not picks["shown"] or picks["height"] <= 0:
        return ["the pick table (#picks) is not shown"]
    if picks["bottom"] > FIRST_SCREEN["height"]:
        return [f"the pick table ends {picks['bottom']:.0f} px down the page, below the first "
                f"screen ({FIRST_SCREEN['width']}x{FIRST_SCREEN['height']})"]
    return []


def check(browser, pages):
    """For each (page, its results.json), every problem with the page; empty when it passes.
    The pages that pass the source checks are opened together."""
    found = [before_loading(page, results) for page, results in pages]
    to_open = [index for index, (_, problems) in enumerate(found) if not problems]
    opened = load(browser, [pages[index][0] for index in to_open])
    outcomes = [problems for _, problems in found]
    for index, (dom, problems) in zip(to_open, opened):
        outcomes[index] = problems + in_the_dom(dom, found[index][0])
    return outcomes


def run_check(page, results):
    binary = find_chromium()
    if binary is None:
        return skip()
    with Browser(binary) as browser:
        [problems] = check(browser, [(page, results)])
    if problems:
        print(f"report.html check failed: {page}")
        for problem in problems:
            print(f"  - {problem}")
        return 1
    print(
        f"report.html check passed: {page} (sections for {', '.join(suites_of(results))} and "
        "the verdict, the pick table on the first screen, no console error or exception, no "
        "request)"
    )
    return 0


def suites_of(results):
    """settings.suites of a results.json: the suites that ran."""
    try:
        suites = json.loads(results.read_text())["settings"]["suites"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise CheckError(f"cannot read settings.suites from {results}: {error}") from error
    if not isinstance(suites, list):
        raise CheckError(f"settings.suites in {results} is not a list")
    return suites


def skip():
    if os.environ.get("CI"):
        print("report.html check failed: chromium not found, and CI is set (install chromium)")
        return 1
    print("report.html check skipped: chromium not found")
    return 0


# The self-test's own page, when none is given: two suites, the verdict first, a chart.
SMALL_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>bench results</title>
<link rel="icon" href="data:,"></head><body>
<nav id="contents"><ol><li><a href="#verdict">Verdict</a></li><li><a href="#latency">latency</a></li>
<li><a href="#faults">faults</a></li></ol></nav>
<main>
<section id="verdict" data-suite=""><h2>Verdict</h2>
<table id="picks"><thead><tr><th>Use case</th><th>Pick</th></tr></thead>
<tbody><tr><td>Blocking or CLI code</td><td>ureq</td></tr></tbody></table></section>
<section id="latency" data-suite="latency"><h2>latency</h2>
<figure class="chart"><svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="5" height="5"/></svg></figure>
</section>
<section id="faults" data-suite="faults"><h2>faults</h2><table><tr><td>ok</td></tr></table></section>
</main></body></html>
"""

VERDICT = (
    '<section id="verdict" data-suite=""><h2>Verdict</h2>'
    '<table id="picks"><tbody><tr><td>added by the self-test</td></tr></tbody></table>'
    "</section>\n"
)


def with_verdict(source):
    """The page with a verdict section first, as main's report has (added if missing)."""
    if 'id="verdict"' in source:
        return source
    at = source.find("<section ")
    if at < 0:
        raise CheckError("the page has no <section> to put a verdict before")
    return source[:at] + VERDICT + source[at:]


def without_section(source, id=r'[^"]*', suite=r'[^"]*'):
    """The page without the sections matching `id` and `suite` (regular expressions)."""
    pattern = re.compile(rf'<section id="{id}" data-suite="{suite}">.*?</section>\n?', re.S)
    stripped, count = pattern.subn("", source)
    if not count:
        raise CheckError(f"the page has no section {id} of suite {suite} to remove")
    return stripped


def planted(source, script):
    return source.replace("</body>", f"<script>{script}</script>\n</body>", 1)


def self_test(given, results):
    binary = find_chromium()
    if binary is None:
        return skip()
    with tempfile.TemporaryDirectory(prefix="check-report-html-self-test-") as directory:
        directory = Path(directory)
        if given is not None:
            try:
                base = with_verdict(given.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError) as error:
                raise CheckError(f"cannot read {given}: {error}") from error
            suites = suites_of(results)
        else:
            base = SMALL_PAGE
            results = directory / "results.json"
            suites = ["latency", "faults"]
            results.write_text(json.dumps({"settings": {"suites": suites}}))
        if not suites:
            raise CheckError("the results name no suite: nothing to remove")
        cases = [
            ("the page as it is (a verdict added if missing)", base, None),
            ("a console.error", planted(base, 'console.error("planted error")'),
             "console error: planted error"),
            ("a thrown exception", planted(base, 'throw new Error("planted exception")'),
             "uncaught exception: Error: planted exception"),
            ("an exception thrown later, from a timer",
             planted(base, 'setTimeout(() => { throw new TypeError("late") }, 50)'),
             "uncaught exception: TypeError: late"),
            (f'the "{suites[-1]}" section removed', without_section(base, suite=re.escape(suites[-1])),
             f'no section for suite "{suites[-1]}"'),
            ("the verdict removed", without_section(base, id="verdict"), "no section#verdict"),
            ("the verdict last", without_section(base, id="verdict").replace(
                "</main>", VERDICT + "</main>", 1), "the first section is"),
            ("the pick table pushed below the first screen", base.replace(
                "<body>", '<body>\n<div style="height: 900px">planted</div>', 1),
             "the pick table ends"),
            ("the pick table without its id", base.replace('id="picks"', 'id="planted"', 1),
             "no pick table (#picks)"),
            ("the pick table hidden", base.replace(
                "</head>", "<style>#picks { visibility: hidden }</style></head>", 1),
             "the pick table (#picks) is not shown"),
            ("a section added only by script after load (the DOM is what counts, not the source)",
             planted(without_section(base, suite=re.escape(suites[0])),
                     'document.querySelector("main").insertAdjacentHTML("beforeend",'
                     f' \'<section id="{suites[0]}" data-suite="{suites[0]}"><h2>late</h2></section>\')'),
             None),
            ("an image from a CDN", base.replace(
                "</body>", '<img src="https://cdn.example.invalid/x.png"></body>', 1),
             "external reference in the source: <img src=\"https:"),
            ("a stylesheet by protocol-relative URL", base.replace(
                "</head>", '<link rel="stylesheet" href="//cdn.example.invalid/x.css"></head>', 1),
             "external reference in the source: <link rel=\"stylesheet\" href=\"//"),
            ("a URL in the text, not loaded", base.replace(
                "</body>", "<p>see https://example.invalid/ and src=https://x</p></body>", 1),
             None),
            ("a fetch made by script (only the network log sees it)",
             planted(base, 'fetch("http://127.0.0.1:9/planted").catch(() => {})'),
             "network request: http://127.0.0.1:9/planted"),
        ]
        pages = []
        for index, (_, source, _) in enumerate(cases):
            page = directory / f"case{index}" / "report.html"
            page.parent.mkdir()
            page.write_text(source, encoding="utf-8")
            pages.append((page, results))
        started = time.monotonic()
        with Browser(binary) as browser:
            outcomes = check(browser, pages)
        failed = 0
        for (name, _, expected), problems in zip(cases, outcomes):
            if expected is None:
                ok = not problems
            else:
                ok = any(problem.startswith(expected) for problem in problems)
            verdict = f"fails: {problems}" if problems else "passes"
            print(f"  {'ok  ' if ok else 'FAIL'} {name}: {verdict}")
            failed += not ok
        took = time.monotonic() - started
    if failed:
        print(f"self-test failed: {failed} of {len(cases)} cases did not come out as planted")
        return 1
    print(
        f"self-test: the page passes and every planted failure fails ({len(cases)} pages, "
        f"{took:.1f} s)"
    )
    return 0


def main(argv):
    arguments = list(argv)
    self_testing = "--self-test" in arguments
    if self_testing:
        arguments.remove("--self-test")
    results = None
    if "--results" in arguments:
        at = arguments.index("--results")
        if at + 1 >= len(arguments):
            arguments = [None, None]
        else:
            results = Path(arguments.pop(at + 1))
            arguments.pop(at)
    if len(arguments) > 1 or (not arguments and not self_testing):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    page = Path(arguments[0]) if arguments else None
    if page is not None and results is None:
        results = page.parent / "results.json"
    try:
        if self_testing:
            return self_test(page, results)
        return run_check(page, results)
    except CheckError as error:
        print(f"report.html check failed: {error}")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
