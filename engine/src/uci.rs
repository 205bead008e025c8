//! The UCI front end. Each input line is first parsed into a [`Command`] (everything is
//! validated there: FENs, every move of a move list, option values, `go` parameters) and
//! then executed, so a bad line changes nothing: it gets `info string error: ...` and the
//! engine carries on. Searches run on their own thread, so `isready`, `stop` and
//! `ponderhit` are answered while one runs.

use crate::accumulator::{detected_backend, AccumulatorStack};
use crate::search::{Limits, Shared, Worker};
use crate::threads::{self, Job, SEARCH_STACK_BYTES};
use crate::time_manager::{Clock, TimeManager};
use crate::tt::TranspositionTable;
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

/// Parses the embedded net (it was validated when the binary was built and tested).
pub fn default_net() -> Arc<Network> {
    Arc::new(Network::from_bytes(DEFAULT_NET).expect("the embedded default net is valid"))
}

const MAX_LINE_BYTES: usize = 1 << 20;

/// Parameters of `go`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: u64,
    pub binc: u64,
    pub movestogo: Option<u64>,
    pub depth: Option<i32>,
    pub nodes: Option<u64>,
    pub mate: Option<i32>,
    pub movetime: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
    pub perft: Option<u32>,
}

/// One parsed input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    IsReady,
    UciNewGame,
    /// A position with the moves that led to it from `start`, all checked legal.
    Position {
        start: Board,
        moves: Vec<Move>,
    },
    Go(GoParams),
    Stop,
    PonderHit,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Quit,
    Display,
    Eval,
    Bench {
        depth: Option<i32>,
    },
    /// An empty line: nothing to do.
    Nothing,
}

/// Why a line was refused.
pub type ParseError = String;

fn parse_number<T: std::str::FromStr>(
    tokens: &mut std::slice::Iter<&str>,
    what: &str,
) -> Result<T, ParseError> {
    let token = tokens.next().ok_or_else(|| format!("'{what}' needs a value"))?;
    token
        .parse()
        .map_err(|_| format!("bad value {:?} for '{what}'", truncate(token)))
}

fn truncate(text: &str) -> String {
    text.chars().take(40).collect()
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
        "d" => Ok(Command::Display),
        "eval" => Ok(Command::Eval),
        "bench" => match rest.first() {
            None => Ok(Command::Bench { depth: None }),
            Some(d) => match d.parse::<i32>() {
                Ok(depth) if (1..=64).contains(&depth) => Ok(Command::Bench { depth: Some(depth) }),
                _ => Err(format!("bad bench depth {:?} (1 to 64)", truncate(d))),
            },
        },
        "position" => parse_position(rest),
        "go" => parse_go(rest).map(Command::Go),
        "setoption" => parse_setoption(rest),
        other => Err(format!("unknown command {:?}", truncate(other))),
    }
}

fn parse_position(tokens: &[&str]) -> Result<Command, ParseError> {
    let moves_at = tokens.iter().position(|&t| t == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&tokens[..i], &tokens[i + 1..]),
        None => (tokens, &[][..]),
    };
    let start = match setup.split_first() {
        Some((&"startpos", [])) => Board::startpos(),
        Some((&"fen", fen)) if !fen.is_empty() => {
            Board::from_fen(&fen.join(" ")).map_err(|e| format!("bad position: {e}"))?
        }
        _ => return Err("expected 'position startpos' or 'position fen <FEN>' [moves ...]".into()),
    };
    let mut board = start;
    let mut played = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        let mv = board
            .parse_uci(text)
            .map_err(|e| format!("move {} of the list: {e}", i + 1))?;
        board.play(mv);
        played.push(mv);
    }
    Ok(Command::Position { start, moves: played })
}

