//! The UCI front end. Each input line is first parsed into a [`Command`] and then
//! executed. Bad input gets a clear `info string error: ...` and never a panic, a hang or
//! an answer for a position the GUI did not send:
//!
//! - Every `go` gets exactly one `bestmove`. Out-of-range numbers are clamped, values that
//!   are not numbers and unknown words are skipped (each reported), illegal `searchmoves`
//!   are dropped, and a clock with no time for the side to move still gives a finite
//!   budget. A `go` with no legal move, or after a refused `position`, answers
//!   `bestmove 0000` (after `stop` or `ponderhit` when it is `infinite` or `ponder`).
//!   `go perft N` is a debugging extension answered by `Nodes searched` instead.
//! - A `position fen` goes through `movegen::clean_fen`, the one cleaning step for
//!   positions from outside: the placement and side fields alone are a position, and a
//!   castling right or en passant square the board does not back is dropped, each change
//!   told by `info string warning: ...`. Option values are read as sent: booleans in any
//!   case, a value's inner runs of spaces kept (a path with two spaces).
//! - A `position` whose move list has an illegal or unreadable move keeps the moves before
//!   it and names the bad one. A `position` whose start (FEN or `startpos`) is refused
//!   leaves no position: each `go` answers `bestmove 0000` with the reason until a
//!   `position` or `ucinewgame` sets one.
//! - Any other bad line (an unknown command, a bad option value, a `Hash` that cannot be
//!   allocated) changes nothing.
//!
//! Searches run on their own thread, so `isready`, `stop` and `ponderhit` are answered while
//! one runs. So do the long extensions, `go perft` and `bench`: `isready` is answered while
//! they run, and `stop`, `quit` or any command that would stop a search (`go`, `position`,
//! `setoption`, `ucinewgame`, `bench`) ends them with what was counted and an `info string
//! perft stopped: ...` (`bench stopped`) line instead of their total. At the end of input
//! they count to the end (`echo "go perft 5" | luft`), while a search is stopped.
//!
//! The engine itself is [`crate::Engine`]: this module parses lines, hands the engine typed
//! values (a position, [`crate::Limits`], option names and values), and is the only place
//! that turns the engine's typed reports into text: `info` lines (with `wdl W D L` when
//! `UCI_ShowWDL` is on, and a fail high or low as `lowerbound`/`upperbound` once a search
//! has run [`BOUND_LINES_AFTER`]), `bestmove`, and the `option` declarations, printed from
//! the engine's option table ([`crate::OPTIONS`]). With `Minimal` on, a search prints only
//! its last report's `info` line(s), just before `bestmove` (as datagen presets for other
//! engines ask; luft prints no `currmove` lines in any case).

use crate::engine::Engine;
use crate::options::{all_options, truncate, OptionKind};
use crate::params::MAX_DEPTH;
use crate::report::{Clock, Iteration, Limits, Line, Listener, Score, ScoreBound, SearchResult};
use crate::time_manager::{ASSUMED_TIME_MS, MAX_TIME_MS};
use movegen::{Board, Color, Move};
use std::fmt;
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The engine's name, as `id name` gives it.
pub const NAME: &str = concat!("Luft ", env!("CARGO_PKG_VERSION"));
/// The authors, as `id author` gives them.
pub const AUTHOR: &str = "The Luft developers";

/// Fail-high and fail-low `info` lines are printed only once a search has run this long
/// (as Stockfish does): in short searches they would only be noise.
pub const BOUND_LINES_AFTER: Duration = Duration::from_secs(3);

const MAX_LINE_BYTES: usize = 1 << 20;

/// The deepest `go perft` (depth 12 from the start position already takes hours; any perft
/// answers `stop`).
pub const MAX_PERFT_DEPTH: i64 = 12;

/// The commands Luft understands, one line (the answer to an unknown command).
pub const COMMANDS: &str = "uci, isready, ucinewgame, position, go, stop, ponderhit, \
                            setoption, debug, register, quit; extensions: d, eval, bench, help";

/// The `help` text, sent as `info string` lines.
pub const HELP: &[&str] = &[
    "Luft understands: uci, isready, ucinewgame, position, go, stop, ponderhit, setoption, debug, register, quit",
    "position startpos | fen <FEN> [moves <move> ...]  (moves in UCI notation, e.g. e2e4 e7e8q)",
    "go [wtime|btime|winc|binc|movestogo|movetime|depth|nodes|mate <n>] ... [infinite] [ponder] [searchmoves <move> ...]",
    "setoption name <Hash|Threads|MultiPV|Move Overhead|EvalFile|UCI_Chess960|Ponder|Clear Hash|UCI_ShowWDL|UCI_LimitStrength|UCI_Elo|Strength Seed|UseSoftNodes|Minimal|SyzygyPath|SyzygyProbeDepth|Syzygy50MoveRule|SyzygyProbeLimit> [value <v>]",
    "extensions: d (show the board), eval (static evaluation), bench [depth], go perft <depth> (both answer stop), help",
];

/// Parameters of `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    /// White's time left, ms.
    pub wtime: Option<u64>,
    /// Black's time left, ms.
    pub btime: Option<u64>,
    /// White's increment, ms.
    pub winc: Option<u64>,
    /// Black's increment, ms.
    pub binc: Option<u64>,
    /// Moves to the next time control.
    pub movestogo: Option<u64>,
    /// Depth limit, plies.
    pub depth: Option<i32>,
    /// Node limit.
    pub nodes: Option<u64>,
    /// Search for a mate in this many moves.
    pub mate: Option<i32>,
    /// Time for this move, ms.
    pub movetime: Option<u64>,
    /// `infinite`: answer only after `stop`.
    pub infinite: bool,
    /// `ponder`: search on the opponent's time until `ponderhit` or `stop`.
    pub ponder: bool,
    /// `perft N`: count leaf nodes to depth N instead of searching.
    pub perft: Option<u32>,
    /// The moves after `searchmoves`, as text (checked against the position at `go`).
    pub searchmoves: Vec<String>,
    /// What was clamped or skipped while reading the line, reported before the search.
    pub notes: Vec<String>,
    /// Why a `go perft` cannot run (then nothing runs).
    pub refused: Option<String>,
}

impl GoParams {
    /// Whether any clock field was given (then the search gets a finite time budget).
    pub fn has_clock(&self) -> bool {
        self.wtime.is_some()
            || self.btime.is_some()
            || self.winc.is_some()
            || self.binc.is_some()
            || self.movestogo.is_some()
    }
}

