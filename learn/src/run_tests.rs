//! The loop picks the candidate's stage from the journal: training once enough new positions
//! have finished (a promoted net's gauntlet first), then the gate, then the promotion, and
//! nothing while positions are short.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::journal::DataSlice;
use crate::stage::gate_math::reading_of;
use crate::stage::testkit::{append, new_run, open, temp};

#[test]
fn the_candidates_stage_comes_from_the_journal() {
    let dir = temp("track");
    let settings = "[train]\nevery_positions = 100\n[gauntlet]\nevery = 1\n\
                    [[gauntlet.opponents]]\nname = \"sf\"\nengine = [\"cmd=/bin/true\"]\n";
    let run = new_run(&dir, settings, &[]);
    let track = |records: &[Record]| {
        append(&run, records);
        Track::of(&open(&run))
    };
    assert_eq!(track(&[]), Track::Waiting, "no positions yet");
    let segment = |index: u64, positions: u64| {
        [
            Record::SegmentStarted {
                t: 1,
                index,
                dir: format!("data/s{index:03}").into(),
                net: "gen1-32".into(),
                openings: "classical".into(),
                target: positions,
                seed: 7,
            },
            Record::SegmentDone {
                t: 2,
                index,
                games: 1,
                positions,
            },
        ]
    };
    assert_eq!(track(&segment(0, 60)), Track::Waiting, "60 of 100 positions");
    assert_eq!(track(&segment(1, 40)), Track::StartTraining);
    assert_eq!(
        track(&[Record::TrainStarted {
            t: 3,
            cand: 1,
            name: "gen2-32-c1".into(),
            dir: "candidates/c1".into(),
            data: vec![DataSlice {
                file: "data/s000/games-0.bin".into(),
                games: 1,
                positions: 60,
                bytes: 1,
            }],
            segments: vec![0, 1],
            args: Vec::new(),
            sweep: None,
        }]),
        Track::Training
    );
    let exported = Record::Exported {
        t: 4,
        cand: 1,
        net: "candidates/gen2-32-c1.nnue".into(),
        fingerprint: "0".into(),
        val_loss: None,
        train_secs: 1,
    };
    assert_eq!(track(&[exported]), Track::Gate);
    let started = Record::GateStarted {
        t: 5,
        cand: 1,
        args: Vec::new(),
    };
    assert_eq!(track(&[started]), Track::Gate);
    let done = Record::GateDone {
        t: 6,
        cand: 1,
        result: reading_of([0, 2, 8, 40, 50], 1000),
        gate_secs: 1,
    };
    assert_eq!(track(&[done]), Track::Promotion);
    let promoted = Record::Promoted {
        t: 7,
        cand: 1,
        net: "nets/gen2-32.nnue".into(),
    };
    // New positions enough for the next candidate, but the promoted net's gauntlet first.
    assert_eq!(track(&[promoted]), Track::Waiting);
    assert_eq!(track(&segment(2, 100)), Track::Waiting, "the gauntlet is due");
    let rated = [
        Record::GauntletStarted {
            t: 8,
            net: "gen2-32".into(),
            args: Vec::new(),
            games: 20,
        },
        Record::GauntletDone {
            t: 9,
            net: "gen2-32".into(),
            games: 20,
            elo: None,
            elo_error: None,
            ratings: String::new(),
        },
    ];
    assert_eq!(track(&rated), Track::StartTraining);
    std::fs::remove_dir_all(&dir).ok();
}