fn parse_go(tokens: &[&str]) -> Result<GoParams, ParseError> {
    let mut go = GoParams::default();
    let mut it = tokens.iter();
    while let Some(&token) = it.next() {
        match token {
            "wtime" => go.wtime = Some(parse_number(&mut it, token)?),
            "btime" => go.btime = Some(parse_number(&mut it, token)?),
            "winc" => go.winc = parse_number(&mut it, token)?,
            "binc" => go.binc = parse_number(&mut it, token)?,
            "movestogo" => go.movestogo = Some(parse_number::<u64>(&mut it, token)?.max(1)),
            "depth" => {
                let d: i32 = parse_number(&mut it, token)?;
                if !(1..=crate::params::MAX_DEPTH).contains(&d) {
                    return Err(format!(
                        "depth {d} out of range (1 to {})",
                        crate::params::MAX_DEPTH
                    ));
                }
                go.depth = Some(d);
            }
            "nodes" => go.nodes = Some(parse_number(&mut it, token)?),
            "mate" => {
                let m: i32 = parse_number(&mut it, token)?;
                if m < 1 {
                    return Err(format!("mate {m} out of range (at least 1)"));
                }
                go.mate = Some(m);
            }
            "movetime" => go.movetime = Some(parse_number(&mut it, token)?),
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "perft" => {
                let d: u32 = parse_number(&mut it, token)?;
                if !(1..=12).contains(&d) {
                    return Err(format!("perft depth {d} out of range (1 to 12)"));
                }
                go.perft = Some(d);
            }
            other => return Err(format!("unknown go parameter {:?}", truncate(other))),
        }
    }
    Ok(go)
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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mib: 16,
            threads: 1,
            multipv: 1,
            move_overhead_ms: 10,
            eval_file: "<default>".into(),
            chess960: false,
            ponder: false,
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
    net: Arc<Network>,
    tt: Arc<TranspositionTable>,
    workers: Arc<Mutex<Vec<Worker>>>,
    search: Option<RunningSearch>,
    out: Arc<dyn Fn(&str) + Send + Sync>,
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
            net,
            tt,
            workers: Arc::new(Mutex::new(workers)),
            search: None,
            out,
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
            Command::Nothing => {}
            Command::Quit => self.finish_search(true),
            Command::Uci => {
                self.say(&format!("id name {NAME}"));
                self.say(&format!("id author {AUTHOR}"));
                self.say("option name Hash type spin default 16 min 1 max 65536");
                self.say("option name Threads type spin default 1 min 1 max 256");
                self.say("option name MultiPV type spin default 1 min 1 max 256");
                self.say("option name Move Overhead type spin default 10 min 0 max 5000");
                self.say("option name EvalFile type string default <default>");
                self.say("option name UCI_Chess960 type check default false");
                self.say("option name Ponder type check default false");
                self.say("option name Clear Hash type button");
                self.say("uciok");
            }
            Command::IsReady => self.say("readyok"),
            Command::Stop => self.finish_search(true),
            Command::PonderHit => {
                if let Some(search) = &self.search {
                    if let Some(cell) = &search.ponderhit_at {
                        cell.store(search.start.elapsed().as_millis() as u64, Ordering::Relaxed);
                    }
                    search.pondering.store(false, Ordering::Relaxed);
                }
            }
            Command::Display => {
                let (board, _) = self.position();
                self.say(&display(&board));
            }
            Command::Eval => {
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
            }
            Command::Position { start, moves } => {
                self.finish_search(true);
                self.start = start;
                self.moves = moves;
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
                other => Err(format!(
                    "bad value {:?} for {name} (true or false)",
                    other.map(truncate)
                )),
            }
        };
        match name.to_ascii_lowercase().as_str() {
            "hash" => {
                let mib = spin(value, 1, 65536)? as usize;
                self.options.hash_mib = mib;
                self.tt = Arc::new(TranspositionTable::new(mib));
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
            "clear hash" => self.tt.clear(),
            "evalfile" => {
                let path = value.unwrap_or("").trim();
                if path.is_empty() {
                    return Err("EvalFile needs a path".into());
                }
                let net = if path == "<default>" || path == "default" {
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

    fn go(&mut self, go: GoParams) {
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
        let start = Instant::now();
        let pondering = Arc::new(AtomicBool::new(go.ponder));
        let (time, increment) = match board.side_to_move() {
            Color::White => (go.wtime, go.winc),
            Color::Black => (go.btime, go.binc),
        };
        let clock = Clock {
            time_ms: time,
            increment_ms: increment,
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
        let job = Job {
            board,
            history,
            limits: Limits {
                depth: go.depth,
                nodes: go.nodes,
                soft_nodes: None,
                mate: go.mate,
                multipv: self.options.multipv,
            },
            time: time_manager,
            infinite: go.infinite || no_limit,
            ponder: go.ponder,
            pondering: pondering.clone(),
            chess960: self.options.chess960,
            start,
        };
        let workers = self.workers.clone();
        let shared = workers.lock().expect("workers lock")[0].shared.clone();
        shared.stop.store(false, Ordering::Relaxed);
        shared.nodes.iter().for_each(|n| n.store(0, Ordering::Relaxed));
        let out = self.out.clone();
        let handle = std::thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(move || {
                let mut workers = workers.lock().expect("workers lock");
                let shared = workers[0].shared.clone();
                threads::run(&mut workers, &shared, &job, &|line| out(line));
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

    /// Whether a search is running (for tests).
    pub fn is_searching(&self) -> bool {
        self.searching()
    }
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

    #[test]
    fn parses_positions_with_moves() {
        let cmd = parse_command("position startpos moves e2e4 e7e5 g1f3").unwrap();
        let Command::Position { start, moves } = cmd else {
            panic!("not a position")
        };
        assert_eq!(start, Board::startpos());
        assert_eq!(
            moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
            ["e2e4", "e7e5", "g1f3"]
        );
        let cmd = parse_command("position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1g1").unwrap();
        let Command::Position { moves, .. } = cmd else {
            panic!("not a position")
        };
        assert_eq!(moves[0].to_string(), "e1h1", "castling is stored king-takes-rook");
        assert_eq!(
            parse_command("position startpos moves e2e5"),
            Err("move 1 of the list: illegal move \"e2e5\"".to_string())
        );
        assert!(parse_command("position fen 8/8 w - - 0 1")
            .unwrap_err()
            .starts_with("bad position: invalid FEN"));
        assert!(parse_command("position startpos junk").is_err());
    }

    #[test]
    fn parses_go() {
        let go = |line: &str| match parse_command(line) {
            Ok(Command::Go(g)) => g,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            go("go wtime 1000 btime 900 winc 10 binc 20 movestogo 5"),
            GoParams {
                wtime: Some(1000),
                btime: Some(900),
                winc: 10,
                binc: 20,
                movestogo: Some(5),
                ..GoParams::default()
            }
        );
        assert!(go("go infinite").infinite);
        assert_eq!(go("go ponder movetime 50").movetime, Some(50));
        assert_eq!(go("go mate 3").mate, Some(3));
        assert_eq!(go("go nodes 12345").nodes, Some(12345));
        assert_eq!(go("go perft 4").perft, Some(4));
        assert_eq!(
            parse_command("go wtime -1"),
            Err("bad value \"-1\" for 'wtime'".to_string())
        );
        assert_eq!(
            parse_command("go depth 0"),
            Err("depth 0 out of range (1 to 100)".to_string())
        );
        assert_eq!(
            parse_command("go depth"),
            Err("'depth' needs a value".to_string())
        );
        assert_eq!(
            parse_command("go fast"),
            Err("unknown go parameter \"fast\"".to_string())
        );
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
        assert_eq!(
            parse_command("uciok"),
            Err("unknown command \"uciok\"".to_string())
        );
    }

    #[test]
    fn option_values_are_checked() {
        let lines = Arc::new(Mutex::new(Vec::<String>::new()));
        let sink = lines.clone();
        let mut engine = UciEngine::new(Arc::new(move |l: &str| sink.lock().unwrap().push(l.to_string())));
        for (line, error) in [
            (
                "setoption name Hash value 0",
                "bad value \"0\" for Hash (integer from 1 to 65536)",
            ),
            (
                "setoption name Threads value x",
                "bad value \"x\" for Threads (integer from 1 to 256)",
            ),
            (
                "setoption name Ponder value yes",
                "bad value Some(\"yes\") for Ponder (true or false)",
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
}
