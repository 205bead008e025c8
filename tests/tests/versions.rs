//! Every tool of the workspace answers `--version` with its name and the workspace's version
//! on standard output and exits 0 (a script or a bug report can name the build it ran).
//! arena prints fastchess's form first (OpenBench reads it), then its own name and version.
//!
//! The binaries are the ones the workspace test command builds (see full_loop.rs).

#![allow(clippy::unwrap_used)]

use std::process::Command;
use tests::binary;

#[test]
fn every_tool_names_itself_and_the_workspace_version() {
    let version = env!("CARGO_PKG_VERSION");
    for tool in ["luft", "perft", "datagen", "trainer", "arena", "learn"] {
        let out = Command::new(binary(tool)).arg("--version").output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{tool}: {out:?}");
        let expected = if tool == "arena" {
            format!("arena {version}")
        } else {
            format!("{tool} {version}")
        };
        assert!(text.contains(&expected), "{tool}: {text:?} lacks {expected:?}");
        if tool != "arena" {
            assert_eq!(text.trim_end(), expected, "{tool}: one line");
        }
    }
}
