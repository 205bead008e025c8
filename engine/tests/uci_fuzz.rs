//! A seeded random UCI driver against the real `luft` binary: batches of mixed valid and
//! broken lines (positions with bad FENs or a bad move somewhere in the list, `go` lines
//! with out-of-range numbers, junk words, `searchmoves`, `infinite` and `ponder`, option
//! changes good and bad, unknown commands and junk bytes). The driver keeps its own model
//! of the position the engine must have (the legal prefix of the last `position`, or none
//! after a refused one) built from the moves it generated, and checks after every `go`:
//! exactly one `bestmove`, legal in the model position and within `searchmoves`, `0000`
//! when there is no position or no legal move, and the first move of the last `pv`
//! printed; after every batch: the engine is alive, answers `readyok` within a second, and
//! shows the model's position. Set `LUFT_FUZZ_SEED` to replay one seed.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

mod common;

use common::{bestmove_of, last_pv_first, Engine, SECOND};
use movegen::rng::SplitMix64;
use movegen::{Board, Move};
use std::time::{Duration, Instant};

const SEEDS: [u64; 8] = [1, 2, 3, 0x5EED, 0xC0FFEE, 0xBAD_1DEA, 20_240_601, 987_654_321];
const BATCHES: usize = 15;
const LINES_PER_BATCH: usize = 12;

/// FENs the engine must accept (some with the clock fields GUIs get wrong).
const GOOD_FENS: &[&str] = &[
    "8/4P3/8/8/8/8/k7/4K3 w - - 0 1",
    "8/4P3/8/8/8/8/k7/4K3 w - - 0 0",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq -",
    "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "6k1/5ppp/8/8/8/8/1Q3PPP/3R2K1 w - - 0 1",
    "4k3/1P6/8/8/8/8/6p1/4K3 b - - 5 40",
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
];

/// FENs the engine must refuse.
const BAD_FENS: &[&str] = &[
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1",
    "8/4P3/8/8/8/8/k7/4K3 w - - 0 1x",
    "8/4P3/8/8/8/8/k7/4K3 x - - 0 1",
    "4k3/4R3/8/8/8/8/8/4K3 w - - 0 1",
    "4k2r/8/8/8/8/8/8/4K2R w KK - 0 1",
    "8/8",
    "",
];

const JUNK_WORDS: &[&str] = &[
    "sideways",
    "-",
    "0",
    "-1",
    "1e9",
    "e2e4",
    "zz",
    "go",
    "stop",
    "moves",
    "fen",
    "startpos",
    "\u{fffd}",
    "99999999999999999999999",
    "depth",
    "infinite",
    "name",
    "value",
];

struct Fuzz {
    rng: SplitMix64,
    engine: Engine,
    /// The position the engine must have; `None` after a refused `position`.
    model: Option<Board>,
    /// Recent lines sent, for the failure message.
    sent: Vec<String>,
    gos: usize,
}

impl Fuzz {
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.rng.below(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.rng.below(100) < percent
    }

    fn int(&mut self, low: i64, high: i64) -> i64 {
        low + self.rng.below((high - low + 1) as usize) as i64
    }

    fn send(&mut self, line: &str) {
        self.sent.push(line.chars().take(200).collect());
        if self.sent.len() > 40 {
            self.sent.remove(0);
        }
        self.engine.send(line);
    }

    fn context(&self) -> String {
        format!("recent input:\n  {}", self.sent.join("\n  "))
    }

    /// A random legal walk from `board`, as UCI texts (some promotions in upper case).
    fn walk(&mut self, board: &Board, plies: usize) -> Vec<(String, Move)> {
        let mut board = *board;
        let mut out = Vec::new();
        for _ in 0..plies {
            let legal = board.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[self.rng.below(legal.len())];
            let mut text = board.to_uci(mv, self.chance(20));
            if mv.promotion().is_some() && self.chance(50) {
                text = text.to_ascii_uppercase();
                text = format!("{}{}", text[..4].to_ascii_lowercase(), &text[4..]);
            }
            out.push((text, mv));
            board.play(mv);
        }
        out
    }

