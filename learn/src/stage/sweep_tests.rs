//! A recipe sweep through the candidate's stages ([`crate::run::CandidateStages`]): two
//! recipes of one generation train one after another on the same data (the newest segment
//! held out), each journaled with its recipe; the screen measures both on the held-out
//! segment, journals every recipe's trainer arguments, seed and loss, and picks the lower
//! loss, which alone is gated (and promoted). Killed during the second recipe's training and
//! run again, the first's net is kept (not trained again), the second resumes from its
//! checkpoint by its `status.json`, and the journal's decisions are the uninterrupted run's.
//! A sweep waits for data beside the segment it holds out.

#![allow(clippy::unwrap_used)]

use super::*;
use crate::journal::{Candidate, State};
use crate::run::CandidateStages;
use crate::stage::gate_math::write_state;
use crate::stage::testkit::{
    append, calls, decisions, edit_settings, finish, kill_when, net, new_run, open, temp,
};
use crate::stage::train::Training;
use trainer::status::RunStatus;
use trainer::validate::NetLoss;

const SETTINGS: &str = "[selfplay]\nthreads_busy = 0\n\
    [train]\nevery_positions = 100\nthreads = 1\nbatch_size = 256\nseed = 40\n\
    [[train.recipes]]\nname = \"long\"\nepochs = 32\n\
    [[train.recipes]]\nname = \"lowwdl\"\nwdl = 0.2\nseed = 99\n\
    [gate]\nnodes = 300\nmax_games = 400\n";

/// Segment `index`'s data file (the repository's generation-3 games).
fn data(index: u64) -> String {
    format!("data/s{index:03}-gen1-32-classical/games-0.bin")
}

/// The trainer's status of candidate `cand` after `done` of 2 superbatches.
fn status(cand: u32, done: u32) -> String {
    let dir = format!("candidates/c{cand}");
    let status = RunStatus {
        superbatches_done: done,
        superbatches: 2,
        epochs_done: f64::from(done),
        training_positions: 100,
        train_losses: vec![Some(0.5), Some(0.3)][..done as usize].to_vec(),
        validation_losses: vec![Some(0.4), Some(0.25)][..done as usize].to_vec(),
        checkpoint: format!("{dir}/checkpoint.bin").into(),
        final_net: (done == 2).then(|| format!("{dir}/final.nnue").into()),
        finished: done == 2,
        resume: trainer::status::resume_args(&[data(0).into()], None, Path::new(&dir)),
        threads: 1,
    };
    serde_json::to_string(&status).unwrap()
}

/// `trainer validate`'s JSON for the two candidates: the second recipe's loss the lower.
fn validation() -> String {
    let loss = |name: &str, loss: f64| NetLoss {
        net: format!("candidates/{name}.nnue").into(),
        arch: "(768 -> 32 screlu)x2 -> 1x8".into(),
        losses: vec![(0.3, loss)],
    };
    let v = Validation {
        data: vec![data(1).into()],
        positions: 900,
        warnings: Vec::new(),
        nets: vec![loss("gen2-32-c1-long", 0.0125), loss("gen2-32-c2-lowwdl", 0.0121)],
    };
    serde_json::to_string(&v).unwrap()
}

/// A run with two finished segments (their data the repository's generation-3 games), two
/// recipes, a trainer that trains as train_tests' does (a checkpoint and status after one
/// superbatch, then, unless `DIR/stall` exists and it trains candidate 2, the final net and
/// status) and whose `validate` writes [`validation`] (unless `DIR/stall-screen` exists), and an
/// arena whose gate decides H1.
fn run(dir: &Path) -> RunDir {
    run_with(dir, SETTINGS)
}

