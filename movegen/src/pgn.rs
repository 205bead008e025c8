//! PGN writing and reading.
//!
//! Writing produces export-format PGN: tags (with `SetUp`/`FEN` when the game does not start
//! from the standard position), SAN movetext wrapped under 80 columns, optional `{comment}`
//! after any move, and the result. Reading takes any number of games and skips what a
//! reader may skip: a UTF-8 byte-order mark (at the start of the text or of any line, as in
//! concatenated files), `;` and `%` line comments, NAGs, `!?` marks, and `( ... )`
//! variations, however nested. Several `{comments}` after one move are kept joined, in
//! order. An en passant capture may carry an `e.p.` mark, glued
//! (`exd6e.p.`) or apart (`exd6 e.p.`); the mark on any other move is an error. Every move is
//! checked against the rules; an illegal or ambiguous move is an error naming the game, the
//! line and the move.
//!
//! Null moves (`--`, also `Z0` and `0000`) are accepted where one is legal, that is when the
//! side to move is not in check. [`crate::Game`] cannot hold a null move, so a game stops
//! at its first one: the moves before it are kept, [`PgnGame::truncated`] says why, and the
//! movetext after it is still read and checked (from the position with the turn passed) but
//! not kept.

use crate::board::Board;
use crate::notation::MoveParseError;
use crate::types::{Color, Move};
use std::fmt;

/// One game as PGN holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnGame {
    /// Tag pairs in file order.
    pub tags: Vec<(String, String)>,
    /// The start position (from the `FEN` tag, else the standard one).
    pub start: Board,
    /// The moves played from `start`, in order (stopping before a null move: see
    /// [`PgnGame::truncated`]).
    pub moves: Vec<Move>,
    /// The comment after each move (`comments[i]` follows `moves[i]`); several comments
    /// after one move are joined by a space, in order.
    pub comments: Vec<Option<String>>,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// Set when the reader kept only the moves before a null move, saying where.
    pub truncated: Option<String>,
    /// What the reader cleaned in the `FEN` tag ([`crate::clean_fen`]: a castling right or
    /// en passant square the board does not back, missing fields), one warning each.
    pub notes: Vec<String>,
}

impl PgnGame {
    /// A game from `start` with no moves yet.
    pub fn new(start: Board) -> Self {
        PgnGame {
            tags: Vec::new(),
            start,
            moves: Vec::new(),
            comments: Vec::new(),
            result: "*".to_string(),
            truncated: None,
            notes: Vec::new(),
        }
    }

    /// The value of tag `name`, if present.
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    /// Sets tag `name`, replacing an earlier value.
    pub fn set_tag(&mut self, name: &str, value: &str) {
        match self.tags.iter_mut().find(|(k, _)| k == name) {
            Some(tag) => tag.1 = value.to_string(),
            None => self.tags.push((name.to_string(), value.to_string())),
        }
    }

    /// Appends a move with an optional comment.
    pub fn push(&mut self, mv: Move, comment: Option<String>) {
        self.moves.push(mv);
        self.comments.push(comment);
    }

    /// The game in PGN export format.
    pub fn to_pgn(&self) -> String {
        let mut out = String::new();
        let mut tags = self.tags.clone();
        if self.start != Board::startpos() && !tags.iter().any(|(k, _)| k == "FEN") {
            tags.push(("SetUp".into(), "1".into()));
            tags.push(("FEN".into(), self.start.to_fen()));
        }
        if !tags.iter().any(|(k, _)| k == "Result") {
            tags.push(("Result".into(), self.result.clone()));
        }
        write_tags(&mut out, &tags);

        let mut tokens = Vec::new();
        let mut board = self.start;
        for (i, &mv) in self.moves.iter().enumerate() {
            let number = board.fullmove_number();
            if board.side_to_move() == Color::White {
                tokens.push(format!("{number}."));
            } else if i == 0 {
                tokens.push(format!("{number}..."));
            }
            tokens.push(board.to_san(mv));
            if let Some(Some(comment)) = self.comments.get(i) {
                tokens.push(comment_token(comment));
            }
            board.play(mv);
            if board.side_to_move() == Color::White {
                // next token is a number anyway
            } else if let Some(Some(_)) = self.comments.get(i) {
                // after a comment, Black's move is numbered again
                if i + 1 < self.moves.len() {
                    tokens.push(format!("{}...", board.fullmove_number()));
                }
            }
        }
        tokens.push(self.result.clone());
        write_movetext(&mut out, &tokens);
        out
    }
}