    /// A token that is not a legal move in `board`.
    fn bad_move(&mut self, board: &Board) -> String {
        for _ in 0..100 {
            let text = match self.rng.below(4) {
                0 => {
                    (*self.pick(&["zzzz", "e2e4qq", "e7e8k", "a9a1", "0000", "e2", "O-O", "Nf3"])).to_string()
                }
                _ => {
                    let sq = |n: usize| format!("{}{}", (b'a' + (n % 8) as u8) as char, 1 + (n / 8) % 8);
                    let (a, b) = (self.rng.below(64), self.rng.below(64));
                    format!("{}{}", sq(a), sq(b))
                }
            };
            if board.parse_uci(&text).is_err() {
                return text;
            }
        }
        "zzzz".to_string()
    }

    fn position_line(&mut self) {
        if self.chance(15) {
            let fen = *self.pick(BAD_FENS);
            let moves = if self.chance(50) { " moves e2e4" } else { "" };
            let line = match self.rng.below(4) {
                0 => "position startpos junk".to_string(),
                1 => "position".to_string(),
                _ => format!("position fen {fen}{moves}"),
            };
            self.send(&line);
            self.model = None;
            return;
        }
        let (setup, start) = if self.chance(50) {
            ("startpos".to_string(), Board::startpos())
        } else {
            let fen = *self.pick(GOOD_FENS);
            (format!("fen {fen}"), Board::from_fen(fen).unwrap())
        };
        let plies = self.rng.below(14);
        let walk = self.walk(&start, plies);
        let mut texts: Vec<String> = walk.iter().map(|(t, _)| t.clone()).collect();
        let mut kept = walk.len();
        if !walk.is_empty() && self.chance(35) {
            // Break the list at a random move: the moves before it stay.
            let at = self.rng.below(walk.len());
            let mut board = start;
            for (_, mv) in &walk[..at] {
                board.play(*mv);
            }
            texts[at] = self.bad_move(&board);
            kept = at;
        }
        let mut board = start;
        for (_, mv) in &walk[..kept] {
            board.play(*mv);
        }
        self.model = Some(board);
        let line = if texts.is_empty() && self.chance(50) {
            format!("position {setup}")
        } else {
            format!("position {setup} moves {}", texts.join(" "))
        };
        self.send(&line);
    }

