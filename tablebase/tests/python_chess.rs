//! The prober against python-chess: every position of `data/syzygy-reference.txt` (made by
//! `scripts/syzygy-reference.py`: at least 120 random legal positions of each of the 35
//! three- and four-piece endings, both colours with the material and both sides to move,
//! and 40 more with a legal en passant capture in KPvKP) must get python-chess 1.11.2's WDL
//! and DTZ, and every table must pass the prober's checks at load. The tables come from
//! `tablebase::tables_for_tests`, the committed 3-4 piece set.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use movegen::Board;
use std::collections::BTreeMap;
use tablebase::{tables_for_tests, Tablebases};

const REFERENCE: &str = include_str!("data/syzygy-reference.txt");

/// The ending of a position, as a table names it (`KRvK`), the stronger side first.
fn ending(board: &Board) -> String {
    use movegen::{Color, PieceType};
    let side = |color| {
        let mut s = String::from("K");
        for (kind, c) in [
            (PieceType::Queen, 'Q'),
            (PieceType::Rook, 'R'),
            (PieceType::Bishop, 'B'),
            (PieceType::Knight, 'N'),
            (PieceType::Pawn, 'P'),
        ] {
            for _ in 0..board.colored_pieces(color, kind).len() {
                s.push(c);
            }
        }
        s
    };
    let (w, b) = (side(Color::White), side(Color::Black));
    let strength = |s: &str| {
        s.chars()
            .map(|c| match c {
                'Q' => 9,
                'R' => 5,
                'B' | 'N' => 3,
                'P' => 1,
                _ => 0,
            })
            .sum::<u32>()
            * 16
            + s.len() as u32
    };
    // Equal material: the side with the higher pieces first, as the tables are named.
    let order = |s: &str| s.chars().map(|c| "KQRBNP".find(c)).collect::<Vec<_>>();
    if (strength(&w), std::cmp::Reverse(order(&w))) >= (strength(&b), std::cmp::Reverse(order(&b))) {
        format!("{w}v{b}")
    } else {
        format!("{b}v{w}")
    }
}

#[test]
fn wdl_and_dtz_agree_with_python_chess_on_every_3_and_4_piece_ending() {
    let path = tables_for_tests();
    let tables = Tablebases::open(&path).unwrap();
    assert_eq!(tables.max_pieces(), 4, "{path}");
    // Every published table passes the checks at load.
    assert_eq!(tables.refused(), &[], "{path}");
    assert_eq!((tables.wdl_count(), tables.dtz_count()), (35, 35), "{path}");
    let mut per_ending: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    let (mut checked, mut en_passant, mut black_to_move) = (0, 0, 0);
    for line in REFERENCE.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let fields: Vec<&str> = line.split(';').collect();
        let (fen, wdl, dtz): (&str, i32, i32) =
            (fields[0], fields[1].parse().unwrap(), fields[2].parse().unwrap());
        let board = Board::from_fen(fen).unwrap();
        let got_wdl = tables.probe_wdl(&board).map(|w| w.value());
        let got_dtz = tables.probe_dtz(&board);
        if got_wdl != Some(wdl) || got_dtz != Some(dtz) {
            failures.push(format!(
                "{fen}: python-chess {wdl} {dtz}, luft {got_wdl:?} {got_dtz:?}"
            ));
        }
        checked += 1;
        *per_ending.entry(ending(&board)).or_default() += 1;
        en_passant += usize::from(board.en_passant().is_some());
        black_to_move += usize::from(board.side_to_move() == movegen::Color::Black);
    }
    eprintln!(
        "{checked} positions checked against python-chess ({} endings, {en_passant} with en passant, \
         {black_to_move} with Black to move)",
        per_ending.len()
    );
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(per_ending.len(), 35, "{per_ending:?}");
    assert!(per_ending.values().all(|&n| n >= 100), "{per_ending:?}");
    assert!(en_passant >= 40 && black_to_move >= checked / 3);
}

#[test]
fn root_probes_rank_every_legal_move_and_agree_with_dtz() {
    let path = tables_for_tests();
    let tables = Tablebases::open(&path).unwrap();
    // The same directories are shared, not loaded twice; other tables are refused while
    // these are in use.
    let again = Tablebases::open(&format!("{path}:{path}")).unwrap();
    assert!(std::sync::Arc::ptr_eq(&tables, &again));
    let mut roots = 0;
    for line in REFERENCE.lines().filter(|l| !l.starts_with('#')).step_by(7) {
        let fen = line.split(';').next().unwrap();
        let board = Board::from_fen(fen).unwrap();
        let root = tables.probe_root(&board).unwrap();
        assert_eq!(root.moves.len(), board.legal_moves().len(), "{fen}");
        assert_eq!(Some(root.dtz), tables.probe_dtz(&board), "{fen}");
        // Each move's verdict is the opposite of the child's own.
        for m in &root.moves {
            let mut child = board;
            child.play(m.mv);
            let child_wdl = if child.halfmove_clock() == 0 {
                tables.probe_wdl(&child).unwrap()
            } else {
                // Not zeroing: the child's DTZ decides it from the root's clock (0 here).
                let d = tables.probe_dtz(&child).unwrap();
                match d {
                    d if d > 100 => tablebase::Wdl::CursedWin,
                    d if d > 0 => tablebase::Wdl::Win,
                    0 => tablebase::Wdl::Draw,
                    d if d < -100 => tablebase::Wdl::BlessedLoss,
                    _ => tablebase::Wdl::Loss,
                }
            };
            assert_eq!(m.wdl, child_wdl.flip(), "{fen} {}", m.mv);
        }
        // The best move keeps the root's verdict.
        if !root.moves.is_empty() {
            assert_eq!(root.moves.iter().map(|m| m.wdl).max(), Some(root.wdl), "{fen}");
        }
        roots += 1;
    }
    eprintln!("{roots} root probes checked");
}
