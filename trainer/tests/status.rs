//! `status.json`, the trainer's run status as data: after a whole run it gives every
//! superbatch's losses (the ones `loss.csv` shows), the checkpoint, the final net and the
//! arguments that resume the run; after a run stopped in its middle it says so, and its
//! resume arguments, run as they are, finish the run to the very net an uninterrupted run
//! makes.

#![allow(clippy::unwrap_used)]

mod common;

use common::{data_file, playouts, temp_dir, trainer};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use trainer::data::{load_packed_split, Position};
use trainer::model::Model;
use trainer::status::{resume_args, RunStatus, StatusWriter, STATUS_FILE};
use trainer::train::{train, train_saving, Checkpoint, TrainConfig, ValidationSplit};

fn config() -> TrainConfig {
    TrainConfig {
        hidden: 16,
        buckets: 1,
        superbatches: 3,
        batches_per_superbatch: 2,
        batch_size: 32,
        wdl: 1.0,
        wdl_end: None,
        lr: 0.001,
        seed: 4,
        split: ValidationSplit::Games,
    }
}

/// `trainer train`'s command line for [`config`] on `data` into `out`.
fn command(data: &Path, out: &Path) -> Vec<String> {
    let s = |p: &Path| p.display().to_string();
    [
        "train",
        "--data",
        &s(data),
        "--hidden",
        "16",
        "--superbatches",
        "3",
        "--batches-per-superbatch",
        "2",
        "--batch-size",
        "32",
        "--seed",
        "4",
        "--threads",
        "1",
        "--out",
        &s(out),
    ]
    .map(String::from)
    .to_vec()
}

#[test]
fn a_whole_run_says_its_losses_checkpoint_net_and_resume_command() {
    let dir = temp_dir("status-whole");
    let data = dir.join("games.bin");
    std::fs::write(&data, data_file(&playouts(40, 1).take(1000).collect::<Vec<_>>())).unwrap();
    let out = dir.join("run");
    let (code, _, err) = trainer(&command(&data, &out));
    assert_eq!(code, 0, "{err}");
    let status = RunStatus::load(&out).unwrap();
    assert_eq!((status.superbatches_done, status.superbatches), (3, 3));
    assert!(status.finished);
    assert_eq!(status.final_net, Some(out.join("final.nnue")));
    assert_eq!(status.checkpoint, out.join("checkpoint.bin"));
    assert_eq!(status.threads, 1);
    let training: u64 = err
        .lines()
        .find_map(|l| {
            l.split_once(" training positions, ")
                .map(|(n, _)| n.parse().unwrap())
        })
        .unwrap();
    assert_eq!(status.training_positions, training);
    assert!((status.epochs_done - 3.0 * 64.0 / training as f64).abs() < 1e-12);
    // The losses loss.csv shows, to its 8 decimals.
    let csv = std::fs::read_to_string(out.join("loss.csv")).unwrap();
    let column = |i: usize| -> Vec<f64> {
        csv.lines()
            .skip(1)
            .map(|l| l.split(',').nth(i).unwrap().parse().unwrap())
            .collect()
    };
    for (losses, shown) in [
        (&status.train_losses, column(1)),
        (&status.validation_losses, column(2)),
    ] {
        assert_eq!(losses.len(), 3);
        for (a, b) in losses.iter().zip(&shown) {
            assert!((a.unwrap() - b).abs() < 1e-8, "{a:?} {b}");
        }
    }
    assert_eq!(status.last_validation_loss(), status.validation_losses[2]);
    let s = |p: &Path| p.display().to_string();
    assert_eq!(
        status.resume,
        [
            "train",
            "--data",
            &s(&data),
            "--out",
            &s(&out),
            "--resume",
            &s(&out.join("checkpoint.bin"))
        ]
    );
    // The file is JSON any tool reads.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join(STATUS_FILE)).unwrap()).unwrap();
    assert_eq!(json["superbatches_done"], 3);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_stopped_run_resumes_by_its_status_to_the_uninterrupted_net() {
    let dir = temp_dir("status-stopped");
    let data = dir.join("games.bin");
    std::fs::write(&data, data_file(&playouts(40, 2).take(300).collect::<Vec<_>>())).unwrap();
    // The positions as `trainer train` reads and splits them.
    let (training, validation, _) = load_packed_split(&[&data], None, config().split, config().seed).unwrap();
    assert!(!validation.is_empty());
    let model = Model::random_arch(&nnue::Arch::simple(nnue::FeatureSet::plain(), 16, 1), 4);
    let features = model.features;
    let validation: Vec<Position> = validation.iter().map(|p| p.unpack_features(&features)).collect();
    let start = Checkpoint::new(config(), model);
    // Uninterrupted.
    let never = AtomicBool::new(false);
    let whole = train(
        start.clone(),
        &training,
        &validation,
        1,
        &dir.join("whole"),
        &never,
        |_| {},
    )
    .unwrap();
    // Stopped after its first superbatch, writing its status as the trainer does.
    let out = dir.join("stopped");
    let writer = StatusWriter {
        out: out.clone(),
        resume: resume_args(std::slice::from_ref(&data), None, &out),
        threads: 1,
        training_positions: training.len() as u64,
    };
    let stop = AtomicBool::new(false);
    let stopped = train_saving(
        start,
        &training,
        &validation,
        1,
        &out,
        &stop,
        |line| {
            if line.starts_with("superbatch 1/3 done") {
                stop.store(true, Ordering::Relaxed);
            }
        },
        |saved| writer.write(saved, None),
    );
    assert!(stopped.unwrap_err().to_string().contains("interrupted"));
    let status = RunStatus::load(&out).unwrap();
    assert_eq!((status.superbatches_done, status.finished), (1, false));
    assert_eq!(status.final_net, None);
    assert_eq!(status.validation_losses.len(), 1);
    // Its resume arguments, as they are, finish it.
    let (code, _, err) = trainer(&status.resume);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("resuming") && err.contains("after superbatch 1"),
        "{err}"
    );
    let status = RunStatus::load(&out).unwrap();
    assert_eq!((status.superbatches_done, status.finished), (3, true));
    let net = std::fs::read(out.join("final.nnue")).unwrap();
    assert_eq!(net, whole.model.to_network().unwrap().to_bytes());
    let history: Vec<Option<f64>> = whole.history.iter().map(|h| Some(h.1)).collect();
    assert_eq!(status.validation_losses, history);
    std::fs::remove_dir_all(&dir).ok();
}
