//! `trainer validate`: the loss of finished nets on held-out data at fixed WDL weights.
//! Checked against the training loss computed directly (`model::loss_only` over every
//! kept position), the count of kept positions against the golden table of the data file,
//! the order of two nets of known strength, the JSON it writes, and its refusals.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use trainer::data::{load_packed, Position};
use trainer::model::{loss_only, Model};
use trainer::validate::validate;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// 120 games of gen3 self-play (a data file of format 1), 11,476 positions kept by the
/// training filter (tests/data/golden-digests.tsv).
fn data() -> PathBuf {
    root().join("testdata/selfplay/gen3-b-v1.bin")
}

#[test]
fn losses_are_the_training_loss_over_every_kept_position() {
    let nets = [root().join("nets/gen1-32.nnue"), root().join("nets/gen3-32.nnue")];
    let v = validate(&nets, &[data()], &[0.0, 0.3, 1.0]).unwrap();
    assert_eq!(v.positions, 11_476);
    assert!(v.warnings.is_empty(), "{:?}", v.warnings);
    let (packed, _) = load_packed(&[data()]).unwrap();
    for (net, got) in nets.iter().zip(&v.nets) {
        let model = Model::from_network(&nnue::Network::load(net).unwrap()).unwrap();
        let decoded: Vec<Position> = packed
            .iter()
            .map(|p| p.unpack_features(&model.features))
            .collect();
        assert_eq!(got.net, *net);
        assert_eq!(got.losses.len(), 3);
        for &(wdl, loss) in &got.losses {
            let want = loss_only(&model, &decoded, wdl);
            assert!(
                (loss - want).abs() < 1e-9 * want.max(1.0),
                "{net:?} wdl {wdl}: {loss} against {want}"
            );
            assert!(loss > 0.0 && loss < 1.0);
        }
    }
    // gen3 was trained on gen1-2 self-play with a better net and predicts gen3's own games
    // better than gen1 (a material-trained net) does, at every weight.
    for i in 0..3 {
        assert!(v.nets[1].losses[i].1 < v.nets[0].losses[i].1, "{:?}", v.nets);
    }
}

#[test]
fn bad_input_is_refused() {
    let net = root().join("nets/gen3-32.nnue");
    let err = validate(std::slice::from_ref(&net), &[data()], &[1.5]).unwrap_err();
    assert!(err.to_string().contains("between 0 and 1"), "{err}");
    let missing = root().join("nets/no-such-net.nnue");
    let err = validate(&[missing], &[data()], &[0.3]).unwrap_err();
    assert!(err.to_string().contains("no-such-net.nnue"), "{err}");
    let empty = testing::temp("validate-empty");
    assert!(validate(&[net], std::slice::from_ref(&empty), &[0.3]).is_err());
    std::fs::remove_dir_all(&empty).ok();
}

#[test]
fn the_command_prints_a_table_and_writes_json() {
    let dir = testing::temp("validate-cli");
    let json = dir.join("losses.json");
    let net = root().join("nets/gen3-32.nnue");
    let out = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["validate", "--net"])
        .arg(&net)
        .arg("--data")
        .arg(data())
        .args(["--wdl", "0.3", "1", "--json"])
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("11476 positions\n"), "{text}");
    assert!(text.contains("gen3-32.nnue"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["positions"], 11_476);
    assert_eq!(v["nets"][0]["losses"].as_array().unwrap().len(), 2);
    assert_eq!(v["nets"][0]["losses"][1][0], 1.0);
    // A weight outside [0, 1] is refused by the command line, with no file written.
    let out = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(["validate", "--net"])
        .arg(&net)
        .arg("--data")
        .arg(data())
        .args(["--wdl", "2"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    std::fs::remove_dir_all(&dir).ok();
}