    /// Sends a random `go` and checks its one answer.
    fn go_line(&mut self) {
        let mut words: Vec<String> = vec!["go".into()];
        let mut bounded = false;
        let mut searchmoves: Vec<Move> = Vec::new();
        let legal: Vec<Move> = self
            .model
            .map(|b| b.legal_moves().iter().copied().collect())
            .unwrap_or_default();
        let parts = 1 + self.rng.below(4);
        for _ in 0..parts {
            match self.rng.below(12) {
                0 => {
                    let v = self.int(-3, 4);
                    words.push(format!("depth {v}"));
                    bounded = true;
                }
                1 => {
                    let v = self.int(-5, 3000);
                    words.push(format!("nodes {v}"));
                    bounded = true;
                }
                2 => {
                    let v = self.int(-10, 30);
                    words.push(format!("movetime {v}"));
                    bounded = true;
                }
                3 | 4 => {
                    let side = *self.pick(&["wtime", "btime", "winc", "binc", "movestogo"]);
                    let v = match side {
                        "wtime" | "btime" => self.int(-100, 300),
                        "movestogo" => self.int(-3, 10),
                        _ => self.int(-10, 20),
                    };
                    words.push(format!("{side} {v}"));
                    bounded = true;
                }
                5 => {
                    let v = self.int(-1, 3);
                    words.push(format!("mate {v}"));
                }
                6 if !legal.is_empty() => {
                    let count = 1 + self.rng.below(3);
                    let mut texts = Vec::new();
                    let board = self.model.unwrap();
                    for _ in 0..count {
                        if self.chance(75) {
                            let mv = legal[self.rng.below(legal.len())];
                            searchmoves.push(mv);
                            texts.push(board.to_uci(mv, false));
                        } else {
                            texts.push(self.bad_move(&board));
                        }
                    }
                    words.push(format!("searchmoves {}", texts.join(" ")));
                }
                6 => words.push("searchmoves e2e4".into()),
                7 => words.push("infinite".into()),
                8 => words.push("ponder".into()),
                9 => {
                    let junk = *self.pick(&["sideways", "fast", "1e9", "-", "movestogo", "depth"]);
                    words.push(junk.into());
                }
                10 => {
                    let key = *self.pick(&["depth", "nodes", "wtime", "movetime"]);
                    let junk = *self.pick(&["many", "1.5", "", "x"]);
                    words.push(format!("{key} {junk}"));
                }
                _ => {
                    let v = self.int(1, 3);
                    words.push(format!("depth {v}"));
                    bounded = true;
                }
            }
        }
        let line = words.join(" ");
        let infinite = line.contains("infinite");
        let ponder = line.split_whitespace().any(|w| w == "ponder");
        self.send(&line);
        self.gos += 1;
        let start = Instant::now();
        if infinite || ponder || !bounded || self.chance(10) {
            std::thread::sleep(Duration::from_millis(self.rng.below(15) as u64));
            let release = if ponder && !infinite && self.chance(50) {
                "ponderhit"
            } else {
                "stop"
            };
            self.send(release);
            if release == "ponderhit" && !bounded {
                // A ponderhit on an unbounded search leaves it running: stop it too.
                self.send("stop");
            }
        }
        let lines = self.collect_bestmove(&line, 5 * SECOND);
        let best = bestmove_of(lines.last().unwrap());
        let ctx = || format!("go line {line:?}, answer {best}, elapsed {:?}", start.elapsed());
        match self.model {
            None => assert_eq!(best, "0000", "no position: {}\n{}", ctx(), self.context()),
            Some(board) if legal.is_empty() => {
                assert_eq!(
                    best,
                    "0000",
                    "{} has no legal move: {}\n{}",
                    board,
                    ctx(),
                    self.context()
                )
            }
            Some(board) => {
                let mv = board
                    .parse_uci(&best)
                    .unwrap_or_else(|e| panic!("{e} in {board}: {}\n{}", ctx(), self.context()));
                if !searchmoves.is_empty() {
                    assert!(
                        searchmoves.contains(&mv),
                        "{best} not among searchmoves in {board}: {}\n{}",
                        ctx(),
                        self.context()
                    );
                }
                let pv = last_pv_first(&lines);
                assert_eq!(
                    pv.as_deref(),
                    Some(best.as_str()),
                    "bestmove is not the last pv's first move: {}\n{lines:?}\n{}",
                    ctx(),
                    self.context()
                );
            }
        }
    }

