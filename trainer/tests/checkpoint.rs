//! Checkpoint files across versions: the current version (serde + postcard in the checksummed
//! envelope, with the model's mirroring, king buckets, hidden layers and factoriser)
//! round-trips, mirrored or not, factorised or not; versions 6 and 5 load as models without
//! what came later; a version 3 file of an
//! earlier build (`data/checkpoint-v3.bin`, commit 03adc34: `trainer train --data
//! gen3-b.bin --hidden 16 --buckets 2 --superbatches 2 --batches-per-superbatch 2
//! --batch-size 64 --wdl 0.5 --seed 3`) and a version 2 file written by an earlier trainer
//! build (`data/checkpoint-v2.bin`: the same settings on 3 self-play games) still load,
//! unmirrored, and export the nets those builds exported, and are saved again as the current version;
//! a version 1 file (no output buckets) still loads; damage of every kind is an error, never
//! a panic.

#![allow(clippy::unwrap_used)]

mod common;

use common::temp_dir;
use output::checksum::fnv1a;
use trainer::model::Model;
use trainer::train::{Checkpoint, TrainConfig, ValidationSplit, CHECKPOINT_VERSION};

const V2: &[u8] = include_bytes!("data/checkpoint-v2.bin");
/// The fingerprint of `final.nnue` that the earlier build wrote beside the v2 checkpoint.
const V2_NET_FINGERPRINT: u64 = 0x6cae_9b9f_0c76_536c;
const V3: &[u8] = include_bytes!("data/checkpoint-v3.bin");
/// The fingerprint of `final.nnue` that commit 03adc34 wrote beside the v3 checkpoint.
const V3_NET_FINGERPRINT: u64 = 0xdad8_f9fd_a5c8_b70d;

fn version_of(bytes: &[u8]) -> u32 {
    u32::from_le_bytes(bytes[8..12].try_into().unwrap())
}

/// Replaces the trailing checksum with the right one for the (edited) bytes before it.
fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
    let n = bytes.len() - 8;
    let sum = fnv1a(&bytes[..n]);
    bytes[n..].copy_from_slice(&sum.to_le_bytes());
    bytes
}

fn sample(hidden: usize, buckets: usize) -> Checkpoint {
    let config = TrainConfig {
        hidden,
        buckets,
        superbatches: 7,
        batches_per_superbatch: 3,
        batch_size: 1000,
        wdl: 0.25,
        wdl_end: None,
        lr: 0.002,
        seed: 77,
        // What every version before 9 reads back (see `old_bytes`).
        split: ValidationSplit::Positions,
    };
    let mut c = Checkpoint::new(config, Model::random_bucketed(hidden, buckets, 4));
    c.superbatches_done = 2;
    c.history = vec![(0.5, f64::NAN), (0.25, 0.125)];
    for (i, x) in c.m.iter_mut().enumerate() {
        *x = i as f32 * 1e-3;
    }
    for (i, x) in c.v.iter_mut().enumerate() {
        *x = (i % 17) as f32;
    }
    c
}

