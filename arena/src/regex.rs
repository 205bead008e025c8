//! The regular expressions of `-pgnout match_line=REGEX`, which pick engine output lines to
//! keep in the PGN (OpenBench passes `^info string pgncomment .*`): a pattern matches when
//! it matches anywhere in the line, as ECMAScript's `regex_search` (fastchess's) does.
//!
//! Matching is `regex-lite`'s: linear in the line's length whatever the pattern, so a
//! pattern such as `(a*)*b` answers correctly on any line (arena's earlier backtracking
//! matcher gave up after a step budget and answered "no match" where one existed). Its
//! classes `\d \w \s` and `[[:alpha:]]` are ASCII only, as arena's own were and as
//! ECMAScript's are; `.` matches anything but a line break. What regex-lite does not have
//! (back-references, look-around) is refused when the command line is read, with its
//! reason. A line is at most 16 KiB (arena cuts longer engine lines).

use std::fmt;

/// The most a compiled pattern may take (regex-lite's size limit), so that a pattern with
/// huge counted repetitions is refused rather than built.
const SIZE_LIMIT: usize = 1 << 20;

/// A compiled `match_line` pattern.
#[derive(Clone)]
pub struct Regex {
    inner: regex_lite::Regex,
}

impl fmt::Debug for Regex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Regex").field(&self.as_str()).finish()
    }
}

/// A `match_line` pattern that does not compile.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("match_line regex {pattern:?}: {why}")]
pub struct RegexError {
    /// The pattern as given.
    pub pattern: String,
    /// What is wrong with it, in regex-lite's words on one line.
    pub why: String,
}

/// Two patterns are equal when they are spelt alike.
impl PartialEq for Regex {
    fn eq(&self, other: &Regex) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Regex {}

impl Regex {
    /// Compiles `pattern`. Errors: [`RegexError`], what in it is wrong or not supported.
    pub fn new(pattern: &str) -> Result<Regex, RegexError> {
        regex_lite::RegexBuilder::new(pattern)
            .size_limit(SIZE_LIMIT)
            .build()
            .map(|inner| Regex { inner })
            .map_err(|e| {
                let why = e.to_string();
                RegexError {
                    pattern: pattern.to_string(),
                    why: why.split_whitespace().collect::<Vec<_>>().join(" "),
                }
            })
    }

    /// The pattern as given.
    pub fn as_str(&self) -> &str {
        self.inner.as_str()
    }

    /// Whether the pattern matches anywhere in `line`.
    pub fn is_match(&self, line: &str) -> bool {
        self.inner.is_match(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, line: &str) -> bool {
        Regex::new(pattern).unwrap().is_match(line)
    }

    #[test]
    fn openbench_pattern() {
        let p = "^info string pgncomment .*";
        assert!(matches(p, "info string pgncomment eval 0.3 wdl 40"));
        assert!(!matches(p, "xinfo string pgncomment a"));
        assert!(!matches(p, "info string other"));
    }

    #[test]
    fn the_supported_syntax() {
        assert!(matches("depth \\d+ score", "info depth 12 score cp 3"));
        assert!(!matches("depth \\d+ score", "info depth x score cp 3"));
        assert!(matches("^a[b-d]{2,3}e$", "abce"));
        assert!(matches("^a[b-d]{2,3}e$", "abcde"));
        assert!(!matches("^a[b-d]{2,3}e$", "abe"));
        assert!(!matches("^a[b-d]{2,3}e$", "abcdbe"));
        assert!(matches("^(foo|bar)+$", "foobarfoo"));
        assert!(!matches("^(foo|bar)+$", "foobaz"));
        assert!(matches("colou?r", "color"));
        assert!(matches("[^ ]+=\\S", "key=v"));
        assert!(matches("\\.nnue$", "net.nnue"));
        assert!(!matches("\\.nnue$", "netxnnue"));
        assert!(matches("a.*?b", "axxb"));
        assert!(matches("(?:ab)*c", "ababc"));
        assert!(matches("(a*)*b", "aaab"));
        assert!(matches("", "anything"));
        assert!(matches("x{3}", "axxx"));
        assert!(matches("x{2,}$", "axxxx"));
    }

    /// The classes are ASCII, as arena's own matcher's were and as ECMAScript's are.
    #[test]
    fn classes_are_ascii() {
        assert!(!matches("^\\d$", "\u{0663}"), "an Arabic-Indic digit is no \\d");
        assert!(!matches("^\\w$", "é"));
        assert!(!matches("^\\s$", "\u{00a0}"), "a no-break space is no \\s");
        assert!(matches("^\\W$", "é"));
        assert!(matches("^.$", "é"), ". is any character");
    }

    /// The cases arena's backtracking matcher answered wrongly once its step budget ran
    /// out (found by a differential test against the `regex` crate on random patterns):
    /// each has a match, and each is answered at once.
    #[test]
    fn patterns_that_exhausted_the_old_budget_match() {
        for (pattern, line, expected) in [
            ("(a*)*b", "aaaaaaaaaaaaaaaaaaaacb", true),
            ("(a*)*b", &"a".repeat(5000), false),
            ("^(a*)*b$", &format!("{}b", "a".repeat(5000)), true),
            ("(a|aa)*c", &format!("{}c", "a".repeat(3000)), true),
            ("(x+x+)+y", &format!("{}y", "x".repeat(2000)), true),
            ("(.*)*z", &format!("{}z", "q".repeat(10_000)), true),
            ("((a*)*|b)*c", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab c", true),
        ] {
            let started = std::time::Instant::now();
            assert_eq!(
                matches(pattern, line),
                expected,
                "{pattern:?} on {} bytes",
                line.len()
            );
            assert!(
                started.elapsed().as_secs() < 2,
                "{pattern:?} took {:?}",
                started.elapsed()
            );
        }
    }

    #[test]
    fn unsupported_or_broken_patterns_are_refused() {
        for bad in [
            "(a",
            "a)",
            "[ab",
            "*a",
            "a{2",
            "a{3,1}",
            "\\1",
            "(?=a)",
            "\\q",
            "a\\",
            "a{100000}{100000}",
        ] {
            let e = Regex::new(bad).unwrap_err().to_string();
            assert!(e.starts_with(&format!("match_line regex {bad:?}: ")), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }
}
