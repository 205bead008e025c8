//! The training stage: a training killed after its first checkpoint resumes by the
//! arguments of the trainer's `status.json` to the uninterrupted candidate's records; a torn
//! `exported` record is made again (without training again) and a damaged earlier record
//! refused; settings changed while killed reach a training that starts again from scratch,
//! while one with a checkpoint keeps its shape and schedule and takes only the threads of now;
//! a wider, remirrored or king-bucketed shape is fine-tuned from the best net.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::stage::testkit::{
    append, calls, decisions, edit_settings, finish, kill_when, net, new_run, open, tear, temp,
    torn_then_damaged,
};
use trainer::status::RunStatus;

const SETTINGS: &str = "[selfplay]\nthreads_busy = 0\n[train]\nthreads = 1\nbatch_size = 256\nlr = 0.001\n";

/// The data file the journal's candidate trains on.
const DATA: &str = "data/s000-gen1-32-classical/games-0.bin";

/// The trainer's status after `done` of 2 superbatches, as the test's trainer writes it.
fn status(done: u32) -> String {
    let status = RunStatus {
        superbatches_done: done,
        superbatches: 2,
        epochs_done: f64::from(done),
        training_positions: 100,
        train_losses: vec![Some(0.5), Some(0.3)][..done as usize].to_vec(),
        validation_losses: vec![Some(0.4), Some(0.25)][..done as usize].to_vec(),
        checkpoint: "candidates/c1/checkpoint.bin".into(),
        final_net: (done == 2).then(|| "candidates/c1/final.nnue".into()),
        finished: done == 2,
        resume: trainer::status::resume_args(&[DATA.into()], None, Path::new("candidates/c1")),
        threads: 1,
    };
    serde_json::to_string(&status).unwrap()
}

/// A run whose journal holds a candidate in training, with a trainer that writes a
/// checkpoint and its status after one superbatch (then sleeps while `DIR/stall` exists)
/// and the final net (the repository's gen1-32) with its status after the second.
fn run(dir: &Path) -> RunDir {
    run_with(dir, SETTINGS)
}

/// [`run`] with other settings.
fn run_with(dir: &Path, settings: &str) -> RunDir {
    std::fs::create_dir_all(dir).unwrap();
    for done in [1, 2] {
        std::fs::write(dir.join(format!("status{done}.json")), status(done)).unwrap();
    }
    let d = |name: &str| dir.join(name).display().to_string();
    let trainer = format!(
        "while [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; shift; done\nmkdir -p \"$out\"\n\
         if [ ! -e \"$out/checkpoint.bin\" ]; then\n  echo 1 > \"$out/checkpoint.bin\"\n  \
         cp '{}' \"$out/status.part\" && mv \"$out/status.part\" \"$out/status.json\"\n  [ -e '{}' ] && exec sleep 30\nfi\n\
         cp '{}' \"$out/final.nnue\"\ncp '{}' \"$out/status.json\"",
        d("status1.json"),
        d("stall"),
        net().display(),
        d("status2.json")
    );
    let run = new_run(dir, settings, &[("trainer", &trainer)]);
    append(
        &run,
        &[
            Record::SegmentStarted {
                t: 1,
                index: 0,
                dir: "data/s000-gen1-32-classical".into(),
                net: "gen1-32".into(),
                openings: "classical".into(),
                target: 100,
                seed: 7,
            },
            Record::SegmentDone {
                t: 2,
                index: 0,
                games: 1,
                positions: 100,
            },
            Record::TrainStarted {
                t: 3,
                cand: 1,
                name: "gen2-32-c1".into(),
                dir: "candidates/c1".into(),
                data: vec![DataSlice {
                    file: DATA.into(),
                    games: 1,
                    positions: 100,
                    bytes: 1000,
                }],
                segments: vec![0],
                args: Vec::new(),
                sweep: None,
            },
        ],
    );
    run
}