/// One parsed input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    /// `uci`: identify and declare the options.
    Uci,
    /// `isready`.
    IsReady,
    /// `ucinewgame`.
    UciNewGame,
    /// A position with the moves that led to it from `start`, all checked legal; `error`
    /// says why the move list was cut short (the moves before the bad one are kept).
    Position {
        /// The start position (`startpos` or the FEN).
        start: Board,
        /// The legal moves from it.
        moves: Vec<Move>,
        /// Why the list was cut short, if it was.
        error: Option<String>,
        /// What cleaning the FEN changed (`movegen::clean_fen`), one warning each.
        notes: Vec<String>,
    },
    /// A `position` line whose start position was refused, with the reason.
    PositionRefused(String),
    /// `go ...`.
    Go(GoParams),
    /// `stop`.
    Stop,
    /// `ponderhit`.
    PonderHit,
    /// `setoption name <name> [value <value>]`.
    SetOption {
        /// The name (any case).
        name: String,
        /// The value, if given.
        value: Option<String>,
    },
    /// `debug on|off` (accepted; Luft has no debug output).
    Debug,
    /// `register ...` (accepted; Luft needs no registration).
    Register,
    /// `quit`.
    Quit,
    /// `d`: show the board.
    Display,
    /// `eval`: the static evaluation.
    Eval,
    /// `bench [depth]`.
    Bench {
        /// The depth (1 to 64), or the default.
        depth: Option<i32>,
    },
    /// `help`.
    Help,
    /// An empty line: nothing to do.
    Nothing,
}

/// Why a line was refused (nothing is done for it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// The first word is no command (the word, cut to 40 characters).
    UnknownCommand(String),
    /// `debug` without `on` or `off`.
    BadDebug,
    /// `bench` with a depth that is not 1 to 64 (the text, cut to 40 characters).
    BadBenchDepth(String),
    /// `setoption` not followed by `name`.
    SetOptionSyntax,
    /// `setoption name` without a name.
    SetOptionNoName,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseError::UnknownCommand(word) => {
                write!(f, "unknown command {word:?}; Luft understands: {COMMANDS}")
            }
            ParseError::BadDebug => write!(f, "expected 'debug on' or 'debug off'"),
            ParseError::BadBenchDepth(text) => write!(f, "bad bench depth {text:?} (1 to 64)"),
            ParseError::SetOptionSyntax => write!(f, "expected 'setoption name <name> [value <value>]'"),
            ParseError::SetOptionNoName => write!(f, "setoption without an option name"),
        }
    }
}

impl std::error::Error for ParseError {}

/// Reads an integer, saturating at the bounds of `i64` ("99999999999999999999" is huge,
/// not unreadable); `None` for anything else.
fn read_integer(text: &str) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(match digits.parse::<i64>() {
        Ok(v) if negative => -v,
        Ok(v) => v,
        Err(_) if negative => i64::MIN,
        Err(_) => i64::MAX,
    })
}

/// Parses one line of UCI input.
pub fn parse_command(line: &str) -> Result<Command, ParseError> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let Some((&first, rest)) = tokens.split_first() else {
        return Ok(Command::Nothing);
    };
    match first {
        "uci" => Ok(Command::Uci),
        "isready" => Ok(Command::IsReady),
        "ucinewgame" => Ok(Command::UciNewGame),
        "stop" => Ok(Command::Stop),
        "ponderhit" => Ok(Command::PonderHit),
        "quit" => Ok(Command::Quit),
        "debug" => match rest {
            ["on"] | ["off"] => Ok(Command::Debug),
            _ => Err(ParseError::BadDebug),
        },
        "register" => Ok(Command::Register),
        "d" => Ok(Command::Display),
        "eval" => Ok(Command::Eval),
        "help" => Ok(Command::Help),
        "bench" => match rest.first() {
            None => Ok(Command::Bench { depth: None }),
            Some(d) => match d.parse::<i32>() {
                Ok(depth) if (1..=64).contains(&depth) => Ok(Command::Bench { depth: Some(depth) }),
                _ => Err(ParseError::BadBenchDepth(truncate(d))),
            },
        },
        "position" => Ok(parse_position(rest)),
        "go" => Ok(Command::Go(parse_go(rest))),
        "setoption" => parse_setoption(line),
        other => Err(ParseError::UnknownCommand(truncate(other))),
    }
}

/// Reads `position ...`: a refused start gives [`Command::PositionRefused`]; a bad move
/// cuts the list there.
fn parse_position(tokens: &[&str]) -> Command {
    let moves_at = tokens.iter().position(|&t| t == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&tokens[..i], &tokens[i + 1..]),
        None => (tokens, &[][..]),
    };
    // A FEN goes through the one cleaning step for positions from outside: the placement
    // and side fields alone are a position, and a castling right or en passant square the
    // board does not back is dropped, each with a warning.
    let (start, notes) = match setup.split_first() {
        Some((&"startpos", [])) => (Board::startpos(), Vec::new()),
        Some((&"fen", fen)) if !fen.is_empty() => match movegen::clean_fen(&fen.join(" ")) {
            Ok(cleaned) => cleaned,
            Err(e) => return Command::PositionRefused(format!("bad FEN: {e}")),
        },
        _ => {
            return Command::PositionRefused(
                "expected 'position startpos' or 'position fen <FEN>' [moves ...]".into(),
            )
        }
    };
    let mut board = start;
    let mut played = Vec::with_capacity(moves.len());
    let mut error = None;
    for (i, text) in moves.iter().enumerate() {
        match board.parse_uci(text) {
            Ok(mv) => {
                board.play(mv);
                played.push(mv);
            }
            Err(e) => {
                error = Some(format!(
                    "move {} of the list: {e}; the position is the one after the {} legal move{} before it",
                    i + 1,
                    i,
                    if i == 1 { "" } else { "s" }
                ));
                break;
            }
        }
    }
    Command::Position {
        start,
        moves: played,
        error,
        notes,
    }
}

/// Every word `go` understands.
const GO_WORDS: [&str; 13] = [
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "mate",
    "perft",
    "infinite",
    "ponder",
    "searchmoves",
];

/// Reads `go ...`. Never fails: whatever cannot be used is noted in `notes` and skipped,
/// so the `go` still gets its `bestmove`.
fn parse_go(tokens: &[&str]) -> GoParams {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < tokens.len() {
        let word = tokens[i];
        i += 1;
        match word {
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                let first = i;
                while i < tokens.len() && !GO_WORDS.contains(&tokens[i]) {
                    i += 1;
                }
                if first == i {
                    go.notes.push("'searchmoves' without moves ignored".into());
                }
                go.searchmoves
                    .extend(tokens[first..i].iter().map(|t| truncate(t)));
            }
            "wtime" | "btime" | "winc" | "binc" | "movestogo" | "movetime" | "depth" | "nodes" | "mate"
            | "perft" => {
                let value = match tokens.get(i) {
                    Some(text) if !GO_WORDS.contains(text) => {
                        i += 1;
                        let value = read_integer(text);
                        if value.is_none() {
                            go.notes.push(format!(
                                "bad value {:?} for '{word}' (an integer), ignored",
                                truncate(text)
                            ));
                        }
                        value.map(|v| (v, *text))
                    }
                    _ => {
                        go.notes.push(format!("'{word}' needs a value, ignored"));
                        None
                    }
                };
                match value {
                    Some((value, text)) => set_go_value(&mut go, word, value, text),
                    // A perft without its depth is refused, not turned into a search.
                    None if word == "perft" => {
                        go.refused = Some("perft needs a depth (1 to 12)".into());
                        go.notes.pop();
                    }
                    None => {}
                }
            }
            other => go
                .notes
                .push(format!("unknown go parameter {:?} ignored", truncate(other))),
        }
    }
    go
}

