//! The gate's SPRT reading at wide bounds: `learn`'s gate reads arena's saved counts with
//! arena's normalized-model LLR, so it decides as `arena sprt-calc` computes. With
//! `[gate] elo0 = -300, elo1 = -200` a candidate that won all of its first four games was
//! once rejected (H0, LLR -3.38): the right reading is still playing (LLR +0.98).

#![allow(clippy::unwrap_used)]

use matchcore::sprt::Verdict;
use matchcore::state::SavedState;
use matchcore::tally::Tally;

fn saved(penta: [u64; 5], tri: [u64; 3]) -> SavedState {
    SavedState {
        pairs: vec![(0, 1, Tally { tri, penta, wl: 0 })],
        ..Default::default()
    }
}

fn reading(penta: [u64; 5], tri: [u64; 3], elo0: f64, elo1: f64) -> learn::journal::GateResult {
    learn::run::gate_reading(&saved(penta, tri), elo0, elo1, 0.05, 0.05)
}

#[test]
fn a_winning_start_is_not_rejected_at_wide_bounds() {
    let won = reading([0, 0, 0, 0, 2], [0, 0, 4], -300.0, -200.0);
    assert_eq!(won.verdict, Verdict::Undecided, "LLR {}", won.llr);
    let decided = learn::run::gate_verdict(
        &saved([0, 0, 0, 0, 2], [0, 0, 4]),
        -300.0,
        -200.0,
        0.05,
        0.05,
        1000,
    );
    assert_eq!(decided, None, "still playing");
    assert!((won.llr - 0.977).abs() < 0.001, "LLR {}", won.llr);
    // An even score at [200, 300]: H0 (200) is nearer, the LLR leans to it.
    let even = reading([1, 2, 4, 2, 1], [4, 12, 4], 200.0, 300.0);
    assert!((even.llr + 2.9813).abs() < 1e-4, "LLR {}", even.llr);
}
