//! Property tests: no input makes a parser panic. Random bytes, and valid FEN, SAN and UCI
//! strings with characters replaced, inserted or deleted, go through every reader; whatever
//! a reader accepts must then be consistent (a board's key matches a recomputation and its
//! FEN reads back to it; a parsed move is legal).

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use movegen::pgn::parse_pgn;
use movegen::suite::parse_suite;
use movegen::{Board, Validation};
use proptest::prelude::*;

const SEED_FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "2r1kr2/8/8/8/8/8/8/1R2K1R1 w GBfc - 0 1",
];

fn check_board(board: &Board) {
    assert_eq!(board.hash(), board.compute_hash());
    let fen = board.to_fen();
    assert_eq!(Board::from_fen_relaxed(&fen).as_ref(), Ok(board), "{fen}");
    for &mv in board.legal_moves().iter().take(8) {
        let san = board.to_san(mv);
        assert_eq!(board.parse_san(&san), Ok(mv));
    }
}

fn try_all_parsers(text: &str) {
    for validation in [Validation::Strict, Validation::Relaxed] {
        if let Ok(board) = Board::from_fen_with(text, validation) {
            check_board(&board);
        }
    }
    for board in [Board::startpos(), Board::from_fen(SEED_FENS[1]).expect("seed")] {
        if let Ok(mv) = board.parse_san(text) {
            assert!(board.is_legal(mv), "{text}");
        }
        if let Ok(mv) = board.parse_uci(text) {
            assert!(board.is_legal(mv), "{text}");
        }
    }
    let _ = parse_pgn(text);
    let _ = parse_suite(text);
}

/// A string with random edits: replace, insert or delete characters.
fn mutated(seeds: Vec<String>) -> impl Strategy<Value = String> {
    (
        proptest::sample::select(seeds),
        proptest::collection::vec((any::<u8>(), 0usize..100, any::<char>()), 1..4),
    )
        .prop_map(|(seed, edits)| {
            let mut chars: Vec<char> = seed.chars().collect();
            for (op, pos, c) in edits {
                let pos = if chars.is_empty() {
                    0
                } else {
                    pos % (chars.len() + 1)
                };
                // Mostly chess-looking characters, sometimes anything.
                let alphabet = b"pnbrqkPNBRQK12345678abcdefgh/- wKQkqx=+#O0";
                let c = if op % 4 == 0 {
                    c
                } else {
                    alphabet[(c as usize) % alphabet.len()] as char
                };
                match op % 3 {
                    0 if pos < chars.len() => chars[pos] = c,
                    1 => chars.insert(pos, c),
                    _ if pos < chars.len() => {
                        chars.remove(pos);
                    }
                    _ => chars.push(c),
                }
            }
            chars.into_iter().collect()
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
        try_all_parsers(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn mutated_fens(text in mutated(SEED_FENS.iter().map(|s| s.to_string()).collect())) {
        try_all_parsers(&text);
    }

    #[test]
    fn mutated_moves(text in mutated(
        ["e2e4", "e1g1", "e7e8q", "Nf3", "exd5", "O-O-O", "e8=Q+", "Qh4#", "Nbd7", "0-0"]
            .iter().map(|s| s.to_string()).collect()
    )) {
        try_all_parsers(&text);
    }

    #[test]
    fn mutated_pgn(text in mutated(vec![
        "[Event \"x\"]\n\n1. e4 {c} e5 (1... c5) 2. Nf3 $1 Nc6 1-0\n".to_string(),
        "1. d4 d5 2. c4 e6 *".to_string(),
    ])) {
        try_all_parsers(&text);
    }
}
