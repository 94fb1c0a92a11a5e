//! Text into HTML: escaping, the Markdown-ish inline marks and blocks the sections' prose uses
//! (`**bold**`, `*emphasis*`, `` `code` ``, paragraphs, `- ` lists), and ids from titles.

/// `text` with `&`, `<`, `>`, `"` and `'` escaped: safe as element content and as a quoted
/// attribute value.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// One line of text as HTML: escaped, `` `code` `` spans, `**bold**` and `*emphasis*` marked. A
/// mark without its closing pair stays as typed.
pub fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for piece in paired(text, "`") {
        match piece {
            Piece::Inside(code) => {
                out.push_str("<code>");
                out.push_str(&escape(code));
                out.push_str("</code>");
            }
            Piece::Outside(plain) => {
                for piece in paired(plain, "**") {
                    match piece {
                        Piece::Inside(bold) => {
                            out.push_str("<strong>");
                            out.push_str(&escape(bold));
                            out.push_str("</strong>");
                        }
                        Piece::Outside(plain) => emphasis(plain, &mut out),
                    }
                }
            }
        }
    }
    out
}

/// `plain` escaped into `out`, a `*word*` (a `*` before a non-space, and the next `*` after one)
/// emphasised: a lone `*`, as in `2 * 3`, stays.
fn emphasis(plain: &str, out: &mut String) {
    let mut rest = plain;
    while let Some(open) = rest.find('*') {
        let after = &rest[open + 1..];
        let close = after
            .find('*')
            .filter(|&close| close > 0 && !after.starts_with(char::is_whitespace))
            .filter(|&close| !after[..close].ends_with(char::is_whitespace));
        let Some(close) = close else {
            out.push_str(&escape(&rest[..=open]));
            rest = after;
            continue;
        };
        out.push_str(&escape(&rest[..open]));
        out.push_str("<em>");
        out.push_str(&escape(&after[..close]));
        out.push_str("</em>");
        rest = &after[close + 1..];
    }
    out.push_str(&escape(rest));
}

/// A stretch of text, inside a pair of marks or outside any.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Outside(&'a str),
    Inside(&'a str),
}

/// `text` cut at each pair of `mark`s; an unpaired last mark is left in the text outside.
fn paired<'a>(text: &'a str, mark: &str) -> Vec<Piece<'a>> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find(mark) {
        let after = &rest[open + mark.len()..];
        let Some(close) = after.find(mark) else {
            break;
        };
        if open > 0 {
            pieces.push(Piece::Outside(&rest[..open]));
        }
        pieces.push(Piece::Inside(&after[..close]));
        rest = &after[close + mark.len()..];
    }
    if !rest.is_empty() {
        pieces.push(Piece::Outside(rest));
    }
    pieces
}

/// A block of prose as HTML: paragraphs split by blank lines, lines starting `- ` as list items
/// (a line after an item, indented or not, continues it, as in Markdown).
pub fn blocks(text: &str) -> String {
    enum Open {
        Nothing,
        Paragraph(Vec<String>),
        List(Vec<Vec<String>>),
    }
    fn close(open: Open, out: &mut String) {
        match open {
            Open::Nothing => {}
            Open::Paragraph(lines) => {
                out.push_str("<p>");
                out.push_str(&inline(&lines.join(" ")));
                out.push_str("</p>\n");
            }
            Open::List(items) => {
                out.push_str("<ul>\n");
                for item in items {
                    out.push_str("<li>");
                    out.push_str(&inline(&item.join(" ")));
                    out.push_str("</li>\n");
                }
                out.push_str("</ul>\n");
            }
        }
    }
    let mut out = String::new();
    let mut open = Open::Nothing;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            close(std::mem::replace(&mut open, Open::Nothing), &mut out);
        } else if let Some(item) = line.strip_prefix("- ") {
            let mut items = match std::mem::replace(&mut open, Open::Nothing) {
                Open::List(items) => items,
                other => {
                    close(other, &mut out);
                    Vec::new()
                }
            };
            items.push(vec![item.trim().to_owned()]);
            open = Open::List(items);
        } else {
            match &mut open {
                Open::Nothing => open = Open::Paragraph(vec![trimmed.to_owned()]),
                Open::Paragraph(lines) => lines.push(trimmed.to_owned()),
                Open::List(items) => {
                    if let Some(item) = items.last_mut() {
                        item.push(trimmed.to_owned());
                    }
                }
            }
        }
    }
    close(open, &mut out);
    out
}

/// An id for `title`: lower-case letters and digits, every other run of characters one `-`
/// ("Change against the baseline" is `change-against-the-baseline`).
pub fn slug(title: &str) -> String {
    let mut slug = String::with_capacity(title.len());
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            slug.push('-');
        }
    }
    while slug.ends_with('-') {
        slug.pop();
    }
    if slug.is_empty() {
        "section".to_owned()
    } else {
        slug
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape(r#"<script>alert("x" & 'y')</script>"#),
            "&lt;script&gt;alert(&quot;x&quot; &amp; &#39;y&#39;)&lt;/script&gt;"
        );
    }

    #[test]
    fn marks_bold_and_code_and_escapes_inside_them() {
        assert_eq!(
            inline("**3 of 4** met; see `/proc/<pid>/fd` & **<b>**"),
            "<strong>3 of 4</strong> met; see <code>/proc/&lt;pid&gt;/fd</code> &amp; \
             <strong>&lt;b&gt;</strong>"
        );
        // Bold marks inside code are code; unpaired marks stay as typed.
        assert_eq!(inline("`a**b**` **c"), "<code>a**b**</code> **c");
        assert_eq!(inline("it`s"), "it`s");
        assert_eq!(
            inline("each request's *intended* send time, 2 * 3 or *x"),
            "each request&#39;s <em>intended</em> send time, 2 * 3 or *x"
        );
    }

    #[test]
    fn splits_paragraphs_and_lists() {
        let html = blocks(
            "The ways:\n- `a`: one\n- `b`: two,\n  continued\n\nAfter the list,\non two lines.",
        );
        assert_eq!(
            html,
            "<p>The ways:</p>\n<ul>\n<li><code>a</code>: one</li>\n\
             <li><code>b</code>: two, continued</li>\n</ul>\n\
             <p>After the list, on two lines.</p>\n"
        );
    }

    #[test]
    fn slugs_titles() {
        assert_eq!(slug("Verdict"), "verdict");
        assert_eq!(
            slug("Change against the baseline"),
            "change-against-the-baseline"
        );
        assert_eq!(slug("  How to read: this!  "), "how-to-read-this");
        assert_eq!(slug("???"), "section");
    }
}
