#!/usr/bin/env python3
"""Checks the relative links of README.md and of every .md file under docs/.

Each Markdown link `[text](target)` or image `![alt](target)`, each reference definition
`[name]: target` and each `<a href="target">` outside code must point at a file or directory
that exists, relative to the page (a target starting with `/` from the repository's root).
Links to another site (`http://`, `https://`, `mailto:`) and links within the page (`#anchor`)
are not checked. Where a link names an anchor in a Markdown page (`page.md#a-heading`, or a
directory with a README.md), the anchor must be one of that page's headings as GitHub makes
them: lower case, punctuation but `-` and `_` dropped, spaces turned into `-`, and `-1`, `-2`
added to a repeated heading's.

    check-links.py [ROOT]        exit 1 and list each broken link as `file:line: target`
    check-links.py --self-test   check the checker on pages made for it
"""

import re
import sys
from pathlib import Path
from urllib.parse import unquote

SKIPPED = re.compile(r"^(https?:|mailto:|#)", re.I)
FENCE = re.compile(r"^ {0,3}(```|~~~)")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
# [text](target) and ![alt](target); the target may be <in angle brackets> and have a "title".
INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)(?:\s+[\"'(][^)]*)?\s*\)")
DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HREF = re.compile(r"<a\s[^>]*\bhref\s*=\s*[\"']([^\"']*)[\"']", re.I)
HEADING = re.compile(r"^ {0,3}#{1,6}\s+(.*?)(?:\s+#+)?\s*$")
HTML_ANCHOR = re.compile(r"<a\s[^>]*\b(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.I)


def prose_lines(text, blank_code=True):
    """(line number, line) of the text outside fenced code blocks, code spans blanked unless
    asked to keep them (a heading's code is part of its anchor)."""
    fence = None
    for number, line in enumerate(text.splitlines(), start=1):
        opened = FENCE.match(line)
        if fence:
            if opened and opened.group(1) == fence:
                fence = None
            continue
        if opened:
            fence = opened.group(1)
            continue
        yield number, CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line) if blank_code else line


def links(text):
    """(line number, target) of every link in the text."""
    for number, line in prose_lines(text):
        found = [m.group(1) for m in INLINE.finditer(line)]
        found += [m.group(1) for m in HREF.finditer(line)]
        definition = DEFINITION.match(line)
        if definition:
            found.append(definition.group(1))
        for target in found:
            yield number, target.strip("<>")


def slug(heading):
    """GitHub's anchor for a heading's text, its Markdown rendered to plain text first."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text)  # HTML tags
    # Outside code spans, emphasis marks go (not a snake_case name's); a code span's content
    # stays as it is.
    parts = re.split(r"`+([^`]*)`+", text)
    for i in range(0, len(parts), 2):
        parts[i] = re.sub(r"(\*+|(?<!\w)_+|_+(?!\w))", "", parts[i])
    kept = "".join(c for c in "".join(parts).lower() if c.isalnum() or c in "-_ ")
    return kept.replace(" ", "-")


def anchors(page):
    """Every anchor a Markdown page offers: its headings' slugs and its HTML anchors."""
    seen, found = {}, set()
    for _, line in prose_lines(page.read_text(encoding="utf-8"), blank_code=False):
        heading = HEADING.match(line)
        if heading:
            base = slug(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        found.update(m.group(1) for m in HTML_ANCHOR.finditer(line))
    return found


def pages(root):
    """README.md and every .md file under docs/, in a stable order."""
    found = [root / "README.md"] if (root / "README.md").is_file() else []
    return found + sorted((root / "docs").rglob("*.md"))


def broken(root):
    """(page, line, target) of every relative link whose file, directory or anchor is missing."""
    root = root.resolve()
    offered = {}
    for page in pages(root):
        for number, target in links(page.read_text(encoding="utf-8")):
            if not target or SKIPPED.match(target):
                continue
            path, _, anchor = target.partition("#")
            path = unquote(path.split("?")[0])
            where = (root / path.lstrip("/")) if path.startswith("/") else (page.parent / path)
            where = where.resolve()
            if not where.exists():
                yield page.relative_to(root), number, target
                continue
            if not anchor:
                continue
            if where.is_dir():
                where = where / "README.md"
            if where.suffix != ".md" or not where.is_file():
                continue
            if where not in offered:
                offered[where] = anchors(where)
            if unquote(anchor).lower() not in offered[where]:
                yield page.relative_to(root), number, target


def self_test():
    """A throwaway repository whose pages hold each kind of link, good and broken."""
    import tempfile

    files = {
        "README.md": (
            "# The page\n\n"
            "[good](docs/a.md) [dir](docs/) [anchor](docs/a.md#the-one-capacity-sustained)\n"
            "[missing](docs/none.md) ![image](docs/none.svg) [far](https://example.com/x)\n"
            "`[code](docs/none-in-code.md)` [here](#anything) [bad anchor](docs/a.md#nowhere)\n"
            "```\n[fenced](docs/none-in-fence.md)\n```\n"
            '<a href="docs/none.html">html</a> [titled](docs/a.md "title")\n'
        ),
        "docs/a.md": (
            "# A\n\n## The one capacity, *sustained*\n\n## `--baseline`: runs\n\n## Who may use `/__admin/*`\n\n## Again\n\n"
            "## Again\n\n[up](../README.md#the-page) [twice](a.md#again-1) [flag](a.md#--baseline-runs)\n"
            "[code](a.md#who-may-use-__admin)\n"
            "[root](/docs/a.md) [dir anchor](sub/#sub) [bad dir anchor](sub/#none)\n"
        ),
        "docs/sub/README.md": "# Sub\n\n[definition]: ../missing.md\n",
    }
    expected = [
        ("README.md", 4, "docs/none.md"),
        ("README.md", 4, "docs/none.svg"),
        ("README.md", 5, "docs/a.md#nowhere"),
        ("README.md", 9, "docs/none.html"),
        ("docs/a.md", 15, "sub/#none"),
        ("docs/sub/README.md", 3, "../missing.md"),
    ]
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
        found = [(str(page), line, target) for page, line, target in broken(root)]
    if found != expected:
        print(f"self-test failed: found {found}, expected {expected}")
        return 1
    print("self-test: every broken link and anchor was found, and no good one")
    return 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    root = Path(argv[1] if len(argv) > 1 else Path(__file__).resolve().parent.parent)
    found = list(broken(root))
    for page, line, target in found:
        print(f"{page}:{line}: {target}")
    checked = len(pages(root.resolve()))
    if found:
        print(f"{len(found)} broken links in the README and docs/", file=sys.stderr)
        return 1
    print(f"links: every relative link of {checked} pages leads somewhere")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
