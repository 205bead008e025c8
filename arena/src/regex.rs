//! A small regular-expression matcher for `-pgnout match_line=REGEX`, which picks engine
//! output lines to keep in the PGN (OpenBench passes `^info string pgncomment .*`). It
//! searches a line for a match anywhere, as ECMAScript's `regex_search` does, and covers
//! what such patterns use: literals, `.`, classes (`[a-z0-9_]`, `[^ ]`), the escapes `\d \w
//! \s \D \W \S` and escaped punctuation, groups `( )` and `(?: )`, alternation `|`, the
//! quantifiers `* + ? {n} {n,} {n,m}` (greedy, with a lazy `?` form), and the anchors `^ $`.
//! Anything else (back-references, look-around) is refused when the command line is read,
//! with the reason. Matching backtracks; a line is at most 16 KiB (arena cuts longer engine
//! lines), and a step budget bounds pathological patterns: past it, the line does not match.

/// Most matching steps spent on one line.
const STEP_BUDGET: usize = 1_000_000;
/// Largest `{n,m}` bound.
const MAX_REPEAT: usize = 1000;

#[derive(Clone, Debug, PartialEq, Eq)]
enum Atom {
    Char(char),
    Any,
    /// Ranges (inclusive) and whether the class is negated.
    Class(Vec<(char, char)>, bool),
    Group(Box<Alternatives>),
    Start,
    End,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Piece {
    atom: Atom,
    min: usize,
    max: usize,
    greedy: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Alternatives(Vec<Vec<Piece>>);

/// A compiled pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Regex {
    source: String,
    tree: Alternatives,
}

struct Parser<'a> {
    chars: Vec<char>,
    at: usize,
    source: &'a str,
}

