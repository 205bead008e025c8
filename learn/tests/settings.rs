//! `learn run` checks `learn.toml` before any work: a value no stage could run with (a time
//! control that does not parse, SPRT bounds that are not numbers or error rates outside
//! (0, 0.5), a size of 0, more output buckets than a net can have, extra data that is not
//! there) stops it at once with an error naming the key and the value, and nothing is
//! appended to the journal. `learn init` refuses extra data that is not there, before it
//! writes anything.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use testing::temp;

fn net() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/gen1-32.nnue")
}

fn learn(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_learn"))
        .args(args)
        .output()
        .unwrap()
}

fn init(run: &Path) {
    let out = learn(&["init", run.to_str().unwrap(), "--net", net().to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Tools that are not there: a run that got past the settings would stop on them instead
/// (and a run that got further would do work).
const NO_TOOLS: &str = "[tools]\nluft = \"no-such-luft\"\ndatagen = \"no-such-datagen\"\n\
                        trainer = \"no-such-trainer\"\narena = \"no-such-arena\"\n";

#[test]
fn every_bad_setting_is_refused_at_start_naming_its_key_and_value() {
    let dir = temp("bad");
    let run = dir.join("run");
    init(&run);
    let journal = std::fs::read(run.join("journal")).unwrap();
    for (section, line, named) in [
        ("gate", "tc = \"abc\"", "[gate] tc = \"abc\""),
        ("gate", "elo0 = nan", "[gate] elo0 = nan"),
        ("gate", "elo1 = inf", "[gate] elo1 = inf"),
        ("gate", "alpha = 0.0", "[gate] alpha = 0.0"),
        ("gate", "alpha = 2.0", "[gate] alpha = 2.0"),
        ("gate", "beta = 0.5", "[gate] beta = 0.5"),
        ("gate", "hash = 0", "[gate] hash = 0"),
        ("train", "batch_size = 0", "[train] batch_size = 0"),
        (
            "train",
            "batches_per_superbatch = 0",
            "[train] batches_per_superbatch = 0",
        ),
        ("train", "threads = 0", "[train] threads = 0"),
        // The trainer's own limit (trainer::MAX_EPOCHS).
        ("train", "epochs = 1000001", "[train] epochs = 1000001"),
        ("train", "epochs_scratch = 0", "[train] epochs_scratch = 0"),
        ("train", "buckets = 1000", "[train] buckets = 1000"),
        ("train", "hidden = 8", "[train] hidden = 8"),
        ("train", "wdl_end = 1.5", "[train] wdl_end = 1.5"),
        ("selfplay", "random_plies = 100", "[selfplay] random_plies = 100"),
        ("selfplay", "random_plies = 41", "[selfplay] random_plies = 41"),
        // datagen's own limit (it used to pass here and fail in self-play, three times).
        ("selfplay", "nodes = 100000001", "[selfplay] nodes = 100000001"),
        (
            "selfplay",
            "threads_idle = 1000",
            "[selfplay] threads_idle = 1000",
        ),
        ("gauntlet", "games = 3", "[gauntlet] games = 3"),
    ] {
        std::fs::write(run.join("learn.toml"), format!("[{section}]\n{line}\n{NO_TOOLS}")).unwrap();
        let out = learn(&["run", run.to_str().unwrap(), "--candidates", "1"]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{line}: {err}");
        assert!(
            err.contains(named),
            "{line}: the error names the key and value: {err}"
        );
        assert_eq!(
            std::fs::read(run.join("journal")).unwrap(),
            journal,
            "{line}: nothing is journaled"
        );
    }
    // A tool that is there but is no program (a directory; a file without the execute bit):
    // refused at start, where it used to fail in the gate three times over.
    let plain = dir.join("plain-file");
    std::fs::write(&plain, "not a program").unwrap();
    for (what, path) in [("a directory", &dir), ("a plain file", &plain)] {
        let tools = NO_TOOLS.replace("no-such-luft", path.to_str().unwrap());
        std::fs::write(run.join("learn.toml"), tools).unwrap();
        let out = learn(&["run", run.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{what}: {err}");
        assert!(
            err.contains("[tools] luft = ") && err.contains("not a program"),
            "{what}: {err}"
        );
    }
    // The elo bounds must make an SPRT: elo1 above elo0.
    std::fs::write(
        run.join("learn.toml"),
        format!("[gate]\nelo0 = 5.0\nelo1 = 5.0\n{NO_TOOLS}"),
    )
    .unwrap();
    let out = learn(&["run", run.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("[gate] elo1 = 5.0") && err.contains("elo0"), "{err}");
    // A type error names the key too.
    std::fs::write(
        run.join("learn.toml"),
        format!("[train]\nthreads = \"two\"\n{NO_TOOLS}"),
    )
    .unwrap();
    let out = learn(&["run", run.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("threads") && err.contains("two"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn extra_data_that_is_not_there_is_an_error_not_a_silent_skip() {
    let dir = temp("extra");
    // At init: nothing is written.
    let run = dir.join("run");
    let missing = dir.join("no-such-data");
    let out = learn(&[
        "init",
        run.to_str().unwrap(),
        "--net",
        net().to_str().unwrap(),
        "--extra-data",
        missing.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("extra_data") && err.contains("no-such-data"),
        "{err}"
    );
    assert!(!run.join("journal").exists() && !run.join("learn.toml").exists());
    // The same data twice (a directory and a file in it): refused at init, naming it.
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../datagen/tests/data/format2-gen4.bin"),
        data.join("games-0.bin"),
    )
    .unwrap();
    let out = learn(&[
        "init",
        run.to_str().unwrap(),
        "--net",
        net().to_str().unwrap(),
        "--extra-data",
        data.to_str().unwrap(),
        "--extra-data",
        data.join("games-0.bin").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("is given twice as data"), "{err}");
    assert!(!run.join("journal").exists() && !run.join("learn.toml").exists());
    // At run: a relative path is read from the settings file's directory.
    init(&run);
    let journal = std::fs::read(run.join("journal")).unwrap();
    std::fs::write(
        run.join("learn.toml"),
        format!("[train]\nextra_data = [\"../gone\"]\n{NO_TOOLS}"),
    )
    .unwrap();
    let out = learn(&["run", run.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("[train] extra_data") && err.contains("../gone"),
        "{err}"
    );
    assert_eq!(std::fs::read(run.join("journal")).unwrap(), journal);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn relative_extra_data_is_written_relative_to_the_run_directory() {
    let dir = temp("relative");
    std::fs::create_dir_all(dir.join("shared/data")).unwrap();
    std::fs::create_dir_all(dir.join("work")).unwrap();
    // From dir/work: ../shared/data, into a run two levels down.
    let out = Command::new(env!("CARGO_BIN_EXE_learn"))
        .current_dir(dir.join("work"))
        .args([
            "init",
            "runs/main",
            "--net",
            net().to_str().unwrap(),
            "--extra-data",
            "../shared/data",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let run = dir.join("work/runs/main");
    let text = std::fs::read_to_string(run.join("learn.toml")).unwrap();
    assert!(text.contains("extra_data = [\"../../../shared/data\"]"), "{text}");
    // The run finds it (and stops on the missing tools instead).
    let mut settings = text.replace("[tools]", "[unused]");
    settings = settings.split("[unused]").next().unwrap().to_string();
    std::fs::write(run.join("learn.toml"), format!("{settings}{NO_TOOLS}")).unwrap();
    let out = learn(&["run", run.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("no-such-luft not found"), "{err}");
    // A run directory reached through a symbolic link: the path is made from where the run
    // really lies, so that it leads back to the data (it used to be taken back lexically).
    #[cfg(unix)]
    {
        std::fs::create_dir_all(dir.join("work/real/deep")).unwrap();
        std::os::unix::fs::symlink(dir.join("work/real/deep"), dir.join("work/link")).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_learn"))
            .current_dir(dir.join("work"))
            .args([
                "init",
                "link/run",
                "--net",
                net().to_str().unwrap(),
                "--extra-data",
                "../shared/data",
            ])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(dir.join("work/link/run/learn.toml")).unwrap();
        assert!(
            text.contains("extra_data = [\"../../../../shared/data\"]"),
            "{text}"
        );
        let out = learn(&["status", dir.join("work/link/run").to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(!err.contains("is not there"), "{err}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_recipe_is_refused_at_start_naming_the_recipe_and_its_key() {
    let dir = temp("recipes");
    let run = dir.join("run");
    init(&run);
    let journal = std::fs::read(run.join("journal")).unwrap();
    let good = "[[train.recipes]]\nname = \"base\"\n";
    for (recipes, named) in [
        (
            "[[train.recipes]]\nname = \"long\"\nepoch = 32\n",
            vec!["unknown field", "epoch"],
        ),
        (
            "[[train.recipes]]\nname = \"long\"\nepochs = 0\n",
            vec!["[train.recipes.long] epochs = 0"],
        ),
        (
            "[[train.recipes]]\nname = \"results\"\nwdl = 1.5\n",
            vec!["[train.recipes.results] wdl = 1.5"],
        ),
        (
            "[[train.recipes]]\nname = \"scores\"\nwdl = -0.1\n",
            vec!["[train.recipes.scores] wdl = -0.1"],
        ),
        (
            "[[train.recipes]]\nname = \"moving\"\nwdl_end = 2.0\n",
            vec!["[train.recipes.moving] wdl_end = 2.0"],
        ),
        (
            "[[train.recipes]]\nname = \"base\"\nlr = 0.002\n",
            vec!["[train.recipes] name = \"base\"", "two recipes"],
        ),
        (
            "[[train.recipes]]\nname = \"a b\"\n",
            vec!["[train.recipes] name = \"a b\"", "plain name"],
        ),
        (
            "[[train.recipes]]\nname = \"wide\"\nhidden = 100\n",
            vec!["[train.recipes.wide] hidden = 100"],
        ),
        (
            "[[train.recipes]]\nname = \"f\"\narch = \"(768 -> 32)x2 -> 1x8\"\nfactorise = true\n",
            vec!["[train.recipes.f] factorise = true", "king buckets"],
        ),
    ] {
        std::fs::write(run.join("learn.toml"), format!("{good}{recipes}{NO_TOOLS}")).unwrap();
        let out = learn(&["run", run.to_str().unwrap(), "--candidates", "1"]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{recipes}: {err}");
        for words in &named {
            assert!(err.contains(words), "{recipes}: the error names {words}: {err}");
        }
        assert_eq!(
            std::fs::read(run.join("journal")).unwrap(),
            journal,
            "{recipes}: nothing is journaled"
        );
    }
    // Good recipes pass the check (the run stops on the missing tools instead).
    std::fs::write(
        run.join("learn.toml"),
        format!(
            "{good}[[train.recipes]]\nname = \"long\"\nepochs = 32\nwdl = 0.2\nseed = 9\n\
             [[train.recipes]]\nname = \"kb\"\narch = \"(768x4 -> 32)x2 -> 1x8\"\nfactorise = true\n{NO_TOOLS}"
        ),
    )
    .unwrap();
    let out = learn(&["run", run.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.contains("no-such-luft not found"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// Extra data that holds the run's own self-play (its `data/` or `packs/`, a file in them,
/// or the run directory that holds both) is refused at start, naming the key: every
/// training reads those already, and the trainer would refuse the files reached twice at
/// every training until the run stopped. Data beside the run is taken.
#[test]
fn extra_data_holding_the_runs_own_self_play_is_refused_at_start() {
    let dir = temp("own-data");
    let run = dir.join("run");
    init(&run);
    let beside = dir.join("corpus");
    std::fs::create_dir_all(&beside).unwrap();
    let journal = std::fs::read(run.join("journal")).unwrap();
    // A fresh run has no data/ or packs/ yet: the run directory, or a folder holding it, is
    // refused all the same.
    let quoted = |p: &Path| format!("{:?}", p.to_str().unwrap());
    let fresh = [
        ("\".\"".to_string(), "data"),
        (quoted(&run), "data"),
        (quoted(&dir), "data"),
    ];
    let absolute = run.join("data/s000/games-0.bin");
    let later = [
        ("\"data\"".to_string(), "data"),
        ("\"packs\"".to_string(), "packs"),
        (quoted(&absolute), "data"),
    ];
    for (i, (extra, named)) in fresh.iter().chain(&later).enumerate() {
        if i == fresh.len() {
            for sub in ["data/s000", "packs"] {
                std::fs::create_dir_all(run.join(sub)).unwrap();
            }
            std::fs::write(&absolute, b"").unwrap();
        }
        let settings = format!("[train]\nextra_data = [{extra}]\n{NO_TOOLS}");
        std::fs::write(run.join("learn.toml"), &settings).unwrap();
        let out = learn(&["run", run.to_str().unwrap(), "--candidates", "1"]);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(1), "{extra}: {err}");
        assert!(
            err.contains("[train] extra_data")
                && err.contains(&format!(
                    "holds the run's own self-play ({})",
                    run.join(named).display()
                )),
            "{extra}: {err}"
        );
        assert_eq!(std::fs::read(run.join("journal")).unwrap(), journal, "{extra}");
    }
    // A folder beside the run holding a symbolic link to one of the run's own files.
    let linked = dir.join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::os::unix::fs::symlink(&absolute, linked.join("games-0.bin")).unwrap();
    let settings = format!("[train]\nextra_data = [{}]\n{NO_TOOLS}", quoted(&linked));
    std::fs::write(run.join("learn.toml"), settings).unwrap();
    let out = learn(&["run", run.to_str().unwrap(), "--candidates", "1"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("[train] extra_data") && err.contains("which is the run's own self-play"),
        "{err}"
    );
    std::fs::remove_dir_all(&linked).unwrap();
    // Extra data that reaches one file twice (a folder and a file in it) is refused too.
    std::fs::write(beside.join("games-0.bin"), b"").unwrap();
    let settings = format!(
        "[train]\nextra_data = [{}, {}]\n{NO_TOOLS}",
        quoted(&beside),
        quoted(&beside.join("games-0.bin"))
    );
    std::fs::write(run.join("learn.toml"), settings).unwrap();
    let out = learn(&["run", run.to_str().unwrap(), "--candidates", "1"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("[train] extra_data") && err.contains("is given twice as data"),
        "{err}"
    );
    // learn init refuses its own run directory as extra data, before it writes anything.
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    let out = learn(&[
        "init",
        other.to_str().unwrap(),
        "--net",
        net().to_str().unwrap(),
        "--extra-data",
        other.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("holds the run's own self-play"), "{err}");
    assert_eq!(std::fs::read_dir(&other).unwrap().count(), 0, "nothing written");
    // Beside the run: past the settings, the run stops on the missing tools instead.
    let settings = format!(
        "[train]\nextra_data = [{:?}]\n{NO_TOOLS}",
        beside.to_str().unwrap()
    );
    std::fs::write(run.join("learn.toml"), settings).unwrap();
    let out = learn(&["run", run.to_str().unwrap(), "--candidates", "1"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("own self-play") && err.contains("no-such"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}
