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
//! - A `position` whose move list has an illegal or unreadable move keeps the moves before
//!   it and names the bad one. A `position` whose start (FEN or `startpos`) is refused
//!   leaves no position: each `go` answers `bestmove 0000` with the reason until a
//!   `position` or `ucinewgame` sets one.
//! - Any other bad line (an unknown command, a bad option value, a `Hash` that cannot be
//!   allocated) changes nothing.
//!
//! Searches run on their own thread, so `isready`, `stop` and `ponderhit` are answered while
//! one runs.
//!
//! `UCI_ShowWDL` adds `wdl W D L` (per mille, from `crate::wdl`) to every `info ... score`
//! line; `UCI_LimitStrength` with `UCI_Elo` (and `Strength Seed`) weakens the play
//! (`crate::strength`): a node budget and MultiPV set here in `Limits`, and the move chosen
//! among the final lines.

use crate::accumulator::{detected_backend, AccumulatorStack};
use crate::params::MAX_DEPTH;
use crate::search::{Limits, Shared, Worker};
use crate::strength::{self, StrengthLimit, ELO_DEFAULT, ELO_MAX, ELO_MIN};
use crate::threads::{self, Job, SEARCH_STACK_BYTES};
use crate::time_manager::{Clock, TimeManager, ASSUMED_TIME_MS, MAX_TIME_MS};
use crate::tt::{TranspositionTable, MAX_HASH_MIB};
use movegen::rng::SplitMix64;
use movegen::{Board, Color, Move};
use nnue::Network;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

pub const NAME: &str = concat!("Luft ", env!("CARGO_PKG_VERSION"));
pub const AUTHOR: &str = "The Luft developers";

/// The embedded default net's bytes.
pub static DEFAULT_NET: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/default.nnue"));

/// The `EvalFile` value that names the embedded net: its default, and what returns to it.
/// A word, not `<default>`: python-chess reads `default <default>` as `>` and sends that
/// back when it restores the default. `<default>` and `default` are still accepted.
pub const EMBEDDED_NET_NAME: &str = "embedded";

/// Parses the embedded net (it was validated when the binary was built and tested).
pub fn default_net() -> Arc<Network> {
    Arc::new(Network::from_bytes(DEFAULT_NET).expect("the embedded default net is valid"))
}

const MAX_LINE_BYTES: usize = 1 << 20;

/// The deepest `go perft` (deeper ones run for hours and cannot be stopped).
pub const MAX_PERFT_DEPTH: i64 = 12;

/// The commands Luft understands, one line (the answer to an unknown command).
pub const COMMANDS: &str = "uci, isready, ucinewgame, position, go, stop, ponderhit, \
                            setoption, debug, register, quit; extensions: d, eval, bench, help";

/// The `help` text, sent as `info string` lines.
pub const HELP: &[&str] = &[
    "Luft understands: uci, isready, ucinewgame, position, go, stop, ponderhit, setoption, debug, register, quit",
    "position startpos | fen <FEN> [moves <move> ...]  (moves in UCI notation, e.g. e2e4 e7e8q)",
    "go [wtime|btime|winc|binc|movestogo|movetime|depth|nodes|mate <n>] ... [infinite] [ponder] [searchmoves <move> ...]",
    "setoption name <Hash|Threads|MultiPV|Move Overhead|EvalFile|UCI_Chess960|Ponder|Clear Hash|UCI_ShowWDL|UCI_LimitStrength|UCI_Elo|Strength Seed> [value <v>]",
    "extensions: d (show the board), eval (static evaluation), bench [depth], go perft <depth>, help",
];

/// Parameters of `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u64>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub mate: Option<i32>,
    pub movetime: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
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
    Uci,
    IsReady,
    UciNewGame,
    /// A position with the moves that led to it from `start`, all checked legal; `error`
    /// says why the move list was cut short (the moves before the bad one are kept).
    Position {
        start: Board,
        moves: Vec<Move>,
        error: Option<String>,
    },
    /// A `position` line whose start position was refused, with the reason.
    PositionRefused(String),
    Go(GoParams),
    Stop,
    PonderHit,
    SetOption {
        name: String,
        value: Option<String>,
    },
    /// `debug on|off` (accepted; Luft has no debug output).
    Debug,
    /// `register ...` (accepted; Luft needs no registration).
    Register,
    Quit,
    Display,
    Eval,
    Bench {
        depth: Option<i32>,
    },
    Help,
    /// An empty line: nothing to do.
    Nothing,
}