impl Parser<'_> {
    fn error(&self, why: &str) -> String {
        format!("match_line regex {:?}: {why}", self.source)
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn alternatives(&mut self, depth: usize) -> Result<Alternatives, String> {
        if depth > 64 {
            return Err(self.error("groups nested too deep"));
        }
        let mut branches = vec![self.sequence(depth)?];
        while self.peek() == Some('|') {
            self.at += 1;
            branches.push(self.sequence(depth)?);
        }
        Ok(Alternatives(branches))
    }

    fn sequence(&mut self, depth: usize) -> Result<Vec<Piece>, String> {
        let mut pieces = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            self.at += 1;
            let atom = match c {
                '.' => Atom::Any,
                '^' => Atom::Start,
                '$' => Atom::End,
                '[' => self.class()?,
                '\\' => self.escape(false)?,
                '(' => {
                    if self.peek() == Some('?') {
                        if self.chars.get(self.at + 1) == Some(&':') {
                            self.at += 2;
                        } else {
                            return Err(self.error("look-around and named groups are not supported"));
                        }
                    }
                    let inner = self.alternatives(depth + 1)?;
                    if self.peek() != Some(')') {
                        return Err(self.error("a group is not closed"));
                    }
                    self.at += 1;
                    Atom::Group(Box::new(inner))
                }
                '*' | '+' | '?' | '{' => return Err(self.error(&format!("nothing to repeat before {c:?}"))),
                c => Atom::Char(c),
            };
            let quantifier = self.peek();
            let (min, max) = match quantifier {
                Some('*') => (0, usize::MAX),
                Some('+') => (1, usize::MAX),
                Some('?') => (0, 1),
                Some('{') => self.braces()?,
                _ => (1, 1),
            };
            let quantified = matches!(quantifier, Some('*' | '+' | '?' | '{'));
            if quantified {
                // braces() leaves `at` on its closing brace: one step more either way.
                self.at += 1;
                if matches!(atom, Atom::Start | Atom::End) {
                    return Err(self.error("an anchor cannot be repeated"));
                }
            }
            let greedy = if quantified && self.peek() == Some('?') {
                self.at += 1;
                false
            } else {
                true
            };
            pieces.push(Piece {
                atom,
                min,
                max,
                greedy,
            });
        }
        Ok(pieces)
    }

    /// `{n}`, `{n,}`, `{n,m}` (the opening brace not yet consumed); leaves `at` after `}`.
    fn braces(&mut self) -> Result<(usize, usize), String> {
        let close = self.chars[self.at..]
            .iter()
            .position(|&c| c == '}')
            .ok_or_else(|| self.error("a {n,m} repetition is not closed"))?;
        let body: String = self.chars[self.at + 1..self.at + close].iter().collect();
        let number = |s: &str| -> Result<usize, String> {
            match s.trim().parse::<usize>() {
                Ok(n) if n <= MAX_REPEAT => Ok(n),
                _ => Err(self.error(&format!("bad repetition {{{body}}}"))),
            }
        };
        let bounds = match body.split_once(',') {
            None => {
                let n = number(&body)?;
                (n, n)
            }
            Some((lo, "")) => (number(lo)?, usize::MAX),
            Some((lo, hi)) => (number(lo)?, number(hi)?),
        };
        if bounds.0 > bounds.1 {
            return Err(self.error(&format!("bad repetition {{{body}}}")));
        }
        // Leave `at` on the closing brace; the caller steps over it.
        self.at += close;
        Ok(bounds)
    }

    fn escape(&mut self, in_class: bool) -> Result<Atom, String> {
        let c = self.peek().ok_or_else(|| self.error("a trailing backslash"))?;
        self.at += 1;
        let digit = vec![('0', '9')];
        let word = vec![('a', 'z'), ('A', 'Z'), ('0', '9'), ('_', '_')];
        let space = vec![
            (' ', ' '),
            ('\t', '\t'),
            ('\n', '\n'),
            ('\r', '\r'),
            ('\x0b', '\x0c'),
        ];
        Ok(match c {
            'd' => Atom::Class(digit, false),
            'D' => Atom::Class(digit, true),
            'w' => Atom::Class(word, false),
            'W' => Atom::Class(word, true),
            's' => Atom::Class(space, false),
            'S' => Atom::Class(space, true),
            't' => Atom::Char('\t'),
            'n' => Atom::Char('\n'),
            'r' => Atom::Char('\r'),
            'b' | 'B' if !in_class => return Err(self.error("word boundaries are not supported")),
            c if c.is_ascii_digit() => return Err(self.error("back-references are not supported")),
            c if c.is_ascii_alphanumeric() => return Err(self.error(&format!("unknown escape \\{c}"))),
            c => Atom::Char(c),
        })
    }

    /// A class after its `[`.
    fn class(&mut self) -> Result<Atom, String> {
        let negated = self.peek() == Some('^');
        if negated {
            self.at += 1;
        }
        let mut ranges = Vec::new();
        let mut first = true;
        loop {
            let c = self.peek().ok_or_else(|| self.error("a [class] is not closed"))?;
            self.at += 1;
            if c == ']' && !first {
                break;
            }
            first = false;
            let lo = if c == '\\' {
                match self.escape(true)? {
                    Atom::Char(ch) => ch,
                    Atom::Class(more, false) => {
                        ranges.extend(more);
                        continue;
                    }
                    _ => return Err(self.error("negated escapes inside a class are not supported")),
                }
            } else {
                c
            };
            if self.peek() == Some('-') && self.chars.get(self.at + 1).is_some_and(|&n| n != ']') {
                self.at += 1;
                let hi = self.peek().ok_or_else(|| self.error("a [class] is not closed"))?;
                self.at += 1;
                if hi == '\\' {
                    return Err(self.error("an escape cannot end a range"));
                }
                if hi < lo {
                    return Err(self.error(&format!("bad range {lo}-{hi}")));
                }
                ranges.push((lo, hi));
            } else {
                ranges.push((lo, lo));
            }
        }
        Ok(Atom::Class(ranges, negated))
    }
}

struct Matcher<'a> {
    text: &'a [char],
    steps: usize,
}