/// Stores one numeric `go` value, clamped into its range (a clamp is noted).
fn set_go_value(go: &mut GoParams, word: &str, value: i64, text: &str) {
    let max_time = MAX_TIME_MS as i64;
    let max_depth = i64::from(MAX_DEPTH);
    let (min, max) = match word {
        "wtime" | "btime" | "winc" | "binc" | "movetime" => (0, max_time),
        "movestogo" | "nodes" => (1, i64::MAX),
        "depth" | "mate" => (1, max_depth),
        "perft" => (1, MAX_PERFT_DEPTH),
        _ => return,
    };
    if word == "perft" && !(min..=max).contains(&value) {
        // Clamping could start a perft that runs for hours and cannot be stopped.
        go.refused = Some(format!(
            "perft depth {} out of range ({min} to {max})",
            truncate(text)
        ));
        return;
    }
    let clamped = value.clamp(min, max);
    // A number too large for 64 bits reads as the largest one (`read_integer`): out of range
    // too, even where that largest one is the field's maximum.
    let exact = text.parse::<i64>().is_ok();
    if clamped != value || !exact {
        go.notes.push(format!(
            "{word} {} out of range ({min} to {max}), using {clamped}",
            truncate(text)
        ));
    }
    // Every range above fits the field's type.
    let unsigned = clamped.unsigned_abs();
    let small = clamped as i32;
    match word {
        "wtime" => go.wtime = Some(unsigned),
        "btime" => go.btime = Some(unsigned),
        "winc" => go.winc = Some(unsigned),
        "binc" => go.binc = Some(unsigned),
        "movetime" => go.movetime = Some(unsigned),
        "movestogo" => go.movestogo = Some(unsigned),
        "nodes" => go.nodes = Some(unsigned),
        "depth" => go.depth = Some(small),
        "mate" => go.mate = Some(small),
        "perft" => go.perft = Some(small as u32),
        _ => {}
    }
}

/// Reads `setoption name <name> [value <value>]` from the whole `line`: the value is the
/// rest of the line after `value` as sent (runs of spaces inside kept, a path with two
/// spaces; the ends trimmed), the name its words joined by one space.
fn parse_setoption(line: &str) -> Result<Command, ParseError> {
    // Each word with its byte offset in the line (the words are slices of it).
    let words: Vec<(usize, &str)> = line
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - line.as_ptr() as usize, w))
        .skip(1)
        .collect();
    if words.first().map(|w| w.1) != Some("name") {
        return Err(ParseError::SetOptionSyntax);
    }
    let rest = &words[1..];
    let value_at = rest.iter().position(|&(_, t)| t == "value");
    let join = |words: &[(usize, &str)]| words.iter().map(|w| w.1).collect::<Vec<_>>().join(" ");
    let (name, value) = match value_at {
        Some(i) => (
            join(&rest[..i]),
            Some(
                rest.get(i + 1)
                    .map_or(String::new(), |&(at, _)| line[at..].trim_end().to_string()),
            ),
        ),
        None => (join(rest), None),
    };
    if name.is_empty() {
        return Err(ParseError::SetOptionNoName);
    }
    Ok(Command::SetOption { name, value })
}

/// A `go` answered `bestmove 0000` because there is no position, held back until `stop`
/// (or `ponderhit`, for `ponder`) as the protocol wants for `infinite` and `ponder`.
#[derive(Clone, Copy, Debug)]
struct HeldNullMove {
    ponder: bool,
}

/// A long extension command (`go perft`, `bench`) running on its own thread, so that the
/// input loop reads on and `isready`, `stop` and `quit` reach it as they reach a search.
struct Task {
    /// Ends the task early: it then prints what it counted and a line saying it stopped.
    stop: Box<dyn Fn() + Send>,
    handle: std::thread::JoinHandle<Option<()>>,
}

/// The work of a [`Task`], run on its thread.
type TaskWork = Box<dyn FnOnce() + Send>;

/// The engine as the UCI loop drives it: an [`Engine`] and what only UCI has (a refused
/// position, the output).
pub struct UciEngine {
    engine: Engine,
    /// A `go perft` or `bench` running, if any.
    task: Option<Task>,
    /// Why the last `position` was refused: there is no position to search until the next
    /// `position` or `ucinewgame`.
    refused: Option<String>,
    /// A `bestmove 0000` waiting for `stop` or `ponderhit`.
    held: Option<HeldNullMove>,
    out: Arc<dyn Fn(&str) + Send + Sync>,
}

impl std::fmt::Debug for UciEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UciEngine")
            .field("engine", &self.engine)
            .finish_non_exhaustive()
    }
}

