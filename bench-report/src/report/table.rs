//! A table with every cell formatted, rendered as aligned Markdown.

/// Column alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// A table ready to print: every cell already formatted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub title: String,
    pub columns: Vec<(&'static str, Align)>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// The table as aligned Markdown, BenchmarkDotNet's console style: readable as text and
    /// valid Markdown (`---:` right-aligns numbers).
    pub fn render(&self) -> String {
        let widths: Vec<usize> = self
            .columns
            .iter()
            .enumerate()
            .map(|(index, (header, _))| {
                self.rows
                    .iter()
                    .filter_map(|row| row.get(index))
                    .map(|cell| cell.chars().count())
                    .chain([header.chars().count(), 3])
                    .max()
                    .unwrap_or(3)
            })
            .collect();
        let line = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
        let mut out = line(
            self.columns
                .iter()
                .zip(&widths)
                .map(|((header, align), width)| pad(header, *width, *align))
                .collect(),
        );
        out.push_str(&line(
            self.columns
                .iter()
                .zip(&widths)
                .map(|((_, align), width)| match align {
                    Align::Left => "-".repeat(*width),
                    Align::Right => format!("{}:", "-".repeat(width - 1)),
                })
                .collect(),
        ));
        for row in &self.rows {
            out.push_str(&line(
                self.columns
                    .iter()
                    .zip(&widths)
                    .enumerate()
                    .map(|(index, ((_, align), width))| {
                        pad(row.get(index).map_or("", String::as_str), *width, *align)
                    })
                    .collect(),
            ));
        }
        out
    }
}

fn pad(text: &str, width: usize, align: Align) -> String {
    match align {
        Align::Left => format!("{text:<width$}"),
        Align::Right => format!("{text:>width$}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_an_aligned_markdown_table() {
        let table = Table {
            title: "t".to_owned(),
            columns: vec![("Name", Align::Left), ("Mean", Align::Right)],
            rows: vec![
                vec!["hyper".to_owned(), "70.1 us".to_owned()],
                vec!["a".to_owned(), "1 us".to_owned()],
            ],
        };
        assert_eq!(
            table.render(),
            "| Name  |    Mean |\n| ----- | ------: |\n| hyper | 70.1 us |\n| a     |    1 us |\n"
        );
    }
}
