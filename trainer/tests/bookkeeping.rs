//! The trainer's files and command line: `loss.csv` continues without repeated or stray rows
//! after a resume, atomic writes refuse directories and leave no partial file on any error,
//! `export --out DIR` is refused, every numeric flag out of its range gets a message that names
//! the range (negative numbers included), `--epochs` sets the run's length from the training
//! positions (a length that does not fit a run is refused), and `--mirror` goes from the
//! command line to the checkpoint and the exported net, with `--init` from a net of the other
//! mirroring refused unless `--allow-mirror-change`. `export` writes through `/dev/null`, keeps
//! a symbolic link a link, names a missing directory and refuses its own checkpoint as the
//! output; a resume refuses settings other than its checkpoint's, and a finished run resumed
//! into another directory leaves there the checkpoint its status names; a closed stdout ends
//! the trainer quietly, and a closed stderr does not stop a training; `eval` of a damaged net
//! or checkpoint names the file and gives the loader's reason, and a net given for a
//! checkpoint (or a checkpoint for a net) is named as such; Ctrl-C stops a training with
//! exit 130 and the checkpoint to resume from, a failure exits 2.

#![allow(clippy::unwrap_used)]

mod common;

use common::{data_file, playouts, positions, temp_dir, train_tiny, train_tiny_args, trainer};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use trainer::model::Model;
use trainer::train::{
    continue_csv, superbatches_for_epochs, train, write_atomic, Checkpoint, TrainConfig, CSV_HEADER,
};

fn config(superbatches: u32) -> TrainConfig {
    TrainConfig {
        hidden: 16,
        buckets: 1,
        superbatches,
        batches_per_superbatch: 2,
        batch_size: 64,
        wdl: 0.5,
        wdl_end: None,
        lr: 0.01,
        seed: 3,
        split: trainer::train::ValidationSplit::Games,
    }
}

/// The superbatch numbers of the rows of `loss.csv`, after checking its header.
fn csv_numbers(path: &Path) -> Vec<u32> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(CSV_HEADER));
    lines
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn resume_continues_loss_csv_without_repeated_rows() {
    let data = positions(800, 3, false);
    let dir = temp_dir("resume");
    let stop = AtomicBool::new(false);
    let interrupt = AtomicBool::new(false);
    let killed = train(
        Checkpoint::new(config(5), Model::random(16, 3)),
        &data,
        &data[..50],
        1,
        &dir,
        &interrupt,
        |line| {
            if line.starts_with("superbatch 2/5 done") {
                interrupt.store(true, Ordering::Relaxed);
            }
        },
    );
    assert!(killed.is_err());
    let csv = dir.join("loss.csv");
    assert_eq!(csv_numbers(&csv), [1, 2]);
    let before = std::fs::read_to_string(&csv).unwrap();
    // A kill after the CSV row of superbatch 3 but before its checkpoint, and a row
    // repeated (as earlier versions wrote on every resume).
    let row2 = before.lines().nth(2).unwrap().to_string();
    std::fs::write(&csv, format!("{before}{row2}\n3,9.9,9.9,1e-3,1\n")).unwrap();

    let ckpt = Checkpoint::load(&dir.join("checkpoint.bin")).unwrap();
    assert_eq!(ckpt.superbatches_done, 2);
    let resumed = train(ckpt.clone(), &data, &data[..50], 1, &dir, &stop, |_| {}).unwrap();
    assert_eq!(resumed.history.len(), 5);
    assert_eq!(csv_numbers(&csv), [1, 2, 3, 4, 5]);
    let after = std::fs::read_to_string(&csv).unwrap();
    assert!(
        after.starts_with(&before),
        "rows before the checkpoint are kept as they were"
    );
    assert!(!after.contains("9.9"), "the row past the checkpoint is gone");
    // Each row carries its superbatch's losses from the history.
    for (line, (train_loss, _)) in after.lines().skip(1).zip(&resumed.history) {
        let value: f64 = line.split(',').nth(1).unwrap().parse().unwrap();
        assert!((value - train_loss).abs() < 1e-7, "{line} vs {train_loss}");
    }

    // Resumed into a new directory, the rows before the checkpoint are rebuilt from it.
    let fresh = temp_dir("resume-fresh");
    continue_csv(&fresh.join("loss.csv"), &ckpt).unwrap();
    let rebuilt = std::fs::read_to_string(fresh.join("loss.csv")).unwrap();
    let lines: Vec<&str> = rebuilt.lines().collect();
    assert_eq!(lines.len(), 3, "{rebuilt}");
    for (line, original) in lines[1..].iter().zip(before.lines().skip(1)) {
        // Same superbatch, losses and learning rate; the speed is unknown.
        let cut = original.rfind(',').unwrap();
        assert_eq!(*line, &original[..=cut]);
    }
    assert_eq!(files_in(&fresh), ["loss.csv"], "no partial file");
    // A fresh run starts the CSV again.
    continue_csv(&csv, &Checkpoint::new(config(5), Model::random(16, 3))).unwrap();
    assert_eq!(std::fs::read_to_string(&csv).unwrap(), format!("{CSV_HEADER}\n"));
    std::fs::remove_dir_all(&dir).ok();
    std::fs::remove_dir_all(&fresh).ok();
}