/// Version 1's layout, as earlier builds wrote it (no output buckets field).
fn v1_bytes(c: &Checkpoint) -> Vec<u8> {
    assert_eq!(c.config.buckets, 1, "version 1 knew one output bucket only");
    let mut out = b"LUFTCKPT".to_vec();
    for v in [
        1u32,
        c.config.hidden as u32,
        c.config.superbatches,
        c.config.batches_per_superbatch,
        c.config.batch_size as u32,
        c.superbatches_done,
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    out.extend_from_slice(&c.config.wdl.to_le_bytes());
    out.extend_from_slice(&c.config.lr.to_le_bytes());
    out.extend_from_slice(&c.config.seed.to_le_bytes());
    out.extend_from_slice(&(c.history.len() as u32).to_le_bytes());
    for (a, b) in &c.history {
        out.extend_from_slice(&a.to_le_bytes());
        out.extend_from_slice(&b.to_le_bytes());
    }
    for array in [&c.model.params, &c.m, &c.v] {
        for x in array {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out.extend_from_slice(&[0; 8]);
    reseal(out)
}

/// Equality that treats NaN losses as equal (a run without validation stores NaN).
fn same(a: &Checkpoint, b: &Checkpoint) -> bool {
    let history = a.history.len() == b.history.len()
        && a.history
            .iter()
            .zip(&b.history)
            .all(|(x, y)| (x.0.to_bits() == y.0.to_bits()) && (x.1.to_bits() == y.1.to_bits()));
    history
        && a.config == b.config
        && a.superbatches_done == b.superbatches_done
        && a.model == b.model
        && a.m == b.m
        && a.v == b.v
}

#[test]
fn the_current_version_round_trips() {
    for (hidden, buckets, mirrored) in [(16, 1, false), (32, 8, false), (16, 2, true)] {
        let mut c = sample(hidden, buckets);
        c.model = c.model.clone().with_mirroring(mirrored);
        let bytes = c.to_bytes().unwrap();
        assert_eq!(&bytes[..8], b"LUFTCKPT");
        assert_eq!(version_of(&bytes), CHECKPOINT_VERSION);
        assert_eq!(CHECKPOINT_VERSION, 9);
        let back = Checkpoint::from_bytes(&bytes).unwrap();
        assert!(same(&back, &c));
        assert_eq!(back.model.mirrored(), mirrored);
        assert_eq!(back.model.to_network().unwrap().mirrored(), mirrored);
        // Deterministic: the same checkpoint gives the same bytes.
        assert_eq!(back.to_bytes().unwrap(), bytes);
    }
}

/// The file of `c` (a plain model without a factoriser or a WDL schedule) in `version` 8,
/// 7, 6 or 5: the current version without the validation split byte that follows the
/// `wdl_end` byte, for 7 without the `wdl_end` byte (0: none) either, which follows the
/// factoriser byte, for 6 without the factoriser byte (0) either, which follows the hidden
/// layer widths, and for 5 without the widths, an empty list (one byte 0) right after the
/// king bucket count (1) and the 64-byte map.
fn old_bytes(c: &Checkpoint, version: u32) -> Vec<u8> {
    assert!(c.model.layers.is_empty() && c.model.features.king_buckets_count() == 1);
    assert!(!c.model.factoriser && c.config.wdl_end.is_none());
    let mut bytes = c.to_bytes().unwrap();
    let mut pattern = vec![1u8, 64];
    pattern.extend([0u8; 67]);
    let at = bytes
        .windows(pattern.len())
        .position(|w| w == pattern.as_slice())
        .expect("the king buckets, the map, the empty layer list, no factoriser, no WDL schedule");
    // From the last field back: validation split, wdl_end, factoriser, layers.
    for (field, since) in [(69, 9), (68, 8), (67, 7), (66, 6)] {
        if version < since {
            bytes.remove(at + field);
        }
    }
    bytes[8..12].copy_from_slice(&version.to_le_bytes());
    reseal(bytes)
}

fn v5_bytes(c: &Checkpoint) -> Vec<u8> {
    old_bytes(c, 5)
}

#[test]
fn version_8_loads_as_split_by_position_and_version_9_keeps_the_split() {
    let c = sample(32, 8);
    let v8 = old_bytes(&c, 8);
    assert_eq!(version_of(&v8), 8);
    assert_eq!(v8.len() + 1, c.to_bytes().unwrap().len());
    let back = Checkpoint::from_bytes(&v8).unwrap();
    assert!(same(&back, &c));
    assert_eq!(back.config.split, ValidationSplit::Positions);
    let mut by_game = c.clone();
    by_game.config.split = ValidationSplit::Games;
    let bytes = by_game.to_bytes().unwrap();
    assert_eq!(version_of(&bytes), 9);
    let back = Checkpoint::from_bytes(&bytes).unwrap();
    assert!(same(&back, &by_game));
    assert_eq!(back.config.split, ValidationSplit::Games);
    // Each split keeps its code: a run of 2026-12-07 (code 1, games in reading order)
    // resumes with its split, a run since with the split by record (code 2).
    let code_at = split_byte(&bytes);
    assert_eq!(bytes[code_at], 2);
    let mut in_order = c.clone();
    in_order.config.split = ValidationSplit::GamesInOrder;
    let in_order_bytes = in_order.to_bytes().unwrap();
    assert_eq!(in_order_bytes[code_at], 1);
    let back = Checkpoint::from_bytes(&in_order_bytes).unwrap();
    assert_eq!(back.config.split, ValidationSplit::GamesInOrder);
    // A split code this trainer does not know is an error naming it, not a default.
    let mut unknown = bytes.clone();
    unknown[code_at] = 7;
    let e = Checkpoint::from_bytes(&reseal(unknown)).unwrap_err();
    assert!(format!("{e:#}").contains("validation split 7"), "{e:#}");
}

/// Where the validation split byte of a version-9 file of a plain model sits: after the
/// king bucket count (1), the 64-byte map and the three bytes of layers, factoriser and
/// `wdl_end`, each 0.
fn split_byte(bytes: &[u8]) -> usize {
    let mut pattern = vec![1u8, 64];
    pattern.extend([0u8; 67]);
    bytes
        .windows(pattern.len())
        .position(|w| w == pattern.as_slice())
        .expect("the plain fields")
        + 69
}

#[test]
fn version_7_loads_without_a_wdl_schedule_and_version_8_keeps_it() {
    let c = sample(32, 8);
    let v7 = old_bytes(&c, 7);
    assert_eq!(version_of(&v7), 7);
    let back = Checkpoint::from_bytes(&v7).unwrap();
    assert!(same(&back, &c));
    assert_eq!(back.config.wdl_end, None);
    let mut scheduled = c.clone();
    scheduled.config.wdl_end = Some(0.4);
    let bytes = scheduled.to_bytes().unwrap();
    let back = Checkpoint::from_bytes(&bytes).unwrap();
    assert!(same(&back, &scheduled));
    assert_eq!(back.config.wdl_end, Some(0.4));
    // Its version 8 body read as version 7 does not decode.
    let mut as_v7 = bytes.clone();
    as_v7[8..12].copy_from_slice(&7u32.to_le_bytes());
    assert!(Checkpoint::from_bytes(&reseal(as_v7)).is_err());
}

#[test]
fn version_6_loads_without_a_factoriser_and_version_7_keeps_it() {
    let c = sample(32, 8);
    let v6 = old_bytes(&c, 6);
    assert_eq!(version_of(&v6), 6);
    let back = Checkpoint::from_bytes(&v6).unwrap();
    assert!(same(&back, &c));
    assert!(!back.model.factoriser);
    // A factorised model round trips with its factor rows and moments.
    let features = nnue::FeatureSet::default_buckets(4, true).unwrap();
    let model = Model::random_with(features, 32, 8, 5).with_factoriser().unwrap();
    let mut factorised = Checkpoint::new(c.config.clone(), model);
    factorised.history = vec![(0.5, 0.25)];
    factorised.m.fill(0.125);
    let bytes = factorised.to_bytes().unwrap();
    let back = Checkpoint::from_bytes(&bytes).unwrap();
    assert!(same(&back, &factorised));
    assert!(back.model.factoriser);
    assert_eq!(back.model.params.len(), (4 * 768 + 768) * 32 + 32 + 8 * 64 + 8);
    // Its current body read as version 6 does not decode.
    let mut as_v6 = bytes.clone();
    as_v6[8..12].copy_from_slice(&6u32.to_le_bytes());
    assert!(Checkpoint::from_bytes(&reseal(as_v6)).is_err());
    // Without the factor rows the arrays are too short; a factoriser without king buckets
    // is refused.
    let mut short = factorised.clone();
    short.model.factoriser = false;
    let e = Checkpoint::from_bytes(&short.to_bytes().unwrap()).unwrap_err();
    assert!(format!("{e:#}").contains("weights hold"), "{e:#}");
    let mut flat = sample(32, 8);
    flat.model.factoriser = true;
    let e = Checkpoint::from_bytes(&flat.to_bytes().unwrap()).unwrap_err();
    assert_eq!(
        format!("{e:#}"),
        "checkpoint has a factoriser but no king buckets"
    );
}

#[test]
fn version_5_loads_as_a_model_without_hidden_layers_and_version_6_keeps_them() {
    let c = sample(32, 8);
    let v5 = v5_bytes(&c);
    assert_eq!(version_of(&v5), 5);
    let back = Checkpoint::from_bytes(&v5).unwrap();
    assert!(same(&back, &c));
    assert!(back.model.layers.is_empty());
    // Written again it is the current version, and the same checkpoint.
    assert!(same(
        &Checkpoint::from_bytes(&back.to_bytes().unwrap()).unwrap(),
        &c
    ));
    // A model with hidden layers round trips with them, and exports them.
    let arch: nnue::Arch = "(768x2 -> 32)x2 -> (16 -> 8 -> 1)x8".parse().unwrap();
    let mut layered = Checkpoint::new(c.config.clone(), Model::random_arch(&arch, 5));
    layered.history = vec![(0.5, 0.25)];
    let bytes = layered.to_bytes().unwrap();
    let back = Checkpoint::from_bytes(&bytes).unwrap();
    assert!(same(&back, &layered));
    assert_eq!(back.model.layers, vec![16, 8]);
    assert_eq!(back.model.arch(), arch);
    assert_eq!(back.model.to_network().unwrap().arch(), arch);
    // Its current body read as version 5 does not decode (the layers are extra bytes).
    let mut as_v5 = bytes.clone();
    as_v5[8..12].copy_from_slice(&5u32.to_le_bytes());
    assert!(Checkpoint::from_bytes(&reseal(as_v5)).is_err());
    // Weights of another length than the layers imply are refused.
    let mut short = layered.clone();
    short.model.layers = vec![16, 4];
    let e = Checkpoint::from_bytes(&short.to_bytes().unwrap()).unwrap_err();
    assert!(format!("{e:#}").contains("weights hold"), "{e:#}");
}

#[test]
fn a_version_3_file_of_an_earlier_build_loads_and_exports_the_same_net() {
    assert_eq!(version_of(V3), 3);
    let c = Checkpoint::from_bytes(V3).unwrap();
    assert_eq!(
        c.config,
        TrainConfig {
            hidden: 16,
            buckets: 2,
            superbatches: 2,
            batches_per_superbatch: 2,
            batch_size: 64,
            wdl: 0.5,
            wdl_end: None,
            lr: 0.001,
            seed: 3,
            split: ValidationSplit::Positions,
        }
    );
    assert!(!c.model.mirrored());
    assert_eq!(c.superbatches_done, 2);
    // loss.csv of that run: 0.10495977,0.10077475 and 0.09689121,0.10077182.
    assert!((c.history[0].0 - 0.10495977).abs() < 1e-8, "{:?}", c.history);
    assert!((c.history[1].1 - 0.10077182).abs() < 1e-8, "{:?}", c.history);
    let net = c.model.to_network().unwrap();
    assert!(!net.mirrored());
    assert_eq!(net.fingerprint(), V3_NET_FINGERPRINT);
    // Saved again, it is version 4 and holds the same checkpoint.
    let saved = c.to_bytes().unwrap();
    assert_eq!(version_of(&saved), CHECKPOINT_VERSION);
    assert!(same(&Checkpoint::from_bytes(&saved).unwrap(), &c));
}

#[test]
fn a_version_2_file_of_an_earlier_build_loads_and_exports_the_same_net() {
    assert_eq!(version_of(V2), 2);
    let c = Checkpoint::from_bytes(V2).unwrap();
    assert_eq!(
        c.config,
        TrainConfig {
            hidden: 16,
            buckets: 2,
            superbatches: 2,
            batches_per_superbatch: 2,
            batch_size: 64,
            wdl: 0.5,
            wdl_end: None,
            lr: 0.001,
            seed: 3,
            split: ValidationSplit::Positions,
        }
    );
    assert_eq!(c.superbatches_done, 2);
    // loss.csv of that run: 0.08071238,0.06983215 and 0.06852993,0.06977575.
    assert_eq!(c.history.len(), 2);
    assert!((c.history[0].0 - 0.08071238).abs() < 1e-8, "{:?}", c.history);
    assert!((c.history[1].1 - 0.06977575).abs() < 1e-8, "{:?}", c.history);
    let net = c.model.to_network().unwrap();
    assert_eq!(net.fingerprint(), V2_NET_FINGERPRINT);

    // Saved again, it is the current version and holds the same checkpoint.
    let dir = temp_dir("v2");
    let path = dir.join("checkpoint.bin");
    c.save(&path).unwrap();
    let saved = std::fs::read(&path).unwrap();
    assert_eq!(version_of(&saved), CHECKPOINT_VERSION);
    assert!(!dir.join("checkpoint.bin.partial").exists());
    assert!(same(&Checkpoint::load(&path).unwrap(), &c));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_version_1_file_loads() {
    let c = sample(16, 1);
    let bytes = v1_bytes(&c);
    assert_eq!(version_of(&bytes), 1);
    assert!(same(&Checkpoint::from_bytes(&bytes).unwrap(), &c));
}

#[test]
fn damage_is_an_error_never_a_panic() {
    let good = sample(16, 2).to_bytes().unwrap();
    let error = |bytes: &[u8]| match Checkpoint::from_bytes(bytes) {
        Ok(_) => None,
        Err(e) => Some(format!("{e:#}")),
    };
    assert_eq!(error(b"LUFT").unwrap(), "not a Luft checkpoint");
    assert_eq!(error(&V2[1..]).unwrap(), "not a Luft checkpoint");
    assert_eq!(error(&[]).unwrap(), "not a Luft checkpoint");

    // A flipped bit anywhere: the checksum catches it.
    for at in [9, 12, 40, good.len() / 2, good.len() - 1] {
        let mut bad = good.clone();
        bad[at] ^= 0x10;
        assert!(error(&bad).unwrap().contains("checksum mismatch"), "byte {at}");
    }
    let mut v2 = V2.to_vec();
    v2[100] ^= 1;
    assert!(error(&v2).unwrap().contains("checksum mismatch"));

    // A future version.
    let mut future = good.clone();
    future[8..12].copy_from_slice(&(CHECKPOINT_VERSION + 1).to_le_bytes());
    let e = error(&reseal(future)).unwrap();
    assert!(
        e.starts_with(&format!(
            "unsupported checkpoint version {}",
            CHECKPOINT_VERSION + 1
        )),
        "{e}"
    );
    // Version 3's body read as version 4 (or the reverse) does not decode: no mirroring
    // byte where version 4 has one.
    let mut v3_as_v4 = V3.to_vec();
    v3_as_v4[8..12].copy_from_slice(&4u32.to_le_bytes());
    assert!(error(&reseal(v3_as_v4)).is_some());
    let mut v5_as_v3 = good.clone();
    v5_as_v3[8..12].copy_from_slice(&3u32.to_le_bytes());
    assert!(error(&reseal(v5_as_v3)).is_some());
    // Version 5 read as 4: the king buckets and map are trailing bytes.
    let mut v5_as_v4 = good.clone();
    v5_as_v4[8..12].copy_from_slice(&4u32.to_le_bytes());
    assert!(error(&reseal(v5_as_v4)).is_some());

    // Cut short or lengthened, with a checksum that matches: the body does not decode.
    let mut cut = good[..good.len() - 1000].to_vec();
    cut.extend_from_slice(&[0; 8]);
    let e = error(&reseal(cut)).unwrap();
    assert!(e.starts_with("checkpoint unreadable"), "{e}");
    let mut long = good[..good.len() - 8].to_vec();
    long.extend_from_slice(&[1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0]);
    let e = error(&reseal(long)).unwrap();
    assert_eq!(e, "checkpoint has 3 unexpected trailing bytes");
    let mut v2_cut = V2[..V2.len() - 1000].to_vec();
    v2_cut.extend_from_slice(&[0; 8]);
    assert_eq!(error(&reseal(v2_cut)).unwrap(), "checkpoint truncated");

    // Resealed edits inside the body decode to something refused or something valid,
    // never a panic or a huge allocation.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..2000 {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut bad = good.clone();
        let at = 12 + (state >> 33) as usize % 64;
        bad[at] = (state >> 16) as u8;
        if let Ok(c) = Checkpoint::from_bytes(&reseal(bad)) {
            assert_eq!(c.model.params.len(), c.m.len());
        }
    }

    // A width the arrays do not have.
    let c = sample(16, 1);
    let mut wide = c.clone();
    wide.config.hidden = 32;
    wide.model.hidden = 32;
    let e = error(&wide.to_bytes().unwrap()).unwrap();
    assert!(e.starts_with("checkpoint weights hold"), "{e}");
    let mut zero = c;
    zero.config.hidden = 0;
    zero.model.hidden = 0;
    let e = error(&zero.to_bytes().unwrap()).unwrap();
    assert_eq!(e, "checkpoint hidden width 0 out of range");
}
