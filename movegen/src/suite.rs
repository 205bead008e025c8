//! Perft suite files: EPD lines (`FEN ;D1 20 ;D2 400`) and `.perft` blocks
//! (`id NAME` / `epd FEN` / `perft DEPTH NODES` lines). Both read into the same
//! [`PerftCase`] list; a malformed line is an error naming its line number.

use std::fmt;

/// One position of a suite with its expected counts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PerftCase {
    /// The case's `id` in a `.perft` file, else `line N` (its line number).
    pub name: String,
    /// The position, as FEN.
    pub fen: String,
    /// (depth, nodes), in file order.
    pub expected: Vec<(u32, u64)>,
}

/// A line of a suite file that could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SuiteError {
    /// 1-based number of the line at fault.
    pub line: usize,
    /// What is wrong with the line.
    pub message: String,
}

impl fmt::Display for SuiteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for SuiteError {}

/// Reads a suite in either format (detected per line).
pub fn parse_suite(text: &str) -> Result<Vec<PerftCase>, SuiteError> {
    let mut cases: Vec<PerftCase> = Vec::new();
    let mut pending_id: Option<String> = None;
    for (i, raw) in text.lines().enumerate() {
        let line_no = i + 1;
        let line = raw.trim_start_matches(crate::openings::BOM).trim();
        let err = |message: String| SuiteError {
            line: line_no,
            message,
        };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(id) = line.strip_prefix("id ") {
            pending_id = Some(id.trim().to_string());
        } else if let Some(fen) = line.strip_prefix("epd ") {
            let name = pending_id.take().unwrap_or_else(|| format!("line {line_no}"));
            cases.push(PerftCase {
                name,
                fen: fen.trim().to_string(),
                expected: Vec::new(),
            });
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut parts = rest.split_whitespace();
            let depth = parts.next().and_then(|d| d.parse().ok());
            let nodes = parts.next().and_then(|n| n.parse().ok());
            let (Some(depth), Some(nodes), None) = (depth, nodes, parts.next()) else {
                return Err(err(format!("expected 'perft DEPTH NODES', found {line:?}")));
            };
            match cases.last_mut() {
                Some(case) => case.expected.push((depth, nodes)),
                None => return Err(err("'perft' line before any 'epd' line".into())),
            }
        } else if line.contains(';') {
            let mut fields = line.split(';');
            let fen = fields.next().unwrap_or_default().trim().to_string();
            let mut expected = Vec::new();
            for field in fields {
                let field = field.trim();
                if field.is_empty() {
                    continue;
                }
                let mut parts = field.split_whitespace();
                let depth = parts
                    .next()
                    .and_then(|d| d.strip_prefix('D'))
                    .and_then(|d| d.parse().ok());
                let nodes = parts.next().and_then(|n| n.parse().ok());
                let (Some(depth), Some(nodes)) = (depth, nodes) else {
                    return Err(err(format!("expected 'Dn count', found {field:?}")));
                };
                expected.push((depth, nodes));
            }
            cases.push(PerftCase {
                name: format!("line {line_no}"),
                fen,
                expected,
            });
        } else {
            return Err(err(format!("unrecognised line {line:?}")));
        }
    }
    Ok(cases)
}

#[cfg(test)]
mod bom_tests {
    #[test]
    fn a_byte_order_mark_does_not_hide_the_first_case() {
        let text = "\u{feff}rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 ;D1 20 ;D2 400\n";
        let cases = super::parse_suite(text).unwrap();
        assert_eq!(cases.len(), 1);
    }
}