impl Matcher<'_> {
    fn single(&self, atom: &Atom, at: usize) -> bool {
        let Some(&c) = self.text.get(at) else {
            return false;
        };
        match atom {
            Atom::Char(x) => c == *x,
            Atom::Any => c != '\n',
            Atom::Class(ranges, negated) => ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated,
            _ => false,
        }
    }

    fn alternatives(
        &mut self,
        alts: &Alternatives,
        at: usize,
        k: &mut dyn FnMut(&mut Self, usize) -> bool,
    ) -> bool {
        for branch in &alts.0 {
            if self.sequence(branch, at, k) {
                return true;
            }
        }
        false
    }

    fn sequence(&mut self, pieces: &[Piece], at: usize, k: &mut dyn FnMut(&mut Self, usize) -> bool) -> bool {
        self.steps += 1;
        if self.steps > STEP_BUDGET {
            return false;
        }
        let Some((piece, rest)) = pieces.split_first() else {
            return k(self, at);
        };
        self.repeat(piece, rest, at, 0, k)
    }

    /// Matches `piece` a further time or moves on to `rest`, after `count` matches so far.
    fn repeat(
        &mut self,
        piece: &Piece,
        rest: &[Piece],
        at: usize,
        count: usize,
        k: &mut dyn FnMut(&mut Self, usize) -> bool,
    ) -> bool {
        self.steps += 1;
        if self.steps > STEP_BUDGET {
            return false;
        }
        if count < piece.min {
            return self.once_more(piece, rest, at, count, k);
        }
        // Greedy: one more first, then the rest; lazy: the other way round.
        for more in [piece.greedy, !piece.greedy] {
            let matched = if more {
                self.once_more(piece, rest, at, count, k)
            } else {
                self.sequence(rest, at, k)
            };
            if matched {
                return true;
            }
        }
        false
    }

    /// One more match of `piece` at `at`, then the rest.
    fn once_more(
        &mut self,
        piece: &Piece,
        rest: &[Piece],
        at: usize,
        count: usize,
        k: &mut dyn FnMut(&mut Self, usize) -> bool,
    ) -> bool {
        if count >= piece.max {
            return false;
        }
        match &piece.atom {
            Atom::Start => at == 0 && self.repeat(piece, rest, at, count + 1, k),
            Atom::End => at == self.text.len() && self.repeat(piece, rest, at, count + 1, k),
            Atom::Group(inner) => {
                let mut next = |m: &mut Self, end: usize| {
                    // An empty iteration beyond the minimum would loop forever.
                    (end != at || count < piece.min) && m.repeat(piece, rest, end, count + 1, k)
                };
                self.alternatives(inner, at, &mut next)
            }
            atom => self.single(atom, at) && self.repeat(piece, rest, at + 1, count + 1, k),
        }
    }
}

impl Regex {
    /// Compiles `pattern`, or says what in it is not supported.
    pub fn new(pattern: &str) -> Result<Regex, String> {
        let mut parser = Parser {
            chars: pattern.chars().collect(),
            at: 0,
            source: pattern,
        };
        let tree = parser.alternatives(0)?;
        if parser.at < parser.chars.len() {
            return Err(parser.error("an unmatched )"));
        }
        Ok(Regex {
            source: pattern.to_string(),
            tree,
        })
    }

    /// The pattern as given.
    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Whether the pattern matches anywhere in `line`.
    pub fn is_match(&self, line: &str) -> bool {
        let text: Vec<char> = line.chars().collect();
        let mut matcher = Matcher {
            text: &text,
            steps: 0,
        };
        for start in 0..=text.len() {
            if matcher.alternatives(&self.tree, start, &mut |_, _| true) {
                return true;
            }
            if matcher.steps > STEP_BUDGET {
                return false;
            }
        }
        false
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

    #[test]
    fn unsupported_or_broken_patterns_are_refused() {
        for bad in [
            "(a", "a)", "[ab", "*a", "a{2", "a{3,1}", "\\1", "(?=a)", "\\b", "\\q", "a\\", "^*",
        ] {
            assert!(Regex::new(bad).is_err(), "{bad:?} accepted");
        }
    }

    #[test]
    fn pathological_patterns_end() {
        let long = "a".repeat(5000);
        assert!(!matches("^(a*)*b$", &long));
    }
}
