//! `UCI_ShowWDL`, `UCI_LimitStrength`, `UCI_Elo` and `Strength Seed` against the real
//! `luft` binary: the options are declared; with `UCI_ShowWDL` every `info ... score` line
//! carries a `wdl` that sums to 1000 and is the model's value for that score (certain for
//! mates, a draw for stalemate), and none without it; with the strength limit the search
//! keeps to its node budget over four lines, weak levels do not always play the search's
//! best line, a seed makes whole games reproducible, and a seeded random driver (positions,
//! clocks, node and depth limits, `infinite`, `ponder`, `searchmoves`, option changes)
//! still gets exactly one legal `bestmove` per `go`, the first move of the last `pv`.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

mod common;

use common::{last_pv_first, Engine, SECOND};
use engine::strength::{StrengthLimit, ELO_DEFAULT, ELO_MAX, ELO_MIN, LINES};
use movegen::rng::SplitMix64;
use movegen::{Board, Move};
use std::time::Duration;

/// The value after `key` in an `info` line.
fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut tokens = line.split_whitespace();
    tokens.position(|t| t == key)?;
    tokens.next()
}

/// `(score kind, value, [w, d, l])` of an `info` line with a score, the wdl `None` when
/// the line has none; panics on a malformed wdl.
fn score_and_wdl(line: &str) -> Option<(String, i32, Option<[u32; 3]>)> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let at = tokens.iter().position(|&t| t == "score")?;
    let kind = tokens[at + 1].to_string();
    let value: i32 = tokens[at + 2].parse().unwrap();
    // A fail high or low (printed in long searches) puts its bound before the wdl.
    let at = match tokens.get(at + 3) {
        Some(&"lowerbound") | Some(&"upperbound") => at + 1,
        _ => at,
    };
    let wdl = (tokens.get(at + 3) == Some(&"wdl")).then(|| {
        let n = |i: usize| {
            tokens[at + 3 + i]
                .parse::<u32>()
                .unwrap_or_else(|_| panic!("{line}"))
        };
        [n(1), n(2), n(3)]
    });
    Some((kind, value, wdl))
}

#[test]
fn the_options_are_declared() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until("uciok", 5 * SECOND);
    for want in [
        "option name UCI_ShowWDL type check default false".to_string(),
        "option name UCI_LimitStrength type check default false".to_string(),
        format!("option name UCI_Elo type spin default {ELO_DEFAULT} min {ELO_MIN} max {ELO_MAX}"),
        "option name Strength Seed type spin default 0 min 0 max 2147483647".to_string(),
    ] {
        assert!(lines.contains(&want), "{want} missing from {lines:?}");
    }
    for (line, error) in [
        (
            "setoption name UCI_Elo value 1000",
            "info string error: bad value \"1000\" for UCI_Elo (integer from 1320 to 3000)",
        ),
        (
            "setoption name UCI_ShowWDL value on",
            "info string error: bad value \"on\" for UCI_ShowWDL (true or false)",
        ),
        (
            "setoption name Strength Seed value -1",
            "info string error: bad value \"-1\" for Strength Seed (integer from 0 to 2147483647)",
        ),
    ] {
        e.send(line);
        assert_eq!(e.sync(), [error]);
    }
    e.send("setoption name UCI_Elo value 2000");
    e.send("setoption name uci_limitstrength value true");
    assert!(e.sync().is_empty());
    e.quit();
}

#[test]
fn show_wdl_puts_the_model_on_every_score() {
    let mut e = Engine::start();
    e.send("setoption name UCI_ShowWDL value true");
    e.send("setoption name MultiPV value 3");
    for fen in [
        movegen::STARTPOS_FEN,
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
        "8/5pk1/6p1/8/3R4/6P1/5PK1/2r5 b - - 0 40",
        "6k1/5ppp/8/8/8/8/1Q3PPP/3R2K1 w - - 0 1",
    ] {
        let board = Board::from_fen(fen).unwrap();
        e.send(&format!("position fen {fen}"));
        e.send("go depth 5");
        let (_, lines) = e.bestmove(20 * SECOND);
        let mut scored = 0;
        for line in lines.iter().filter(|l| l.starts_with("info ")) {
            let Some((kind, value, wdl)) = score_and_wdl(line) else {
                continue;
            };
            let [w, d, l] = wdl.unwrap_or_else(|| panic!("no wdl in {line}"));
            assert_eq!(w + d + l, 1000, "{line}");
            match kind.as_str() {
                "cp" => assert_eq!([w, d, l], engine::wdl::wdl(value, &board), "{line}"),
                "mate" if value > 0 => assert_eq!([w, d, l], [1000, 0, 0], "{line}"),
                _ => assert_eq!([w, d, l], [0, 0, 1000], "{line}"),
            }
            scored += 1;
        }
        assert!(scored >= 5, "{lines:?}");
    }
    // No legal move: checkmated is certain loss, stalemate a certain draw.
    for (fen, want) in [
        (
            "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1",
            "info depth 0 score mate 0 wdl 0 0 1000",
        ),
        (
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "info depth 0 score cp 0 wdl 0 1000 0",
        ),
    ] {
        e.send(&format!("position fen {fen}"));
        e.send("go depth 3");
        let (best, lines) = e.bestmove(5 * SECOND);
        assert_eq!((best.as_str(), lines[0].as_str()), ("0000", want));
    }
    // Off again: no wdl anywhere.
    e.send("setoption name UCI_ShowWDL value false");
    e.send("position startpos");
    e.send("go depth 4");
    let (_, lines) = e.bestmove(10 * SECOND);
    assert!(lines.iter().all(|l| !l.contains("wdl")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains(" score cp ")));
    e.quit();
}