/// Prints to stdout, one whole line at a time, flushed; a closed stdout (the GUI is gone)
/// ends the engine quietly (`output::line`).
pub fn stdout_writer() -> Arc<dyn Fn(&str) + Send + Sync> {
    Arc::new(output::line)
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// A score for UCI: `cp N` or `mate N` (moves, negative when being mated).
pub fn score_text(score: Score) -> String {
    match score.mate_in() {
        Some(moves) => format!("mate {moves}"),
        None => format!("cp {}", score.value()),
    }
}

/// The `option name ...` line of every option, from the engine's option table.
pub fn option_lines() -> Vec<String> {
    all_options()
        .map(|o| {
            let kind = match o.kind {
                OptionKind::Spin { default, min, max } => {
                    format!("spin default {default} min {min} max {max}")
                }
                OptionKind::Check { default } => format!("check default {default}"),
                OptionKind::String { default } => format!("string default {default}"),
                OptionKind::Button => "button".to_string(),
            };
            format!("option name {} type {kind}", o.name)
        })
        .collect()
}

/// The `info` line of one line of a report at `root`.
fn info_line(report: &Iteration, line: &Line, root: &Board, chess960: bool) -> String {
    if report.depth == 0 {
        // No legal move: only the score.
        let wdl = line
            .wdl
            .map_or(String::new(), |[w, d, l]| format!(" wdl {w} {d} {l}"));
        return format!("info depth 0 score {}{wdl}", score_text(line.score));
    }
    let bound = match line.bound {
        Some(ScoreBound::Lower) => " lowerbound",
        Some(ScoreBound::Upper) => " upperbound",
        None => "",
    };
    let wdl = line
        .wdl
        .map_or(String::new(), |[w, d, l]| format!(" wdl {w} {d} {l}"));
    let mut pv = String::new();
    let mut board = *root;
    for &mv in &line.pv {
        pv.push(' ');
        pv.push_str(&board.to_uci(mv, chess960));
        board.play(mv);
    }
    let tbhits = report
        .tbhits
        .map_or(String::new(), |hits| format!(" tbhits {hits}"));
    format!(
        "info depth {} seldepth {} multipv {} score {}{bound}{wdl} nodes {} nps {} hashfull {}{tbhits} time {} pv{pv}",
        report.depth,
        report.seldepth,
        line.multipv,
        score_text(line.score),
        report.nodes,
        report.nps(),
        report.hashfull,
        report.elapsed.as_millis(),
    )
}

/// The `bestmove` line of an answer at `root`.
fn bestmove_line(result: &SearchResult, root: &Board, chess960: bool) -> String {
    let Some(best) = result.best_move else {
        return "bestmove 0000".to_string();
    };
    let mut text = format!("bestmove {}", root.to_uci(best, chess960));
    if let Some(reply) = result.ponder_move {
        let mut next = *root;
        next.play(best);
        text.push_str(&format!(" ponder {}", next.to_uci(reply, chess960)));
    }
    text
}

/// Turns a search's reports into UCI text.
struct Printer {
    out: Arc<dyn Fn(&str) + Send + Sync>,
    root: Board,
    chess960: bool,
    /// `Minimal`: hold each report's lines instead of printing them, and print only the
    /// last report's before `bestmove`.
    minimal: bool,
    held: Vec<String>,
    /// The Syzygy tables of the search, for a warning before `bestmove` about a table in
    /// which a probe met damage (each file once).
    tables: Option<Arc<tablebase::Tablebases>>,
}

impl Listener for Printer {
    fn iteration(&mut self, report: &Iteration) {
        let lines = report
            .lines
            .iter()
            .map(|line| info_line(report, line, &self.root, self.chess960));
        if self.minimal {
            self.held = lines.collect();
        } else {
            lines.for_each(|text| (self.out)(&text));
        }
    }

    fn bound(&mut self, report: &Iteration) {
        if report.elapsed >= BOUND_LINES_AFTER {
            self.iteration(report);
        }
    }

    fn best_move(&mut self, result: &SearchResult) {
        for path in self.tables.as_ref().map_or_else(Vec::new, |t| t.take_damaged()) {
            (self.out)(&format!(
                "info string warning: Syzygy table {} is damaged: its probes answer unknown, the \
                 search goes on without them",
                path.display()
            ));
        }
        // The last report's lines are the ones the best move comes from (`Listener`).
        for text in self.held.drain(..) {
            (self.out)(&text);
        }
        (self.out)(&bestmove_line(result, &self.root, self.chess960));
    }

    fn note(&mut self, text: &str) {
        (self.out)(&format!("info string {text}"));
    }
}

impl UciEngine {
    /// A UCI engine writing its lines to `out`, with the embedded net and default options.
    pub fn new(out: Arc<dyn Fn(&str) + Send + Sync>) -> Self {
        UciEngine {
            engine: Engine::new(),
            task: None,
            refused: None,
            held: None,
            out,
        }
    }

    fn say(&self, line: &str) {
        (self.out)(line);
    }

    fn error(&self, message: &str) {
        self.say(&format!("info string error: {message}"));
    }

    /// The error for commands that need a position when the last `position` was refused.
    fn no_position(&self) -> Option<String> {
        self.refused
            .as_ref()
            .map(|reason| format!("no position: the last 'position' was refused ({reason})"))
    }

    /// Reads commands from `input` until `quit` or end of input.
    pub fn run(&mut self, mut input: impl BufRead) {
        let mut buffer = Vec::new();
        loop {
            buffer.clear();
            match std::io::Read::take(&mut input, MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            if buffer.len() > MAX_LINE_BYTES && buffer.last() != Some(&b'\n') {
                // Skip the rest of an overlong line.
                let mut sink = Vec::new();
                let _ = input.read_until(b'\n', &mut sink);
                self.error("line too long, ignored");
                continue;
            }
            let line = String::from_utf8_lossy(&buffer);
            if !self.handle_line(&line) {
                break;
            }
            self.reap_task();
        }
        // Nobody is left to send `stop`: a perft or bench counts to the end (a search stops).
        if let Some(task) = self.task.take() {
            let _ = task.handle.join();
        }
        self.finish_search();
    }

    /// Forgets a task that ended by itself.
    fn reap_task(&mut self) {
        if self.task.as_ref().is_some_and(|t| t.handle.is_finished()) {
            if let Some(task) = self.task.take() {
                let _ = task.handle.join();
            }
        }
    }

    /// Runs `work` as a [`Task`] on its own thread (with a search thread's stack), `stop`
    /// ending it early. When no thread can be started it runs here, said first (then it
    /// cannot be stopped).
    fn start_task(&mut self, name: &str, stop: Box<dyn Fn() + Send>, work: TaskWork) {
        let work: Arc<Mutex<Option<TaskWork>>> = Arc::new(Mutex::new(Some(work)));
        match crate::threads::spawn_search(name, &work, |work: TaskWork| work()) {
            Ok(handle) => self.task = Some(Task { stop, handle }),
            Err(e) => {
                if let Some(work) = crate::threads::take(&work) {
                    self.say(&format!(
                        "info string cannot start a thread for {name} ({e}); running it here, \
                         where stop cannot reach it"
                    ));
                    work();
                }
            }
        }
    }

    /// Handles one line; returns `false` on `quit`.
    pub fn handle_line(&mut self, line: &str) -> bool {
        match parse_command(line) {
            Ok(Command::Quit) => {
                self.finish_search();
                false
            }
            Ok(command) => {
                self.execute(command);
                true
            }
            Err(error) => {
                self.error(&error.to_string());
                true
            }
        }
    }

    /// Stops a running search and waits for its `bestmove` (or gives a held one).
    fn finish_search(&mut self) {
        if let Some(task) = self.task.take() {
            (task.stop)();
            let _ = task.handle.join();
        }
        if self.held.take().is_some() {
            self.say("bestmove 0000");
        }
        self.engine.stop();
        self.engine.wait();
    }

    fn execute(&mut self, command: Command) {
        match command {
            Command::Nothing | Command::Debug | Command::Register => {}
            Command::Quit => self.finish_search(),
            Command::Uci => {
                self.say(&format!("id name {NAME}"));
                self.say(&format!("id author {AUTHOR}"));
                for line in option_lines() {
                    self.say(&line);
                }
                self.say("uciok");
            }
            Command::IsReady => self.say("readyok"),
            Command::Help => {
                for line in HELP {
                    self.say(&format!("info string {line}"));
                }
            }
            Command::Stop => self.finish_search(),
            Command::PonderHit => {
                if self.held.is_some_and(|held| held.ponder) {
                    self.held = None;
                    self.say("bestmove 0000");
                }
                self.engine.ponderhit();
            }
            Command::Display => match self.no_position() {
                Some(message) => self.error(&message),
                None => self.say(&display(self.engine.position())),
            },
            Command::Eval => {
                if let Some(message) = self.no_position() {
                    self.error(&message);
                    return;
                }
                let board = *self.engine.position();
                let eval = self.engine.evaluate(&board);
                let white = if board.side_to_move() == Color::White {
                    eval
                } else {
                    -eval
                };
                self.say(&format!(
                    "info string eval {eval} cp (side to move), {white} cp (white)"
                ));
            }
            Command::UciNewGame => {
                self.finish_search();
                self.engine.new_game();
                self.refused = None;
            }
            Command::Position {
                start,
                moves,
                error,
                notes,
            } => {
                self.finish_search();
                self.refused = None;
                for note in notes {
                    self.say(&format!("info string warning: position fen: {note}"));
                }
                if let Err(e) = self.engine.set_position(start, &moves) {
                    self.error(&e.to_string());
                }
                if let Some(message) = error {
                    self.error(&message);
                }
            }
            Command::PositionRefused(reason) => {
                self.finish_search();
                self.error(&format!(
                    "position refused: {reason}; 'go' answers bestmove 0000 until a position is set"
                ));
                self.refused = Some(reason);
            }
            Command::SetOption { name, value } => {
                self.finish_search();
                match self.engine.set_option(&name, value.as_deref()) {
                    Ok(spec) if spec.name == "EvalFile" => {
                        let net = self.engine.network();
                        self.say(&format!(
                            "info string EvalFile {} loaded: hidden {}{}, fingerprint {:016x}, arch {}",
                            self.engine.options().eval_file,
                            net.hidden(),
                            if net.mirrored() { ", mirrored" } else { "" },
                            net.fingerprint(),
                            net.arch()
                        ));
                    }
                    Ok(spec) if spec.name == "SyzygyPath" => match self.engine.tablebases() {
                        Some(tables) => {
                            self.say(&format!(
                                "info string SyzygyPath {}: {} WDL and {} DTZ tables, up to {} pieces",
                                tables.path(),
                                tables.wdl_count(),
                                tables.dtz_count(),
                                tables.max_pieces()
                            ));
                            for refused in tables.refused() {
                                self.say(&format!(
                                    "info string warning: SyzygyPath: {refused}; its ending is probed without it"
                                ));
                            }
                        }
                        None => self.say("info string SyzygyPath <empty>: no tablebases"),
                    },
                    Ok(_) => {}
                    Err(e) => self.error(&e.to_string()),
                }
            }
            Command::Bench { depth } => {
                self.finish_search();
                let net = self.engine.network().clone();
                let mut searcher = match crate::Searcher::new(net, crate::bench::BENCH_HASH_MIB) {
                    Ok(searcher) => searcher,
                    Err(e) => return self.error(&format!("bench: {e}")),
                };
                let stopper = searcher.stopper();
                let out = self.out.clone();
                let depth = depth.unwrap_or(crate::bench::DEFAULT_BENCH_DEPTH);
                let work = move || {
                    let run = crate::bench::run_on(&mut searcher, depth, |i, fen, nodes| {
                        out(&crate::bench::position_line(i, fen, nodes))
                    });
                    if run.stopped {
                        out(&format!(
                            "info string bench stopped: {} of {} positions searched to depth \
                             {depth}, {} nodes (not a bench signature)",
                            run.positions, run.of, run.nodes
                        ));
                    } else {
                        out(&run.summary());
                    }
                };
                self.start_task("bench", Box::new(move || stopper.stop()), Box::new(work));
            }
            Command::Go(go) => {
                self.finish_search();
                self.go(go);
            }
        }
    }

    fn go(&mut self, go: GoParams) {
        for note in &go.notes {
            self.error(&format!("go: {note}"));
        }
        if let Some(reason) = &go.refused {
            self.error(&format!("go: {reason}; nothing done"));
            return;
        }
        if let Some(message) = self.no_position() {
            self.error(&format!("{message}; answering bestmove 0000"));
            if go.perft.is_some() {
                return;
            }
            // Still the protocol's timing: after `stop` or `ponderhit` for infinite or ponder.
            if go.infinite || go.ponder {
                self.held = Some(HeldNullMove { ponder: go.ponder });
            } else {
                self.say("bestmove 0000");
            }
            return;
        }
        let board = *self.engine.position();
        let chess960 = self.engine.options().chess960;
        if let Some(depth) = go.perft {
            let cancel = Arc::new(AtomicBool::new(false));
            let stop = {
                let cancel = cancel.clone();
                Box::new(move || cancel.store(true, Ordering::Relaxed))
            };
            let out = self.out.clone();
            let work = move || perft_divide_until(&board, depth, chess960, &cancel, &*out);
            self.start_task("perft", stop, Box::new(work));
            return;
        }

        // searchmoves: the legal ones restrict the root; none legal means no restriction.
        let mut search_moves: Vec<Move> = Vec::new();
        if !go.searchmoves.is_empty() {
            for text in &go.searchmoves {
                match board.parse_uci(text) {
                    Ok(mv) if !search_moves.contains(&mv) => search_moves.push(mv),
                    Ok(_) => {}
                    Err(e) => self.error(&format!("go: searchmoves: {e}, ignored")),
                }
            }
            if search_moves.is_empty() && board.has_legal_move() {
                self.error("go: no legal move in searchmoves; searching every move");
            }
        }

        // The clock of the side to move; a clock without it still gets a finite budget.
        let us = board.side_to_move();
        let (own_time, own_inc, other_time) = match us {
            Color::White => (go.wtime, go.winc, go.btime),
            Color::Black => (go.btime, go.binc, go.wtime),
        };
        let time_ms = match own_time {
            Some(time) => Some(time),
            None if go.has_clock() && go.movetime.is_none() && !go.infinite => {
                let (time, what) = match other_time {
                    Some(t) => (t, format!("the other side's {t} ms")),
                    None => (ASSUMED_TIME_MS, format!("{ASSUMED_TIME_MS} ms")),
                };
                self.error(&format!(
                    "go: no time given for {} (to move); using {what}",
                    color_name(us)
                ));
                Some(time)
            }
            None => None,
        };
        let clock = Clock {
            time_ms,
            increment_ms: own_inc.unwrap_or(0),
            moves_to_go: go.movestogo,
            movetime_ms: go.movetime,
        };
        let limits = Limits {
            depth: go.depth,
            nodes: go.nodes,
            soft_nodes: None,
            mate: go.mate,
            clock: (clock.time_ms.is_some() || clock.movetime_ms.is_some()).then_some(clock),
            infinite: go.infinite,
            ponder: go.ponder,
            search_moves,
        };
        let printer = Printer {
            out: self.out.clone(),
            root: board,
            chess960,
            minimal: self.engine.options().minimal,
            held: Vec::new(),
            tables: self.engine.tablebases().cloned(),
        };
        if let Err(e) = self.engine.start(limits, Box::new(printer)) {
            self.error(&format!("go: {e}"));
            self.say("bestmove 0000");
        }
    }

    /// The engine's options as set.
    pub fn options(&self) -> &crate::Options {
        self.engine.options()
    }
}

/// `go perft`: each root move with the leaf nodes `depth` plies below `board` (one line
/// each, as it is counted), then `Nodes searched: N`; once `cancel` is set it stops within
/// a few thousand nodes and says how far it got instead of a total.
fn perft_divide_until(board: &Board, depth: u32, chess960: bool, cancel: &AtomicBool, out: &dyn Fn(&str)) {
    let moves = board.legal_moves();
    let mut total = 0;
    for (done, &mv) in moves.iter().enumerate() {
        let mut child = *board;
        child.play(mv);
        match perft_until(&child, depth.max(1) - 1, cancel) {
            Some(count) => {
                out(&format!("{}: {count}", board.to_uci(mv, chess960)));
                total += count;
            }
            None => {
                out(&format!(
                    "info string perft stopped: {done} of {} root moves counted to depth \
                     {depth}, {total} nodes below them (not a full count)",
                    moves.len()
                ));
                return;
            }
        }
    }
    out(&format!("Nodes searched: {total}"));
}

/// Leaf nodes `depth` plies below `board` (as [`movegen::perft`] counts them), or `None`
/// once `cancel` is set: it is read at every node more than two plies above the leaves.
fn perft_until(board: &Board, depth: u32, cancel: &AtomicBool) -> Option<u64> {
    if depth <= 2 {
        return Some(movegen::perft(board, depth));
    }
    if cancel.load(Ordering::Relaxed) {
        return None;
    }
    let mut nodes = 0;
    let stopped = board.generate_moves(|moves| {
        for mv in moves {
            let mut child = *board;
            child.play(mv);
            match perft_until(&child, depth - 1, cancel) {
                Some(count) => nodes += count,
                None => return true,
            }
        }
        false
    });
    (!stopped).then_some(nodes)
}

/// The board as text, with its FEN and key (the `d` command).
pub fn display(board: &Board) -> String {
    let mut out = String::new();
    for rank in (0..8).rev() {
        out.push_str(" +---+---+---+---+---+---+---+---+\n");
        for file in 0..8 {
            let sq = movegen::Square::from_coords(movegen::File::new(file), movegen::Rank::new(rank));
            let c = board.piece_on(sq).map_or(' ', |p| p.to_char());
            out.push_str(&format!(" | {c}"));
        }
        out.push_str(&format!(" | {}\n", rank + 1));
    }
    out.push_str(" +---+---+---+---+---+---+---+---+\n   a   b   c   d   e   f   g   h\n\n");
    out.push_str(&format!(
        "Fen: {}\nKey: {:016X}\nCheckers:",
        board.to_fen(),
        board.hash()
    ));
    for sq in board.checkers() {
        out.push_str(&format!(" {sq}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    fn uci_moves(moves: &[Move]) -> Vec<String> {
        moves.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn perft_divides_counts_and_stops_when_asked() {
        let lines = Mutex::new(Vec::new());
        let out = |line: &str| lines.lock().unwrap().push(line.to_string());
        let board = Board::startpos();
        perft_divide_until(&board, 4, false, &AtomicBool::new(false), &out);
        let full = std::mem::take(&mut *lines.lock().unwrap());
        assert_eq!((full.len(), full[20].as_str()), (21, "Nodes searched: 197281"));
        assert!(full.contains(&"e2e4: 13160".to_string()), "{full:?}");
        for depth in [1, 2, 3] {
            assert_eq!(
                perft_until(&board, depth, &AtomicBool::new(false)),
                Some(movegen::perft(&board, depth))
            );
        }
        // Asked to stop: no total, a line saying how far it got.
        perft_divide_until(&board, 6, false, &AtomicBool::new(true), &out);
        let stopped = std::mem::take(&mut *lines.lock().unwrap());
        assert_eq!(
            stopped,
            [
                "info string perft stopped: 0 of 20 root moves counted to depth 6, 0 nodes below \
              them (not a full count)"
            ]
        );
        // Shallow subtrees are counted whole (they take microseconds).
        perft_divide_until(&board, 3, false, &AtomicBool::new(true), &out);
        assert_eq!(lines.lock().unwrap().last().unwrap(), "Nodes searched: 8902");
    }

    #[test]
    fn parses_positions_with_moves() {
        let cmd = parse_command("position startpos moves e2e4 e7e5 g1f3").unwrap();
        let Command::Position {
            start,
            moves,
            error,
            notes,
        } = cmd
        else {
            panic!("not a position")
        };
        assert_eq!(start, Board::startpos());
        assert_eq!(uci_moves(&moves), ["e2e4", "e7e5", "g1f3"]);
        assert_eq!(error, None);
        assert!(notes.is_empty());
        let cmd = parse_command("position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1g1").unwrap();
        let Command::Position { moves, .. } = cmd else {
            panic!("not a position")
        };
        assert_eq!(moves[0].to_string(), "e1h1", "castling is stored king-takes-rook");
    }

    #[test]
    fn a_bad_move_keeps_the_legal_prefix_and_is_named() {
        let cmd = parse_command("position startpos moves e2e4 e7e5 e1e3 g1f3").unwrap();
        assert_eq!(
            cmd,
            Command::Position {
                start: Board::startpos(),
                moves: uci_moves_to(&["e2e4", "e7e5"]),
                error: Some(
                    "move 3 of the list: illegal move \"e1e3\"; the position is the one after \
                     the 2 legal moves before it"
                        .into()
                ),
                notes: vec![],
            }
        );
        let cmd = parse_command("position startpos moves zzzz").unwrap();
        assert_eq!(
            cmd,
            Command::Position {
                start: Board::startpos(),
                moves: vec![],
                error: Some(
                    "move 1 of the list: invalid move syntax \"zzzz\"; the position is the one \
                     after the 0 legal moves before it"
                        .into()
                ),
                notes: vec![],
            }
        );
        let Command::Position { moves, error, .. } =
            parse_command("position startpos moves e2e4 e2e4").unwrap()
        else {
            panic!("not a position")
        };
        assert_eq!(
            (uci_moves(&moves), error.is_some()),
            (vec!["e2e4".to_string()], true)
        );
    }

    fn uci_moves_to(texts: &[&str]) -> Vec<Move> {
        let mut board = Board::startpos();
        texts
            .iter()
            .map(|t| {
                let mv = board.parse_uci(t).unwrap();
                board.play(mv);
                mv
            })
            .collect()
    }

    #[test]
    fn unambiguous_positions_are_accepted() {
        // An upper-case promotion letter, as some GUIs send.
        let cmd = parse_command("position fen 8/4P3/8/8/8/8/k7/4K3 w - - 0 1 moves e7e8Q").unwrap();
        let Command::Position { moves, error, .. } = cmd else {
            panic!("not a position: {cmd:?}")
        };
        assert_eq!((uci_moves(&moves), error), (vec!["e7e8q".to_string()], None));
        // A full-move number of 0, and no clock fields at all.
        for fen in ["8/4P3/8/8/8/8/k7/4K3 w - - 0 0", "8/4P3/8/8/8/8/k7/4K3 w - -"] {
            let cmd = parse_command(&format!("position fen {fen} moves e7e8q")).unwrap();
            let Command::Position {
                start,
                moves,
                error,
                notes,
            } = cmd
            else {
                panic!("not a position: {cmd:?}")
            };
            assert_eq!(start.to_fen(), "8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
            assert_eq!((moves.len(), error, notes), (1, None, vec![]));
        }
    }

    #[test]
    fn a_bad_start_is_a_refused_position() {
        let refused = |line: &str| match parse_command(line) {
            Ok(Command::PositionRefused(reason)) => reason,
            other => panic!("{line}: {other:?}"),
        };
        assert!(refused("position fen 8/8 w - - 0 1").starts_with("bad FEN: invalid FEN"));
        assert!(refused("position fen 8/8/8/8/8/8/8/8 w - - 0 1 moves e2e4")
            .starts_with("bad FEN: illegal position"));
        for line in [
            "position",
            "position fen",
            "position startpos junk",
            "position moves e2e4",
            "position sideways",
        ] {
            assert!(
                refused(line).starts_with("expected 'position startpos'"),
                "{line}"
            );
        }
    }

    fn go(line: &str) -> GoParams {
        match parse_command(line) {
            Ok(Command::Go(g)) => g,
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn parses_go() {
        assert_eq!(
            go("go wtime 1000 btime 900 winc 10 binc 20 movestogo 5"),
            GoParams {
                wtime: Some(1000),
                btime: Some(900),
                winc: Some(10),
                binc: Some(20),
                movestogo: Some(5),
                ..GoParams::default()
            }
        );
        assert!(go("go infinite").infinite);
        assert_eq!(go("go ponder movetime 50").movetime, Some(50));
        assert!(go("go ponder movetime 50").ponder);
        assert_eq!(go("go mate 3").mate, Some(3));
        assert_eq!(go("go nodes 12345").nodes, Some(12345));
        assert_eq!(go("go perft 4").perft, Some(4));
        assert_eq!(go("go"), GoParams::default());
        assert_eq!(
            go("go depth 6 searchmoves a2a3 h2h3"),
            GoParams {
                depth: Some(6),
                searchmoves: vec!["a2a3".into(), "h2h3".into()],
                ..GoParams::default()
            }
        );
        // searchmoves ends at the next go word.
        let g = go("go searchmoves e2e4 d2d4 depth 3 infinite");
        assert_eq!((g.searchmoves.len(), g.depth, g.infinite), (2, Some(3), true));
    }

    #[test]
    fn go_clamps_and_skips_but_never_fails() {
        let g = go("go wtime 165661 btime -50 winc 100 binc 100");
        assert_eq!(
            (g.wtime, g.btime, g.winc, g.binc),
            (Some(165661), Some(0), Some(100), Some(100))
        );
        assert_eq!(g.notes, ["btime -50 out of range (0 to 1000000000000), using 0"]);
        let g = go("go wtime 1000 btime 1000 movestogo -5");
        assert_eq!(g.movestogo, Some(1));
        assert_eq!(
            g.notes,
            ["movestogo -5 out of range (1 to 9223372036854775807), using 1"]
        );
        let g = go("go depth 0");
        assert_eq!(g.depth, Some(1));
        assert_eq!(g.notes, ["depth 0 out of range (1 to 100), using 1"]);
        assert_eq!(go("go depth 1000").depth, Some(MAX_DEPTH));
        assert_eq!(go("go depth -3").depth, Some(1));
        assert_eq!(go("go mate 0").mate, Some(1));
        assert_eq!(go("go movetime -5").movetime, Some(0));
        assert_eq!(go("go nodes 0").nodes, Some(1));
        let g = go("go nodes 99999999999999999999999");
        assert_eq!(g.nodes, Some(i64::MAX as u64));
        assert_eq!(
            g.notes,
            ["nodes 99999999999999999999999 out of range (1 to 9223372036854775807), using 9223372036854775807"]
        );
        assert!(go("go nodes 9223372036854775807").notes.is_empty());
        assert!(go("go nodes +5").notes.is_empty());
        assert_eq!(go("go wtime 99999999999999999999999").wtime, Some(MAX_TIME_MS));
        // Values that are not numbers, missing values and unknown words are skipped.
        let g = go("go depth many wtime btime 500 sideways nodes");
        assert_eq!(
            (g.depth, g.wtime, g.btime, g.nodes),
            (None, None, Some(500), None)
        );
        assert_eq!(
            g.notes,
            [
                "bad value \"many\" for 'depth' (an integer), ignored",
                "'wtime' needs a value, ignored",
                "unknown go parameter \"sideways\" ignored",
                "'nodes' needs a value, ignored",
            ]
        );
        assert_eq!(
            go("go searchmoves").notes,
            ["'searchmoves' without moves ignored"]
        );
        assert_eq!(go("go fast depth 2").depth, Some(2));
        // A perft that could run for hours is refused rather than clamped.
        let g = go("go perft 99");
        assert_eq!(
            (g.perft, g.refused.as_deref()),
            (None, Some("perft depth 99 out of range (1 to 12)"))
        );
        assert!(go("go perft 0").refused.is_some());
        for line in ["go perft", "go perft x", "go perft depth 3"] {
            let g = go(line);
            assert_eq!(
                g.refused.as_deref(),
                Some("perft needs a depth (1 to 12)"),
                "{line}"
            );
            assert!(g.notes.is_empty(), "{line}: {:?}", g.notes);
        }
    }

    #[test]
    fn parses_setoption_and_the_rest() {
        assert_eq!(
            parse_command("setoption name Move Overhead value 30"),
            Ok(Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("30".into())
            })
        );
        assert_eq!(
            parse_command("setoption name Clear Hash"),
            Ok(Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            })
        );
        assert_eq!(
            parse_command("setoption name EvalFile value /tmp/my net.nnue"),
            Ok(Command::SetOption {
                name: "EvalFile".into(),
                value: Some("/tmp/my net.nnue".into())
            })
        );
        assert!(parse_command("setoption value 3").is_err());
        assert_eq!(parse_command("   "), Ok(Command::Nothing));
        assert_eq!(parse_command("isready"), Ok(Command::IsReady));
        assert_eq!(parse_command("bench 5"), Ok(Command::Bench { depth: Some(5) }));
        assert_eq!(parse_command("quit"), Ok(Command::Quit));
        assert_eq!(parse_command("help"), Ok(Command::Help));
        assert_eq!(parse_command("debug on"), Ok(Command::Debug));
        assert_eq!(parse_command("register later"), Ok(Command::Register));
        assert!(parse_command("debug maybe").is_err());
        assert_eq!(
            parse_command("uciok"),
            Err(ParseError::UnknownCommand("uciok".into()))
        );
        assert_eq!(
            parse_command("uciok").unwrap_err().to_string(),
            format!("unknown command \"uciok\"; Luft understands: {COMMANDS}")
        );
        assert_eq!(
            parse_command("bench 0"),
            Err(ParseError::BadBenchDepth("0".into()))
        );
        assert_eq!(parse_command("setoption name"), Err(ParseError::SetOptionNoName));
    }

    #[test]
    fn the_command_list_names_every_command() {
        for word in [
            "uci",
            "isready",
            "ucinewgame",
            "position",
            "go",
            "stop",
            "ponderhit",
            "setoption",
            "debug",
            "register",
            "quit",
            "d",
            "eval",
            "bench",
            "help",
        ] {
            assert!(
                COMMANDS.split([',', ' ', ';']).any(|w| w == word),
                "{word} missing from {COMMANDS}"
            );
            assert!(HELP.iter().any(|l| l.contains(word)), "{word} missing from help");
        }
    }

    fn captured() -> (UciEngine, Arc<Mutex<Vec<String>>>) {
        let lines = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = lines.clone();
        let engine = UciEngine::new(Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string())));
        (engine, lines)
    }

    #[test]
    fn option_values_are_checked() {
        let (mut engine, lines) = captured();
        for (line, error) in [
            (
                "setoption name Hash value 0",
                "bad value \"0\" for Hash (integer from 1 to 1048576)",
            ),
            (
                "setoption name Threads value x",
                "bad value \"x\" for Threads (integer from 1 to 256)",
            ),
            (
                "setoption name Ponder value yes",
                "bad value \"yes\" for Ponder (true or false)",
            ),
            (
                "setoption name UCI_Chess960",
                "option \"UCI_Chess960\" needs a value (true or false)",
            ),
            (
                "setoption name Hash",
                "option \"Hash\" needs a value (integer from 1 to 1048576)",
            ),
            ("setoption name Contempt value 3", "unknown option \"Contempt\""),
        ] {
            engine.handle_line(line);
            assert_eq!(
                lines.lock().unwrap().pop().unwrap(),
                format!("info string error: {error}")
            );
        }
        assert_eq!(*engine.options(), crate::Options::default());
        engine.handle_line("setoption name threads value 3");
        engine.handle_line("setoption name MultiPV value 4");
        assert_eq!((engine.options().threads, engine.options().multipv), (3, 4));
        assert!(lines.lock().unwrap().is_empty());
    }

    #[test]
    fn wdl_and_strength_options_are_set_and_checked() {
        let (mut engine, lines) = captured();
        engine.handle_line("setoption name UCI_ShowWDL value true");
        engine.handle_line("setoption name UCI_LimitStrength value true");
        engine.handle_line("setoption name UCI_Elo value 2100");
        engine.handle_line("setoption name Strength Seed value 99");
        let o = engine.options().clone();
        assert_eq!(
            (o.show_wdl, o.limit_strength, o.elo, o.strength_seed),
            (true, true, 2100, 99)
        );
        assert!(lines.lock().unwrap().is_empty());
        for line in [
            "setoption name UCI_Elo value 1319",
            "setoption name UCI_Elo value 3001",
            "setoption name UCI_Elo",
            "setoption name Strength Seed value 2147483648",
            "setoption name UCI_LimitStrength value 1",
        ] {
            engine.handle_line(line);
            let error = lines.lock().unwrap().pop().unwrap();
            assert!(error.starts_with("info string error: "), "{line}: {error}");
        }
        assert_eq!(*engine.options(), o, "a refused value changes nothing");
    }

    #[test]
    fn options_are_declared_from_the_table() {
        let (mut engine, lines) = captured();
        engine.handle_line("uci");
        let lines = lines.lock().unwrap().clone();
        // The release build declares its own options only; a tune build adds a spin
        // option per tunable after them.
        let tunables = if cfg!(feature = "tune") {
            crate::params::TUNABLES.len()
        } else {
            0
        };
        assert_eq!(lines.len(), 2 + crate::OPTIONS.len() + tunables + 1);
        assert_eq!(
            lines
                .iter()
                .any(|l| l == "option name rfp_margin type spin default 75 min 30 max 150"),
            cfg!(feature = "tune")
        );
        for want in [
            "option name Hash type spin default 16 min 1 max 1048576",
            "option name Threads type spin default 1 min 1 max 256",
            "option name MultiPV type spin default 1 min 1 max 256",
            "option name Move Overhead type spin default 10 min 0 max 5000",
            "option name EvalFile type string default embedded",
            "option name UCI_Chess960 type check default false",
            "option name Ponder type check default false",
            "option name Clear Hash type button",
            "option name UCI_ShowWDL type check default false",
            "option name UCI_LimitStrength type check default false",
            "option name UCI_Elo type spin default 1320 min 1320 max 3000",
            "option name Strength Seed type spin default 0 min 0 max 2147483647",
        ] {
            assert!(lines.iter().any(|l| l == want), "{want} missing from {lines:?}");
        }
        assert_eq!(lines.last().map(String::as_str), Some("uciok"));
    }

    #[test]
    fn reports_become_uci_text() {
        let board = Board::startpos();
        let e4 = board.parse_uci("e2e4").unwrap();
        let mut after = board;
        after.play(e4);
        let e5 = after.parse_uci("e7e5").unwrap();
        let line = Line {
            multipv: 1,
            score: Score::new(24),
            bound: None,
            wdl: Some([358, 330, 312]),
            pv: vec![e4, e5],
        };
        let report = Iteration {
            depth: 9,
            seldepth: 13,
            nodes: 20_000,
            elapsed: Duration::from_millis(40),
            hashfull: 12,
            tbhits: None,
            lines: vec![line.clone()],
        };
        assert_eq!(
            info_line(&report, &line, &board, false),
            "info depth 9 seldepth 13 multipv 1 score cp 24 wdl 358 330 312 nodes 20000 nps 500000 \
             hashfull 12 time 40 pv e2e4 e7e5"
        );
        // With tablebases loaded, the probes answered come after hashfull.
        let with_tables = Iteration {
            tbhits: Some(7),
            ..report.clone()
        };
        assert!(info_line(&with_tables, &line, &board, false).contains(" hashfull 12 tbhits 7 time 40 "));
        let bound = Line {
            bound: Some(ScoreBound::Lower),
            wdl: None,
            score: Score::new(crate::search::MATE - 3),
            ..line.clone()
        };
        assert!(info_line(&report, &bound, &board, false).contains(" score mate 2 lowerbound nodes "));
        let mated = Iteration {
            depth: 0,
            lines: vec![Line {
                score: Score::new(-crate::search::MATE),
                wdl: Some([0, 0, 1000]),
                pv: vec![],
                ..line.clone()
            }],
            ..report.clone()
        };
        assert_eq!(
            info_line(&mated, &mated.lines[0], &board, false),
            "info depth 0 score mate 0 wdl 0 0 1000"
        );
        let result = SearchResult {
            best_move: Some(e4),
            ponder_move: Some(e5),
            ..SearchResult::default()
        };
        assert_eq!(bestmove_line(&result, &board, false), "bestmove e2e4 ponder e7e5");
        assert_eq!(
            bestmove_line(&SearchResult::default(), &board, false),
            "bestmove 0000"
        );
    }

    #[test]
    fn a_held_null_move_is_given_at_stop_or_ponderhit() {
        let (mut engine, lines) = captured();
        engine.handle_line("position fen 8/8 w - - 0 1");
        lines.lock().unwrap().clear();
        engine.handle_line("go infinite");
        assert_eq!(lines.lock().unwrap().len(), 1, "only the error");
        engine.handle_line("stop");
        assert_eq!(lines.lock().unwrap().pop().unwrap(), "bestmove 0000");
        engine.handle_line("go ponder");
        engine.handle_line("ponderhit");
        assert_eq!(lines.lock().unwrap().pop().unwrap(), "bestmove 0000");
        engine.handle_line("go infinite");
        engine.handle_line("ponderhit");
        assert_ne!(lines.lock().unwrap().last().unwrap(), "bestmove 0000");
        engine.handle_line("quit");
        assert_eq!(lines.lock().unwrap().pop().unwrap(), "bestmove 0000");
    }
}
