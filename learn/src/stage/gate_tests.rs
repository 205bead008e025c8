//! The gate stage: a gate killed after arena saved its state resumes from that state to the
//! uninterrupted gate's records; a torn `gate_done` is read again from arena's state (arena
//! not run again) and a damaged earlier record refused; settings changed while killed leave
//! the gate under way its engines and limits, and its cap is learn.toml's of now (a lowered
//! cap already reached decides at once); a damaged saved state is said, naming the file and
//! why (once), by `learn status` and by the gate.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::stage::gate_math::{reading_of, write_state};
use crate::stage::testkit::{
    calls, candidate, decisions, edit_settings, finish, kill_when, new_run, open, temp, torn_then_damaged,
};

const SETTINGS: &str =
    "[selfplay]\nthreads_busy = 0\n[gate]\nnodes = 300\ntc = \"1+0.01\"\nmax_games = 400\n";

/// Four pairs played (8 games), no decision yet; and the counts that decide H1.
const PLAYING: [u64; 5] = [0, 1, 2, 1, 0];
const DECIDED: [u64; 5] = [0, 2, 8, 40, 50];

/// A run whose journal holds an exported candidate (testkit's `candidate`), with
/// an arena that saves the state of 8 games (then sleeps while `DIR/stall` exists) and then,
/// keeping the state it was given as `DIR/given.json`, the decided one.
fn run(dir: &Path) -> RunDir {
    std::fs::create_dir_all(dir).unwrap();
    write_state(&dir.join("playing.json"), 200, PLAYING);
    write_state(&dir.join("decided.json"), 200, DECIDED);
    let d = |name: &str| dir.join(name).display().to_string();
    let arena = format!(
        "for a in \"$@\"; do case \"$a\" in outname=*) state=${{a#outname=}};; file=*state.json) state=${{a#file=}};; esac; done\n\
         if [ ! -e \"$state\" ]; then\n  cp '{}' \"$state.part\" && mv \"$state.part\" \"$state\"\n  [ -e '{}' ] && exec sleep 30\nfi\n\
         cp \"$state\" '{}'\ncp '{}' \"$state\"",
        d("playing.json"),
        d("stall"),
        d("given.json"),
        d("decided.json")
    );
    let run = new_run(dir, SETTINGS, &[("arena", &arena)]);
    candidate(&run, reading_of(DECIDED, 1000), 2);
    run
}

fn decided(cx: &Context) -> bool {
    cx.state.candidates[0].gate.is_some()
}

/// The run of `dir` with its arena killed after it saved the state of 8 games.
fn killed(dir: &Path) -> RunDir {
    let run = run(dir);
    let state = run.path(Path::new("gates/c1/state.json"));
    kill_when::<Gate>(&run, &dir.join("stall"), || state.exists());
    run
}

#[test]
fn a_gate_killed_under_way_resumes_from_arenas_state_to_the_same_records() {
    let dir = temp("gate-kill");
    let whole = run(&dir.join("whole"));
    let mut cx = open(&whole);
    finish(&mut cx, &mut Gate::default(), decided);
    let reference = decisions(&cx);
    assert!(gate_math::promotes(cx.state.candidates[0].gate.as_ref().unwrap()));

    let broken = dir.join("broken");
    let run = killed(&broken);
    let mut cx = open(&run);
    finish(&mut cx, &mut Gate::default(), decided);
    assert_eq!(decisions(&cx), reference);
    let played = calls(&broken, "arena");
    assert_eq!(played.len(), 2, "{played:?}");
    assert!(played[0].contains("tc=inf nodes=300") && played[0].contains("-rounds 200"));
    assert_eq!(
        played[1], "-config file=gates/c1/state.json",
        "resumed from the state"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_torn_gate_record_is_read_again_from_arenas_state_and_a_damaged_earlier_one_refused() {
    let dir = temp("gate-damage");
    torn_then_damaged::<Gate>(&run(&dir), decided);
    assert_eq!(calls(&dir, "arena").len(), 1, "a decided gate is not played on");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn settings_changed_while_killed_keep_the_gates_engines_and_fit_its_cap() {
    // A raised cap: the saved rounds follow it; the engines and limits stay the state's.
    let dir = temp("gate-settings");
    let run = killed(&dir.join("raised"));
    edit_settings(&run, "nodes = 300", "nodes = 500");
    edit_settings(&run, "max_games = 400", "max_games = 800");
    let mut cx = open(&run);
    finish(&mut cx, &mut Gate::default(), decided);
    let given = std::fs::read_to_string(dir.join("raised/given.json")).unwrap();
    assert!(given.contains("\"-rounds\",\"400\""), "{given}");
    let played = calls(&dir.join("raised"), "arena");
    assert_eq!(played[1], "-config file=gates/c1/state.json");
    // A cap lowered below the games played: undecided at once, arena not run again.
    let run = killed(&dir.join("lowered"));
    edit_settings(&run, "max_games = 400", "max_games = 6");
    let mut cx = open(&run);
    finish(&mut cx, &mut Gate::default(), decided);
    let result = cx.state.candidates[0].gate.clone().unwrap();
    assert_eq!(result, gate_math::reading_of(PLAYING, 6));
    assert!(!gate_math::promotes(&result));
    assert_eq!(calls(&dir.join("lowered"), "arena").len(), 1);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_damaged_saved_state_is_said_by_status_and_by_the_gate_once() {
    let dir = temp("gate-damaged");
    let run = killed(&dir);
    let state = run.path(Path::new("gates/c1/state.json"));
    let text = std::fs::read(&state).unwrap();
    std::fs::write(&state, &text[..text.len() / 2]).unwrap();
    // status: the candidate's line says the state cannot be read, naming it and why.
    let status = crate::report::status(&run.root).unwrap();
    let line = status.lines().find(|l| l.contains("gen2-32-c1")).unwrap();
    assert!(
        line.contains("the gate's saved state cannot be read")
            && line.contains(&state.display().to_string())
            && line.contains("EOF while parsing"),
        "{line}"
    );
    // The gate stage: the reason once.
    let mut cx = open(&run);
    let e = format!("{:#}", Gate::default().step(&mut cx).unwrap_err());
    assert!(e.contains(&state.display().to_string()), "{e}");
    assert_eq!(e.matches("EOF while parsing").count(), 1, "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
