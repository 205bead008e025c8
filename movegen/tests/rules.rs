//! The draw and game-end rules of `docs/design/RULES.md`, each with a near miss that must not trigger.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use movegen::{Board, Color, DrawReason, Game, Outcome};

fn board(fen: &str) -> Board {
    Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
}

fn play(game: &mut Game, sans: &str) {
    for san in sans.split_whitespace() {
        let mv = game
            .board()
            .parse_san(san)
            .unwrap_or_else(|e| panic!("{san}: {e}"));
        game.play(mv).expect("legal");
    }
}

#[test]
fn dead_positions() {
    let dead = [
        "8/8/4k3/8/8/3K4/8/8 w - - 0 1",       // K v K
        "8/8/4k3/8/8/3KB3/8/8 w - - 0 1",      // K+B v K
        "8/8/4k3/8/8/3KN3/8/8 b - - 0 1",      // K+N v K
        "8/8/4kb2/8/8/3KB3/8/8 w - - 0 1",     // bishops on one colour (e3 dark, f6 dark)
        "8/2b5/4kb2/8/8/3KB3/8/6B1 w - - 0 1", // four bishops, all dark
        "8/8/4kn2/8/8/3K4/8/8 w - - 0 1",      // K v K+N
    ];
    for fen in dead {
        let b = board(fen);
        assert!(b.is_dead_position(), "{fen}");
        assert_eq!(
            Game::new(b).outcome(),
            Some(Outcome::Draw(DrawReason::DeadPosition)),
            "{fen}"
        );
    }
    let alive = [
        "8/8/4k1b1/8/8/3KB3/8/8 w - - 0 1", // bishops on opposite colours (e3 dark, g6 light)
        "8/8/4kn2/8/8/3KN3/8/8 w - - 0 1",  // K+N v K+N
        "8/8/4kn2/8/8/3KB3/8/8 w - - 0 1",  // K+B v K+N
        "8/8/4k3/8/8/3KNN2/8/8 w - - 0 1",  // two knights
        "8/8/4k3/8/8/3KP3/8/8 w - - 0 1",   // a pawn
        "8/8/4k3/8/8/3K4/8/R7 w - - 0 1",   // a rook
        "8/8/4k3/8/8/2BKB3/8/8 w - - 0 1",  // c3 and e3: both dark
    ];
    for fen in &alive[..6] {
        assert!(!board(fen).is_dead_position(), "{fen}");
        assert_eq!(Game::new(board(fen)).outcome(), None, "{fen}");
    }
    // c3 and e3 are both dark: still dead. d3 would be light.
    assert!(board(alive[6]).is_dead_position());
    assert!(!board("8/8/4k3/8/8/3BB3/8/3K4 w - - 0 1").is_dead_position());
}

#[test]
fn can_mate_for_flag_falls() {
    let b = board("8/8/4k3/8/8/3K4/8/8 w - - 0 1");
    assert!(!b.can_mate(Color::White) && !b.can_mate(Color::Black));
    let b = board("8/8/4k3/8/8/3KN3/8/8 w - - 0 1");
    assert!(!b.can_mate(Color::White));
    let b = board("8/8/4k3/4p3/8/3KN3/8/8 w - - 0 1");
    assert!(
        b.can_mate(Color::White),
        "a knight can mate with an enemy pawn boxing the king"
    );
    assert!(b.can_mate(Color::Black));
    let b = board("8/8/4k3/8/8/3K4/8/Q7 w - - 0 1");
    assert!(b.can_mate(Color::White) && !b.can_mate(Color::Black));
}