/// Why a line was refused.
pub type ParseError = String;

fn truncate(text: &str) -> String {
    text.chars().take(40).collect()
}

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
            _ => Err("expected 'debug on' or 'debug off'".into()),
        },
        "register" => Ok(Command::Register),
        "d" => Ok(Command::Display),
        "eval" => Ok(Command::Eval),
        "help" => Ok(Command::Help),
        "bench" => match rest.first() {
            None => Ok(Command::Bench { depth: None }),
            Some(d) => match d.parse::<i32>() {
                Ok(depth) if (1..=64).contains(&depth) => Ok(Command::Bench { depth: Some(depth) }),
                _ => Err(format!("bad bench depth {:?} (1 to 64)", truncate(d))),
            },
        },
        "position" => Ok(parse_position(rest)),
        "go" => Ok(Command::Go(parse_go(rest))),
        "setoption" => parse_setoption(rest),
        other => Err(format!(
            "unknown command {:?}; Luft understands: {COMMANDS}",
            truncate(other)
        )),
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
    let start = match setup.split_first() {
        Some((&"startpos", [])) => Board::startpos(),
        Some((&"fen", fen)) if !fen.is_empty() => match Board::from_fen(&fen.join(" ")) {
            Ok(board) => board,
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
    if clamped != value {
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

fn parse_setoption(tokens: &[&str]) -> Result<Command, ParseError> {
    if tokens.first() != Some(&"name") {
        return Err("expected 'setoption name <name> [value <value>]'".into());
    }
    let rest = &tokens[1..];
    let value_at = rest.iter().position(|&t| t == "value");
    let (name, value) = match value_at {
        Some(i) => (rest[..i].join(" "), Some(rest[i + 1..].join(" "))),
        None => (rest.join(" "), None),
    };
    if name.is_empty() {
        return Err("setoption without an option name".into());
    }
    Ok(Command::SetOption { name, value })
}

/// Engine options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mib: usize,
    pub threads: usize,
    pub multipv: usize,
    pub move_overhead_ms: u64,
    pub eval_file: String,
    pub chess960: bool,
    pub ponder: bool,
    /// `UCI_ShowWDL`.
    pub show_wdl: bool,
    /// `UCI_LimitStrength`.
    pub limit_strength: bool,
    /// `UCI_Elo` (used while `limit_strength`).
    pub elo: i32,
    /// `Strength Seed`: 0 for a different choice each time, else reproducible choices.
    pub strength_seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mib: 16,
            threads: 1,
            multipv: 1,
            move_overhead_ms: 10,
            eval_file: EMBEDDED_NET_NAME.into(),
            chess960: false,
            ponder: false,
            show_wdl: false,
            limit_strength: false,
            elo: ELO_DEFAULT,
            strength_seed: 0,
        }
    }
}

struct RunningSearch {
    handle: JoinHandle<()>,
    shared: Arc<Shared>,
    pondering: Arc<AtomicBool>,
    ponderhit_at: Option<Arc<AtomicU64>>,
    start: Instant,
}

/// The engine as the UCI loop drives it.
pub struct UciEngine {
    options: Options,
    start: Board,
    moves: Vec<Move>,
    /// Why the last `position` was refused: there is no position to search until the next
    /// `position` or `ucinewgame`.
    refused: Option<String>,
    net: Arc<Network>,
    tt: Arc<TranspositionTable>,
    workers: Arc<Mutex<Vec<Worker>>>,
    search: Option<RunningSearch>,
    out: Arc<dyn Fn(&str) + Send + Sync>,
    /// Random numbers for the strength limit's choice when `Strength Seed` is 0.
    rng: SplitMix64,
}

impl std::fmt::Debug for UciEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UciEngine")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// Prints to stdout, one whole line at a time, flushed.
pub fn stdout_writer() -> Arc<dyn Fn(&str) + Send + Sync> {
    Arc::new(|line: &str| {
        let mut lock = std::io::stdout().lock();
        let _ = writeln!(lock, "{line}");
        let _ = lock.flush();
    })
}