fn exported(cx: &Context) -> bool {
    cx.state.candidates[0].net.is_some()
}

/// The run of `dir` with its trainer killed after its first checkpoint.
fn killed(dir: &Path) -> RunDir {
    let run = run(dir);
    let status = run.path(Path::new("candidates/c1/status.json"));
    kill_when::<Training>(&run, &dir.join("stall"), || status.exists());
    run
}

#[test]
fn a_training_killed_after_a_checkpoint_resumes_by_its_status_to_the_same_records() {
    let dir = temp("train-kill");
    let whole = run(&dir.join("whole"));
    let mut cx = open(&whole);
    finish(&mut cx, &mut Training::default(), exported);
    let reference = decisions(&cx);
    let last = cx.records().last().unwrap().clone();
    assert!(
        matches!(last, Record::Exported { val_loss: Some(v), .. } if v == 0.25),
        "the status's last validation loss: {last:?}"
    );

    let broken = dir.join("broken");
    let run = killed(&broken);
    let mut cx = open(&run);
    finish(&mut cx, &mut Training::default(), exported);
    assert_eq!(decisions(&cx), reference);
    let started = calls(&broken, "trainer");
    assert_eq!(started.len(), 2, "{started:?}");
    assert!(started[0].contains("--batch-size 256") && started[0].contains("--init nets/gen1-32.nnue"));
    let mut resume = trainer::status::resume_args(&[DATA.into()], None, Path::new("candidates/c1"));
    resume.extend(["--threads".into(), "1".into()]);
    assert_eq!(started[1], resume.join(" "), "the status's resume arguments");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_torn_export_record_is_made_again_and_a_damaged_earlier_one_refused() {
    let dir = temp("train-damage");
    torn_then_damaged::<Training>(&run(&dir), exported);
    assert_eq!(
        calls(&dir, "trainer").len(),
        1,
        "the finished net is exported, not trained again"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn settings_changed_while_killed_apply_to_a_fresh_start_a_checkpoint_keeps_its_own() {
    // With a checkpoint: the shape and schedule are the checkpoint's, the threads of now.
    let dir = temp("train-settings");
    let run = killed(&dir);
    edit_settings(&run, "batch_size = 256", "batch_size = 128");
    edit_settings(&run, "lr = 0.001", "lr = 0.002");
    edit_settings(&run, "threads = 1", "threads = 3");
    let mut cx = open(&run);
    finish(&mut cx, &mut Training::default(), exported);
    let started = calls(&dir, "trainer");
    assert!(
        started[1].ends_with("--resume candidates/c1/checkpoint.bin --threads 3"),
        "{}",
        started[1]
    );
    assert!(!started[1].contains("--lr") && !started[1].contains("--batch-size"));
    // Without one: the settings of now, all of them.
    std::fs::remove_dir_all(run.path(Path::new("candidates"))).unwrap();
    drop(cx);
    tear(&run);
    let mut cx = open(&run);
    finish(&mut cx, &mut Training::default(), exported);
    let started = calls(&dir, "trainer");
    assert_eq!(started.len(), 3);
    assert!(
        started[2].contains("--batch-size 128")
            && started[2].contains("--lr 0.002")
            && started[2].contains("--threads 3"),
        "{}",
        started[2]
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_wider_or_remirrored_shape_is_fine_tuned_from_the_best_net() {
    // The best net is gen1-32, `(768 -> 32 screlu)x2 -> 1x1`.
    let dir = temp("train-shapes");
    for (i, (arch, init, mirror_change, epochs)) in [
        ("(768hm -> 32 screlu)x2 -> 1x8", true, true, 16),
        ("(768x4hm -> 32 screlu)x2 -> 1x8", true, true, 16),
        ("(768 -> 64 screlu)x2 -> 1x8", true, false, 16),
        ("(768 -> 32 screlu)x2 -> (16 -> 1)x8", false, false, 20),
    ]
    .into_iter()
    .enumerate()
    {
        let case = dir.join(i.to_string());
        // The first case also moves the WDL weight during the run.
        let schedule = if i == 0 { "wdl_end = 0.5\n" } else { "" };
        let run = run_with(&case, &format!("{SETTINGS}arch = \"{arch}\"\n{schedule}"));
        let mut cx = open(&run);
        finish(&mut cx, &mut Training::default(), exported);
        let started = calls(&case, "trainer");
        let first = &started[0];
        assert!(first.contains(&format!("--arch {arch}")), "{arch}: {first}");
        assert_eq!(
            first.contains("--init nets/gen1-32.nnue"),
            init,
            "{arch}: {first}"
        );
        assert_eq!(
            first.contains("--allow-mirror-change"),
            mirror_change,
            "{arch}: {first}"
        );
        assert!(first.contains(&format!("--epochs {epochs} ")), "{arch}: {first}");
        assert_eq!(first.contains("--wdl-end 0.5"), i == 0, "{arch}: {first}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn candidates_grow_from_the_best_net_only_where_the_trainer_can() {
    let arch = |s: &str| s.parse::<nnue::Arch>().unwrap();
    let plain = arch("(768 -> 128)x2 -> 1x8");
    assert!(can_grow_into(&plain, &plain));
    assert!(can_grow_into(&plain, &arch("(768x4 -> 128)x2 -> 1x8")));
    assert!(
        can_grow_into(&plain, &arch("(768x4hm -> 128)x2 -> 1x8")),
        "mirroring changed, buckets added"
    );
    assert!(
        can_grow_into(&plain, &arch("(768hm -> 128)x2 -> 1x8")),
        "mirroring changed"
    );
    assert!(can_grow_into(&plain, &arch("(768 -> 256)x2 -> 1x8")), "wider");
    assert!(!can_grow_into(&arch("(768 -> 256)x2 -> 1x8"), &plain), "narrower");
    assert!(
        !can_grow_into(&plain, &arch("(768 -> 128)x2 -> 1x4")),
        "output buckets"
    );
    assert!(
        can_grow_into(&arch("(768 -> 128)x2 -> 1"), &plain),
        "output buckets from one"
    );
    assert!(
        !can_grow_into(&plain, &arch("(768 -> 128 crelu)x2 -> 1x8")),
        "activation"
    );
    assert!(
        !can_grow_into(&plain, &arch("(768 -> 128)x2 -> (16 -> 1)x8")),
        "layers"
    );
    let four = arch("(768x4 -> 128)x2 -> 1x8");
    assert!(can_grow_into(&four, &four));
    assert!(
        !can_grow_into(&four, &arch("(768x2 -> 128)x2 -> 1x8")),
        "other buckets"
    );
    assert!(!can_grow_into(&four, &plain), "buckets are not merged");
    assert!(
        can_grow_into(&four, &arch("(768x4hm -> 128)x2 -> 1x8")),
        "the same buckets, mirrored"
    );
    let layered = arch("(768 -> 128)x2 -> (16 -> 1)x8");
    assert!(can_grow_into(&layered, &layered));
    assert!(
        !can_grow_into(&layered, &arch("(768 -> 256)x2 -> (16 -> 1)x8")),
        "hidden layers grow into nothing else"
    );

    let best = nnue::Network::random_with(nnue::FeatureSet::plain(), 128, 8, 1).unwrap();
    let mut t = crate::config::Train::default();
    assert_eq!(candidate_arch(&best, &t).unwrap(), best.arch());
    t.hidden = 256;
    assert_eq!(
        candidate_arch(&best, &t).unwrap().to_string(),
        "(768 -> 256 screlu)x2 -> 1x8"
    );
    t.hidden = 0;
    t.arch = "(768x4 -> 128)x2 -> 1x8".into();
    assert_eq!(candidate_arch(&best, &t).unwrap(), four);
}