    /// Lines up to the `bestmove` answering `go_line`.
    fn collect_bestmove(&mut self, go_line: &str, timeout: Duration) -> Vec<String> {
        let deadline = Instant::now() + timeout;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.engine.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with("bestmove");
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(_) => panic!(
                    "no bestmove for {go_line:?} within {timeout:?} (alive: {}); saw {seen:?}\n{}",
                    self.engine.alive(),
                    self.context()
                ),
            }
        }
    }

    fn option_line(&mut self) {
        let line = match self.rng.below(12) {
            0 => format!("setoption name Threads value {}", 1 + self.rng.below(4)),
            1 => format!("setoption name MultiPV value {}", 1 + self.rng.below(3)),
            2 => format!("setoption name Hash value {}", 1 + self.rng.below(32)),
            3 => (*self.pick(&[
                "setoption name Hash value 1048576",
                "setoption name Hash value 2000000",
                "setoption name Hash value 0",
                "setoption name Hash value lots",
                "setoption name Threads value 0",
                "setoption name MultiPV value 999",
            ]))
            .to_string(),
            4 => format!(
                "setoption name UCI_Chess960 value {}",
                self.pick(&["true", "false", "yes", ""])
            ),
            5 => format!(
                "setoption name Ponder value {}",
                self.pick(&["true", "false", "maybe"])
            ),
            6 => "setoption name Clear Hash".into(),
            7 => format!(
                "setoption name Move Overhead value {}",
                self.pick(&["0", "30", "-1", "1e9"])
            ),
            8 => "setoption name NoSuchOption value 1".into(),
            9 => "setoption value 3".into(),
            10 => "setoption name EvalFile value /nonexistent/net.nnue".into(),
            _ => "setoption".into(),
        };
        self.send(&line);
    }

    fn junk_line(&mut self) {
        match self.rng.below(8) {
            0 => {
                let len = self.rng.below(40);
                let mut bytes: Vec<u8> = (0..len)
                    .map(|_| self.rng.next_u64() as u8)
                    .filter(|&b| b != b'\n')
                    .collect();
                // Not a command by accident: start with a byte no command starts with.
                bytes.insert(0, b'#');
                bytes.push(b'\n');
                self.sent.push(format!("<{len} junk bytes>"));
                self.engine.send_bytes(&bytes);
            }
            1 => self.send(""),
            2 => {
                let line = *self.pick(&[
                    "stop",
                    "ponderhit",
                    "isready",
                    "debug on",
                    "register later",
                    "help",
                ]);
                self.send(line);
                if line == "isready" {
                    self.engine.until("readyok", SECOND);
                }
            }
            3 => {
                let line = *self.pick(&["d", "eval"]);
                self.send(line);
            }
            4 => {
                let n = 1 + self.rng.below(6);
                let mut words = vec![(*self.pick(&[
                    "frobnicate",
                    "uciok",
                    "GO",
                    "Position",
                    "readyok",
                    "bestmove",
                    "info",
                ]))
                .to_string()];
                for _ in 0..n {
                    words.push((*self.pick(JUNK_WORDS)).to_string());
                }
                self.send(&words.join(" "));
            }
            5 => {
                let depth = *self.pick(&["0", "99", "-1", "x"]);
                self.send(&format!("go perft {depth}"));
            }
            6 => {
                self.send("ucinewgame");
                self.model = Some(Board::startpos());
            }
            _ => {
                let d = 1 + self.rng.below(2);
                self.send(&format!("go perft {d}"));
                if self.model.is_some() {
                    self.engine.until("Nodes searched", 5 * SECOND);
                }
            }
        }
    }

    /// After a batch: alive, `readyok` within a second with no stray `bestmove`, and the
    /// model's position on the board.
    fn check_batch(&mut self) {
        assert!(self.engine.alive(), "luft died\n{}", self.context());
        let start = Instant::now();
        let lines = self.engine.sync();
        assert!(start.elapsed() < SECOND, "readyok took {:?}", start.elapsed());
        assert!(
            lines.iter().all(|l| !l.starts_with("bestmove")),
            "a bestmove without a go: {lines:?}\n{}",
            self.context()
        );
        self.send("d");
        let lines = self.engine.sync();
        match self.model {
            Some(board) => assert!(
                lines.contains(&format!("Fen: {}", board.to_fen())),
                "the engine's board is not {board}: {lines:?}\n{}",
                self.context()
            ),
            None => assert!(
                lines.len() == 1 && lines[0].starts_with("info string error: no position:"),
                "{lines:?}\n{}",
                self.context()
            ),
        }
    }
}

fn run_seed(seed: u64) -> usize {
    let mut fuzz = Fuzz {
        rng: SplitMix64(seed),
        engine: Engine::start(),
        model: Some(Board::startpos()),
        sent: Vec::new(),
        gos: 0,
    };
    for _ in 0..BATCHES {
        for _ in 0..LINES_PER_BATCH {
            match fuzz.rng.below(10) {
                0..=2 => fuzz.position_line(),
                3..=5 => fuzz.go_line(),
                6 | 7 => fuzz.option_line(),
                _ => fuzz.junk_line(),
            }
        }
        fuzz.check_batch();
    }
    let gos = fuzz.gos;
    fuzz.engine.quit();
    gos
}

#[test]
fn random_uci_sessions_always_answer_correctly() {
    let seeds: Vec<u64> = match std::env::var("LUFT_FUZZ_SEED") {
        Ok(text) => vec![text.parse().expect("LUFT_FUZZ_SEED is a number")],
        Err(_) => SEEDS.to_vec(),
    };
    let start = Instant::now();
    let mut gos = 0;
    for &seed in &seeds {
        gos += run_seed(seed);
    }
    eprintln!("{gos} go commands checked in {:?}", start.elapsed());
    // About 54 a seed (15 batches of 12 lines, 30% of them go).
    assert!(gos >= 25 * seeds.len(), "too few go commands exercised: {gos}");
}
