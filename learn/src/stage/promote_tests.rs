//! The promotion stage: a promotion killed after its copy and before its record copies
//! again to the same records and net; a torn `promoted` record is made again and a damaged
//! earlier one refused; the decision is the journaled verdict, whatever the gate's settings
//! say now; a gate that did not decide H1 rejects.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::journal::GateResult;
use crate::stage::gate_math::reading_of;
use crate::stage::testkit::{
    candidate, decisions, edit_settings, finish, new_run, open, temp, torn_then_damaged,
};

/// A gate of 200 games that decided H1 at the bounds 0 and 15.
fn won() -> GateResult {
    reading_of([0, 2, 8, 40, 50], 1000)
}

/// A run whose journal holds a candidate (testkit's `candidate`) whose gate decided
/// `result`.
fn run(dir: &Path, result: GateResult) -> RunDir {
    let run = new_run(dir, "[gate]\nelo1 = 15.0\n", &[]);
    candidate(&run, result, 4);
    run
}

/// Whether the candidate is promoted or rejected.
fn decided(cx: &Context) -> bool {
    cx.state.open_candidate().is_none()
}

/// Steps the promotion of the decided candidate.
fn decide(cx: &mut Context) {
    finish(cx, &mut Promotion, decided);
}

#[test]
fn a_promotion_killed_after_its_copy_copies_again_to_the_same_records() {
    let dir = temp("promote-kill");
    let whole = run(&dir.join("whole"), won());
    let mut cx = open(&whole);
    decide(&mut cx);
    let reference = decisions(&cx);
    assert!(reference.last().unwrap().contains("\"kind\":\"promoted\""));
    assert_eq!(cx.best().0, "gen2-32");
    let promoted = std::fs::read(whole.nets().join("gen2-32.nnue")).unwrap();
    // Killed with the net copied (here: a damaged copy), the record not yet written.
    let broken = run(&dir.join("broken"), won());
    std::fs::write(broken.nets().join("gen2-32.nnue"), b"half").unwrap();
    let mut cx = open(&broken);
    decide(&mut cx);
    assert_eq!(decisions(&cx), reference);
    assert_eq!(
        std::fs::read(broken.nets().join("gen2-32.nnue")).unwrap(),
        promoted
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_torn_promotion_record_is_made_again_and_a_damaged_earlier_one_refused() {
    let dir = temp("promote-damage");
    torn_then_damaged::<Promotion>(&run(&dir, won()), decided);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_journaled_verdict_decides_whatever_the_gates_settings_say_now() {
    let dir = temp("promote-settings");
    // Bounds under which the same counts would no longer be H1: the decided gate stays.
    let won = run(&dir.join("won"), won());
    edit_settings(&won, "elo1 = 15.0", "elo0 = 400.0\nelo1 = 500.0");
    let mut cx = open(&won);
    decide(&mut cx);
    assert_eq!(cx.best().0, "gen2-32");
    // A gate that reached its cap undecided rejects.
    let capped = reading_of([0, 2, 10, 2, 0], 28);
    let lost = run(&dir.join("capped"), capped.clone());
    let mut cx = open(&lost);
    decide(&mut cx);
    assert_eq!(cx.best().0, "gen1-32");
    let why = format!(
        "gate {}: {} Elo after 28 games",
        capped.verdict,
        crate::journal::elo_text(&capped)
    );
    assert_eq!(cx.state.candidates[0].stage, crate::journal::Stage::Rejected(why));
    assert!(!lost.nets().join("gen2-32.nnue").exists());
    std::fs::remove_dir_all(&dir).ok();
}
