//! The general training path: forward and backward for any descriptor the flat layout
//! ([`Layout::with_layers`]) describes, the plain output layer (no hidden layers) and nets
//! with hidden layers after the transformer (`(768 -> 64)x2 -> (16 -> 32 -> 1)x8`) alike,
//! for any input feature set (the positions carry their features' indices).
//!
//! The net in floats, as `nnue::quantise` quantises it: per perspective the accumulator
//! `acc = b + Σ rows`, `h0 = clamp(acc, 0, 1)²` (SCReLU) over `[side to move, other]`, then
//! per dense layer ([`Dense`]) of the position's output bucket `z = W·h + b`, with
//! `h = clamp(z, 0, 1)` (CReLU) between layers and the last layer's one `z` the output (a
//! prediction `sigmoid(z)`, `z · 400` centipawns). The loss of a position is
//! `(sigmoid(z) - target)²`, as in the fused kernel.
//!
//! A factorised layout ([`Layout::factor`]) is run as its definition says: each active
//! feature reads its bucket's row plus its factor row, and its gradient goes to both. The
//! training loop does not run it that way (it merges the factor into the rows once per
//! batch, `crate::model`); this is the reference it is checked against.
//!
//! One position at a time, plain loops: this path is for shapes the fused kernel
//! (`crate::model::Kernel`) does not cover, and the training loop takes the kernel for the
//! plain shape. [`accumulate_for`] compiles the loops a second and third time with the
//! kernel's CPU features (AVX2 + FMA, AVX-512) after the same CPU check, and the dot
//! products keep 8 partial sums so the compiler can vectorise them. The code is generic over
//! the float type ([`Real`]), so the gradient test checks, in f64 against finite
//! differences, the very code the trainer runs in f32.

use crate::data::{sigmoid, Position};
use crate::model::{Dense, Kernel, Layout};
use crate::simd::PerIsa;
use nnue::output_bucket;

/// The float type of the general path: f32 to train, f64 to check gradients.
pub trait Real:
    Copy
    + Default
    + PartialOrd
    + Send
    + Sync
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::AddAssign
{
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// The value of an f32.
    fn of(x: f32) -> Self;
    /// As f64.
    fn to_f64(self) -> f64;
    /// `1 / (1 + e^-x)`.
    fn sigmoid(self) -> Self;
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    #[inline(always)]
    fn of(x: f32) -> f32 {
        x
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    #[inline(always)]
    fn sigmoid(self) -> f32 {
        sigmoid(self)
    }
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    #[inline(always)]
    fn of(x: f32) -> f64 {
        f64::from(x)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn sigmoid(self) -> f64 {
        1.0 / (1.0 + (-self).exp())
    }
}

#[inline(always)]
fn clamp01<T: Real>(x: T) -> T {
    if x < T::ZERO {
        T::ZERO
    } else if x > T::ONE {
        T::ONE
    } else {
        x
    }
}

#[inline(always)]
fn inside01<T: Real>(x: T) -> bool {
    x > T::ZERO && x < T::ONE
}

/// Buffers of one thread's forward and backward pass, sized for a layout.
#[derive(Clone, Debug, Default)]
pub struct Buffers<T> {
    /// Both accumulators, `[side to move | other]`, `2N`.
    acc: Vec<T>,
    /// Each dense layer's input (`h0`, then each hidden layer's CReLU output).
    inputs: Vec<Vec<T>>,
    /// Each dense layer's sums `z`.
    sums: Vec<Vec<T>>,
    /// The gradient of the loss by the current layer's outputs, and by its inputs.
    d_out: Vec<T>,
    d_in: Vec<T>,
}

impl<T: Real> Buffers<T> {
    /// Buffers for `layout`.
    pub fn new(layout: &Layout) -> Buffers<T> {
        let dense = layout.dense();
        let widest = dense.iter().map(|d| d.inputs.max(d.outputs)).max().unwrap_or(1);
        Buffers {
            acc: vec![T::ZERO; 2 * layout.hidden],
            inputs: dense.iter().map(|d| vec![T::ZERO; d.inputs]).collect(),
            sums: dense.iter().map(|d| vec![T::ZERO; d.outputs]).collect(),
            d_out: vec![T::ZERO; widest],
            d_in: vec![T::ZERO; widest],
        }
    }
}

/// `Σ x[i] · w[i]` with 8 partial sums (vectorisable; the order of additions is fixed).
#[inline(always)]
fn dot<T: Real>(x: &[T], w: &[T]) -> T {
    let mut part = [T::ZERO; 8];
    let (xc, xr) = x.split_at(x.len() / 8 * 8);
    let (wc, wr) = w.split_at(xc.len().min(w.len()));
    for (xs, ws) in xc.chunks_exact(8).zip(wc.chunks_exact(8)) {
        for k in 0..8 {
            part[k] += xs[k] * ws[k];
        }
    }
    let mut s = T::ZERO;
    for (&xi, &wi) in xr.iter().zip(wr) {
        s += xi * wi;
    }
    ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7])) + s
}

