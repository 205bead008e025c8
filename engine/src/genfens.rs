//! `luft genfens N seed S book <None|FILE> [plies P] [maxscore M]`: N random, playable
//! opening positions, printed as `info string genfens <FEN>` (OpenBench's distributed data
//! generation protocol). Each starts from the start position (or a random line of the EPD
//! book), plays P random legal plies (default 8, 9 for odd seeds' half of the games so both
//! sides get the move), and is kept only if it is not over and a short search (5000 nodes)
//! scores it within ±M centipawns (default 1000). The same arguments give the same FENs.

use crate::accumulator::{detected_backend, AccumulatorStack};
use crate::search::{Limits, Shared, Worker};
use crate::tt::TranspositionTable;
use movegen::{Board, Game};
use nnue::Network;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;

/// Parsed `genfens` arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenfensArgs {
    pub count: usize,
    pub seed: u64,
    pub book: Option<String>,
    pub plies: usize,
    pub max_score: i32,
}

/// Parses the words after `genfens` (OpenBench passes them as one or several arguments).
pub fn parse_args(words: &[&str]) -> Result<GenfensArgs, String> {
    let usage = "usage: genfens N seed S book <None|FILE> [plies P] [maxscore M]";
    let count = words
        .first()
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| usage.to_string())?;
    let mut args = GenfensArgs {
        count,
        seed: 0,
        book: None,
        plies: 8,
        max_score: 1000,
    };
    let mut i = 1;
    while i < words.len() {
        let value = words
            .get(i + 1)
            .ok_or_else(|| format!("'{}' needs a value; {usage}", words[i]))?;
        match words[i] {
            "seed" => args.seed = value.parse().map_err(|_| format!("bad seed {value:?}"))?,
            "book" => args.book = (*value != "None").then(|| value.to_string()),
            "plies" => {
                args.plies = value
                    .parse()
                    .ok()
                    .filter(|p| *p <= 40)
                    .ok_or_else(|| format!("bad plies {value:?} (0 to 40)"))?
            }
            "maxscore" => args.max_score = value.parse().map_err(|_| format!("bad maxscore {value:?}"))?,
            other => return Err(format!("unknown genfens argument {other:?}; {usage}")),
        }
        i += 2;
    }
    Ok(args)
}

/// Generates the FENs (without the `info string genfens` prefix).
pub fn generate(args: &GenfensArgs, net: &Arc<Network>) -> Result<Vec<String>, String> {
    let book: Vec<Board> = match &args.book {
        None => vec![Board::startpos()],
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read book {path}: {e}"))?;
            let boards: Vec<Board> = text
                .lines()
                .filter_map(|l| {
                    let fields: Vec<&str> = l.split_whitespace().take(6).collect();
                    if fields.len() < 4 {
                        return None;
                    }
                    let fen = if fields.len() == 6 {
                        fields.join(" ")
                    } else {
                        fields[..4].join(" ")
                    };
                    Board::from_fen(fen.trim_end_matches(';')).ok()
                })
                .collect();
            if boards.is_empty() {
                return Err(format!("no positions in book {path}"));
            }
            boards
        }
    };
    let shared = Arc::new(Shared {
        tt: Arc::new(TranspositionTable::new(4)),
        stop: AtomicBool::new(false),
        nodes: vec![AtomicU64::new(0)],
    });
    let mut worker = Worker::new(
        0,
        shared.clone(),
        AccumulatorStack::new(net.clone(), detected_backend()),
    );
    let mut rng = movegen::rng::SplitMix64(args.seed ^ 0x0067_656E_6665_6E73);
    let mut out = Vec::with_capacity(args.count);
    let mut attempts = 0usize;
    while out.len() < args.count {
        attempts += 1;
        if attempts > args.count * 1000 + 1000 {
            return Err(format!(
                "only {} playable positions found in {attempts} attempts",
                out.len()
            ));
        }
        let start = book[(rng.next_u64() % book.len() as u64) as usize];
        let mut game = Game::new(start);
        let plies = args.plies + (rng.next_u64() % 2) as usize;
        let mut ok = true;
        for _ in 0..plies {
            let moves = game.board().legal_moves();
            if moves.is_empty() {
                ok = false;
                break;
            }
            game.play_unchecked(moves[(rng.next_u64() % moves.len() as u64) as usize]);
        }
        if !ok || game.outcome_with_claims().is_some() {
            continue;
        }
        let board = *game.board();
        shared.tt.clear();
        shared.stop.store(false, std::sync::atomic::Ordering::Relaxed);
        let limits = Limits {
            nodes: Some(5000),
            multipv: 1,
            ..Limits::default()
        };
        worker.search(&board, &[], limits, None, |_, _| {});
        let score = worker.completed.lines.first().map_or(i32::MAX, |l| l.score);
        if score.abs() <= args.max_score {
            out.push(board.to_fen());
        }
    }
    Ok(out)
}