/// The first move of the search's own best line: `multipv 1` of the last iteration.
fn searched_best(lines: &[String]) -> Option<String> {
    let infos: Vec<&String> = lines.iter().filter(|l| l.contains(" multipv ")).collect();
    let depth = field(infos.last()?, "depth")?;
    infos
        .iter()
        .find(|l| field(l, "depth") == Some(depth) && field(l, "multipv") == Some("1"))
        .and_then(|l| common::pv_first(l))
}

#[test]
fn limited_strength_keeps_its_budget_and_plays_like_a_weaker_player() {
    let mut e = Engine::start();
    e.send("setoption name UCI_LimitStrength value true");
    e.send(&format!("setoption name UCI_Elo value {ELO_MIN}"));
    let budget = StrengthLimit::new(ELO_MIN, 0).nodes();
    let mut differed = 0;
    for seed in 1..=12 {
        e.send(&format!("setoption name Strength Seed value {seed}"));
        e.send("ucinewgame");
        e.send("position startpos moves e2e4 e7e5 g1f3");
        e.send("go wtime 60000 btime 60000");
        let (best, lines) = e.bestmove(10 * SECOND);
        let board =
            Board::from_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2").unwrap();
        board.parse_uci(&best).unwrap();
        assert_eq!(last_pv_first(&lines).as_deref(), Some(best.as_str()), "{lines:?}");
        let infos: Vec<&String> = lines.iter().filter(|l| l.starts_with("info depth")).collect();
        let multipv = infos.iter().filter_map(|l| field(l, "multipv")).max().unwrap();
        assert_eq!(multipv, LINES.to_string(), "{lines:?}");
        for line in &infos {
            let nodes: u64 = field(line, "nodes").unwrap().parse().unwrap();
            assert!(nodes <= budget + 16, "{nodes} nodes > budget {budget}: {line}");
        }
        if searched_best(&lines).as_deref() != Some(best.as_str()) {
            differed += 1;
        }
    }
    assert!(
        differed >= 2,
        "the weakest level played the search's best line {} times in 12",
        12 - differed
    );
    e.quit();
}

/// Plays `plies` plies from the start position with the engine on both sides.
fn self_play(seed: u64, elo: i32, plies: usize) -> Vec<String> {
    let mut e = Engine::start();
    e.send("setoption name UCI_LimitStrength value true");
    e.send(&format!("setoption name UCI_Elo value {elo}"));
    e.send(&format!("setoption name Strength Seed value {seed}"));
    e.send("ucinewgame");
    let mut moves: Vec<String> = Vec::new();
    for _ in 0..plies {
        if moves.is_empty() {
            e.send("position startpos");
        } else {
            e.send(&format!("position startpos moves {}", moves.join(" ")));
        }
        e.send("go wtime 600000 btime 600000");
        let (best, _) = e.bestmove(10 * SECOND);
        if best == "0000" {
            break;
        }
        moves.push(best);
    }
    e.quit();
    moves
}

#[test]
fn a_seed_makes_games_reproducible() {
    let a = self_play(4242, 1500, 16);
    let b = self_play(4242, 1500, 16);
    assert_eq!(a, b);
    assert_eq!(a.len(), 16);
    let others: Vec<Vec<String>> = [1, 2, 3].iter().map(|&s| self_play(s, 1500, 16)).collect();
    assert!(others.iter().any(|o| *o != a), "every seed played {a:?}");
}

/// A seeded random driver with the strength limit on.
struct Driver {
    rng: SplitMix64,
    engine: Engine,
    board: Board,
    show_wdl: bool,
    sent: Vec<String>,
}

impl Driver {
    fn send(&mut self, line: &str) {
        self.sent.push(line.to_string());
        if self.sent.len() > 30 {
            self.sent.remove(0);
        }
        self.engine.send(line);
    }

    fn below(&mut self, n: usize) -> usize {
        self.rng.below(n)
    }