/// [`run`] with `settings` for learn.toml.
fn run_with(dir: &Path, settings: &str) -> RunDir {
    std::fs::create_dir_all(dir).unwrap();
    for (cand, done) in [(1, 1), (1, 2), (2, 1), (2, 2)] {
        std::fs::write(dir.join(format!("status{done}-c{cand}.json")), status(cand, done)).unwrap();
    }
    std::fs::write(dir.join("validate.json"), validation()).unwrap();
    write_state(&dir.join("decided.json"), 200, [0, 2, 8, 40, 50]);
    let d = |name: &str| dir.join(name).display().to_string();
    let trainer = format!(
        "mode=$1\nwhile [ $# -gt 0 ]; do [ \"$1\" = --out ] && out=$2; [ \"$1\" = --json ] && json=$2; shift; done\n\
         if [ \"$mode\" = validate ]; then [ -e '{stall_screen}' ] && exec sleep 30; cp '{validate}' \"$json\"; exit 0; fi\n\
         c=$(basename \"$out\")\nmkdir -p \"$out\"\n\
         if [ ! -e \"$out/checkpoint.bin\" ]; then\n  echo 1 > \"$out/checkpoint.bin\"\n  \
         cp '{dir}/status1-'$c.json \"$out/status.part\" && mv \"$out/status.part\" \"$out/status.json\"\n  \
         [ -e '{stall}' ] && [ $c = c2 ] && exec sleep 30\nfi\n\
         cp '{net}' \"$out/final.nnue\"\ncp '{dir}/status2-'$c.json \"$out/status.json\"",
        validate = d("validate.json"),
        dir = dir.display(),
        stall = d("stall"),
        stall_screen = d("stall-screen"),
        net = net().display(),
    );
    let arena = format!(
        "for a in \"$@\"; do case \"$a\" in outname=*) state=${{a#outname=}};; esac; done\ncp '{}' \"$state\"",
        d("decided.json")
    );
    let run = new_run(dir, settings, &[("trainer", &trainer), ("arena", &arena)]);
    for index in [0, 1] {
        let file = run.path(Path::new(&data(index)));
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/selfplay/gen3-b-v1.bin"),
            file,
        )
        .unwrap();
        append(&run, &segment(index));
    }
    run
}

/// Segment `index`'s records: started and finished with 100 positions.
fn segment(index: u64) -> [Record; 2] {
    [
        Record::SegmentStarted {
            t: 1,
            index,
            dir: format!("data/s{index:03}-gen1-32-classical").into(),
            net: "gen1-32".into(),
            openings: "classical".into(),
            target: 100,
            seed: 7,
        },
        Record::SegmentDone {
            t: 2,
            index,
            games: 1,
            positions: 100,
        },
    ]
}

fn decided(cx: &Context) -> bool {
    cx.state
        .candidates
        .iter()
        .any(|c| matches!(c.stage, Stage::Promoted | Stage::Rejected(_)))
}

fn sweep(c: &Candidate) -> &SweepTag {
    c.sweep.as_ref().unwrap()
}

