//! The factoriser of king-bucketed nets (`trainer train --factorise`): its gradients, for
//! bucket rows and factor rows, equal finite differences on the fused kernel's shape and on
//! a net with a hidden layer (the training route, which merges the factor into the rows
//! and folds the gradient back, on every kernel this CPU runs, and the general path's
//! reference, which reads both rows per feature); the factorised model's output is its
//! merged net's, the net export writes, which quantises and runs in the engine like any
//! king-bucketed net; clipping keeps every merged weight in the quantiser's range; a tiny
//! factorised run lowers its loss and resumes from its checkpoint to the very model of an
//! uninterrupted run; `--init` seeds the factor or the buckets without changing the output;
//! and the command line keeps the option, merges it at export and refuses it without king
//! buckets.

#![allow(clippy::unwrap_used)]

mod common;

use common::{boards, data_file, labelled, playouts, positions_for, selfplay_slice, temp_dir, trainer};
use engine::Evaluator;
use movegen::rng::SplitMix64;
use nnue::{Arch, FeatureSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use trainer::data::{PackedPosition, Position};
use trainer::general::{accumulate, Buffers};
use trainer::model::{Kernel, Layout, Model, FACTOR_ROWS, WEIGHT_CLIP};
use trainer::train::{adamw, gradient, train, Checkpoint, TrainConfig, Workspace};

const WDL: f32 = 0.3;

/// A uniform number in [-1, 1).
fn uniform(rng: &mut SplitMix64) -> f32 {
    (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
}

/// A factorised model of `arch`: random bucket rows, random factor rows of a third of
/// their size, and biases around the middle of the activations, so that gradients flow
/// through most units.
fn factorised(arch: &str, seed: u64) -> Model {
    let arch: Arch = arch.parse().unwrap();
    let mut m = Model::random_arch(&arch, seed).with_factoriser().unwrap();
    assert!(m.factoriser);
    let layout = m.layout();
    let factor = layout.factor.unwrap();
    assert_eq!(layout.len, factor + FACTOR_ROWS * layout.hidden);
    let mut rng = SplitMix64(seed ^ 0xFAC7);
    let p = m.params.as_slice_mut().unwrap();
    for w in &mut p[factor..] {
        *w = uniform(&mut rng) * 0.06;
    }
    for (j, b) in p[layout.ft_bias..layout.out_w].iter_mut().enumerate() {
        *b = 0.3 + 0.02 * (j % 10) as f32;
    }
    if !arch.layers.is_empty() {
        for d in layout.dense() {
            for (j, b) in p[d.bias..d.bias + layout.buckets * d.outputs]
                .iter_mut()
                .enumerate()
            {
                *b = 0.2 + 0.05 * (j % 8) as f32;
            }
        }
    }
    m
}

/// The summed loss and gradient of the factorised model by the general path's reference
/// in f64 (each feature reads its bucket's row and its factor row).
fn reference(params: &[f64], layout: &Layout, positions: &[Position]) -> (f64, Vec<f64>) {
    let mut grad = vec![0.0; layout.len];
    let mut buf = Buffers::<f64>::new(layout);
    let loss = accumulate(params, layout, positions, WDL, &mut grad, &mut buf);
    (loss, grad)
}

/// Checks the gradients of the factorised model `m` on `positions`: by finite differences
/// of the reference's f64 loss, the reference's own gradient, and the training route's
/// (`train::gradient`) on every kernel this CPU runs, for bucket rows of features in
/// several king buckets, the factor rows those features share, an unused factor row (zero),
/// the feature biases and the weights after the transformer.
fn check_gradients(what: &str, m: &Model, positions: &[Position]) {
    let layout = m.layout();
    let factor = layout.factor.unwrap();
    let h = layout.hidden;
    let n = positions.len() as f64;
    let params: Vec<f64> = m.params.iter().map(|&v| f64::from(v)).collect();
    let (_, exact) = reference(&params, &layout, positions);
    // Features of positions in different king buckets; the factor row of each one.
    let mut features: Vec<u16> = Vec::new();
    let mut seen_buckets = Vec::new();
    for p in positions {
        for &f in &p.stm[..usize::from(p.count)] {
            let b = usize::from(f) / FACTOR_ROWS;
            if !seen_buckets.contains(&b) {
                seen_buckets.push(b);
                features.push(f);
            }
        }
    }
    assert!(seen_buckets.len() >= 2, "{what}: buckets used {seen_buckets:?}");
    let used: Vec<usize> = positions
        .iter()
        .flat_map(|p| {
            p.stm[..usize::from(p.count)]
                .iter()
                .chain(&p.nstm[..usize::from(p.count)])
        })
        .map(|&f| usize::from(f) % FACTOR_ROWS)
        .collect();
    let unused = (0..FACTOR_ROWS).find(|f| !used.contains(f)).unwrap();
    let mut check: Vec<(usize, &str)> = Vec::new();
    for &f in &features {
        let f = usize::from(f);
        check.extend((0..h).step_by(3).map(|j| (f * h + j, "bucket row")));
        check.extend(
            (0..h)
                .step_by(3)
                .map(|j| (factor + (f % FACTOR_ROWS) * h + j, "factor row")),
        );
    }
    check.extend(
        (0..h)
            .step_by(5)
            .map(|j| (factor + unused * h + j, "unused factor row")),
    );
    check.extend((0..h).step_by(4).map(|j| (layout.ft_bias + j, "feature bias")));
    check.extend(
        (layout.out_w..layout.merged().len)
            .step_by(37)
            .map(|i| (i, "after the transformer")),
    );

    let mut routes: Vec<(String, Vec<f32>)> = Vec::new();
    for kernel in Kernel::available() {
        let mut ws = Workspace::for_model(m, 2, kernel);
        gradient(m, positions, WDL, &mut ws);
        routes.push((kernel.name().to_string(), ws.mean_gradient().to_vec()));
    }
    let (mut nonzero, mut factor_nonzero) = (0, 0);
    for &(i, kind) in &check {
        let eps = 1e-6;
        let mut plus = params.clone();
        plus[i] += eps;
        let mut minus = params.clone();
        minus[i] -= eps;
        let numeric = (reference(&plus, &layout, positions).0 - reference(&minus, &layout, positions).0)
            / (2.0 * eps)
            / n;
        let analytic = exact[i] / n;
        assert!(
            (numeric - analytic).abs() <= 1e-8 + 1e-4 * numeric.abs().max(analytic.abs()),
            "{what}: {kind} parameter {i}: finite difference {numeric}, reference gradient {analytic}"
        );
        for (name, g) in &routes {
            let trained = f64::from(g[i]);
            assert!(
                (numeric - trained).abs() <= 2e-6 + 2e-3 * numeric.abs().max(trained.abs()),
                "{what} ({name}): {kind} parameter {i}: finite difference {numeric}, training gradient {trained}"
            );
        }
        if kind == "unused factor row" {
            assert_eq!(analytic, 0.0, "{what}: parameter {i}");
        }
        nonzero += usize::from(analytic.abs() > 1e-7);
        factor_nonzero += usize::from(kind == "factor row" && analytic.abs() > 1e-7);
    }
    // The check can tell: most gradients checked, factor rows' among them, are not zero.
    assert!(nonzero * 2 > check.len(), "{what}: {nonzero} of {}", check.len());
    assert!(
        factor_nonzero > 4,
        "{what}: {factor_nonzero} factor gradients not zero"
    );
    // The training route on every parameter, against the reference.
    let scale = exact.iter().fold(0.0f64, |s, g| s.max(g.abs())) / n;
    for (name, g) in &routes {
        for (i, (&a, &b)) in g.iter().zip(&exact).enumerate() {
            assert!(
                (f64::from(a) - b / n).abs() <= 1e-4 * scale,
                "{what} ({name}): gradient {i}: {a} vs {}",
                b / n
            );
        }
    }
}

#[test]
fn factorised_gradients_equal_finite_differences_on_the_fused_kernel() {
    let m = factorised("(768x4hm -> 32)x2 -> 1x8", 5);
    assert!(m.layers.is_empty(), "the fused kernel's shape");
    let positions = positions_for(&m.features, 96, 7);
    check_gradients("fused", &m, &positions);
}

#[test]
fn factorised_gradients_equal_finite_differences_with_a_hidden_layer() {
    let m = factorised("(768x4 -> 16)x2 -> (8 -> 1)x2", 9);
    assert_eq!(m.layers, vec![8]);
    let positions = positions_for(&m.features, 96, 4);
    check_gradients("general", &m, &positions);
}

/// The float model an exported net stands for, before rounding: `Model::float_net`'s
/// arrays as a model without a factoriser.
fn float_model(m: &Model) -> Model {
    let f = m.float_net();
    let mut params = f.feature_weights.clone();
    params.extend_from_slice(&f.feature_bias);
    if f.layers.is_empty() {
        params.extend_from_slice(&f.output_weights);
        params.extend_from_slice(&f.output_bias);
    }
    for layer in &f.layers {
        params.extend_from_slice(&layer.weights);
        params.extend_from_slice(&layer.bias);
    }
    Model {
        hidden: f.hidden,
        buckets: f.output_buckets,
        features: f.features,
        layers: m.layers.clone(),
        factoriser: false,
        params: params.into(),
    }
}

#[test]
fn a_factorised_model_outputs_what_its_merged_net_outputs() {
    for arch in ["(768x4hm -> 32)x2 -> 1x8", "(768x2 -> 32)x2 -> (8 -> 1)x4"] {
        let m = factorised(arch, 3);
        let merged = float_model(&m);
        assert_eq!(merged, m.merged(), "{arch}");
        assert_eq!(merged.params.len(), m.layout().merged().len);
        // Every bucket's row is its own row plus the factor row.
        let layout = m.layout();
        let (h, factor) = (layout.hidden, layout.factor.unwrap());
        for i in [0, 5 * h + 3, (FACTOR_ROWS + 17) * h + 9, layout.ft_bias - 1] {
            let f = (i / h) % FACTOR_ROWS;
            assert_eq!(merged.params[i], m.params[i] + m.params[factor + f * h + i % h]);
        }
        let positions = positions_for(&m.features, 2000, 11);
        let mut moved = 0;
        for p in &positions {
            let (a, b) = (m.output(p), merged.output(p));
            assert_eq!(a.to_bits(), b.to_bits(), "{arch}: {a} vs {b}");
            // The factor matters: without it the output is another.
            let mut without = m.clone();
            without.factoriser = false;
            without.params = m.params.slice(ndarray::s![..factor]).to_owned();
            moved += usize::from((without.output(p) - a).abs() > 1e-4);
            if moved > 100 {
                break;
            }
        }
        assert!(moved > 100, "{arch}: the factor changed {moved} outputs");
        // Validation measures the merged net.
        assert_eq!(
            trainer::model::loss_only(&m, &positions, WDL),
            trainer::model::loss_only(&merged, &positions, WDL)
        );
        // Export quantises the merged net.
        assert_eq!(m.to_network().unwrap(), merged.to_network().unwrap(), "{arch}");
    }
}

fn config(superbatches: u32) -> TrainConfig {
    TrainConfig {
        hidden: 32,
        buckets: 8,
        superbatches,
        batches_per_superbatch: 6,
        batch_size: 512,
        wdl: 0.5,
        wdl_end: None,
        lr: 0.01,
        seed: 3,
        split: trainer::train::ValidationSplit::Games,
    }
}

#[test]
fn a_factorised_run_learns_resumes_exactly_and_exports_a_net_the_engine_runs() {
    let slice = selfplay_slice();
    let features = FeatureSet::default_buckets(4, true).unwrap();
    let (train_set, validation) = trainer::train::split(slice, 3);
    let validation: Vec<Position> = validation.iter().map(|p| p.unpack_features(&features)).collect();
    let model = Model::random_with(features, 32, 8, 3).with_factoriser().unwrap();
    let dir = temp_dir("run");
    let stop = AtomicBool::new(false);
    let straight = train(
        Checkpoint::new(config(4), model.clone()),
        &train_set,
        &validation,
        2,
        &dir.join("a"),
        &stop,
        |_| {},
    )
    .unwrap();
    let (first, last) = (straight.history[0], straight.history[3]);
    assert!(
        last.0 < first.0,
        "the training loss went from {} to {}",
        first.0,
        last.0
    );
    assert!(
        last.1 < first.1,
        "the validation loss went from {} to {}",
        first.1,
        last.1
    );
    // The factor rows learned (they start at zero) and hold their clip.
    let layout = straight.model.layout();
    let factor = &straight.model.params.as_slice().unwrap()[layout.factor.unwrap()..];
    assert!(factor.iter().filter(|w| **w != 0.0).count() > factor.len() / 2);
    assert!(factor.iter().all(|w| w.abs() <= WEIGHT_CLIP));
    // Killed after two superbatches, then resumed from its checkpoint: the same run.
    let interrupt = AtomicBool::new(false);
    let killed = train(
        Checkpoint::new(config(4), model),
        &train_set,
        &validation,
        2,
        &dir.join("b"),
        &interrupt,
        |line| {
            if line.starts_with("superbatch 2/4 done") {
                interrupt.store(true, Ordering::Relaxed);
            }
        },
    );
    assert!(killed.unwrap_err().to_string().starts_with("interrupted"));
    let saved = Checkpoint::load(&dir.join("b/checkpoint.bin")).unwrap();
    assert!(saved.model.factoriser);
    assert_eq!(saved.superbatches_done, 2);
    let resumed = train(saved, &train_set, &validation, 2, &dir.join("b"), &stop, |_| {}).unwrap();
    assert_eq!(resumed.history, straight.history);
    assert_eq!(resumed.model, straight.model);
    assert_eq!(resumed.m, straight.m);

    // The exported net: an ordinary king-bucketed net, run by the engine exactly, the float
    // model within quantisation error.
    let net = straight.model.to_network().unwrap();
    let loaded = Arc::new(nnue::Network::from_bytes(&net.to_bytes()).unwrap());
    assert_eq!(*loaded, net);
    assert_eq!(loaded.arch().to_string(), "(768x4hm -> 32 screlu)x2 -> 1x8");
    let mut evaluator = Evaluator::new(loaded.clone());
    // (This run learns faster than the same run without the factoriser, to a loss of 0.074
    // against 0.088, with larger weights: its quantisation error is up to 29 cp, mean 7,
    // where that run's is up to 19, mean 5.)
    let (mut worst, mut sum) = (0.0f32, 0.0f32);
    let boards = boards(1000);
    for board in &boards {
        let quantised = evaluator.evaluate(board);
        assert_eq!(quantised, loaded.evaluate(board));
        let float = straight.model.output(&straight.model.position(board)) * nnue::SCALE as f32;
        worst = worst.max((float - quantised as f32).abs());
        sum += (float - quantised as f32).abs();
    }
    let mean = sum / boards.len() as f32;
    assert!(
        worst < 40.0 && mean < 10.0,
        "quantisation error up to {worst} cp, mean {mean}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn merged_weights_stay_in_the_quantisers_range() {
    let features = FeatureSet::default_buckets(4, false).unwrap();
    let mut m = Model::random_with(features, 16, 1, 2).with_factoriser().unwrap();
    // Each part at the clip: the merged weights are twice it, and 32 of them overflow an
    // i16 accumulator.
    m.params.fill(WEIGHT_CLIP);
    assert!(m.to_network().is_err());
    m.clip_merged();
    let merged = m.merged();
    let rows = merged.layout().ft_bias;
    assert!(merged
        .params
        .iter()
        .take(rows)
        .all(|w| w.abs() <= WEIGHT_CLIP + 1e-6));
    assert!(m.to_network().is_ok());

    // An optimiser step that pushes every weight up stops each merged weight at the clip.
    let config = TrainConfig {
        hidden: 16,
        buckets: 1,
        ..config(1)
    };
    let model = Model::random_with(features, 16, 1, 2).with_factoriser().unwrap();
    let mut ckpt = Checkpoint::new(config, model);
    let layout = ckpt.model.layout();
    let factor = layout.factor.unwrap();
    let push = vec![-1.0f32; layout.len];
    for step in 1..=400 {
        adamw(&mut ckpt, &push, 0.05, step);
    }
    let p = ckpt.model.params.as_slice().unwrap();
    assert!(
        p[factor..].iter().all(|w| (w - WEIGHT_CLIP).abs() < 1e-6),
        "the factor at its clip"
    );
    let merged = ckpt.model.merged();
    assert!(
        merged
            .params
            .iter()
            .take(layout.ft_bias)
            .all(|w| (w - WEIGHT_CLIP).abs() < 1e-5),
        "every merged weight at the clip"
    );
    assert!(
        p[..layout.ft_bias].iter().all(|w| w.abs() < 1e-5),
        "the buckets at zero"
    );
    assert!(ckpt.model.to_network().is_ok());
}

#[test]
fn init_seeds_the_factor_from_a_plain_net_and_the_buckets_from_a_bucketed_one() {
    let features = FeatureSet::default_buckets(4, true).unwrap();
    let boards = boards(300);
    for from in [FeatureSet::mirrored(), features] {
        let mut base = Model::random_with(from, 32, 1, 6);
        if from.king_buckets_count() > 1 {
            // Rows that differ by bucket.
            let rows = base.layout().ft_bias;
            for (i, w) in base.params.iter_mut().enumerate().take(rows) {
                *w += ((i / (FACTOR_ROWS * 32)) as f32) * 0.01;
            }
        }
        let net = base.to_network().unwrap();
        let plain = Model::grown_into(&net, features, 48, 8, 1).unwrap();
        let m = Model::grown_into_factorised(&net, features, 48, 8, 1).unwrap();
        assert!(m.factoriser && !plain.factoriser);
        assert_eq!(
            m.merged(),
            plain,
            "the merged net is the one a plain run starts from"
        );
        for b in &boards {
            let (p, q) = (plain.position(b), m.position(b));
            assert_eq!(plain.output(&p).to_bits(), m.output(&q).to_bits());
        }
        let layout = m.layout();
        let (factor, h) = (layout.factor.unwrap(), 48);
        let p = m.params.as_slice().unwrap();
        let net_rows = Model::from_network(&net).unwrap();
        let n = net_rows.params.as_slice().unwrap();
        for f in [0, 100, 767] {
            for j in 0..32 {
                if from.king_buckets_count() == 1 {
                    // The net's rows in the factor, zero in every bucket.
                    assert_eq!(p[factor + f * h + j], n[f * 32 + j]);
                    for b in 0..4 {
                        assert_eq!(p[(b * FACTOR_ROWS + f) * h + j], 0.0);
                    }
                } else {
                    assert_eq!(p[factor + f * h + j], 0.0);
                    assert_eq!(
                        p[(2 * FACTOR_ROWS + f) * h + j],
                        n[(2 * FACTOR_ROWS + f) * 32 + j]
                    );
                }
            }
            // The units the wider run adds: small random weights in the buckets.
            assert_eq!(p[factor + f * h + 40], 0.0);
            assert_ne!(p[f * h + 40], 0.0);
        }
    }
    // No factoriser without king buckets.
    let e = Model::random(32, 1).with_factoriser().unwrap_err();
    assert!(e.contains("a factoriser needs king buckets"), "{e}");
}

#[test]
fn the_command_line_keeps_the_factoriser_merges_it_at_export_and_refuses_it_without_buckets() {
    let dir = temp_dir("cli");
    let data = dir.join("games.bin");
    std::fs::write(&data, data_file(&playouts(80, 5).take(12).collect::<Vec<_>>())).unwrap();
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let train = |out: &Path, extra: &[&str]| {
        let out = s(out);
        let mut args = vec![
            "train",
            "--data",
            data.to_str().unwrap(),
            "--superbatches",
            "2",
            "--batches-per-superbatch",
            "2",
            "--batch-size",
            "64",
            "--out",
            &out,
        ];
        args.extend_from_slice(extra);
        trainer(&args)
    };
    // Refused without king buckets, before any work.
    for extra in [
        vec!["--factorise"],
        vec!["--factorise", "--king-buckets", "1", "--hidden", "16"],
        vec!["--factorise", "--arch", "(768hm -> 16)x2 -> 1x8"],
    ] {
        let (code, _, err) = train(&dir.join("refused"), &extra);
        assert_eq!(code, 2, "{extra:?}: {err}");
        assert!(err.contains("--factorise needs king buckets"), "{extra:?}: {err}");
        assert!(!dir.join("refused").exists());
    }
    // A factorised run: the checkpoint keeps it, final.nnue and export hold the merged net.
    let run = dir.join("run");
    let (code, _, err) = train(&run, &["--factorise", "--king-buckets", "4", "--hidden", "16"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("arch (768x4 -> 16 screlu)x2 -> 1x1, factorised"),
        "{err}"
    );
    let ckpt = Checkpoint::load(&run.join("checkpoint.bin")).unwrap();
    assert!(ckpt.model.factoriser);
    let final_net = nnue::Network::load(&run.join("final.nnue")).unwrap();
    assert_eq!(final_net, ckpt.model.merged().to_network().unwrap());
    let exported = dir.join("exported.nnue");
    let (code, out, err) = trainer(&["export", &s(&run.join("checkpoint.bin")), "--out", &s(&exported)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("factoriser merged into every king bucket"), "{out}");
    assert_eq!(nnue::Network::load(&exported).unwrap(), final_net);
    // A resume keeps it, with or without the flag.
    for extra in [vec!["--resume"], vec!["--factorise", "--resume"]] {
        let mut args = extra.clone();
        let ck = s(&run.join("checkpoint.bin"));
        args.push(&ck);
        let (code, _, err) = train(&run, &args);
        assert_eq!(code, 0, "{err}");
        assert!(
            err.contains("(factorised)") && err.contains(", factorised"),
            "{err}"
        );
    }
    // --factorise on a checkpoint without a factoriser is refused.
    let plain = dir.join("plain");
    let (code, _, err) = train(&plain, &["--king-buckets", "4", "--hidden", "16"]);
    assert_eq!(code, 0, "{err}");
    let before = std::fs::read(plain.join("checkpoint.bin")).unwrap();
    let (code, _, err) = train(
        &plain,
        &["--resume", &s(&plain.join("checkpoint.bin")), "--factorise"],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("is a run without a factoriser"), "{err}");
    assert_eq!(std::fs::read(plain.join("checkpoint.bin")).unwrap(), before);
    // --init from a net without king buckets into a factorised run.
    let flat = dir.join("flat");
    let (code, _, err) = train(&flat, &["--hidden", "16"]);
    assert_eq!(code, 0, "{err}");
    let seeded = dir.join("seeded");
    let (code, _, err) = train(
        &seeded,
        &[
            "--init",
            &s(&flat.join("final.nnue")),
            "--factorise",
            "--king-buckets",
            "4",
            "--hidden",
            "16",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        Checkpoint::load(&seeded.join("checkpoint.bin"))
            .unwrap()
            .model
            .factoriser
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Positions decoded from packed records and from boards agree for a bucketed net (the
/// factor row of a feature is its index within its bucket, which both decoders give).
#[test]
fn packed_and_board_decoding_give_the_same_factor_rows() {
    let features = FeatureSet::default_buckets(4, true).unwrap();
    let mut count = 0;
    for game in playouts(60, 9).take(20) {
        for (board, score, result) in labelled(&game) {
            let packed = PackedPosition::new(&board, score, result).unpack_features(&features);
            let direct = Position::from_board_features(&board, packed.score, packed.result, &features);
            assert_eq!(packed, direct);
            let plain = PackedPosition::new(&board, score, result).unpack_mirroring(true);
            for i in 0..usize::from(packed.count) {
                assert_eq!(
                    usize::from(packed.stm[i]) % FACTOR_ROWS,
                    usize::from(plain.stm[i])
                );
                assert_eq!(
                    usize::from(packed.nstm[i]) % FACTOR_ROWS,
                    usize::from(plain.nstm[i])
                );
            }
            count += 1;
        }
    }
    assert!(count > 500);
}
