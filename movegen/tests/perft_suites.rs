//! The four perft suites (sources in `tests/data/README.md`). The quick tests run every
//! position to the deepest depth whose published count is at most `QUICK_CAP` nodes; the
//! `#[ignore]`d ones run every published depth:
//! `cargo test --release -p movegen --test perft_suites -- --ignored`.

#![allow(clippy::unwrap_used)] // tests may unwrap: a panic is a failure

use movegen::suite::{parse_suite, PerftCase};
use movegen::{perft, Board};

const QUICK_CAP: u64 = 1_000_000;

fn run(cases: &[PerftCase], cap: Option<u64>) -> (usize, u64) {
    let mut checked = 0;
    let mut nodes = 0;
    for case in cases {
        let board = Board::from_fen_relaxed(&case.fen).unwrap_or_else(|e| panic!("{}: {e}", case.fen));
        let chosen: Vec<(u32, u64)> = match cap {
            // The deepest depth under the cap, else the shallowest published one.
            Some(cap) => {
                let under = case
                    .expected
                    .iter()
                    .filter(|&&(_, n)| n <= cap)
                    .max_by_key(|&&(d, _)| d);
                let shallowest = case.expected.iter().min_by_key(|&&(d, _)| d);
                under.or(shallowest).copied().into_iter().collect()
            }
            None => case.expected.clone(),
        };
        for (depth, expected) in chosen {
            let got = perft(&board, depth);
            assert_eq!(got, expected, "{} ({}) depth {depth}", case.name, case.fen);
            nodes += got;
            checked += 1;
        }
    }
    (checked, nodes)
}

fn suite(text: &str) -> Vec<PerftCase> {
    parse_suite(text).expect("suite parses")
}

#[test]
fn standard_quick() {
    let cases = suite(include_str!("data/standard.epd"));
    assert_eq!(cases.len(), 128);
    assert_eq!(run(&cases, Some(QUICK_CAP)).0, 128);
}

#[test]
fn tricky_quick() {
    let cases = suite(include_str!("data/tricky.perft"));
    assert_eq!(cases.len(), 26);
    run(&cases, Some(QUICK_CAP));
}

#[test]
fn chess960_quick() {
    let cases = suite(include_str!("data/chess960.epd"));
    assert_eq!(cases.len(), 960);
    run(&cases, Some(QUICK_CAP));
}

#[test]
fn random_quick() {
    let cases = suite(include_str!("data/random.perft"));
    assert_eq!(cases.len(), 6838);
    run(&cases, Some(QUICK_CAP / 10));
}

#[test]
#[ignore = "full depths: minutes in release"]
fn standard_full() {
    run(&suite(include_str!("data/standard.epd")), None);
}

#[test]
#[ignore = "full depths: minutes in release"]
fn tricky_full() {
    run(&suite(include_str!("data/tricky.perft")), None);
}

#[test]
#[ignore = "full depths: minutes in release"]
fn chess960_full() {
    run(&suite(include_str!("data/chess960.epd")), None);
}

#[test]
#[ignore = "full depths: minutes in release"]
fn random_full() {
    run(&suite(include_str!("data/random.perft")), None);
}

#[test]
fn hashed_perft_equals_plain_perft() {
    let mut table = movegen::PerftTable::new(16);
    for case in suite(include_str!("data/standard.epd")).iter().step_by(8) {
        let board = Board::from_fen_relaxed(&case.fen).unwrap();
        for depth in 1..=4 {
            assert_eq!(
                movegen::perft_hashed(&board, depth, &mut table),
                perft(&board, depth),
                "{}",
                case.fen
            );
        }
    }
}
