//! The engine with Syzygy tablebases (`SyzygyPath`): it converts won 3- and 4-piece endings
//! to mate within the 50-move rule against a defender that also has the tables, never plays
//! a losing move from a drawn position (with `searchmoves`, MultiPV and two threads too),
//! holds a loss that the 50-move rule saves when `Syzygy50MoveRule` is on, and probes in
//! the search (`tbhits`) when a capture leads into the tables. The tables come from
//! `tablebase::tables_for_tests`, the committed 3-4 piece set.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use engine::{Engine, Iteration, Limits, Listener, SearchResult};
use movegen::{Board, Color, Game, Move, Outcome};
use std::sync::Arc;
use tablebase::{tables_for_tests, Tablebases, Wdl};

const REFERENCE: &str = include_str!("../../tablebase/tests/data/syzygy-reference.txt");

fn tables() -> (String, Arc<Tablebases>) {
    let path = tables_for_tests();
    let tables = Tablebases::open(&path).unwrap();
    (path, tables)
}

fn engine_with(path: &str) -> Engine {
    let mut engine = Engine::new();
    engine.set_option("SyzygyPath", Some(path)).unwrap();
    assert_eq!(engine.tablebases().map(|t| t.max_pieces()), Some(4));
    engine
}

fn nodes(n: u64) -> Limits {
    Limits {
        nodes: Some(n),
        ..Limits::default()
    }
}

/// Plays `fen` out with `engine` on both sides at `limits` a move; the outcome (claimed
/// draws included) and the longest stretch without a zeroing move.
fn play_out(engine: &mut Engine, fen: &str, limits: &Limits) -> (Outcome, usize) {
    let start = Board::from_fen(fen).unwrap();
    let mut game = Game::new(start);
    let mut longest = 0;
    for _ in 0..400 {
        if let Some(outcome) = game.outcome_with_claims() {
            return (outcome, longest);
        }
        engine.set_position(start, game.moves()).unwrap();
        let result = engine.go(limits.clone(), &mut ()).unwrap();
        game.play(result.best_move.unwrap()).unwrap();
        longest = longest.max(game.board().halfmove_clock() as usize);
    }
    panic!("{fen}: no result in 400 plies");
}

#[test]
fn won_endings_are_converted_to_mate_within_the_50_move_rule() {
    let (path, _tables) = tables();
    let mut engine = engine_with(&path);
    for (name, fen) in [
        ("KRvK", "8/8/8/4k3/8/8/8/4K2R w - - 0 1"),
        ("KQvKR", "8/8/8/8/2k5/8/r7/4K2Q w - - 0 1"),
        ("KBNvK", "8/8/3k4/8/8/8/8/KBN5 w - - 0 1"),
        ("KPvK", "8/8/2k5/8/8/3K4/3P4/8 w - - 0 1"),
    ] {
        engine.new_game();
        let (outcome, longest) = play_out(&mut engine, fen, &nodes(200));
        assert_eq!(
            outcome,
            Outcome::Checkmate { winner: Color::White },
            "{name}: {fen}"
        );
        assert!(longest < 100, "{name}: {longest} plies without a zeroing move");
        eprintln!("{name}: mate, at most {longest} plies between zeroing moves");
    }
    // Two threads and two lines convert too.
    engine.set_option("Threads", Some("2")).unwrap();
    engine.set_option("MultiPV", Some("2")).unwrap();
    engine.new_game();
    let movetime = Limits {
        depth: Some(8),
        ..Limits::default()
    };
    let (outcome, _) = play_out(&mut engine, "8/8/8/8/2k5/8/r7/4K2Q w - - 0 1", &movetime);
    assert_eq!(outcome, Outcome::Checkmate { winner: Color::White });
}

#[derive(Default)]
struct Reports(Vec<Iteration>);

impl Listener for Reports {
    fn iteration(&mut self, report: &Iteration) {
        self.0.push(report.clone());
    }
    fn best_move(&mut self, _result: &SearchResult) {}
}

/// Drawn reference positions where some legal move loses.
fn drawn_with_a_losing_move(tables: &Tablebases) -> Vec<(Board, Vec<Move>, Vec<Move>)> {
    let mut found = Vec::new();
    for line in REFERENCE.lines().filter(|l| !l.starts_with('#')) {
        let board = Board::from_fen(line.split(';').next().unwrap()).unwrap();
        let Some(root) = tables.probe_root(&board) else {
            continue;
        };
        if root.wdl != Wdl::Draw {
            continue;
        }
        let (losing, holding): (Vec<&tablebase::RootMove>, Vec<_>) =
            root.moves.iter().partition(|m| m.wdl < Wdl::Draw);
        if !losing.is_empty() {
            found.push((
                board,
                losing.iter().map(|m| m.mv).collect(),
                holding.iter().map(|m| m.mv).collect(),
            ));
        }
    }
    found
}