    fn options(&mut self) {
        let line = match self.below(7) {
            0 => format!(
                "setoption name UCI_Elo value {}",
                ELO_MIN + self.below(900) as i32
            ),
            1 => {
                self.show_wdl = self.below(2) == 0;
                format!("setoption name UCI_ShowWDL value {}", self.show_wdl)
            }
            2 => format!("setoption name MultiPV value {}", 1 + self.below(6)),
            3 => format!("setoption name Threads value {}", 1 + self.below(2)),
            4 => format!("setoption name Strength Seed value {}", self.below(3)),
            5 => format!("setoption name UCI_LimitStrength value {}", self.below(5) != 0),
            _ => "setoption name UCI_Elo value 5000".into(),
        };
        self.send(&line);
    }

    fn position(&mut self) {
        let fens = [
            movegen::STARTPOS_FEN,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "4k3/1P6/8/8/8/8/6p1/4K3 b - - 5 40",
            "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
            "6k1/5ppp/8/8/8/8/1Q3PPP/3R2K1 w - - 0 1",
        ];
        let fen = fens[self.below(fens.len())];
        let mut board = Board::from_fen(fen).unwrap();
        let mut texts = Vec::new();
        for _ in 0..self.below(10) {
            let legal = board.legal_moves();
            if legal.is_empty() {
                break;
            }
            let mv = legal[self.below(legal.len())];
            texts.push(board.to_uci(mv, false));
            board.play(mv);
        }
        self.board = board;
        self.send(&format!("position fen {fen} moves {}", texts.join(" ")));
    }

    fn go(&mut self) {
        let legal: Vec<Move> = self.board.legal_moves().iter().copied().collect();
        let mut searchmoves = Vec::new();
        let (line, release) = match self.below(7) {
            0 => (
                format!("go wtime {} btime {}", self.below(3000), self.below(3000)),
                None,
            ),
            1 => (format!("go nodes {}", 1 + self.below(3000)), None),
            2 => (format!("go depth {}", 1 + self.below(6)), None),
            3 => (format!("go movetime {}", self.below(50)), None),
            4 => ("go infinite".to_string(), Some("stop")),
            5 => (
                "go ponder wtime 1000 btime 1000".to_string(),
                Some(if self.below(2) == 0 { "ponderhit" } else { "stop" }),
            ),
            _ if !legal.is_empty() => {
                for _ in 0..1 + self.below(3) {
                    searchmoves.push(legal[self.below(legal.len())]);
                }
                let texts: Vec<String> = searchmoves.iter().map(|&m| self.board.to_uci(m, false)).collect();
                (format!("go depth 3 searchmoves {}", texts.join(" ")), None)
            }
            _ => ("go depth 2".to_string(), None),
        };
        self.send(&line);
        if let Some(release) = release {
            std::thread::sleep(Duration::from_millis(self.below(30) as u64));
            self.send(release);
        }
        let (best, lines) = self.engine.bestmove(10 * SECOND);
        let ctx = format!("{} after:\n  {}", self.board, self.sent.join("\n  "));
        // Exactly one bestmove: nothing else arrives before the next readyok.
        let rest = self.engine.sync();
        assert!(
            rest.iter().all(|l| !l.starts_with("bestmove")),
            "two bestmoves: {rest:?}\n{ctx}"
        );
        if legal.is_empty() {
            assert_eq!(best, "0000", "{ctx}");
            return;
        }
        let mv = self
            .board
            .parse_uci(&best)
            .unwrap_or_else(|e| panic!("{e}: {ctx}"));
        if !searchmoves.is_empty() {
            assert!(searchmoves.contains(&mv), "{best} outside searchmoves: {ctx}");
        }
        assert_eq!(
            last_pv_first(&lines).as_deref(),
            Some(best.as_str()),
            "{lines:?}\n{ctx}"
        );
        for line in lines.iter().filter(|l| l.starts_with("info ")) {
            if let Some((_, _, wdl)) = score_and_wdl(line) {
                match wdl {
                    Some(w) => assert!(self.show_wdl && w.iter().sum::<u32>() == 1000, "{line}\n{ctx}"),
                    None => assert!(!self.show_wdl, "{line}\n{ctx}"),
                }
            }
        }
    }
}

#[test]
fn every_go_gets_one_legal_bestmove_with_the_strength_limit() {
    for seed in [1u64, 2, 3] {
        let mut d = Driver {
            rng: SplitMix64(seed),
            engine: Engine::start(),
            board: Board::startpos(),
            show_wdl: false,
            sent: Vec::new(),
        };
        d.send("setoption name UCI_LimitStrength value true");
        for _ in 0..40 {
            match d.below(4) {
                0 => d.options(),
                1 => d.position(),
                _ => d.go(),
            }
        }
        assert!(d.engine.alive());
        d.engine.quit();
    }
}