#[test]
fn a_sweep_trains_every_recipe_screens_them_and_gates_one_and_resumes_after_a_kill() {
    let dir = temp("sweep-kill");
    let whole = run(&dir.join("whole"));
    let mut cx = open(&whole);
    finish(&mut cx, &mut CandidateStages::default(), decided);
    let reference = decisions(&cx);

    let broken = dir.join("broken");
    let run = run(&broken);
    let c2 = run.path(Path::new("candidates/c2/status.json"));
    kill_when::<CandidateStages>(&run, &broken.join("stall"), || c2.exists());
    let mut cx = open(&run);
    assert_eq!(
        cx.state.candidates.len(),
        2,
        "killed in the second recipe's training"
    );
    assert_eq!(cx.state.candidates[0].stage, Stage::Trained);
    finish(&mut cx, &mut CandidateStages::default(), decided);
    assert_eq!(decisions(&cx), reference);

    // Each recipe trained once, the second resumed from its checkpoint, one screen.
    let started = calls(&broken, "trainer");
    let of = |out: &str| -> Vec<&String> {
        started
            .iter()
            .filter(|c| c.contains(&format!("--out candidates/{out} ")))
            .collect()
    };
    assert_eq!(
        of("c1").len(),
        1,
        "the first recipe is not trained again: {started:#?}"
    );
    assert!(of("c1")[0].contains("--epochs 32") && of("c1")[0].contains("--seed 41"));
    assert_eq!(of("c2").len(), 2, "{started:#?}");
    assert!(of("c2")[0].contains("--wdl 0.2") && of("c2")[0].contains("--seed 99"));
    let mut resume = trainer::status::resume_args(&[data(0).into()], None, Path::new("candidates/c2"));
    resume.extend(["--threads".into(), "1".into()]);
    assert_eq!(of("c2")[1], &resume.join(" "), "the status's resume arguments");
    for c in of("c1").iter().chain(&of("c2")) {
        assert!(
            c.contains(&data(0)) && !c.contains(&data(1)),
            "s001 is held out: {c}"
        );
    }
    let screens: Vec<&String> = started.iter().filter(|c| c.starts_with("validate")).collect();
    assert_eq!(
        screens,
        [&format!(
            "validate --net candidates/gen2-32-c1-long.nnue candidates/gen2-32-c2-lowwdl.nnue --data {} \
             --wdl 0.3 --threads 1 --json candidates/screen-c1.json",
            data(1)
        )]
    );

    // The journal: both recipes, their arguments, seeds and losses, the one picked.
    let s: &State = &cx.state;
    let (c1, c2) = (&s.candidates[0], &s.candidates[1]);
    assert_eq!(
        (c1.name.as_str(), c2.name.as_str()),
        ("gen2-32-c1-long", "gen2-32-c2-lowwdl")
    );
    assert_eq!(
        (sweep(c1).recipe.as_str(), sweep(c2).recipe.as_str()),
        ("long", "lowwdl")
    );
    assert_eq!((sweep(c1).first, sweep(c2).first), (1, 1));
    assert_eq!(sweep(c1).held_out, [1]);
    assert_eq!((c1.segments.clone(), c2.data.clone()), (vec![0], c1.data.clone()));
    let screened = cx
        .records()
        .iter()
        .find_map(|r| match r {
            Record::Screened {
                entries,
                picked,
                wdl,
                data: d,
                ..
            } => Some((entries.clone(), *picked, *wdl, d.clone())),
            _ => None,
        })
        .unwrap();
    let (entries, picked, wdl, held) = screened;
    assert_eq!((picked, wdl), (2, 0.3));
    assert_eq!(
        held.iter()
            .map(|d| d.file.display().to_string())
            .collect::<Vec<_>>(),
        [data(1)]
    );
    assert_eq!(entries[0].args.join(" "), of("c1")[0].as_str());
    assert_eq!(entries[1].args.join(" "), of("c2")[0].as_str());
    assert_eq!((entries[0].seed, entries[1].seed), (Some(41), Some(99)));
    assert_eq!((entries[0].loss, entries[1].loss), (Some(0.0125), Some(0.0121)));
    assert!(
        matches!(&c1.stage, Stage::ScreenedOut(why) if why.contains("0.012500")),
        "{:?}",
        c1.stage
    );
    assert_eq!(c2.stage, Stage::Promoted);
    assert_eq!(s.best.as_ref().unwrap().0, "gen2-32");
    let gates = calls(&broken, "arena");
    assert_eq!(gates.len(), 1, "exactly one gate: {gates:#?}");
    assert!(gates[0].contains("name=gen2-32-c2-lowwdl"), "{}", gates[0]);

    // status and the report show the recipes and their losses; the promoted net's
    // provenance names its recipe and arguments.
    let text = crate::report::status(&run.root).unwrap();
    assert!(
        text.contains("sweep of c1") && text.contains("lowwdl (wdl 0.2, seed 99)"),
        "{text}"
    );
    assert!(text.contains("screen loss 0.012100, picked"), "{text}");
    crate::report::report(&run.root).unwrap();
    let md = std::fs::read_to_string(run.root.join("report.md")).unwrap();
    assert!(
        md.contains("| gen2-32-c1-long | long (epochs 32) | 0.012500 |"),
        "{md}"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.root.join("candidates.json")).unwrap()).unwrap();
    let promoted = &json[1];
    assert_eq!(promoted["recipe"]["name"], "lowwdl");
    assert_eq!(promoted["screen"]["loss"], 0.0121);
    assert_eq!(promoted["screen"]["picked"], true);
    assert_eq!(
        promoted["trainer_args"].as_array().unwrap().len(),
        entries[1].args.len()
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_sweep_waits_for_data_beside_the_segment_it_holds_out() {
    let dir = temp("sweep-due");
    let run = new_run(&dir, SETTINGS, &[]);
    append(&run, &segment(0));
    assert!(
        !Training::due(&open(&run)),
        "one segment: all of it would be held out"
    );
    append(&run, &segment(1));
    assert!(Training::due(&open(&run)));
    let mut cx = open(&run);
    let settings = cx.settings.clone();
    cx.settings.train.recipes.clear();
    cx.settings.train.every_positions = 200;
    assert!(Training::due(&cx), "no sweep: every finished segment counts");
    cx.settings = settings;
    // A sweep trained on segment 0 with segment 1 held out: segment 1 is not new.
    let tag = SweepTag {
        first: 1,
        recipe: "long".into(),
        recipes: cx.settings.train.recipes.clone(),
        held_out: vec![1],
    };
    append(
        &run,
        &[
            Record::TrainStarted {
                t: 3,
                cand: 1,
                name: "gen2-32-c1-long".into(),
                dir: "candidates/c1".into(),
                data: Vec::new(),
                segments: vec![0],
                args: Vec::new(),
                sweep: Some(tag),
            },
            Record::Rejected {
                t: 4,
                cand: 1,
                why: "test".into(),
            },
        ],
    );
    let cx = open(&run);
    assert!(!Training::due(&cx), "no new positions since the sweep");
    append(&run, &segment(2));
    assert!(Training::due(&open(&run)));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_recipe_the_best_net_cannot_take_is_refused_before_the_sweep_trains_any() {
    // gen1-32 has no king buckets: the second recipe's factoriser cannot be made. Found
    // only when its candidate starts, the first recipe would train for nothing first, and
    // the plan journaled with the sweep would keep the recipe even once removed.
    let dir = temp("sweep-late");
    let settings = SETTINGS.replace("wdl = 0.2\nseed = 99\n", "factorise = true\n");
    let run = run_with(&dir, &settings);
    let mut cx = open(&run);
    let e = format!("{:#}", Training::start(&mut cx).unwrap_err());
    assert!(
        e.contains("[train.recipes.lowwdl] factorise = true") && e.contains("king buckets"),
        "{e}"
    );
    assert!(cx.state.candidates.is_empty(), "no candidate journaled");
    // Mended (the recipe removed), the sweep starts with the recipes of now.
    edit_settings(&run, "factorise = true\n", "");
    let mut cx = open(&run);
    Training::start(&mut cx).unwrap();
    assert_eq!(sweep(&cx.state.candidates[0]).recipes.len(), 2);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_recipe_mended_during_its_sweep_is_the_one_its_candidate_gives_as_provenance() {
    let dir = temp("sweep-mended");
    let run = run(&dir);
    let mut cx = open(&run);
    let c1_trained = |cx: &Context| {
        cx.state
            .candidates
            .last()
            .is_some_and(|c| c.stage == Stage::Trained)
    };
    finish(&mut cx, &mut CandidateStages::default(), c1_trained);
    drop(cx);
    // The second recipe mended while the first was training: it trains as mended.
    edit_settings(&run, "wdl = 0.2\n", "wdl = 0.25\n");
    let mut cx = open(&run);
    finish(&mut cx, &mut CandidateStages::default(), decided);
    let c2 = calls(&dir, "trainer")
        .into_iter()
        .find(|c| c.contains("--out candidates/c2 "))
        .unwrap();
    assert!(c2.contains("--wdl 0.25"), "{c2}");
    crate::report::report(&run.root).unwrap();
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(run.root.join("candidates.json")).unwrap()).unwrap();
    let promoted = &json[1];
    assert_eq!(promoted["name"], "gen2-32-c2-lowwdl");
    assert_eq!(
        promoted["recipe"]["wdl"], 0.25,
        "the recipe it trained with, as its trainer_args: {promoted:#}"
    );
    let md = std::fs::read_to_string(run.root.join("report.md")).unwrap();
    assert!(
        md.contains("| gen2-32-c2-lowwdl | lowwdl (wdl 0.25, seed 99) |"),
        "{md}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_kill_during_the_screen_or_before_the_gate_does_each_step_once() {
    let dir = temp("sweep-screen-kill");
    let whole = run(&dir.join("whole"));
    let mut cx = open(&whole);
    finish(&mut cx, &mut CandidateStages::default(), decided);
    let reference = decisions(&cx);

    // Killed while trainer validate measures: no JSON, so it measures again, once.
    let broken = dir.join("broken");
    let run = run(&broken);
    let validating = || {
        calls(&broken, "trainer")
            .iter()
            .any(|c| c.starts_with("validate"))
    };
    kill_when::<CandidateStages>(&run, &broken.join("stall-screen"), validating);
    assert!(!run.path(&screen_file(1)).exists());
    assert_eq!(open(&run).state.screens.len(), 0);
    // Then killed once the screen is journaled, before the gate starts.
    let screened = || open(&run).state.screens.len() == 1;
    kill_when::<CandidateStages>(&run, &broken.join("stall-none"), screened);
    let mut cx = open(&run);
    assert_eq!(
        cx.state.candidates[1].stage,
        Stage::Exported,
        "picked, not gated yet"
    );
    finish(&mut cx, &mut CandidateStages::default(), decided);
    assert_eq!(decisions(&cx), reference);
    let trainer = calls(&broken, "trainer");
    let screens = trainer.iter().filter(|c| c.starts_with("validate")).count();
    assert_eq!(
        screens, 2,
        "measured again after the kill, not after the record: {trainer:#?}"
    );
    assert_eq!(trainer.len(), 2 + 2, "each recipe trained once: {trainer:#?}");
    assert_eq!(calls(&broken, "arena").len(), 1, "one gate");
    std::fs::remove_dir_all(&dir).ok();
}
