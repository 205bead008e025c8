//! `luft genfens N seed S book <None|FILE> [plies P] [maxscore M] [extra...]`: N random,
//! playable opening positions, printed as `info string genfens <FEN>` (OpenBench's
//! distributed data generation protocol). Each starts from the start position (a random
//! line of the EPD book, or a random Chess960 / double-Chess960 position), plays P random
//! legal plies (default 8; P or P + 1 chosen at random per position so both sides get the
//! move), and is kept only if it is not over and a short search (5000 nodes) scores it
//! within ±M centipawns (default 1000). The same arguments give the same FENs.
//!
//! OpenBench passes a workload's free-text extra arguments after the book; these are
//! understood: `random_moves P` (= `plies P`), `frc true|false` (Chess960 start
//! positions), `dfrc true|false` (double Chess960), `maxscore M`. Anything else is an error
//! naming the word.

use crate::report::Limits;
use crate::searcher::Searcher;
use movegen::openings::{random_plies, read_epd, StartPositions};
use movegen::Board;
use nnue::Network;
use std::sync::Arc;

/// The nodes of the search that checks each opening.
pub const CHECK_NODES: u64 = 5000;

/// Parsed `genfens` arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenfensArgs {
    /// How many FENs.
    pub count: usize,
    /// The seed: the same arguments give the same FENs.
    pub seed: u64,
    /// An EPD book to start from (`None` for the start position).
    pub book: Option<String>,
    /// Random plies from the start (P or P + 1, chosen per position).
    pub plies: usize,
    /// The largest score (centipawns, either side) a kept opening may have.
    pub max_score: i32,
    /// Where openings start when there is no book.
    pub start: StartPositions,
}

/// Parses the words after `genfens` (OpenBench passes them as one or several arguments).
/// Errors: a message naming the bad word, with the usage.
pub fn parse_args(words: &[&str]) -> Result<GenfensArgs, String> {
    let usage = "usage: genfens N seed S book <None|FILE> [plies P] [maxscore M] \
                 [random_moves P] [frc true|false] [dfrc true|false]";
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
        start: StartPositions::Classical,
    };
    let flag = |value: &str, name: &str| match value {
        "true" | "1" | "on" | "yes" => Ok(true),
        "false" | "0" | "off" | "no" => Ok(false),
        _ => Err(format!("bad {name} {value:?} (true or false)")),
    };
    let mut i = 1;
    while i < words.len() {
        let value = words
            .get(i + 1)
            .ok_or_else(|| format!("'{}' needs a value; {usage}", words[i]))?;
        match words[i] {
            "seed" => args.seed = value.parse().map_err(|_| format!("bad seed {value:?}"))?,
            "book" => args.book = (*value != "None").then(|| value.to_string()),
            "frc" | "dfrc" if flag(value, words[i])? => {
                args.start = if words[i] == "frc" {
                    StartPositions::Chess960
                } else {
                    StartPositions::DoubleChess960
                }
            }
            "frc" | "dfrc" => {}
            "plies" | "random_moves" => {
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

/// Generates the FENs (without the `info string genfens` prefix). Errors: an unreadable
/// book, a table that cannot be allocated, or too few playable positions found.
pub fn generate(args: &GenfensArgs, net: &Arc<Network>) -> Result<Vec<String>, String> {
    let book: Vec<Board> = match &args.book {
        None => Vec::new(),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read book {path}: {e}"))?;
            let (boards, notes) = read_epd(&text).map_err(|e| format!("book {path}: {e}"))?;
            // What the book reader cleaned, beside the FENs on stdout.
            for note in notes {
                eprintln!("luft: genfens: book {path}: {note}");
            }
            boards
        }
    };
    let mut searcher = Searcher::new(net.clone(), 4).map_err(|e| e.to_string())?;
    let limits = Limits {
        nodes: Some(CHECK_NODES),
        ..Limits::default()
    };
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
        let start = if book.is_empty() {
            args.start.draw(&mut rng)
        } else {
            book[(rng.next_u64() % book.len() as u64) as usize]
        };
        let plies = args.plies + (rng.next_u64() % 2) as usize;
        let Some(game) = random_plies(start, plies, &mut rng) else {
            continue;
        };
        let board = *game.board();
        // The histories carry over from position to position; only the table is emptied.
        searcher.clear_hash();
        let result = searcher.search(&board, &[], &limits);
        let score = match (result.best_move, result.score) {
            (Some(_), Some(score)) => score.value(),
            _ => i32::MAX,
        };
        if score.abs() <= args.max_score {
            out.push(board.to_fen());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_openbench_extra_arguments() {
        let a = parse_args(&[
            "5",
            "seed",
            "7",
            "book",
            "None",
            "random_moves",
            "6",
            "dfrc",
            "true",
        ])
        .unwrap();
        assert_eq!(
            (a.count, a.seed, a.plies, a.start),
            (5, 7, 6, StartPositions::DoubleChess960)
        );
        let a = parse_args(&["5", "seed", "7", "book", "None", "frc", "true", "maxscore", "300"]).unwrap();
        assert_eq!((a.start, a.max_score), (StartPositions::Chess960, 300));
        let a = parse_args(&["5", "seed", "7", "book", "None", "dfrc", "false"]).unwrap();
        assert_eq!(a.start, StartPositions::Classical);
        assert!(parse_args(&["5", "seed", "7", "book", "None", "dfrc", "maybe"])
            .unwrap_err()
            .contains("bad dfrc \"maybe\""));
        assert!(parse_args(&["5", "seed", "7", "book", "None", "colour", "red"])
            .unwrap_err()
            .contains("unknown genfens argument \"colour\""));
    }

    #[test]
    fn chess960_openings_start_from_chess960_positions_and_are_seeded() {
        let net = crate::default_net();
        let args = parse_args(&[
            "4",
            "seed",
            "3",
            "book",
            "None",
            "random_moves",
            "2",
            "dfrc",
            "true",
        ])
        .unwrap();
        let fens = generate(&args, &net).unwrap();
        assert_eq!(fens, generate(&args, &net).unwrap());
        assert_eq!(fens.len(), 4);
        // Two or three plies from a double-Chess960 start: some back rank is not classical.
        assert!(
            fens.iter()
                .any(|f| !f.ends_with("RNBQKBNR w KQkq - 0 2") && !f.contains("/RNBQKBNR ")),
            "{fens:?}"
        );
        for fen in &fens {
            assert!(Board::from_fen(fen).is_ok(), "{fen}");
        }
    }
}