/// The forward pass of `pos` into `buf`; returns the output `z` (centipawns / 400).
#[inline(always)]
fn forward<T: Real>(p: &[T], layout: &Layout, dense: &[Dense], pos: &Position, buf: &mut Buffers<T>) -> T {
    let h = layout.hidden;
    let bias = &p[layout.ft_bias..layout.out_w];
    buf.acc[..h].copy_from_slice(bias);
    buf.acc[h..].copy_from_slice(bias);
    for i in 0..pos.count as usize {
        for (view, feature) in [(0, pos.stm[i]), (1, pos.nstm[i])] {
            let row = &p[feature as usize * h..(feature as usize + 1) * h];
            let acc = &mut buf.acc[view * h..(view + 1) * h];
            match layout.factor_row(feature) {
                // A factorised layout: the merged weight, bucket row plus factor row.
                Some(at) => {
                    for ((a, &w), &f) in acc.iter_mut().zip(row).zip(&p[at..at + h]) {
                        *a += w + f;
                    }
                }
                None => {
                    for (a, &w) in acc.iter_mut().zip(row) {
                        *a += w;
                    }
                }
            }
        }
    }
    for (x, &a) in buf.inputs[0].iter_mut().zip(&buf.acc) {
        let c = clamp01(a);
        *x = c * c;
    }
    let k = output_bucket(pos.count as usize, layout.buckets);
    for (l, d) in dense.iter().enumerate() {
        let w = &p[d.weights + k * d.outputs * d.inputs..][..d.outputs * d.inputs];
        let b = &p[d.bias + k * d.outputs..][..d.outputs];
        let (before, after) = buf.inputs.split_at_mut(l + 1);
        let x = &before[l];
        let z = &mut buf.sums[l];
        for o in 0..d.outputs {
            z[o] = b[o] + dot(x, &w[o * d.inputs..(o + 1) * d.inputs]);
        }
        if let Some(next) = after.first_mut() {
            for (n, &zo) in next.iter_mut().zip(z.iter()) {
                *n = clamp01(zo);
            }
        }
    }
    buf.sums[dense.len() - 1][0]
}

/// The raw output of `pos` (centipawns / 400) under the f32 parameters `params` laid out
/// as `layout`.
pub fn output(params: &[f32], layout: &Layout, pos: &Position) -> f32 {
    let dense = layout.dense();
    let mut buf = Buffers::new(layout);
    forward(params, layout, &dense, pos, &mut buf)
}

/// [`accumulate`] in f32, compiled with the CPU features of `kernel` (portable, AVX2 + FMA,
/// or AVX-512; a `Kernel` that uses them exists only on a CPU that has them).
pub fn accumulate_for(
    kernel: Kernel,
    params: &[f32],
    layout: &Layout,
    positions: &[Position],
    wdl: f32,
    grad: &mut [f32],
    buf: &mut Buffers<f32>,
) -> f64 {
    kernel.run(Accumulate {
        params,
        layout,
        positions,
        wdl,
        grad,
        buf,
    })
}

/// One call of [`accumulate`] in f32, as [`Kernel::run`] builds it (the same code for
/// every instruction set).
struct Accumulate<'a> {
    params: &'a [f32],
    layout: &'a Layout,
    positions: &'a [Position],
    wdl: f32,
    grad: &'a mut [f32],
    buf: &'a mut Buffers<f32>,
}

impl PerIsa for Accumulate<'_> {
    type Out = f64;

    #[inline(always)]
    fn portable(self) -> f64 {
        accumulate(
            self.params,
            self.layout,
            self.positions,
            self.wdl,
            self.grad,
            self.buf,
        )
    }
}