#[test]
fn atomic_writes_refuse_directories_and_leave_nothing_behind() {
    let dir = temp_dir("atomic");
    let target = dir.join("sub");
    std::fs::create_dir(&target).unwrap();
    let err = write_atomic(&target, b"net").unwrap_err();
    assert!(
        err.to_string()
            .ends_with("sub is a directory, not a file to write"),
        "{err}"
    );
    let slash = PathBuf::from(format!("{}/new/", dir.display()));
    assert!(write_atomic(&slash, b"net").is_err());
    // A parent that does not exist: the write fails.
    let missing_parent = dir.join("no/such/dir/net.nnue");
    assert!(write_atomic(&missing_parent, b"net").is_err());
    assert_eq!(files_in(&dir), ["sub"], "no partial file on any error");
    // A file is written, and overwritten, with nothing else left.
    write_atomic(&dir.join("net.nnue"), b"one").unwrap();
    write_atomic(&dir.join("net.nnue"), b"two").unwrap();
    assert_eq!(std::fs::read(dir.join("net.nnue")).unwrap(), b"two");
    assert_eq!(files_in(&dir), ["net.nnue", "sub"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn export_to_a_directory_is_refused_without_a_partial_file() {
    let dir = temp_dir("export");
    let ckpt = dir.join("checkpoint.bin");
    Checkpoint::new(config(1), Model::random(16, 1))
        .save(&ckpt)
        .unwrap();
    let nets = dir.join("nets");
    std::fs::create_dir(&nets).unwrap();
    for out in [nets.display().to_string(), format!("{}/", nets.display())] {
        let (code, _, err) = trainer(&["export", ckpt.to_str().unwrap(), "--out", &out]);
        assert_eq!(code, 2, "{err}");
        assert_eq!(
            err.trim(),
            format!(
                "trainer: error: --out {out} is a directory: give the net's file path, such as {}",
                Path::new(&out).join("net.nnue").display()
            )
        );
    }
    assert_eq!(files_in(&dir), ["checkpoint.bin", "nets"]);
    assert!(files_in(&nets).is_empty());
    // A file path works and leaves only the net.
    let (code, out, err) = trainer(&[
        "export",
        ckpt.to_str().unwrap(),
        "--out",
        nets.join("a.nnue").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(files_in(&nets), ["a.nnue"]);
    std::fs::remove_dir_all(&dir).ok();
}

/// A data file of 12 random playouts of 80 plies (datagen's container format).
fn write_games(path: &Path) {
    std::fs::write(path, data_file(&playouts(80, 5).take(12).collect::<Vec<_>>())).unwrap();
}

#[test]
fn mirroring_goes_from_the_command_line_to_the_net_and_init_checks_it() {
    let dir = temp_dir("mirror");
    let data = dir.join("games.bin");
    write_games(&data);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let train = |out: &str, extra: &[&str]| {
        let mut args = vec!["--hidden", "16", "--superbatches", "1", "--batch-size", "64"];
        args.extend_from_slice(extra);
        train_tiny(&data, Path::new(out), &args)
    };
    // 1. A mirrored run: the final net and the exported net carry the flag.
    let run = s(&dir.join("run"));
    let (code, _, err) = train(&run, &["--mirror"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("hidden 16, mirrored"), "{err}");
    let final_net = nnue::Network::load(&dir.join("run/final.nnue")).unwrap();
    assert!(final_net.mirrored());
    let ckpt = Checkpoint::load(&dir.join("run/checkpoint.bin")).unwrap();
    assert!(ckpt.model.mirrored());
    let mirrored_net = s(&dir.join("mirrored.nnue"));
    let (code, out, err) = trainer(&[
        "export",
        &s(&dir.join("run/checkpoint.bin")),
        "--out",
        &mirrored_net,
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("hidden 16, mirrored, fingerprint"), "{out}");
    let exported = nnue::Network::load(Path::new(&mirrored_net)).unwrap();
    assert_eq!(exported, final_net);
    // The file's flags field holds bit 0.
    let bytes = std::fs::read(&mirrored_net).unwrap();
    assert_eq!(
        u32::from_le_bytes(bytes[36..40].try_into().unwrap()),
        nnue::file::FLAG_MIRRORED
    );
    // `eval` reads the model's features mirrored: float and quantised agree.
    let (code, out, err) = trainer(&[
        "eval",
        "--net",
        &mirrored_net,
        "--fen",
        "8/5pk1/8/8/8/8/5PK1/8 w - - 0 1",
    ]);
    assert_eq!(code, 0, "{err}");
    let cp = |prefix: &str| -> f32 {
        let line = out.lines().find(|l| l.starts_with(prefix)).unwrap();
        line[prefix.len()..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!((cp("float:") - cp("quantised:")).abs() < 10.0, "{out}");

    // 2. --init from it without --mirror is refused, naming both ways out; nothing is written.
    let (code, _, err) = train(&s(&dir.join("plain")), &["--init", &mirrored_net]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the net is mirrored and this run is not mirrored")
            && err.contains("Pass --mirror to match the net, or --allow-mirror-change"),
        "{err}"
    );
    assert!(!dir.join("plain").exists());
    // --init with --resume is refused by the parser (the checkpoint holds the weights).
    let (code, _, err) = train(
        &s(&dir.join("both")),
        &[
            "--init",
            &mirrored_net,
            "--resume",
            &s(&dir.join("run/checkpoint.bin")),
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
    // With --mirror, or with --allow-mirror-change, it trains.
    let (code, _, err) = train(&s(&dir.join("again")), &["--init", &mirrored_net, "--mirror"]);
    assert_eq!(code, 0, "{err}");
    assert!(nnue::Network::load(&dir.join("again/final.nnue"))
        .unwrap()
        .mirrored());
    let (code, _, err) = train(
        &s(&dir.join("changed")),
        &["--init", &mirrored_net, "--allow-mirror-change"],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("the net is mirrored; training it not mirrored"),
        "{err}"
    );
    let changed = nnue::Network::load(&dir.join("changed/final.nnue")).unwrap();
    assert!(!changed.mirrored());
    // The other way round: an unmirrored net into a mirrored run.
    let plain_net = s(&dir.join("changed/final.nnue"));
    let (code, _, err) = train(&s(&dir.join("other")), &["--init", &plain_net, "--mirror"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("the net is not mirrored and this run is mirrored"),
        "{err}"
    );
    assert!(err.contains("Pass no --mirror to match the net"), "{err}");
    // --allow-mirror-change needs --init.
    let (code, _, err) = train(&s(&dir.join("x")), &["--allow-mirror-change"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--init"), "{err}");
    // 3. Resuming an unmirrored run with --mirror is refused; a mirrored run resumes mirrored.
    let plain_ckpt = s(&dir.join("changed/checkpoint.bin"));
    let (code, _, err) = train(&s(&dir.join("changed")), &["--resume", &plain_ckpt, "--mirror"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is a run without mirroring"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn numeric_flags_out_of_range_are_refused_with_the_range() {
    for (flag, value, message) in [
        (
            "--lr",
            "-0.1",
            "must be a number above 0 and below 1, such as 0.001",
        ),
        ("--lr", "0", "must be a number above 0 and below 1, such as 0.001"),
        (
            "--lr",
            "NaN",
            "must be a number above 0 and below 1, such as 0.001",
        ),
        ("--lr", "1", "must be a number above 0 and below 1, such as 0.001"),
        (
            "--wdl",
            "-0.5",
            "must be a number from 0 to 1 (0: scores only, 1: results only)",
        ),
        (
            "--wdl",
            "1.5",
            "must be a number from 0 to 1 (0: scores only, 1: results only)",
        ),
        ("--hidden", "24", "must be a multiple of 16 from 16 to "),
        ("--hidden", "-16", "must be a multiple of 16 from 16 to "),
        (
            "--superbatches",
            "0",
            "must be a whole number from 1 to 4294967295",
        ),
        (
            "--batches-per-superbatch",
            "-1",
            "must be a whole number from 1 to 4294967295",
        ),
        ("--batch-size", "0", "must be a whole number from 1 to 16777216"),
        ("--epochs", "1000001", "(up to 1000000)"),
        ("--epochs", "0", "must be a number of epochs above 0"),
        ("--threads", "0", "must be a whole number from 1 to 256"),
        ("--threads", "-2", "must be a whole number from 1 to 256"),
        ("--buckets", "0", "must be a whole number from 1 to "),
    ] {
        let (code, _, err) = trainer(&[
            "train",
            "--data",
            "x.bin",
            "--out",
            "/nonexistent/run",
            flag,
            value,
        ]);
        assert_eq!(code, 2, "{flag} {value}: {err}");
        let expected = format!("error: invalid value '{value}' for '{flag} <");
        assert!(err.starts_with(&expected), "{flag} {value}: {err}");
        assert!(
            err.lines().next().unwrap().contains(message),
            "{flag} {value}: {err}"
        );
    }
}

#[test]
fn epochs_are_superbatches_rounded_up() {
    let sb =
        |epochs, positions, batches, size| superbatches_for_epochs(epochs, positions, batches, size).unwrap();
    // 64 batches of 16384: 1048576 positions a superbatch.
    assert_eq!(sb(1.0, 1 << 20, 64, 16384), 1);
    assert_eq!(sb(2.0, 1 << 20, 64, 16384), 2);
    assert_eq!(sb(2.0, (1 << 20) + 1, 64, 16384), 3);
    // gen7's data (5,551,910 training positions) for 6 epochs: 31.8 superbatches.
    assert_eq!(sb(6.0, 5_551_910, 64, 16384), 32);
    assert_eq!(sb(0.5, 3 << 20, 64, 16384), 2);
    // At least one; u32::MAX exactly fits.
    assert_eq!(sb(1.0, 10, 64, 16384), 1);
    assert_eq!(sb(1.0, 0, 64, 16384), 1);
    assert_eq!(sb(1.0, u32::MAX as usize, 1, 1), u32::MAX);
}

#[test]
fn a_schedule_of_more_superbatches_than_a_run_holds_is_refused() {
    for (epochs, positions) in [(1.0, u32::MAX as usize + 1), (1e6, 41_000), (1e6, usize::MAX)] {
        let e = superbatches_for_epochs(epochs, positions, 1, 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("--epochs")
                && e.contains("--batches-per-superbatch 1")
                && e.contains("--batch-size 1")
                && e.contains(&u32::MAX.to_string()),
            "{e}"
        );
    }
}

#[test]
fn epochs_set_the_runs_length_and_exclude_superbatches() {
    let data = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../datagen/tests/data/format2-gen4.bin"
    );
    let dir = temp_dir("epochs");
    let out = dir.join("run");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--hidden",
            "16",
            "--batch-size",
            "32",
            "--threads",
            "1",
            "--seed",
            "4",
        ];
        args.extend_from_slice(extra);
        train_tiny(Path::new(data), &out, &args)
    };
    // Both lengths at once, or no epochs at all, are refused before anything is read.
    let (code, _, err) = run(&["--epochs", "3", "--superbatches", "2"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
    for bad in ["0", "-1", "x"] {
        let (code, _, err) = run(&["--epochs", bad]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("must be a number of epochs above 0"), "{err}");
    }
    assert!(!out.exists());
    // 3 epochs of N training positions at 64 a superbatch: ceil(3 N / 64) superbatches.
    let (code, _, err) = run(&["--epochs", "3"]);
    assert_eq!(code, 0, "{err}");
    let training: u64 = err
        .lines()
        .find_map(|l| {
            l.split_once(" training positions, ")
                .map(|(n, _)| n.parse().unwrap())
        })
        .unwrap_or_else(|| panic!("{err}"));
    assert!(training > 64, "{err}");
    let expected = (3 * training).div_ceil(64);
    let line = format!(
        "--epochs 3: {expected} superbatches of 2 batches of 32 positions ({} positions, ",
        expected * 64
    );
    assert!(err.contains(&line), "{line}\n{err}");
    assert_eq!(
        csv_numbers(&out.join("loss.csv")),
        (1..=expected as u32).collect::<Vec<_>>()
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn export_writes_through_devices_keeps_links_and_refuses_its_own_checkpoint() {
    use std::os::unix::fs::FileTypeExt;
    let dir = temp_dir("export-kinds");
    let ckpt = dir.join("ck.bin");
    Checkpoint::new(config(1), Model::random(16, 1))
        .save(&ckpt)
        .unwrap();
    let before = std::fs::read(&ckpt).unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    // The checkpoint as its own output: refused, and the checkpoint is untouched.
    let (code, _, err) = trainer(&["export", &s(&ckpt), "--out", &s(&ckpt)]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim(),
        format!(
            "trainer: error: refusing to write {0}: it is one of the inputs ({0}); give another file",
            s(&ckpt)
        )
    );
    assert_eq!(std::fs::read(&ckpt).unwrap(), before);
    // ... and through a link to it.
    std::os::unix::fs::symlink("ck.bin", dir.join("alias.bin")).unwrap();
    let (code, _, err) = trainer(&["export", &s(&ckpt), "--out", &s(&dir.join("alias.bin"))]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("one of the inputs"), "{err}");
    assert_eq!(std::fs::read(&ckpt).unwrap(), before);
    // A missing directory is named, not the partial file.
    let deep = dir.join("missing/dir/x.nnue");
    let (code, _, err) = trainer(&["export", &s(&ckpt), "--out", &s(&deep)]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(
        err.trim(),
        format!(
            "trainer: error: cannot write {}: the directory {} does not exist",
            s(&deep),
            s(&dir.join("missing/dir"))
        )
    );
    // `missing/`: the directory is missing (not "is a directory").
    let slash = format!("{}/", s(&dir.join("missing")));
    let (code, _, err) = trainer(&["export", &s(&ckpt), "--out", &slash]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("the directory {slash} does not exist")) && !err.contains("is a directory"),
        "{err}"
    );
    // /dev/null stays a device (checked first that the rule writes through to it).
    let null = Path::new("/dev/null");
    assert!(matches!(
        output::plan(null).unwrap(),
        output::Plan::Through { .. }
    ));
    let (code, out, err) = trainer(&["export", &s(&ckpt), "--out", "/dev/null"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("wrote /dev/null (hidden 16"), "{out}");
    assert!(std::fs::metadata(null).unwrap().file_type().is_char_device());
    // A link to a net stays a link; its target is the new net.
    std::fs::create_dir(dir.join("nets")).unwrap();
    std::fs::write(dir.join("nets/v1.nnue"), b"old").unwrap();
    let link = dir.join("latest.nnue");
    std::os::unix::fs::symlink("nets/v1.nnue", &link).unwrap();
    let (code, _, err) = trainer(&["export", &s(&ckpt), "--out", &s(&link)]);
    assert_eq!(code, 0, "{err}");
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    let net = nnue::Network::load(&dir.join("nets/v1.nnue")).unwrap();
    assert_eq!(net.hidden(), 16);
    assert_eq!(files_in(&dir), ["alias.bin", "ck.bin", "latest.nnue", "nets"]);
    assert_eq!(files_in(&dir.join("nets")), ["v1.nnue"]);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_resume_refuses_settings_that_differ_from_its_checkpoint() {
    let dir = temp_dir("resume-flags");
    let data = dir.join("games.bin");
    write_games(&data);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let out = s(&dir.join("run"));
    let train = |extra: &[&str]| {
        let mut args = vec!["--superbatches", "2"];
        args.extend_from_slice(extra);
        train_tiny(&data, Path::new(&out), &args)
    };
    let (code, _, err) = train(&["--hidden", "16", "--batch-size", "64", "--lr", "0.002"]);
    assert_eq!(code, 0, "{err}");
    let ckpt = s(&dir.join("run/checkpoint.bin"));
    let before = std::fs::read(&ckpt).unwrap();
    // Each setting the checkpoint holds, given otherwise: refused, naming both values.
    for (flag, value, held) in [
        ("--hidden", "32", "16"),
        ("--buckets", "2", "1"),
        ("--wdl", "0.3", "1"),
        ("--wdl-end", "0.4", "none"),
        ("--lr", "0.001", "0.002"),
        ("--seed", "7", "0"),
        ("--validation-split", "positions", "games"),
        ("--batch-size", "128", "64"),
    ] {
        let (code, _, err) = train(&["--resume", &ckpt, flag, value]);
        assert_eq!(code, 2, "{flag}: {err}");
        assert!(
            err.contains(&format!(
                "the command line gives {flag} {value} but the checkpoint's run has {flag} {held}"
            )),
            "{flag}: {err}"
        );
        assert!(
            err.contains("a resumed run keeps its checkpoint's settings"),
            "{err}"
        );
        assert_eq!(std::fs::read(&ckpt).unwrap(), before, "{flag}: nothing written");
    }
    // Several at once are all named.
    let (code, _, err) = train(&["--resume", &ckpt, "--hidden", "32", "--seed", "7"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("gives --hidden 32 --seed 7 but the checkpoint's run has --hidden 16 --seed 0"),
        "{err}"
    );
    // The checkpoint's own values are no conflict, and the run resumes (as learn resumes it,
    // with those flags left out, too).
    let (code, _, err) = train(&["--resume", &ckpt, "--hidden", "16", "--lr", "0.002"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("resuming"), "{err}");
    let (code, _, err) = train(&["--resume", &ckpt]);
    assert_eq!(code, 0, "{err}");
    // The split is named where the run starts; a word that is none is refused.
    let other = s(&dir.join("other"));
    let (code, _, err) = train_tiny(&data, Path::new(&other), &["--validation-split", "positions"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("validation positions (held out by positions)"),
        "{err}"
    );
    let (code, _, err) = train_tiny(
        &data,
        Path::new(&s(&dir.join("third"))),
        &["--validation-split", "halves"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("'halves' is not a validation split (games, games-in-order or positions)"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `--arch` with `--resume` is held to the checkpoint like `--hidden`: a different shape
/// (width, output buckets, mirroring, king buckets, layers) is refused naming both, the
/// checkpoint's own shape resumes.
#[test]
fn a_resume_refuses_an_arch_that_differs_from_its_checkpoint() {
    let dir = temp_dir("resume-arch");
    let data = dir.join("games.bin");
    write_games(&data);
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let out = s(&dir.join("run"));
    let train = |extra: &[&str]| {
        let mut args = vec!["--superbatches", "2"];
        args.extend_from_slice(extra);
        train_tiny(&data, Path::new(&out), &args)
    };
    let (code, _, err) = train(&["--hidden", "16", "--batch-size", "64"]);
    assert_eq!(code, 0, "{err}");
    let ckpt = s(&dir.join("run/checkpoint.bin"));
    let before = std::fs::read(&ckpt).unwrap();
    let plain = |width, buckets| {
        nnue::Arch::simple(
            nnue::FeatureSet::default_buckets(1, false).unwrap(),
            width,
            buckets,
        )
    };
    let held = plain(16, 1).to_string();
    let mut mirrored = plain(16, 1);
    mirrored.features = mirrored.features.with_mirroring(true);
    let mut bucketed = plain(16, 1);
    bucketed.features = nnue::FeatureSet::default_buckets(4, false).unwrap();
    let mut layered = plain(16, 1);
    layered.layers = vec![8];
    for other in [plain(32, 1), plain(16, 8), mirrored, bucketed, layered] {
        let wanted = other.to_string();
        let (code, _, err) = train(&["--resume", &ckpt, "--arch", &wanted]);
        assert_eq!(code, 2, "{wanted}: {err}");
        assert!(
            err.contains(&format!("--arch {wanted}")) && err.contains(&held),
            "{wanted}: {err}"
        );
        assert!(
            err.contains("a resumed run keeps its checkpoint's settings"),
            "{err}"
        );
        assert_eq!(std::fs::read(&ckpt).unwrap(), before, "{wanted}: nothing written");
    }
    // The checkpoint's own shape is no conflict.
    let (code, _, err) = train(&["--resume", &ckpt, "--arch", &held]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("resuming"), "{err}");

    // --king-buckets likewise: 1 given to a run with 4 is refused, 4 resumes it (its
    // mirroring kept, as without --mirror).
    let out4 = s(&dir.join("run4"));
    let train4 = |extra: &[&str]| {
        let mut args = vec!["--superbatches", "2", "--hidden", "16"];
        args.extend_from_slice(extra);
        train_tiny(&data, Path::new(&out4), &args)
    };
    let (code, _, err) = train4(&["--king-buckets", "4", "--mirror"]);
    assert_eq!(code, 0, "{err}");
    let ckpt4 = s(&dir.join("run4/checkpoint.bin"));
    let (code, _, err) = train4(&["--resume", &ckpt4, "--king-buckets", "1"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("a resumed run keeps its checkpoint's settings"),
        "{err}"
    );
    let (code, _, err) = train4(&["--resume", &ckpt4, "--king-buckets", "4"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("resuming") && err.contains("(mirrored)"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_data_file_as_one_of_the_runs_outputs_is_refused() {
    let dir = temp_dir("data-out");
    std::fs::create_dir(dir.join("run")).unwrap();
    let data = dir.join("run/loss.csv");
    write_games(&data);
    let before = std::fs::read(&data).unwrap();
    let (code, _, err) = trainer(&[
        "train",
        "--data",
        data.to_str().unwrap(),
        "--out",
        dir.join("run").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("one of the inputs"), "{err}");
    assert_eq!(std::fs::read(&data).unwrap(), before);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_closed_stdout_ends_the_trainer_quietly() {
    let dir = temp_dir("closed-stdout");
    let ckpt = dir.join("ck.bin");
    Checkpoint::new(config(1), Model::random(16, 1))
        .save(&ckpt)
        .unwrap();
    let net = dir.join("net.nnue");
    for args in [
        vec!["export", ckpt.to_str().unwrap(), "--out", net.to_str().unwrap()],
        vec![
            "eval",
            "--net",
            net.to_str().unwrap(),
            "--fen",
            "8/5pk1/8/8/8/8/5PK1/8 w - - 0 1",
        ],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_trainer"))
            .args(&args)
            .stdout(output::closed_pipe().unwrap())
            .output()
            .unwrap();
        assert_eq!(output::closed_stdout_fault(&out), None, "{args:?}");
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The net was written all the same.
    assert!(nnue::Network::load(&net).is_ok());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_closed_stderr_does_not_stop_a_training() {
    let dir = temp_dir("closed-stderr");
    let data = dir.join("games.bin");
    write_games(&data);
    let run = dir.join("run");
    let out = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(train_tiny_args(
            &data,
            &run,
            &["--hidden", "16", "--superbatches", "3", "--batch-size", "64"],
        ))
        .stderr(output::closed_pipe().unwrap())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(nnue::Network::load(&run.join("final.nnue")).is_ok());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn eval_of_a_damaged_file_names_it_and_says_why() {
    let dir = temp_dir("eval-damaged");
    let ckpt = dir.join("ck.bin");
    Checkpoint::new(config(1), Model::random(16, 1))
        .save(&ckpt)
        .unwrap();
    let net = dir.join("net.nnue");
    let out = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["export", ckpt.to_str().unwrap(), "--out", net.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let eval = |file: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_trainer"))
            .args([
                "eval",
                "--net",
                file.to_str().unwrap(),
                "--fen",
                "8/5pk1/8/8/8/8/5PK1/8 w - - 0 1",
            ])
            .output()
            .unwrap();
        assert!(!out.status.success(), "{}", file.display());
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let cut = |from: &Path, name: &str| {
        let bytes = std::fs::read(from).unwrap();
        let to = dir.join(name);
        std::fs::write(&to, &bytes[..bytes.len() / 2]).unwrap();
        to
    };
    // A net cut short: the net loader's reason.
    let half_net = cut(&net, "half.nnue");
    let err = eval(&half_net);
    let reason = nnue::Network::load(&half_net)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(half_net.to_str().unwrap()) && err.contains(&reason),
        "{err}"
    );
    assert!(!err.contains("checkpoint"), "{err}");
    // A checkpoint cut short: the checkpoint's.
    let half_ckpt = cut(&ckpt, "half.bin");
    let err = eval(&half_ckpt);
    assert!(
        err.contains(half_ckpt.to_str().unwrap()) && err.contains("checkpoint"),
        "{err}"
    );
    // Neither: both reasons.
    let other = dir.join("other.bin");
    std::fs::write(&other, vec![7u8; 4096]).unwrap();
    let err = eval(&other);
    assert!(
        err.contains(other.to_str().unwrap())
            && err.contains("not a Luft net file")
            && err.contains("not a Luft checkpoint"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A new run never replaces a finished or started one: training into a directory that
/// holds a run's checkpoint or net is refused (exit 2, naming `--resume`) and leaves its
/// files as they were; `--resume` continues it there.
#[test]
fn a_new_run_into_a_directory_holding_one_is_refused() {
    let dir = temp_dir("held");
    let data = dir.join("games.bin");
    write_games(&data);
    let run = dir.join("run");
    let train = |hidden: &str, extra: &[&str]| {
        let mut args = vec!["--hidden", hidden, "--superbatches", "1", "--batch-size", "64"];
        args.extend_from_slice(extra);
        train_tiny(&data, &run, &args)
    };
    let (code, _, err) = train("16", &[]);
    assert_eq!(code, 0, "{err}");
    let net = std::fs::read(run.join("final.nnue")).unwrap();
    let checkpoint = std::fs::read(run.join("checkpoint.bin")).unwrap();
    let (code, _, err) = train("32", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("already holds a training run") && err.contains("--resume"),
        "{err}"
    );
    assert_eq!(std::fs::read(run.join("final.nnue")).unwrap(), net);
    assert_eq!(std::fs::read(run.join("checkpoint.bin")).unwrap(), checkpoint);
    // The net alone (a run whose checkpoint was deleted) is held too.
    std::fs::remove_file(run.join("checkpoint.bin")).unwrap();
    let (code, _, err) = train("16", &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("no checkpoint") && !err.contains("--resume") && !err.contains("checkpoint.bin"),
        "no resume of a checkpoint that is not there: {err}"
    );
    assert_eq!(std::fs::read(run.join("final.nnue")).unwrap(), net);
    std::fs::remove_dir_all(&dir).ok();
}

/// `trainer train` on `data` into `out`, resumed from `checkpoint`: exit code, stdout, stderr.
fn resume_into(data: &Path, out: &Path, checkpoint: &Path) -> (i32, String, String) {
    trainer(&[
        "train",
        "--data",
        data.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--resume",
        checkpoint.to_str().unwrap(),
    ])
}

/// A finished run resumed into another --out trains nothing more, and writes its checkpoint
/// there: the status names a checkpoint that is there, and its resume command works.
#[test]
fn a_finished_run_resumed_elsewhere_leaves_the_checkpoint_its_status_names() {
    let dir = temp_dir("resume-finished");
    let data = dir.join("games.bin");
    write_games(&data);
    let (old, new) = (dir.join("old"), dir.join("new"));
    let args = ["--hidden", "16", "--superbatches", "1", "--batch-size", "64"];
    let (code, _, err) = train_tiny(&data, &old, &args);
    assert_eq!(code, 0, "{err}");
    let resume = old.join("checkpoint.bin");
    let (code, _, err) = resume_into(&data, &new, &resume);
    assert_eq!(code, 0, "{err}");
    let status = trainer::status::RunStatus::load(&new).unwrap();
    assert_eq!(status.checkpoint, new.join("checkpoint.bin"));
    assert!(status.checkpoint.exists(), "{}", status.checkpoint.display());
    assert!(Checkpoint::load(&status.checkpoint).is_ok());
    let (code, _, err) = trainer(&status.resume);
    assert_eq!(code, 0, "{err}");
    // Resumed into an --out that holds another run (its checkpoint, or only its net): refused
    // naming it, and that run's files are left as they were.
    let other = dir.join("other");
    let (code, _, err) = train_tiny(
        &data,
        &other,
        &["--hidden", "16", "--superbatches", "2", "--batch-size", "64"],
    );
    assert_eq!(code, 0, "{err}");
    let (held_checkpoint, held_net) = (
        std::fs::read(other.join("checkpoint.bin")).unwrap(),
        std::fs::read(other.join("final.nnue")).unwrap(),
    );
    let resume_into_other = || resume_into(&data, &other, &resume);
    let (code, _, err) = resume_into_other();
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("already holds another training run") && err.contains("checkpoint.bin"),
        "{err}"
    );
    assert_eq!(
        std::fs::read(other.join("checkpoint.bin")).unwrap(),
        held_checkpoint
    );
    std::fs::remove_file(other.join("checkpoint.bin")).unwrap();
    let (code, _, err) = resume_into_other();
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("already holds another training run") && err.contains("final.nnue"),
        "{err}"
    );
    assert_eq!(std::fs::read(other.join("final.nnue")).unwrap(), held_net);
    // Its own directory, named another way, is no other run.
    let again = dir.join("new/../new/checkpoint.bin");
    let (code, _, err) = resume_into(&data, &new, &again);
    assert_eq!(code, 0, "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// A file that is not training data at all (a bad header and not one game after it) is
/// refused by name, where it used to leave only a warning and "no training positions".
#[test]
fn a_file_that_is_not_training_data_is_refused_by_name() {
    let dir = temp_dir("notdata");
    let notes = dir.join("notes.md");
    std::fs::write(
        &notes,
        "# Notes\n\nNot a data file: a few lines of text.\n".repeat(40),
    )
    .unwrap();
    let (code, _, err) = trainer(&[
        "train",
        "--data",
        notes.to_str().unwrap(),
        "--hidden",
        "16",
        "--superbatches",
        "1",
        "--out",
        dir.join("run").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("notes.md is not training data"), "{err}");
    assert!(!dir.join("run/final.nnue").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn ctrl_c_stops_a_training_with_exit_130_and_says_where_it_goes_on() {
    // A stop asked for is not a failure: exit 130 (as datagen). After a superbatch the
    // checkpoint is named; before the first one ends, that nothing was saved (and no
    // checkpoint is named that is not there). A failure stays 2 (a missing data file).
    let dir = temp_dir("ctrl-c");
    let data = dir.join("games.bin");
    write_games(&data);
    for (name, batches, wait_for) in [
        ("short", "2", "checkpoint.bin"),
        ("long", "100000000", "loss.csv"),
    ] {
        let run = dir.join(name);
        let child = Command::new(env!("CARGO_BIN_EXE_trainer"))
            .args(["train", "--data"])
            .arg(&data)
            .arg("--out")
            .arg(&run)
            .args([
                "--hidden",
                "16",
                "--superbatches",
                "1000000",
                "--batch-size",
                "64",
            ])
            .args(["--batches-per-superbatch", batches])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        while !run.join(wait_for).exists() {
            assert!(
                start.elapsed().as_secs() < 60,
                "{name}: no {wait_for} after a minute"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        testing::interrupt(&child);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(130), "{name}: {err}");
        assert!(!err.contains("error"), "a stop asked for is no error: {err}");
        let checkpoint = run.join("checkpoint.bin");
        if name == "short" {
            assert!(
                err.contains(&format!(
                    "trainer: interrupted; resume from {}",
                    checkpoint.display()
                )),
                "{err}"
            );
            assert!(Checkpoint::load(&checkpoint).unwrap().superbatches_done > 0);
        } else {
            assert!(
                err.contains(
                    "trainer: interrupted before the first superbatch ended; no checkpoint was saved"
                ),
                "{err}"
            );
            assert!(!checkpoint.exists());
        }
    }
    let (code, _, err) = train_tiny(&dir.join("missing.bin"), &dir.join("run2"), &[]);
    assert_eq!(code, 2, "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_net_given_for_a_checkpoint_and_a_checkpoint_for_a_net_are_named_as_such() {
    let dir = temp_dir("kinds");
    let data = dir.join("games.bin");
    write_games(&data);
    let run = dir.join("run");
    let (code, _, err) = train_tiny(
        &data,
        &run,
        &["--hidden", "16", "--superbatches", "1", "--batch-size", "64"],
    );
    assert_eq!(code, 0, "{err}");
    let (checkpoint, net) = (run.join("checkpoint.bin"), run.join("final.nnue"));
    let as_net = "a trainer checkpoint, not a net file (`trainer export CHECKPOINT --out NET` makes a net of it; `trainer train --resume CHECKPOINT` goes on with its run)";
    let as_checkpoint = format!(
        "{} is a net file, not a trainer checkpoint (a net starts a run with `--init`; `--resume` and `export` take a run's checkpoint.bin)",
        net.display()
    );
    let (c, n, d) = (
        checkpoint.to_str().unwrap(),
        net.to_str().unwrap(),
        data.to_str().unwrap(),
    );
    let cases: Vec<(Vec<String>, String)> = vec![
        (
            train_tiny_args(&data, &dir.join("r2"), &["--hidden", "16", "--init", c]),
            format!("--init {c}: {as_net}"),
        ),
        (
            ["validate", "--net", c, "--data", d].map(String::from).to_vec(),
            as_net.to_string(),
        ),
        (
            ["export", n, "--out", dir.join("x.nnue").to_str().unwrap()]
                .map(String::from)
                .to_vec(),
            as_checkpoint.clone(),
        ),
        (
            train_tiny_args(&data, &dir.join("r3"), &["--resume", n]),
            as_checkpoint.clone(),
        ),
    ];
    for (args, expected) in cases {
        let (code, _, err) = trainer(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.contains(&expected), "{args:?}: {err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Where a run's files could replace or join its own inputs: refused before any work, and
/// the inputs are left as they were. `validate --json` onto a data file found in a
/// directory; one file given twice (its games would count twice and a held-out game be
/// trained on through its copy); an `--out` inside a data directory (its checkpoint.bin
/// would be read as data); an `--out` that is a file; a resume into a directory that holds
/// another run's loss table only. A checkpoint named bare from its own directory resumes.
#[test]
fn outputs_never_replace_or_join_the_inputs() {
    let dir = temp_dir("outputs-inputs");
    let data_dir = dir.join("data");
    std::fs::create_dir_all(&data_dir).unwrap();
    let data = data_dir.join("games-0.bin");
    write_games(&data);
    let before = std::fs::read(&data).unwrap();
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/gen1-32.nnue");
    let (code, _, err) = trainer(&[
        "validate".as_ref(),
        "--net".as_ref(),
        net.as_os_str(),
        "--data".as_ref(),
        data_dir.as_os_str(),
        "--json".as_ref(),
        data.as_os_str(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("it is one of the inputs"), "{err}");
    assert_eq!(std::fs::read(&data).unwrap(), before);
    let tiny = ["--hidden", "16", "--superbatches", "1", "--batch-size", "64"];
    // Given twice: as a file and in its directory.
    let (code, _, err) = trainer(&[
        "train",
        "--data",
        data_dir.to_str().unwrap(),
        data.to_str().unwrap(),
        "--out",
        dir.join("twice").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is given twice as data"), "{err}");
    assert!(!dir.join("twice").exists());
    // An --out in a data directory, or a file.
    let (code, _, err) = train_tiny(&data_dir, &data_dir.join("run"), &tiny);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("lies in the data directory"), "{err}");
    assert!(!data_dir.join("run").exists());
    // The same through a folder that is not there and `..`.
    let (code, _, err) = train_tiny(&data_dir, &data_dir.join("none/../run"), &tiny);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("lies in the data directory"), "{err}");
    let (code, _, err) = train_tiny(&data_dir, &data, &tiny);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is a file: give a directory"), "{err}");
    assert_eq!(std::fs::read(&data).unwrap(), before);
    // A run, resumed from its own directory by a bare name.
    let run = dir.join("run");
    let (code, _, err) = train_tiny(&data, &run, &tiny);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("note: nothing was held out for validation"), "{err}");
    let out = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .current_dir(&run)
        .args([
            "train",
            "--data",
            data.to_str().unwrap(),
            "--out",
            ".",
            "--resume",
            "checkpoint.bin",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // Resumed into a directory holding another run's loss table alone.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("loss.csv"), "superbatch,train_loss\n1,0.5\n").unwrap();
    let (code, _, err) = trainer(&[
        "train",
        "--data",
        data.to_str().unwrap(),
        "--out",
        other.to_str().unwrap(),
        "--resume",
        run.join("checkpoint.bin").to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("already holds another training run") && err.contains("loss.csv"),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Ctrl-C while the data loads (here a FIFO whose writer sends nothing, so the loading waits)
/// ends `train` and `validate` at once with 130, saying that nothing was written; `train`
/// leaves no checkpoint, net or loss table. It used to die by the signal without a word.
#[test]
fn ctrl_c_while_loading_ends_at_once_saying_nothing_was_written() {
    let dir = temp_dir("ctrl-c-loading");
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/gen1-32.nnue");
    let fifo = dir.join("games.bin");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let out = dir.join("run");
    let train = train_tiny_args(&fifo, &out, &[]);
    let validate: Vec<String> = ["validate", "--net"]
        .iter()
        .map(|s| s.to_string())
        .chain([
            net.display().to_string(),
            "--data".into(),
            fifo.display().to_string(),
        ])
        .collect();
    for (args, doing) in [(train, "loading the data"), (validate, "validating")] {
        let child = Command::new(env!("CARGO_BIN_EXE_trainer"))
            .args(&args)
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let done = testing::interrupt_while_reading(child, &fifo);
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert_eq!(done.status.code(), Some(130), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "trainer: interrupted while {doing}; nothing was written"
            )),
            "{args:?}: {stderr}"
        );
    }
    for name in ["checkpoint.bin", "loss.csv", "status.json"] {
        assert!(!out.join(name).exists(), "{name}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
