//! `learn` with a closed stdout (`learn status DIR | head -1`): each command ends quietly
//! with the status of a closed pipe, having done its work (`init` made its run directory).

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

#[test]
fn a_closed_stdout_ends_learn_quietly() {
    let dir = testing::temp("stdout");
    let net = Path::new(env!("CARGO_MANIFEST_DIR")).join("../nets/gen1-32.nnue");
    let run = dir.join("run");
    for args in [
        vec![
            "init".to_string(),
            run.display().to_string(),
            "--net".into(),
            net.display().to_string(),
        ],
        vec!["status".to_string(), run.display().to_string()],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_learn"))
            .args(&args)
            .stdout(output::closed_pipe().unwrap())
            .output()
            .unwrap();
        assert_eq!(output::closed_stdout_fault(&out), None, "{args:?}");
    }
    assert!(run.join("learn.toml").exists());
    std::fs::remove_dir_all(&dir).ok();
}