/// Forward and backward over `positions`, adding each position's gradient into `grad`
/// (`layout.len` values, as `params`); returns the summed loss. `wdl` weighs the result
/// in the target (`Position::target`). Panics when `params` or `grad` do not hold
/// `layout.len` values or a feature lies past `layout.inputs` rows. (Always inlined, so
/// that each build of [`accumulate_for`] compiles it with its CPU features.)
#[inline(always)]
pub fn accumulate<T: Real>(
    params: &[T],
    layout: &Layout,
    positions: &[Position],
    wdl: f32,
    grad: &mut [T],
    buf: &mut Buffers<T>,
) -> f64 {
    assert_eq!(params.len(), layout.len, "parameters for the layout");
    assert_eq!(grad.len(), layout.len, "gradients for the layout");
    let dense = layout.dense();
    let h = layout.hidden;
    let two = T::ONE + T::ONE;
    let mut loss = 0.0;
    for pos in positions {
        let z = forward(params, layout, &dense, pos, buf);
        let prediction = z.sigmoid();
        let error = prediction - T::of(pos.target(wdl));
        loss += (error * error).to_f64();
        // d loss / d z.
        buf.d_out[0] = two * error * prediction * (T::ONE - prediction);
        let k = output_bucket(pos.count as usize, layout.buckets);
        for l in (0..dense.len()).rev() {
            let d = dense[l];
            let w = &params[d.weights + k * d.outputs * d.inputs..][..d.outputs * d.inputs];
            let gw_at = d.weights + k * d.outputs * d.inputs;
            let gb_at = d.bias + k * d.outputs;
            let x = &buf.inputs[l];
            buf.d_in[..d.inputs].iter_mut().for_each(|v| *v = T::ZERO);
            for o in 0..d.outputs {
                let g = buf.d_out[o];
                grad[gb_at + o] += g;
                let row = &mut grad[gw_at + o * d.inputs..gw_at + (o + 1) * d.inputs];
                for (gi, &xi) in row.iter_mut().zip(x) {
                    *gi += g * xi;
                }
                let w_row = &w[o * d.inputs..(o + 1) * d.inputs];
                for (di, &wi) in buf.d_in[..d.inputs].iter_mut().zip(w_row) {
                    *di += g * wi;
                }
            }
            if l > 0 {
                // Through the CReLU of the layer below.
                let z = &buf.sums[l - 1][..d.inputs];
                for ((out, &zi), &di) in buf.d_out.iter_mut().zip(z).zip(&buf.d_in) {
                    *out = if inside01(zi) { di } else { T::ZERO };
                }
            }
        }
        // Through the SCReLU: d h0 / d acc = 2 acc inside (0, 1).
        for j in 0..2 * h {
            let a = buf.acc[j];
            buf.d_in[j] = if inside01(a) {
                two * a * buf.d_in[j]
            } else {
                T::ZERO
            };
        }
        for j in 0..h {
            grad[layout.ft_bias + j] += buf.d_in[j] + buf.d_in[h + j];
        }
        for i in 0..pos.count as usize {
            for (view, feature) in [(0, pos.stm[i]), (1, pos.nstm[i])] {
                let d_acc = &buf.d_in[view * h..(view + 1) * h];
                let row = &mut grad[feature as usize * h..(feature as usize + 1) * h];
                for (g, &d) in row.iter_mut().zip(d_acc) {
                    *g += d;
                }
                // The factor row moves the merged weight as much as the bucket's row.
                if let Some(at) = layout.factor_row(feature) {
                    for (g, &d) in grad[at..at + h].iter_mut().zip(d_acc) {
                        *g += d;
                    }
                }
            }
        }
    }
    loss
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Columns, Kernel, Model, Scratch};
    use nnue::{Arch, FeatureSet};

    /// Positions of real boards (random playouts), decoded for `features`, with scores and
    /// results spread over their range.
    fn positions(features: &FeatureSet, count: usize, seed: u64) -> Vec<Position> {
        let mut rng = movegen::rng::SplitMix64(seed);
        let mut out = Vec::new();
        while out.len() < count {
            let mut board = movegen::Board::startpos();
            for ply in 0..80 {
                let moves = board.legal_moves();
                if moves.is_empty() {
                    break;
                }
                board.play(moves[rng.below(moves.len())]);
                if ply % 7 == 6 && out.len() < count {
                    let score = rng.below(800) as f32 - 400.0;
                    let result = rng.below(3) as f32 / 2.0;
                    out.push(Position::from_board_features(&board, score, result, features));
                }
            }
        }
        out
    }

    /// A model of `arch` whose layers are scaled so that their CReLUs are neither all
    /// clipped nor all linear.
    fn model(arch: &str, seed: u64) -> Model {
        let arch: Arch = arch.parse().unwrap();
        let mut m = Model::random_arch(&arch, seed);
        let layout = m.layout();
        let p = m.params.as_slice_mut().unwrap();
        // Feature biases around the middle of the SCReLU, layer biases around that of CReLU.
        for (j, b) in p[layout.ft_bias..layout.out_w].iter_mut().enumerate() {
            *b = 0.3 + 0.02 * (j % 10) as f32;
        }
        for d in layout.dense() {
            for (j, b) in p[d.bias..d.bias + layout.buckets * d.outputs]
                .iter_mut()
                .enumerate()
            {
                *b = 0.2 + 0.05 * (j % 8) as f32;
            }
        }
        m
    }

    fn loss64(params: &[f64], layout: &Layout, positions: &[Position], buf: &mut Buffers<f64>) -> f64 {
        let mut scratch = vec![0.0; layout.len];
        accumulate(params, layout, positions, 0.3, &mut scratch, buf)
    }

    #[test]
    fn gradients_equal_finite_differences_for_every_feature_set_and_layer_count() {
        for set in ["768", "768hm", "768x4hm", "768x2"] {
            for head in ["1x8", "(8 -> 1)x8", "(8 -> 4 -> 1)x2", "(4 -> 4 -> 4 -> 1)x1"] {
                let text = format!("({set} -> 16)x2 -> {head}");
                let m = model(&text, 11);
                let layout = m.layout();
                let positions = positions(&m.features, 24, 3);
                let params: Vec<f64> = m.params.iter().map(|&v| f64::from(v)).collect();
                let mut buf = Buffers::<f64>::new(&layout);
                let mut grad = vec![0.0; layout.len];
                accumulate(&params, &layout, &positions, 0.3, &mut grad, &mut buf);
                // Parameters to check: rows of features the positions use, the feature
                // biases, and every dense layer's weights and biases of the buckets used.
                let mut check: Vec<usize> = Vec::new();
                let used = positions[0].stm[0] as usize;
                check.extend((0..16).map(|j| used * 16 + j));
                check.extend((0..16).map(|j| layout.ft_bias + j));
                for d in layout.dense() {
                    check.extend((d.weights..d.bias + layout.buckets * d.outputs).step_by(7));
                }
                let (mut nonzero, mut checked) = (0, 0);
                for &i in &check {
                    let eps = 1e-6;
                    let mut plus = params.clone();
                    plus[i] += eps;
                    let mut minus = params.clone();
                    minus[i] -= eps;
                    let numeric = (loss64(&plus, &layout, &positions, &mut buf)
                        - loss64(&minus, &layout, &positions, &mut buf))
                        / (2.0 * eps);
                    let analytic = grad[i];
                    assert!(
                        (numeric - analytic).abs() <= 1e-6 + 1e-4 * numeric.abs().max(analytic.abs()),
                        "{text}: parameter {i}: finite difference {numeric}, gradient {analytic}"
                    );
                    nonzero += usize::from(analytic.abs() > 1e-9);
                    checked += 1;
                }
                // Many checked gradients are not zero (those of unused output buckets are):
                // the check can tell.
                assert!(nonzero * 3 > checked, "{text}: {nonzero} of {checked} nonzero");
            }
        }
    }

    #[test]
    fn every_build_of_the_general_path_gives_the_portable_gradients() {
        let m = model("(768x4hm -> 32)x2 -> (16 -> 32 -> 1)x8", 3);
        let layout = m.layout();
        let params = m.params.as_slice().unwrap();
        let positions = positions(&m.features, 200, 4);
        let run = |kernel: Kernel| {
            let mut grad = vec![0.0f32; layout.len];
            let mut buf = Buffers::new(&layout);
            let loss = accumulate_for(kernel, params, &layout, &positions, 0.3, &mut grad, &mut buf);
            (loss, grad)
        };
        let (loss, grad) = run(Kernel::portable());
        assert!(grad.iter().any(|g| *g != 0.0));
        for kernel in Kernel::available() {
            // The same additions in the same order (no fused multiply-adds are formed from
            // separate operations): equal to the bit.
            assert_eq!(run(kernel), (loss, grad.clone()), "{}", kernel.name());
        }
    }

    #[test]
    fn without_hidden_layers_the_general_path_is_the_fused_kernel() {
        for (set, buckets) in [
            (FeatureSet::plain(), 8),
            (FeatureSet::default_buckets(4, true).unwrap(), 1),
        ] {
            let model = Model::random_with(set, 32, buckets, 5);
            let layout = model.layout();
            let params = model.params.as_slice().unwrap();
            let positions = positions(&set, 300, 9);
            let mut columns = Columns::new(32);
            columns.load(params, layout);
            let mut fused = vec![0.0; layout.len];
            let fused_loss = Kernel::portable().accumulate(
                params,
                &columns,
                layout,
                &positions,
                0.3,
                &mut fused,
                &mut Scratch::new(32),
            );
            let mut general = vec![0.0f32; layout.len];
            let mut buf = Buffers::new(&layout);
            let loss = accumulate(params, &layout, &positions, 0.3, &mut general, &mut buf);
            assert!(
                (loss - fused_loss).abs() <= 1e-6 * fused_loss.abs().max(1.0),
                "{loss} {fused_loss}"
            );
            let scale = fused.iter().fold(0.0f32, |m, g| m.max(g.abs()));
            assert!(scale > 0.0);
            for (i, (a, b)) in general.iter().zip(&fused).enumerate() {
                assert!((a - b).abs() <= 1e-5 * scale, "{set}: gradient {i}: {a} vs {b}");
            }
            for pos in &positions[..20] {
                let a = output(params, &layout, pos);
                let b = model.output(pos);
                assert!((a - b).abs() < 1e-5, "{a} {b}");
            }
        }
    }
}
