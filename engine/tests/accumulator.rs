//! The incremental accumulator equals a refresh at every node of perft trees, and every
//! backend's evaluation equals the scalar reference of the `nnue` crate exactly.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use engine::accumulator::{detected_backend, AccumulatorStack, Backend};
use movegen::suite::parse_suite;
use movegen::Board;
use nnue::Network;
use std::sync::Arc;

fn walk(stack: &mut AccumulatorStack, net: &Network, board: &Board, depth: u32, checked: &mut u64) {
    let (white, black) = net.refresh(board);
    let (cur_white, cur_black) = stack.current();
    assert_eq!((cur_white, cur_black), (&white[..], &black[..]), "{board}");
    assert_eq!(stack.evaluate(board), net.evaluate(board), "{board}");
    *checked += 1;
    if depth == 0 {
        return;
    }
    for &mv in board.legal_moves().iter() {
        let mut child = *board;
        child.play(mv);
        stack.push(board, mv);
        walk(stack, net, &child, depth - 1, checked);
        stack.pop();
    }
}

#[test]
fn incremental_equals_refresh_along_perft_trees() {
    let net = Arc::new(Network::random(64, 1, 11));
    let cases = parse_suite(include_str!("../../movegen/tests/data/standard.epd")).unwrap();
    let mut checked = 0;
    for backend in [Backend::Portable, detected_backend()] {
        for case in cases.iter().step_by(4) {
            let board = Board::from_fen_relaxed(&case.fen).unwrap();
            let mut stack = AccumulatorStack::new(net.clone(), backend);
            stack.refresh(&board);
            walk(&mut stack, &net, &board, 3, &mut checked);
        }
    }
    assert!(checked > 150_000, "{checked}");
}

#[test]
fn chess960_castling_and_promotions_update_exactly() {
    let net = Arc::new(Network::random(32, 1, 5));
    let mut checked = 0;
    for fen in [
        "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
        "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    ] {
        let board = Board::from_fen(fen).unwrap();
        let mut stack = AccumulatorStack::new(net.clone(), detected_backend());
        stack.refresh(&board);
        walk(&mut stack, &net, &board, 3, &mut checked);
    }
    assert!(checked > 10_000);
}

#[test]
fn every_backend_matches_the_reference_on_thousands_of_positions() {
    let fens = include_str!("../../movegen/tests/data/valid.fens");
    for (hidden, buckets) in [(256, 1), (128, 8), (32, 1)] {
        let net = Arc::new(Network::random(hidden, buckets, hidden as u64));
        let mut portable = AccumulatorStack::new(net.clone(), Backend::Portable);
        let mut fast = AccumulatorStack::new(net.clone(), detected_backend());
        let mut count = 0;
        for fen in fens.lines().take(3000) {
            let board = Board::from_fen(fen).unwrap();
            portable.refresh(&board);
            fast.refresh(&board);
            let reference = net.evaluate(&board);
            assert_eq!(portable.evaluate(&board), reference, "{fen}");
            assert_eq!(fast.evaluate(&board), reference, "{fen}");
            count += 1;
        }
        assert_eq!(count, 3000);
    }
    // The material net gives exact material scores through the fast path too.
    let net = Arc::new(Network::material(32));
    let mut fast = AccumulatorStack::new(net.clone(), detected_backend());
    let board = Board::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 w Qkq - 0 1").unwrap();
    fast.refresh(&board);
    assert_eq!(fast.evaluate(&board), -496, "five pawn units down");
}
