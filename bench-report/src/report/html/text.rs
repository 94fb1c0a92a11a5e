//! Text into HTML: escaping, the sections' prose and titles read as Markdown (`**bold**`,
//! `*emphasis*`, `` `code` ``, paragraphs, `- ` lists), and ids from titles.

use pulldown_cmark::{Event, Options, Parser};

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

/// One line of text as HTML: its Markdown inline marks (`` `code` ``, `**bold**`, `*emphasis*`,
/// links) rendered, everything else escaped; no paragraph around it. A line that Markdown
/// would read as a block of another kind (a heading, a list item, a quote) is shown as typed.
pub fn inline(text: &str) -> String {
    let html = blocks(text);
    html.strip_prefix("<p>")
        .and_then(|inner| inner.strip_suffix("</p>\n"))
        .filter(|inner| !inner.contains("<p>"))
        .map_or_else(|| escape(text), str::to_owned)
}

/// A block of prose as HTML, read as CommonMark (pulldown-cmark): paragraphs split by blank
/// lines, `- ` lists, the inline marks. HTML in the text is text: shown escaped, never passed
/// through.
pub fn blocks(text: &str) -> String {
    let events = Parser::new_ext(text, Options::empty()).map(|event| match event {
        Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
        other => other,
    });
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    pulldown_cmark::html::push_html(&mut out, events);
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
            "each request's <em>intended</em> send time, 2 * 3 or *x"
        );
    }

    #[test]
    fn a_line_markdown_reads_as_another_block_is_shown_as_typed() {
        assert_eq!(inline("- 3 of 4"), "- 3 of 4");
        assert_eq!(inline("# runs"), "# runs");
    }

    #[test]
    fn html_in_the_text_is_shown_not_run() {
        assert_eq!(
            blocks("<script>alert(1)</script>\n\nsee <b>x</b>"),
            "&lt;script&gt;alert(1)&lt;/script&gt;\n<p>see &lt;b&gt;x&lt;/b&gt;</p>\n"
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
             <li><code>b</code>: two,\ncontinued</li>\n</ul>\n\
             <p>After the list,\non two lines.</p>\n"
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
