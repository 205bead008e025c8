//! Copies the default net into `OUT_DIR` for `include_bytes!`: the net `DEFAULT_NET` names, or
//! the file named by the `EVALFILE` environment variable at build time (the OpenBench
//! contract). Nothing is written into the source tree. The file is read first with the
//! engine's own loader (`nnue::Network::load`, the one any `EvalFile` goes through), so a
//! file that is not a valid net fails the build with the loader's reason, never a binary
//! that cannot start.

use std::env;
use std::path::PathBuf;

const DEFAULT_NET: &str = "../nets/gen25-128.nnue";

fn main() {
    println!("cargo:rerun-if-env-changed=EVALFILE");
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let source = match env::var("EVALFILE") {
        Ok(path) if !path.is_empty() => {
            let p = PathBuf::from(&path);
            if p.is_absolute() {
                p
            } else {
                // Relative to the workspace root, where `make` runs.
                manifest.join("..").join(p)
            }
        }
        _ => manifest.join(DEFAULT_NET),
    };
    println!("cargo:rerun-if-changed={}", source.display());
    if let Err(e) = nnue::Network::load(&source) {
        eprintln!(
            "error: the net to embed, {}, is not a valid net: {e}",
            source.display()
        );
        std::process::exit(1);
    }
    let out = PathBuf::from(env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("default.nnue");
    if let Err(e) = std::fs::copy(&source, &out) {
        panic!("cannot copy the default net {}: {e}", source.display());
    }
}
