//! The self-play stage: a segment killed while datagen plays it resumes in its directory to
//! the uninterrupted segment's records; a torn last record is made again and a damaged
//! earlier one refused; a setting changed while killed reaches datagen when it starts again,
//! except the segment's own target and seed, which its record keeps until the next segment.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::stage::testkit::{
    calls, decisions, edit_settings, finish, kill_when, new_run, open, temp, torn_then_damaged,
};

/// A small data file of an earlier datagen (4 games), which the test's datagen copies.
fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../datagen/tests/data/format2-gen4.bin")
}

/// The positions of [`data`].
fn positions() -> u64 {
    scan_data(Path::new("."), &data())
        .unwrap()
        .iter()
        .map(|d| d.positions)
        .sum()
}

/// A run whose datagen copies [`data`] into its `--out` (and then sleeps while `DIR/stall`
/// exists); packing fails, and no candidate ever trains.
fn run(dir: &Path) -> RunDir {
    let settings = format!(
        "[selfplay]\nthreads_idle = 1\nthreads_busy = 0\nnodes = 300\nsegment_positions = {}\n\
         dfrc_every = 0\nseed = 7\n[train]\nevery_positions = 1000000000\n",
        positions()
    );
    let datagen = format!(
        "[ \"$1\" = pack ] && exit 1\nwhile [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\n\
         mkdir -p \"$out\" && cp '{}' \"$out/games-0.bin\"\n[ -e '{}' ] && exec sleep 30\nexit 0",
        data().display(),
        dir.join("stall").display()
    );
    new_run(dir, &settings, &[("datagen", &datagen)])
}

fn first_done(cx: &Context) -> bool {
    cx.state.segments.first().is_some_and(|s| s.done.is_some())
}

/// The run of `dir` with datagen killed while it plays the first segment.
fn killed(dir: &Path) -> RunDir {
    std::fs::create_dir_all(dir).unwrap();
    let run = run(dir);
    kill_when::<SelfPlay>(&run, &dir.join("stall"), || !calls(dir, "datagen").is_empty());
    run
}

#[test]
fn a_segment_killed_in_play_resumes_in_its_directory_to_the_same_records() {
    let dir = temp("selfplay-kill");
    let whole = run(&dir.join("whole"));
    let mut cx = open(&whole);
    finish(&mut cx, &mut SelfPlay::default(), first_done);
    let reference = decisions(&cx);
    assert!(reference[1].contains("segment_started") && reference[2].contains("segment_done"));

    let broken = dir.join("broken");
    let run = killed(&broken);
    let mut cx = open(&run);
    assert!(cx.state.open_segment().is_some(), "the segment is open");
    finish(&mut cx, &mut SelfPlay::default(), first_done);
    assert_eq!(decisions(&cx), reference);
    let played = calls(&broken, "datagen");
    assert_eq!(played.len(), 2, "{played:?}");
    assert_eq!(played[0], played[1], "the same segment, directory and seed");
    assert!(played[0].contains("--out data/s000-gen1-32-classical") && played[0].contains("--seed 7"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_torn_segment_record_is_made_again_and_a_damaged_earlier_one_refused() {
    let dir = temp("selfplay-damage");
    torn_then_damaged::<SelfPlay>(&run(&dir), first_done);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn settings_changed_while_killed_apply_from_datagens_next_start_the_target_from_the_next_segment() {
    let dir = temp("selfplay-settings");
    let run = killed(&dir);
    let target = positions();
    edit_settings(&run, "nodes = 300", "nodes = 777");
    edit_settings(&run, "seed = 7", "seed = 100");
    edit_settings(
        &run,
        &format!("segment_positions = {target}"),
        &format!("segment_positions = {}", target + 1),
    );
    let mut cx = open(&run);
    let mut stage = SelfPlay::default();
    finish(&mut cx, &mut stage, first_done);
    let played = calls(&dir, "datagen");
    assert!(played[0].contains("--nodes 300"), "{}", played[0]);
    assert!(
        played[1].contains("--nodes 777")
            && played[1].contains(&format!("--positions {target}"))
            && played[1].contains("--seed 7"),
        "the open segment keeps its target and seed: {}",
        played[1]
    );
    finish(&mut cx, &mut stage, |cx| cx.state.segments.len() == 2);
    let next = &cx.state.segments[1];
    assert_eq!(
        (next.target, next.seed),
        (target + 1, 101),
        "the next segment takes them"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn segments_name_their_start_positions_as_datagen_does() {
    assert!(openings_args(0, "classical").unwrap().is_empty());
    assert_eq!(openings_args(3, "dfrc").unwrap(), ["--openings-960", "dfrc"]);
    assert_eq!(openings_args(3, "frc").unwrap(), ["--openings-960", "frc"]);
    let error = openings_args(7, "960").unwrap_err().to_string();
    assert_eq!(
        error,
        "segment 7: unknown openings \"960\" in the journal (classical, frc or dfrc)"
    );
}
