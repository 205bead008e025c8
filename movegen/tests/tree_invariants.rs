//! Invariants checked at every node of depth-3 perft trees over the suite positions:
//! - the incremental Zobrist key equals the key computed from scratch;
//! - the mailbox (the piece type on each square) agrees with the bitboards;
//! - noisy and quiet moves partition the legal moves, and noisy means capture or promotion;
//! - the bulk count equals the number of generated moves, and `is_legal` accepts each;
//! - at inner nodes, every move's SAN reads back to the same move, and no two moves share a SAN;
//! - UCI text in both castling forms reads back to the same move;
//! - the FEN written for the position reads back to the same board;
//! - at inner nodes, each side's attack map (`attacks_by`) holds exactly the squares
//!   `is_attacked` says it attacks and `attackers_to` finds attackers of; and at every node
//!   `all_attackers_to` and `attackers_to` hold exactly the pieces whose own attack set
//!   (by `movegen::attacks`) holds the square.
//!
//! All of `standard.epd` and `tricky.perft`, every 4th `chess960.epd` position and every
//! 20th `random.perft` position, to keep `cargo test` quick; set `LUFT_FULL_INVARIANTS=1`
//! to walk all of them.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use movegen::suite::parse_suite;
use movegen::{attacks, Bitboard, Board, Color, Move, PieceType, Square};
use std::collections::HashSet;

fn check_node(board: &Board, notation: bool) {
    assert_eq!(board.hash(), board.compute_hash(), "key of {board}");
    assert_eq!(board.mailbox_mismatch(), None, "mailbox of {board}");
    let fen = board.to_fen();
    let reread = Board::from_fen_relaxed(&fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
    assert_eq!(&reread, board, "FEN round trip {fen}");

    let all = board.legal_moves();
    let noisy = board.noisy_moves();
    let quiet = board.quiet_moves();
    assert_eq!(all.len(), board.count_moves(), "{fen}");
    assert_eq!(all.len(), noisy.len() + quiet.len(), "{fen}");
    let all_set: HashSet<Move> = all.iter().copied().collect();
    assert_eq!(all_set.len(), all.len(), "duplicate moves in {fen}");
    for &mv in noisy.iter() {
        assert!(all_set.contains(&mv));
        assert!(
            board.is_capture(mv) || mv.promotion().is_some(),
            "{fen}: {mv} is not noisy"
        );
    }
    for &mv in quiet.iter() {
        assert!(all_set.contains(&mv));
        assert!(
            !board.is_capture(mv) && mv.promotion().is_none(),
            "{fen}: {mv} is not quiet"
        );
    }
    if !notation {
        return;
    }
    for by in [Color::White, Color::Black] {
        let attacks = board.attacks_by(by);
        for sq in (0..64).map(Square::new) {
            assert_eq!(
                attacks.has(sq),
                board.is_attacked(sq, by, board.occupied()),
                "{fen}: {by:?} attacks {sq}"
            );
            assert_eq!(
                board.attackers_to(sq, by, board.occupied()).is_nonempty(),
                attacks.has(sq),
                "{fen}: {by:?}'s attackers of {sq}"
            );
        }
    }
    // Attackers by the reference definition: every piece whose own attack set holds the square.
    let occupied = board.occupied();
    let reach = |from: Square| -> Bitboard {
        let piece = board.piece_on(from).unwrap();
        match piece.kind {
            PieceType::Pawn => attacks::pawn_attacks(piece.color, from),
            PieceType::Knight => attacks::knight_attacks(from),
            PieceType::Bishop => attacks::bishop_attacks(from, occupied),
            PieceType::Rook => attacks::rook_attacks(from, occupied),
            PieceType::Queen => attacks::queen_attacks(from, occupied),
            PieceType::King => attacks::king_attacks(from),
        }
    };
    for sq in (0..64).map(Square::new) {
        let expected = occupied
            .into_iter()
            .filter(|&from| reach(from).has(sq))
            .fold(Bitboard::EMPTY, |set, from| set | Bitboard::from_square(from));
        assert_eq!(
            board.all_attackers_to(sq, occupied),
            expected,
            "{fen}: attackers of {sq}"
        );
        for by in [Color::White, Color::Black] {
            assert_eq!(
                board.attackers_to(sq, by, occupied),
                expected & board.colored(by),
                "{fen}: {by:?}'s attackers of {sq}"
            );
        }
    }
    let mut sans = HashSet::new();
    for &mv in all.iter() {
        assert!(board.is_legal(mv), "{fen}: {mv}");
        let san = board.to_san(mv);
        assert_eq!(board.parse_san(&san), Ok(mv), "{fen}: SAN {san}");
        assert!(sans.insert(san.clone()), "{fen}: SAN {san} twice");
        let uci960 = board.to_uci(mv, true);
        assert_eq!(board.parse_uci(&uci960), Ok(mv), "{fen}: UCI {uci960}");
        // The standard castling form (e1g1) names a normal king move too in some Chess960
        // positions; there the normal move wins, as in every GUI.
        let uci = board.to_uci(mv, false);
        let collides = board.is_castling(mv) && all.iter().any(|&m| m != mv && m.to_string() == uci);
        if !collides {
            assert_eq!(board.parse_uci(&uci), Ok(mv), "{fen}: UCI {uci}");
        }
    }
    assert_eq!(board.has_legal_move(), !all.is_empty());
}

fn walk(board: &Board, depth: u32) -> u64 {
    // Notation checks at the inner nodes, the rest everywhere.
    check_node(board, depth > 0);
    if depth == 0 {
        return 1;
    }
    let mut nodes = 0;
    for &mv in board.legal_moves().iter() {
        let mut child = *board;
        child.play(mv);
        nodes += walk(&child, depth - 1);
    }
    nodes
}

fn walk_suite(text: &str, every: usize) -> usize {
    let full = std::env::var_os("LUFT_FULL_INVARIANTS").is_some();
    let cases = parse_suite(text).expect("suite parses");
    let mut walked = 0;
    for case in cases.iter().step_by(if full { 1 } else { every }) {
        let board = Board::from_fen_relaxed(&case.fen).expect("suite FEN");
        let nodes = walk(&board, 3);
        // The walk visits exactly the perft(3) leaves.
        if let Some(&(_, expected)) = case.expected.iter().find(|&&(d, _)| d == 3) {
            assert_eq!(nodes, expected, "{}", case.fen);
        }
        walked += 1;
    }
    walked
}

#[test]
fn standard_trees() {
    assert_eq!(walk_suite(include_str!("data/standard.epd"), 1), 128);
}

#[test]
fn tricky_trees() {
    assert_eq!(walk_suite(include_str!("data/tricky.perft"), 1), 26);
}

#[test]
fn chess960_trees() {
    assert!(walk_suite(include_str!("data/chess960.epd"), 4) >= 240);
}

#[test]
fn random_trees() {
    assert!(walk_suite(include_str!("data/random.perft"), 20) >= 342);
}