#[test]
fn a_drawn_position_is_never_lost() {
    let (path, tables) = tables();
    let positions = drawn_with_a_losing_move(&tables);
    assert!(positions.len() >= 40, "{}", positions.len());
    let mut engine = engine_with(&path);
    for (board, losing, holding) in positions.iter().take(40) {
        engine.set_position(*board, &[]).unwrap();
        let mut reports = Reports::default();
        let result = engine.go(nodes(100), &mut reports).unwrap();
        let best = result.best_move.unwrap();
        assert!(holding.contains(&best), "{}: {best} loses", board.to_fen());
        // The tables' score is shown, and the probes are counted.
        let last = reports.0.last().unwrap();
        assert_eq!(last.lines[0].score.value(), 0, "{}", board.to_fen());
        assert!(last.tbhits.unwrap() >= (holding.len() + losing.len()) as u64);
        // searchmoves: among a losing and a holding move, the holding one.
        let only = Limits {
            search_moves: vec![losing[0], holding[0]],
            ..nodes(2000)
        };
        assert_eq!(engine.go(only, &mut ()).unwrap().best_move, Some(holding[0]));
        // searchmoves naming only losing moves: one of them (nothing better was allowed).
        let lost = Limits {
            search_moves: losing.clone(),
            ..nodes(1000)
        };
        assert!(losing.contains(&engine.go(lost, &mut ()).unwrap().best_move.unwrap()));
    }
    // MultiPV on two threads: every line holds the draw.
    engine.set_option("Threads", Some("2")).unwrap();
    engine.set_option("MultiPV", Some("3")).unwrap();
    for (board, _, holding) in positions.iter().take(10) {
        engine.set_position(*board, &[]).unwrap();
        let result = engine
            .go(
                Limits {
                    depth: Some(6),
                    ..Limits::default()
                },
                &mut (),
            )
            .unwrap();
        assert_eq!(result.lines.len(), holding.len().min(3), "{}", board.to_fen());
        for line in &result.lines {
            assert!(
                holding.contains(&line.pv[0]),
                "{}: {}",
                board.to_fen(),
                line.pv[0]
            );
        }
    }
}

#[test]
fn a_loss_the_50_move_rule_saves_is_held() {
    let (path, tables) = tables();
    let mut engine = engine_with(&path);
    let mut checked = 0;
    for line in REFERENCE.lines().filter(|l| !l.starts_with('#')) {
        let fields: Vec<&str> = line.split(';').collect();
        let dtz: i32 = fields[2].parse().unwrap();
        // Lost in 30 to 60 plies: with the clock at 110 - |dtz| the rule saves it.
        if !(-60..=-30).contains(&dtz) {
            continue;
        }
        let clock = 110 + dtz;
        let fen = fields[0].replace(" - 0 1", &format!(" - {clock} 60"));
        let board = Board::from_fen(&fen).unwrap();
        let root = tables.probe_root(&board).unwrap();
        assert_eq!(root.wdl, Wdl::BlessedLoss, "{fen}");
        if root.moves.iter().all(|m| m.wdl == Wdl::BlessedLoss) {
            continue;
        }
        engine.set_position(board, &[]).unwrap();
        let best = engine.go(nodes(100), &mut ()).unwrap().best_move.unwrap();
        let chosen = root.moves.iter().find(|m| m.mv == best).unwrap();
        assert_eq!(
            chosen.wdl,
            Wdl::BlessedLoss,
            "{fen}: {best} loses in {}",
            chosen.dtz
        );
        checked += 1;
        if checked == 15 {
            break;
        }
    }
    assert!(checked >= 5, "{checked}");
}

#[test]
fn the_search_probes_after_captures_and_counts_tbhits() {
    let (path, _tables) = tables();
    let mut engine = engine_with(&path);
    // Five pieces: the root is not in the tables, the positions after a capture are.
    let board = Board::from_fen("8/8/4k3/8/2r5/8/3RP3/4K3 w - - 0 1").unwrap();
    engine.set_position(board, &[]).unwrap();
    let mut reports = Reports::default();
    let result = engine
        .go(
            Limits {
                depth: Some(10),
                ..Limits::default()
            },
            &mut reports,
        )
        .unwrap();
    assert!(result.tbhits.unwrap() > 0, "{result:?}");
    let hits: Vec<u64> = reports.0.iter().map(|r| r.tbhits.unwrap()).collect();
    assert!(hits.windows(2).all(|w| w[0] <= w[1]), "{hits:?}");
    // SyzygyProbeLimit 0: no probes at all; without tables no count is reported.
    engine.set_option("SyzygyProbeLimit", Some("0")).unwrap();
    let result = engine
        .go(
            Limits {
                depth: Some(10),
                ..Limits::default()
            },
            &mut (),
        )
        .unwrap();
    assert_eq!(result.tbhits, Some(0));
    engine.set_option("SyzygyPath", Some("<empty>")).unwrap();
    let result = engine
        .go(
            Limits {
                depth: Some(6),
                ..Limits::default()
            },
            &mut (),
        )
        .unwrap();
    assert_eq!(result.tbhits, None);
}