/// The widest movetext line [`write_movetext`] writes, in bytes (export format keeps lines
/// under 80 columns).
pub const MOVETEXT_WIDTH: usize = 79;

/// Appends the tag section: one `[Name "value"]` line per pair, in the order given, with `\`
/// and `"` in values escaped, then the blank line that ends the section.
pub fn write_tags<K: AsRef<str>, V: AsRef<str>>(out: &mut String, tags: &[(K, V)]) {
    for (name, value) in tags {
        let escaped = value.as_ref().replace('\\', "\\\\").replace('"', "\\\"");
        out.push_str(&format!("[{} \"{escaped}\"]\n", name.as_ref()));
    }
    out.push('\n');
}

/// `text` as a movetext comment token, `{text}`; a `}` in it (which would end the comment)
/// becomes `)`.
pub fn comment_token(text: &str) -> String {
    format!("{{{}}}", text.replace('}', ")"))
}

/// Appends movetext: `tokens` (move numbers, moves, comment tokens, the result) separated by
/// single spaces and wrapped so that no line is wider than [`MOVETEXT_WIDTH`] bytes (a token
/// wider than that stands alone on its line), then the blank line that ends the game. The
/// one writer of movetext, used by [`PgnGame::to_pgn`] and by the match runner.
pub fn write_movetext<T: AsRef<str>>(out: &mut String, tokens: &[T]) {
    let mut line_len = 0;
    for token in tokens.iter().map(AsRef::as_ref) {
        if line_len > 0 && line_len + 1 + token.len() > MOVETEXT_WIDTH {
            out.push('\n');
            line_len = 0;
        } else if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(token);
        line_len += token.len();
    }
    out.push_str("\n\n");
}

/// Why PGN text could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PgnError {
    /// 1-based index of the game in the text.
    pub game: usize,
    /// 1-based line.
    pub line: usize,
    /// What is wrong, e.g. the illegal move and why.
    pub message: String,
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PGN game {}, line {}: {}", self.game, self.line, self.message)
    }
}

impl std::error::Error for PgnError {}

const RESULTS: [&str; 4] = ["1-0", "0-1", "1/2-1/2", "*"];

/// Spellings of the null move in movetext.
const NULL_MOVES: [&str; 3] = ["--", "Z0", "0000"];

/// The en passant mark some writers add to an en passant capture.
const EP_MARK: &str = "e.p.";

/// Plies from `start` to `now`, by move numbers and side to move (null moves count).
fn plies_between(start: &Board, now: &Board) -> usize {
    let half =
        |b: &Board| 2 * usize::from(b.fullmove_number()) + usize::from(b.side_to_move() == Color::Black);
    half(now).saturating_sub(half(start))
}

/// Splits a glued `e.p.` mark off a move (`exd6e.p.`, `exd6e.p.+`): the move and whether
/// the mark was there.
fn split_ep_mark(token: &str) -> (&str, bool) {
    let core = token.trim_end_matches(['+', '#']);
    match core.strip_suffix(EP_MARK) {
        Some(mv) if !mv.is_empty() => (mv, true),
        _ => (token, false),
    }
}

