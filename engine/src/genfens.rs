//! `luft genfens N seed S book <None|FILE> [plies P] [maxscore M] [extra...]`: N playable
//! opening positions, printed as `info string genfens <FEN>` (OpenBench's distributed data
//! generation protocol). The request is [`movegen::openings::GenfensRequest`] (OpenBench's
//! extra arguments `random_moves`, `frc`, `dfrc`, `maxscore` included), and the openings
//! are datagen's: [`crate::openings::draw_opening`] with the default check (1000 soft
//! nodes, kept within ±M, default 1000) on a [`crate::openings::SELF_PLAY_HASH_MIB`] table,
//! FEN `i` being opening `(S, 0, i)` of `movegen::openings::opening_rng`. So `genfens N
//! seed S` prints the positions the first N games of datagen's first thread file start
//! from with `--seed S` and the same book, start positions and random plies.

use crate::openings::{draw_opening, OpeningCheck, SELF_PLAY_HASH_MIB};
use crate::searcher::Searcher;
use movegen::openings::{opening_rng, read_epd, GenfensRequest};
use movegen::Board;
use nnue::Network;
use std::sync::Arc;

/// Generates the FENs of `request` (without the `info string genfens` prefix), checking
/// with `net`. Errors: an unreadable book, a table that cannot be allocated, or an opening
/// without a playable candidate.
pub fn generate(request: &GenfensRequest, net: &Arc<Network>) -> Result<Vec<String>, String> {
    let book: Vec<Board> = match &request.book {
        None => Vec::new(),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read book {path}: {e}"))?;
            let (boards, notes) = read_epd(&text).map_err(|e| format!("book {path}: {e}"))?;
            // What the book reader cleaned, beside the FENs on stdout.
            for note in notes {
                output::errln!("luft: genfens: book {path}: {note}");
            }
            boards
        }
    };
    let source = request.source(book);
    let check = OpeningCheck {
        max_score: request.max_score,
        ..OpeningCheck::default()
    };
    let mut searcher = Searcher::new(net.clone(), SELF_PLAY_HASH_MIB).map_err(|e| e.to_string())?;
    (0..request.count as u64)
        .map(|index| {
            let mut rng = opening_rng(request.seed, 0, index);
            draw_opening(&source, &check, &mut searcher, &mut rng)
                .map(|opening| opening.game.board().to_fen())
                .map_err(|e| format!("opening {}: {e}", index + 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chess960_openings_start_from_chess960_positions_and_are_seeded() {
        let net = crate::default_net();
        let args = GenfensRequest::parse(&[
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