#[test]
fn threefold_and_fivefold_repetition() {
    let mut game = Game::default();
    play(&mut game, "Nf3 Nf6 Ng1 Ng8");
    assert_eq!(game.repetition_count(), 2);
    assert_eq!(game.claimable_draw(), None);
    play(&mut game, "Nf3 Nf6 Ng1");
    assert_eq!(
        game.repetition_count(),
        2,
        "black to move differs from white to move"
    );
    play(&mut game, "Ng8");
    assert_eq!(game.repetition_count(), 3);
    assert_eq!(game.claimable_draw(), Some(DrawReason::ThreefoldRepetition));
    assert_eq!(game.outcome(), None, "threefold is only claimable");
    assert_eq!(
        game.outcome_with_claims(),
        Some(Outcome::Draw(DrawReason::ThreefoldRepetition))
    );
    play(&mut game, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
    assert_eq!(game.outcome(), None);
    play(&mut game, "Ng8");
    assert_eq!(game.repetition_count(), 5);
    assert_eq!(
        game.outcome(),
        Some(Outcome::Draw(DrawReason::FivefoldRepetition))
    );
}

#[test]
fn en_passant_counts_only_when_the_capture_is_legal() {
    // Black pawn on d4 can take e3 en passant after e2-e4: the first occurrence differs.
    let start = board("4k3/8/8/8/3p4/8/4P3/4K1N1 w - - 0 1");
    let mut game = Game::new(start);
    play(&mut game, "e4");
    assert!(game.board().en_passant().is_some());
    play(&mut game, "Kd7 Nf3 Ke8 Ng1 Kd7 Nf3 Ke8 Ng1");
    // After e4 (with en passant), then after each Ng1: the first is a different position.
    assert_eq!(game.repetition_count(), 2);

    // Without a pawn to capture, the en passant square does not count.
    let start = board("4k3/8/8/8/8/8/4P3/4K1N1 w - - 0 1");
    let mut game = Game::new(start);
    play(&mut game, "e4");
    assert!(game.board().en_passant().is_none());
    play(&mut game, "Kd7 Nf3 Ke8 Ng1 Kd7 Nf3 Ke8 Ng1");
    assert_eq!(game.repetition_count(), 3);

    // A pinned capturer makes the capture illegal: the square does not count either.
    let b = board("4k3/8/8/8/3p4/8/4P3/R3K1Nq w Q - 0 1");
    let mut after = b;
    after.play(b.parse_san("e4").expect("legal"));
    assert!(after.en_passant().is_some(), "d4xe3 is legal here");
    let pinned = board("8/8/8/8/k2p3R/8/4P3/4K3 w - - 0 1");
    let mut after = pinned;
    after.play(pinned.parse_san("e4").expect("legal"));
    assert!(
        after.en_passant().is_none(),
        "d4xe3 would expose the king on the fourth rank"
    );
}

#[test]
fn changed_castling_rights_make_a_new_position() {
    let mut game = Game::default();
    play(&mut game, "e4 e5 Ke2 Ke7 Ke1 Ke8");
    // Same placement as after 1.e4 e5, but without castling rights.
    assert_eq!(game.repetition_count(), 1);
    play(&mut game, "Ke2 Ke7 Ke1 Ke8");
    assert_eq!(game.repetition_count(), 2);
    play(&mut game, "Ke2 Ke7 Ke1 Ke8");
    assert_eq!(game.repetition_count(), 3);

    // A rook move that loses the right also changes the position.
    let mut game = Game::new(board("r3k3/8/8/8/8/8/8/R3K3 w Qq - 0 1"));
    play(&mut game, "Rb1 Rb8 Ra1 Ra8");
    assert_eq!(game.repetition_count(), 1);
    assert_eq!(game.board().castling_rights(), movegen::CastlingRights::NONE);
}

#[test]
fn fifty_and_seventy_five_move_rules() {
    // Clock at 99: a quiet mating move on the 100th ply stands as mate.
    let mut game = Game::new(board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80"));
    play(&mut game, "Ra8#");
    assert_eq!(game.board().halfmove_clock(), 100);
    assert_eq!(game.outcome(), Some(Outcome::Checkmate { winner: Color::White }));
    assert_eq!(
        game.outcome_with_claims(),
        Some(Outcome::Checkmate { winner: Color::White })
    );

    // A non-mating move on the 100th ply makes the draw claimable, not automatic.
    let mut game = Game::new(board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80"));
    play(&mut game, "Rb1");
    assert_eq!(game.outcome(), None);
    assert_eq!(game.claimable_draw(), Some(DrawReason::FiftyMoveRule));
    // At 98 nothing yet.
    let game = Game::new(board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 98 80"));
    assert_eq!(game.claimable_draw(), None);

    // 150 plies: automatic, unless the last move mated.
    let mut game = Game::new(board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 80"));
    play(&mut game, "Rb1");
    assert_eq!(
        game.outcome(),
        Some(Outcome::Draw(DrawReason::SeventyFiveMoveRule))
    );
    let mut game = Game::new(board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 149 80"));
    play(&mut game, "Ra8");
    assert_eq!(game.outcome(), Some(Outcome::Checkmate { winner: Color::White }));
    // A capture resets the clock.
    let mut game = Game::new(board("6k1/5ppp/8/8/8/8/r7/R5K1 w - - 149 80"));
    play(&mut game, "Rxa2");
    assert_eq!(game.board().halfmove_clock(), 0);
    assert_eq!(game.outcome(), None);
}

#[test]
fn mate_and_stalemate() {
    let mut game = Game::default();
    play(&mut game, "f3 e5 g4 Qh4#");
    assert_eq!(game.outcome(), Some(Outcome::Checkmate { winner: Color::Black }));
    assert_eq!(game.outcome().map(|o| o.result_str()), Some("0-1"));
    let game = Game::new(board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"));
    assert_eq!(game.outcome(), Some(Outcome::Draw(DrawReason::Stalemate)));
    assert!(game.board().legal_moves().is_empty());
}

#[test]
fn illegal_moves_are_refused_by_game() {
    let mut game = Game::default();
    let bad = movegen::Move::new(movegen::Square::new(4), movegen::Square::new(36), None);
    assert!(game.play(bad).is_err());
    assert_eq!(game.moves().len(), 0);
    assert!(game.play(movegen::Move::NULL).is_err());
}

#[test]
fn null_move_passes_the_turn() {
    let b = board("4k3/8/8/8/3p4/8/4P3/4K1N1 w - - 0 1");
    let mut after = b;
    after.play(b.parse_san("e4").expect("legal"));
    assert!(after.en_passant().is_some());
    let null = after.null_move().expect("not in check");
    assert_eq!(null.side_to_move(), Color::White);
    assert_eq!(null.en_passant(), None, "the en passant right lapses");
    assert_eq!(null.hash(), null.compute_hash());
    assert_ne!(null.hash(), after.hash());
    let back = null.null_move().expect("not in check");
    assert_eq!(back.side_to_move(), Color::Black);
    assert_eq!(back.hash(), back.compute_hash());
    assert!(
        board("4k3/8/8/8/8/8/8/4K2r w - - 0 1").null_move().is_none(),
        "illegal in check"
    );
}