/// Reads every game in `text`.
pub fn parse_pgn(text: &str) -> Result<Vec<PgnGame>, PgnError> {
    let mut games = Vec::new();
    let mut current: Option<(PgnGame, Board, bool)> = None; // game, board, movetext started
    let mut line_no = 0;
    let mut depth = 0usize; // variation nesting
    let mut in_comment: Option<String> = None;
    // Whether the last move read was an en passant capture (for a following "e.p.").
    let mut last_was_ep = false;
    let error = |games: &Vec<PgnGame>, line: usize, message: String| PgnError {
        game: games.len() + 1,
        line,
        message,
    };

    for raw_line in text.lines() {
        line_no += 1;
        let line = raw_line.trim_end_matches('\r');
        let line = line.strip_prefix('\u{feff}').unwrap_or(line);
        if in_comment.is_none() && (line.starts_with('%')) {
            continue;
        }
        let trimmed = line.trim();
        // Tag pairs (only outside comments and before movetext of the current game).
        if in_comment.is_none() && depth == 0 && trimmed.starts_with('[') {
            if let Some((_, _, true)) = &current {
                let (game, _, _) = current.take().expect("checked above");
                games.push(game);
            }
            let (name, value) = parse_tag(trimmed)
                .ok_or_else(|| error(&games, line_no, format!("bad tag pair {trimmed:?}")))?;
            let entry =
                current.get_or_insert_with(|| (PgnGame::new(Board::startpos()), Board::startpos(), false));
            if name == "FEN" {
                let (board, warnings) =
                    crate::clean_fen(&value).map_err(|e| error(&games, line_no, e.to_string()))?;
                entry.0.start = board;
                entry.1 = board;
                entry
                    .0
                    .notes
                    .extend(warnings.into_iter().map(|w| format!("FEN tag: {w}")));
            }
            entry.0.tags.push((name, value));
            continue;
        }

        let mut rest = line;
        while !rest.is_empty() {
            if let Some(comment) = in_comment.as_mut() {
                match rest.find('}') {
                    Some(end) => {
                        comment.push_str(&rest[..end]);
                        rest = &rest[end + 1..];
                        let text = in_comment.take().unwrap_or_default();
                        if depth == 0 {
                            if let Some((game, _, _)) = current.as_mut().filter(|c| c.0.truncated.is_none()) {
                                // Several comments after one move are all kept, joined
                                // in the order they came.
                                if let Some(last) = game.comments.last_mut() {
                                    let text = text.trim();
                                    match last {
                                        Some(kept) if !text.is_empty() => {
                                            if !kept.is_empty() {
                                                kept.push(' ');
                                            }
                                            kept.push_str(text);
                                        }
                                        Some(_) => {}
                                        None => *last = Some(text.to_string()),
                                    }
                                }
                            }
                        }
                    }
                    None => {
                        comment.push_str(rest);
                        comment.push(' ');
                        rest = "";
                    }
                }
                continue;
            }
            rest = rest.trim_start();
            let Some(c) = rest.chars().next() else { break };
            match c {
                '{' => {
                    in_comment = Some(String::new());
                    rest = &rest[1..];
                }
                ';' => break,
                '(' => {
                    depth += 1;
                    rest = &rest[1..];
                }
                '}' => return Err(error(&games, line_no, "unmatched '}'".into())),
                ')' => {
                    if depth == 0 {
                        return Err(error(&games, line_no, "unmatched ')'".into()));
                    }
                    depth -= 1;
                    rest = &rest[1..];
                }
                _ => {
                    let end = rest
                        .find(|ch: char| ch.is_whitespace() || "{}();".contains(ch))
                        .unwrap_or(rest.len());
                    let token = &rest[..end];
                    rest = &rest[end..];
                    if depth > 0 {
                        continue;
                    }
                    let entry = current
                        .get_or_insert_with(|| (PgnGame::new(Board::startpos()), Board::startpos(), false));
                    entry.2 = true;
                    if RESULTS.contains(&token) {
                        last_was_ep = false;
                        entry.0.result = token.to_string();
                        let (game, _, _) = current.take().expect("just inserted");
                        games.push(game);
                        continue;
                    }
                    if token.starts_with('$') {
                        continue;
                    }
                    // Move numbers "12." "12..." and the number glued to a move "12.e4".
                    let digits = token.len() - token.trim_start_matches(|ch: char| ch.is_ascii_digit()).len();
                    let token = if digits > 0 && token[digits..].starts_with('.') {
                        token[digits..].trim_start_matches('.')
                    } else {
                        token
                    };
                    let token = token.trim_end_matches(['!', '?']);
                    if token.is_empty() {
                        continue;
                    }
                    let (game, board, _) = entry;
                    let game_no = games.len() + 1;
                    let ply = plies_between(&game.start, board);
                    let fail = |message: String| PgnError {
                        game: game_no,
                        line: line_no,
                        message,
                    };
                    // "exd6 e.p.": the mark stands apart after the capture it marks.
                    if token == EP_MARK {
                        if last_was_ep {
                            last_was_ep = false;
                            continue;
                        }
                        return Err(fail(format!(
                            "\"{EP_MARK}\" after a move that is not an en passant capture, after {ply} moves"
                        )));
                    }
                    if NULL_MOVES.contains(&token) {
                        *board = board.null_move().ok_or_else(|| {
                            fail(format!("null move {token:?} while in check, after {ply} moves"))
                        })?;
                        if game.truncated.is_none() {
                            game.truncated = Some(format!(
                                "stops at the null move {token:?} after {ply} moves (a game cannot hold a null move)"
                            ));
                        }
                        last_was_ep = false;
                        continue;
                    }
                    let (san, marked_ep) = split_ep_mark(token);
                    let mv = board
                        .parse_san(san)
                        .map_err(|e: MoveParseError| fail(format!("{e} after {ply} moves")))?;
                    last_was_ep = board.is_en_passant(mv);
                    if marked_ep && !last_was_ep {
                        return Err(fail(format!(
                            "{token:?} is marked e.p. but is not an en passant capture, after {ply} moves"
                        )));
                    }
                    board.play(mv);
                    if game.truncated.is_none() {
                        game.push(mv, None);
                    }
                }
            }
        }
    }
    if in_comment.is_some() {
        return Err(error(&games, line_no, "unterminated comment".into()));
    }
    if let Some((game, _, started)) = current {
        if started || !game.tags.is_empty() {
            games.push(game);
        }
    }
    Ok(games)
}

fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.strip_prefix('[')?.strip_suffix(']')?.trim();
    let space = inner.find(char::is_whitespace)?;
    let name = inner[..space].to_string();
    let value = inner[space..].trim();
    let value = value.strip_prefix('"')?.strip_suffix('"')?;
    let mut unescaped = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                unescaped.push(next);
            }
        } else {
            unescaped.push(c);
        }
    }
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    Some((name, unescaped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_comments_after_a_move_are_all_kept_in_order() {
        let games = parse_pgn("1. e4 {first} {second} e5 {only} 2. Nf3 *\n").unwrap();
        assert_eq!(
            games[0].comments,
            [Some("first second".to_string()), Some("only".to_string()), None]
        );
    }

    #[test]
    fn movetext_wraps_before_column_80_and_tags_are_escaped() {
        let tokens: Vec<String> = (1..=40).map(|i| format!("{i}. Nf3")).collect();
        let mut out = String::new();
        write_movetext(&mut out, &tokens);
        assert!(out.ends_with("\n\n"));
        let lines: Vec<&str> = out.trim_end().lines().collect();
        assert!(lines.len() > 1);
        assert!(lines.iter().all(|l| l.len() <= MOVETEXT_WIDTH), "{lines:?}");
        // Each line is as full as it can be: the next token would not have fitted.
        for pair in lines.windows(2) {
            let next = pair[1].split(' ').next().unwrap_or("");
            assert!(pair[0].len() + 1 + next.len() > MOVETEXT_WIDTH);
        }
        assert_eq!(out.split_whitespace().count(), 80);
        let long = "x".repeat(100);
        let mut out = String::new();
        write_movetext(&mut out, &["1.", &long, "*"]);
        assert_eq!(out, format!("1.\n{long}\n*\n\n"));

        let mut out = String::new();
        write_tags(&mut out, &[("Event", "a \"b\" \\ c"), ("Round", "1")]);
        assert_eq!(out, "[Event \"a \\\"b\\\" \\\\ c\"]\n[Round \"1\"]\n\n");
        assert_eq!(comment_token("a } b"), "{a ) b}");
    }
}