fn build_workers(count: usize, net: &Arc<Network>, tt: &Arc<TranspositionTable>) -> Vec<Worker> {
    let shared = Arc::new(Shared {
        tt: tt.clone(),
        stop: AtomicBool::new(false),
        nodes: (0..count).map(|_| AtomicU64::new(0)).collect(),
    });
    (0..count)
        .map(|id| {
            Worker::new(
                id,
                shared.clone(),
                AccumulatorStack::new(net.clone(), detected_backend()),
            )
        })
        .collect()
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

impl UciEngine {
    pub fn new(out: Arc<dyn Fn(&str) + Send + Sync>) -> Self {
        let options = Options::default();
        let net = default_net();
        let tt = Arc::new(TranspositionTable::new(options.hash_mib));
        let workers = build_workers(options.threads, &net, &tt);
        UciEngine {
            options,
            start: Board::startpos(),
            moves: Vec::new(),
            refused: None,
            net,
            tt,
            workers: Arc::new(Mutex::new(workers)),
            search: None,
            out,
            rng: SplitMix64(start_up_seed()),
        }
    }

    fn say(&self, line: &str) {
        (self.out)(line);
    }

    fn error(&self, message: &str) {
        self.say(&format!("info string error: {message}"));
    }

    /// The current position and the keys of the positions before it.
    fn position(&self) -> (Board, Vec<u64>) {
        let mut board = self.start;
        let mut keys = Vec::with_capacity(self.moves.len());
        for &mv in &self.moves {
            keys.push(board.hash());
            board.play(mv);
        }
        (board, keys)
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
        }
        self.finish_search(true);
    }

    /// Handles one line; returns `false` on `quit`.
    pub fn handle_line(&mut self, line: &str) -> bool {
        match parse_command(line) {
            Ok(Command::Quit) => {
                self.finish_search(true);
                false
            }
            Ok(command) => {
                self.execute(command);
                true
            }
            Err(message) => {
                self.error(&message);
                true
            }
        }
    }

    /// Stops (when `stop`) and waits for a running search.
    fn finish_search(&mut self, stop: bool) {
        if let Some(search) = self.search.take() {
            if stop {
                search.shared.stop.store(true, Ordering::Relaxed);
                search.pondering.store(false, Ordering::Relaxed);
            }
            let _ = search.handle.join();
        }
    }

    fn searching(&self) -> bool {
        self.search.as_ref().is_some_and(|s| !s.handle.is_finished())
    }

    fn execute(&mut self, command: Command) {
        match command {
            Command::Nothing | Command::Debug | Command::Register => {}
            Command::Quit => self.finish_search(true),
            Command::Uci => {
                self.say(&format!("id name {NAME}"));
                self.say(&format!("id author {AUTHOR}"));
                self.say(&format!(
                    "option name Hash type spin default 16 min 1 max {MAX_HASH_MIB}"
                ));
                self.say("option name Threads type spin default 1 min 1 max 256");
                self.say("option name MultiPV type spin default 1 min 1 max 256");
                self.say("option name Move Overhead type spin default 10 min 0 max 5000");
                self.say(&format!(
                    "option name EvalFile type string default {EMBEDDED_NET_NAME}"
                ));
                self.say("option name UCI_Chess960 type check default false");
                self.say("option name Ponder type check default false");
                self.say("option name Clear Hash type button");
                self.say("option name UCI_ShowWDL type check default false");
                self.say("option name UCI_LimitStrength type check default false");
                self.say(&format!(
                    "option name UCI_Elo type spin default {ELO_DEFAULT} min {ELO_MIN} max {ELO_MAX}"
                ));
                self.say(&format!(
                    "option name Strength Seed type spin default 0 min 0 max {MAX_SEED}"
                ));
                self.say("uciok");
            }
            Command::IsReady => self.say("readyok"),
            Command::Help => {
                for line in HELP {
                    self.say(&format!("info string {line}"));
                }
            }
            Command::Stop => self.finish_search(true),
            Command::PonderHit => {
                if let Some(search) = &self.search {
                    if let Some(cell) = &search.ponderhit_at {
                        cell.store(search.start.elapsed().as_millis() as u64, Ordering::Relaxed);
                    }
                    search.pondering.store(false, Ordering::Relaxed);
                }
            }
            Command::Display => match self.no_position() {
                Some(message) => self.error(&message),
                None => {
                    let (board, _) = self.position();
                    self.say(&display(&board));
                }
            },
            Command::Eval => {
                if let Some(message) = self.no_position() {
                    self.error(&message);
                    return;
                }
                let (board, _) = self.position();
                let eval = self.net.evaluate(&board);
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
                self.finish_search(true);
                self.tt.clear();
                for worker in self.workers.lock().expect("workers lock").iter_mut() {
                    worker.history.clear();
                }
                self.start = Board::startpos();
                self.moves.clear();
                self.refused = None;
            }
            Command::Position { start, moves, error } => {
                self.finish_search(true);
                self.start = start;
                self.moves = moves;
                self.refused = None;
                if let Some(message) = error {
                    self.error(&message);
                }
            }
            Command::PositionRefused(reason) => {
                self.finish_search(true);
                self.error(&format!(
                    "position refused: {reason}; 'go' answers bestmove 0000 until a position is set"
                ));
                self.refused = Some(reason);
            }
            Command::SetOption { name, value } => {
                self.finish_search(true);
                if let Err(message) = self.set_option(&name, value.as_deref()) {
                    self.error(&message);
                }
            }
            Command::Bench { depth } => {
                self.finish_search(true);
                let report = crate::bench::run(depth, &self.net, &mut |line| (self.out)(line));
                self.say(&report);
            }
            Command::Go(go) => {
                self.finish_search(true);
                self.go(go);
            }
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) -> Result<(), String> {
        let spin = |value: Option<&str>, min: u64, max: u64| -> Result<u64, String> {
            let text = value.ok_or_else(|| format!("option {name:?} needs a value"))?;
            match text.parse::<u64>() {
                Ok(v) if (min..=max).contains(&v) => Ok(v),
                _ => Err(format!(
                    "bad value {:?} for {name} (integer from {min} to {max})",
                    truncate(text)
                )),
            }
        };
        let check = |value: Option<&str>| -> Result<bool, String> {
            match value {
                Some("true") => Ok(true),
                Some("false") => Ok(false),
                Some(other) => Err(format!(
                    "bad value {:?} for {name} (true or false)",
                    truncate(other)
                )),
                None => Err(format!("option {name:?} needs a value (true or false)")),
            }
        };
        match name.to_ascii_lowercase().as_str() {
            "hash" => {
                let mib = spin(value, 1, MAX_HASH_MIB as u64)? as usize;
                // The old table stays until the new one exists: a refused size keeps it.
                let table = TranspositionTable::try_new(mib)
                    .map_err(|e| format!("{e}; keeping the {} MiB table", self.options.hash_mib))?;
                self.options.hash_mib = mib;
                self.tt = Arc::new(table);
                self.rebuild_workers();
            }
            "threads" => {
                self.options.threads = spin(value, 1, 256)? as usize;
                self.rebuild_workers();
            }
            "multipv" => self.options.multipv = spin(value, 1, 256)? as usize,
            "move overhead" => self.options.move_overhead_ms = spin(value, 0, 5000)?,
            "uci_chess960" => self.options.chess960 = check(value)?,
            "ponder" => self.options.ponder = check(value)?,
            "uci_showwdl" => self.options.show_wdl = check(value)?,
            "uci_limitstrength" => self.options.limit_strength = check(value)?,
            "uci_elo" => self.options.elo = spin(value, ELO_MIN as u64, ELO_MAX as u64)? as i32,
            "strength seed" => self.options.strength_seed = spin(value, 0, MAX_SEED)?,
            "clear hash" => self.tt.clear(),
            "evalfile" => {
                let path = value.unwrap_or("").trim();
                if path.is_empty() {
                    return Err("EvalFile needs a path".into());
                }
                let net = if [EMBEDDED_NET_NAME, "<default>", "default"].contains(&path) {
                    default_net()
                } else {
                    Arc::new(Network::load(std::path::Path::new(path)).map_err(|e| e.to_string())?)
                };
                self.net = net;
                self.options.eval_file = path.to_string();
                self.rebuild_workers();
                self.say(&format!(
                    "info string EvalFile {path} loaded: hidden {}, fingerprint {:016x}",
                    self.net.hidden,
                    self.net.fingerprint()
                ));
            }
            _ => return Err(format!("unknown option {:?}", truncate(name))),
        }
        Ok(())
    }

    fn rebuild_workers(&mut self) {
        *self.workers.lock().expect("workers lock") =
            build_workers(self.options.threads, &self.net, &self.tt);
    }

    /// Runs `task` on the search thread, with the stop flag cleared, as the running search.
    fn spawn_search(
        &mut self,
        pondering: Arc<AtomicBool>,
        ponderhit_at: Option<Arc<AtomicU64>>,
        start: Instant,
        task: impl FnOnce(&mut [Worker], &Arc<Shared>) + Send + 'static,
    ) {
        let workers = self.workers.clone();
        let shared = workers.lock().expect("workers lock")[0].shared.clone();
        shared.stop.store(false, Ordering::Relaxed);
        shared.nodes.iter().for_each(|n| n.store(0, Ordering::Relaxed));
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let mut workers = workers.lock().expect("workers lock");
                let shared = workers[0].shared.clone();
                task(&mut workers, &shared);
            })
            .expect("spawn the search thread");
        self.search = Some(RunningSearch {
            handle,
            shared,
            pondering,
            ponderhit_at,
            start,
        });
    }

    fn go(&mut self, go: GoParams) {
        for note in &go.notes {
            self.error(&format!("go: {note}"));
        }
        if let Some(reason) = &go.refused {
            self.error(&format!("go: {reason}; nothing done"));
            return;
        }
        let start = Instant::now();
        let pondering = Arc::new(AtomicBool::new(go.ponder));
        if let Some(message) = self.no_position() {
            self.error(&format!("{message}; answering bestmove 0000"));
            if go.perft.is_some() {
                return;
            }
            // Still the protocol's timing: after `stop` or `ponderhit` for infinite or ponder.
            let out = self.out.clone();
            let (infinite, ponder, flag) = (go.infinite, go.ponder, pondering.clone());
            self.spawn_search(pondering, None, start, move |_, shared| {
                threads::wait_for_release(&shared.stop, infinite, ponder, &flag);
                out("bestmove 0000");
            });
            return;
        }
        let (board, history) = self.position();
        if let Some(depth) = go.perft {
            let mut total = 0;
            for (mv, count) in movegen::perft_divide(&board, depth) {
                self.say(&format!("{}: {count}", board.to_uci(mv, self.options.chess960)));
                total += count;
            }
            self.say(&format!("Nodes searched: {total}"));
            return;
        }

        // searchmoves: the legal ones restrict the root; none legal means no restriction.
        let legal = board.legal_moves();
        let mut root_excluded = Vec::new();
        if !go.searchmoves.is_empty() {
            let mut allowed: Vec<Move> = Vec::new();
            for text in &go.searchmoves {
                match board.parse_uci(text) {
                    Ok(mv) if !allowed.contains(&mv) => allowed.push(mv),
                    Ok(_) => {}
                    Err(e) => self.error(&format!("go: searchmoves: {e}, ignored")),
                }
            }
            if allowed.is_empty() {
                if !legal.is_empty() {
                    self.error("go: no legal move in searchmoves; searching every move");
                }
            } else {
                root_excluded = legal.iter().copied().filter(|m| !allowed.contains(m)).collect();
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
        let time_manager = if go.infinite {
            None
        } else {
            TimeManager::new(clock, self.options.move_overhead_ms, start, pondering.clone())
        };
        let ponderhit_at = time_manager.as_ref().map(|t| t.ponderhit_cell());
        let no_limit =
            time_manager.is_none() && go.depth.is_none() && go.nodes.is_none() && go.mate.is_none();
        let mut limits = Limits {
            depth: go.depth,
            nodes: go.nodes,
            soft_nodes: None,
            mate: go.mate,
            multipv: self.options.multipv,
            root_excluded,
        };
        let strength = self
            .options
            .limit_strength
            .then(|| StrengthLimit::new(self.options.elo, self.options.strength_seed));
        let random = match &strength {
            Some(limit) => {
                limit.apply(&mut limits);
                limit.random_for(&board, &mut self.rng)
            }
            None => 0,
        };
        let job = Job {
            board,
            history,
            limits,
            time: time_manager,
            infinite: go.infinite || no_limit,
            ponder: go.ponder,
            pondering: pondering.clone(),
            chess960: self.options.chess960,
            start,
            show_wdl: self.options.show_wdl,
        };
        let out = self.out.clone();
        self.spawn_search(
            pondering,
            ponderhit_at,
            start,
            move |workers, shared| match strength {
                Some(limit) => {
                    strength::run(workers, shared, &job, &limit, random, &|line| out(line));
                }
                None => {
                    threads::run(workers, shared, &job, &|line| out(line));
                }
            },
        );
    }

    /// Whether a search is running (for tests).
    pub fn is_searching(&self) -> bool {
        self.searching()
    }

    /// The options as set (for tests).
    pub fn options(&self) -> &Options {
        &self.options
    }
}

/// The largest `Strength Seed` (the largest spin value GUIs are sure to accept).
pub const MAX_SEED: u64 = i32::MAX as u64;

/// A seed that differs from run to run (for the strength limit's choice with seed 0).
fn start_up_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    movegen::rng::hash(nanos ^ u64::from(std::process::id()) << 32)
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

    fn uci_moves(moves: &[Move]) -> Vec<String> {
        moves.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn parses_positions_with_moves() {
        let cmd = parse_command("position startpos moves e2e4 e7e5 g1f3").unwrap();
        let Command::Position { start, moves, error } = cmd else {
            panic!("not a position")
        };
        assert_eq!(start, Board::startpos());
        assert_eq!(uci_moves(&moves), ["e2e4", "e7e5", "g1f3"]);
        assert_eq!(error, None);
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
            let Command::Position { start, moves, error } = cmd else {
                panic!("not a position: {cmd:?}")
            };
            assert_eq!(start.to_fen(), "8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
            assert_eq!((moves.len(), error), (1, None));
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
        assert_eq!(
            go("go nodes 99999999999999999999999").nodes,
            Some(i64::MAX as u64)
        );
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
            Err(format!("unknown command \"uciok\"; Luft understands: {COMMANDS}"))
        );
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
            ("setoption name Hash", "option \"Hash\" needs a value"),
        ] {
            engine.handle_line(line);
            assert_eq!(
                lines.lock().unwrap().pop().unwrap(),
                format!("info string error: {error}")
            );
        }
        assert_eq!(engine.options, Options::default());
        engine.handle_line("setoption name threads value 3");
        engine.handle_line("setoption name MultiPV value 4");
        assert_eq!((engine.options.threads, engine.options.multipv), (3, 4));
        assert_eq!(engine.workers.lock().unwrap().len(), 3);
    }

    #[test]
    fn wdl_and_strength_options_are_set_and_checked() {
        let (mut engine, lines) = captured();
        engine.handle_line("setoption name UCI_ShowWDL value true");
        engine.handle_line("setoption name UCI_LimitStrength value true");
        engine.handle_line("setoption name UCI_Elo value 2100");
        engine.handle_line("setoption name Strength Seed value 99");
        let o = engine.options.clone();
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
        assert_eq!(engine.options, o, "a refused value changes nothing");
    }

    #[test]
    fn a_hash_that_cannot_be_allocated_keeps_the_old_table() {
        let (mut engine, lines) = captured();
        engine.handle_line("setoption name Hash value 2");
        assert_eq!(engine.tt.slot_count(), 2 * 1024 * 1024 / 16);
        let old = Arc::as_ptr(&engine.tt);
        engine.handle_line(&format!("setoption name Hash value {MAX_HASH_MIB}"));
        let error = lines.lock().unwrap().pop().unwrap();
        assert!(
            error.starts_with("info string error: hash of 1048576 MiB")
                && error.ends_with("; keeping the 2 MiB table"),
            "{error}"
        );
        assert_eq!(engine.options.hash_mib, 2);
        assert_eq!(Arc::as_ptr(&engine.tt), old, "the old table stays");
        assert!(Arc::ptr_eq(
            &engine.workers.lock().unwrap()[0].shared.tt,
            &engine.tt
        ));
    }
}
