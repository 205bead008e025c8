//! The float model the trainer fits, its forward and backward pass, and quantisation into
//! the `nnue` net format.
//!
//! Parameters live in one flat `ndarray::Array1<f32>` so the optimiser treats them alike:
//! `[feature weights (768 x N, feature-major) | feature bias (N) | output weights (B x 2N) |
//! output bias (B)]` for B output buckets. The network is the engine's: accumulators
//! `b + Σ rows` per perspective, SCReLU `clamp(x, 0, 1)²`, output `Σ h·w[k] + b[k]` with
//! `k = nnue::output_bucket(pieces, B)`; a position's prediction is `sigmoid(output)`, its
//! centipawn evaluation `output · 400`.
//!
//! The hot loop is [`Kernel::accumulate`]: per position, gather ~2x30 rows of N weights
//! forward and scatter ~2x30 rows of gradients backward, into a gradient buffer private to
//! the thread. It is written over `chunks_exact(8)` lanes without bounds checks and compiled
//! twice, once with AVX2 and FMA enabled (chosen at run time), so the compiler emits full
//! 8-wide fused multiply-adds.

use crate::data::{sigmoid, Position};
use ndarray::Array1;
use nnue::{output_bucket, FloatNet, Network, QuantiseError, INPUTS};

/// Weights are clipped to this magnitude so they quantise into their integer types and
/// ranges: `1.98 · QB` rounds to 127, the largest output weight a net may hold
/// (`nnue::quantise::OUTPUT_WEIGHT_MAX`), and 33 feature values at `1.98 · QA` (505) stay
/// below 32767, so no accumulator can overflow.
pub const WEIGHT_CLIP: f32 = 1.98;

/// The float model: its shape and its flat parameter vector (layout in the module
/// documentation and [`Layout`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Hidden width N.
    pub hidden: usize,
    /// Output buckets (1 ..= `nnue::MAX_OUTPUT_BUCKETS`).
    pub buckets: usize,
    /// All parameters, `Layout::len` of them.
    pub params: Array1<f32>,
}

/// Offsets into the flat parameter vector.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Hidden width N.
    pub hidden: usize,
    /// Output buckets.
    pub buckets: usize,
    /// Where the feature biases start (the feature weights start at 0).
    pub ft_bias: usize,
    /// Where the output weights start.
    pub out_w: usize,
    /// Where the output biases start.
    pub out_b: usize,
    /// The number of parameters.
    pub len: usize,
}

impl Layout {
    /// The layout of a net with one output bucket.
    pub fn new(hidden: usize) -> Layout {
        Layout::bucketed(hidden, 1)
    }

    /// The layout of a net with `buckets` output buckets.
    pub fn bucketed(hidden: usize, buckets: usize) -> Layout {
        let ft_bias = INPUTS * hidden;
        let out_w = ft_bias + hidden;
        let out_b = out_w + buckets * 2 * hidden;
        Layout {
            hidden,
            buckets,
            ft_bias,
            out_w,
            out_b,
            len: out_b + buckets,
        }
    }
}

/// A uniform number in [-1, 1) from the shared generator.
fn uniform(rng: &mut movegen::rng::SplitMix64) -> f32 {
    (rng.next_u64() >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
}

impl Model {
    /// A freshly initialised model (uniform weights, zero biases), reproducible by `seed`.
    pub fn random(hidden: usize, seed: u64) -> Model {
        Model::random_bucketed(hidden, 1, seed)
    }

    /// A freshly initialised model with `buckets` output buckets.
    pub fn random_bucketed(hidden: usize, buckets: usize, seed: u64) -> Model {
        let layout = Layout::bucketed(hidden, buckets);
        let mut rng = movegen::rng::SplitMix64(seed);
        let mut params = Array1::<f32>::zeros(layout.len);
        let p = params.as_slice_mut().expect("contiguous");
        let ft_scale = 1.0 / (32f32).sqrt();
        let out_scale = 1.0 / ((2 * hidden) as f32).sqrt();
        for w in &mut p[..layout.ft_bias] {
            *w = uniform(&mut rng) * ft_scale;
        }
        for w in &mut p[layout.out_w..layout.out_b] {
            *w = uniform(&mut rng) * out_scale;
        }
        Model {
            hidden,
            buckets,
            params,
        }
    }

    /// The float model a quantised net stands for (to fine-tune from it with `--init`).
    pub fn from_network(net: &Network) -> Result<Model, String> {
        Model::grown_from_network(net, net.hidden(), net.output_buckets(), 0)
    }

    /// The float model of `net` grown to `hidden` units and `buckets` output buckets with the
    /// same output on every position, so a fine-tune starts from what `net` knows:
    /// new hidden units get small random feature weights (seeded by `seed`) and zero output
    /// weights; a one-bucket net's output layer is copied into every bucket.
    ///
    /// Errors: a narrower target width, or a bucketed net whose bucket count differs.
    pub fn grown_from_network(
        net: &Network,
        hidden: usize,
        buckets: usize,
        seed: u64,
    ) -> Result<Model, String> {
        let old = net.hidden();
        let FloatNet {
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
            ..
        } = FloatNet::from_network(net);
        if hidden < old {
            return Err(format!("cannot shrink a {old}-wide net to {hidden}"));
        }
        if net.output_buckets() != buckets && net.output_buckets() != 1 {
            return Err(format!(
                "cannot turn a net with {} output buckets into one with {buckets}",
                net.output_buckets()
            ));
        }
        let layout = Layout::bucketed(hidden, buckets);
        let mut params = Model::random_bucketed(hidden, buckets, seed).params;
        let p = params.as_slice_mut().expect("contiguous");
        for f in 0..INPUTS {
            for j in 0..old {
                p[f * hidden + j] = feature_weights[f * old + j];
            }
            // New units start small so they barely move the accumulators' clipping.
            for j in old..hidden {
                p[f * hidden + j] *= 0.1;
            }
        }
        for j in 0..hidden {
            p[layout.ft_bias + j] = feature_bias.get(j).copied().unwrap_or(0.0);
        }
        for k in 0..buckets {
            let src = if net.output_buckets() == 1 { 0 } else { k };
            for view in 0..2 {
                for j in 0..hidden {
                    p[layout.out_w + k * 2 * hidden + view * hidden + j] = if j < old {
                        output_weights[src * 2 * old + view * old + j]
                    } else {
                        0.0
                    };
                }
            }
            p[layout.out_b + k] = output_bias[src];
        }
        Ok(Model {
            hidden,
            buckets,
            params,
        })
    }

    /// Where each part of the parameters lies.
    pub fn layout(&self) -> Layout {
        Layout::bucketed(self.hidden, self.buckets)
    }

    /// The output bucket of a training position.
    #[inline]
    pub fn bucket(&self, pos: &Position) -> usize {
        output_bucket(pos.count as usize, self.buckets)
    }

    /// The raw output for a position (centipawns / 400).
    pub fn output(&self, pos: &Position) -> f32 {
        let l = self.layout();
        let p = self.params.as_slice().expect("contiguous");
        let h = self.hidden;
        let mut acc = vec![0.0f32; 2 * h];
        acc[..h].copy_from_slice(&p[l.ft_bias..l.out_w]);
        acc[h..].copy_from_slice(&p[l.ft_bias..l.out_w]);
        for i in 0..pos.count as usize {
            for (view, feature) in [(0, pos.stm[i]), (1, pos.nstm[i])] {
                let row = &p[feature as usize * h..(feature as usize + 1) * h];
                for (a, w) in acc[view * h..(view + 1) * h].iter_mut().zip(row) {
                    *a += w;
                }
            }
        }
        let k = self.bucket(pos);
        let mut out = p[l.out_b + k];
        for (a, w) in acc.iter().zip(&p[l.out_w + k * 2 * h..l.out_w + (k + 1) * 2 * h]) {
            let x = a.clamp(0.0, 1.0);
            out += x * x * w;
        }
        out
    }

    /// The model as `nnue`'s float net (the parameters split into their four arrays).
    pub fn float_net(&self) -> FloatNet {
        let l = self.layout();
        let p = self.params.as_slice().expect("contiguous");
        FloatNet {
            hidden: self.hidden,
            output_buckets: self.buckets,
            feature_weights: p[..l.ft_bias].to_vec(),
            feature_bias: p[l.ft_bias..l.out_w].to_vec(),
            output_weights: p[l.out_w..l.out_b].to_vec(),
            output_bias: p[l.out_b..l.len].to_vec(),
        }
    }

    /// Quantises into a net with [`FloatNet::quantise`], `nnue`'s one quantiser: every
    /// value must fit its integer type and range, no accumulator may overflow i16 and the
    /// shape must be one the engine runs. Errors: the first rule broken.
    pub fn to_network(&self) -> Result<Network, QuantiseError> {
        self.float_net().quantise()
    }
}

/// Which compiled version of the kernel runs. The AVX2 + FMA build can only be had from
/// [`Kernel::detect`] or [`Kernel::avx2_fma`], which check the CPU, so no safe call runs
/// instructions the CPU lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel(Isa);

/// The instruction sets a [`Kernel`] may use (private: only checked constructors make one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isa {
    Portable,
    Avx2Fma,
}

/// The CPU lacks what a kernel needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelError {
    /// The kernel asked for.
    pub kernel: &'static str,
}

impl std::fmt::Display for KernelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "this CPU cannot run the {} kernel", self.kernel)
    }
}

impl std::error::Error for KernelError {}

/// Whether this CPU has AVX2 and FMA.
fn cpu_has_avx2_fma() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

impl Kernel {
    /// The fastest kernel this CPU runs: AVX2 + FMA when it has both, else the portable one.
    pub fn detect() -> Kernel {
        if cpu_has_avx2_fma() {
            Kernel(Isa::Avx2Fma)
        } else {
            Kernel(Isa::Portable)
        }
    }

    /// The portable kernel (any CPU).
    pub fn portable() -> Kernel {
        Kernel(Isa::Portable)
    }

    /// The AVX2 + FMA kernel. Errors: the CPU lacks AVX2 or FMA.
    pub fn avx2_fma() -> Result<Kernel, KernelError> {
        if cpu_has_avx2_fma() {
            Ok(Kernel(Isa::Avx2Fma))
        } else {
            Err(KernelError { kernel: "AVX2 + FMA" })
        }
    }

    /// The kernel's name: "avx2+fma" or "portable".
    pub fn name(self) -> &'static str {
        match self.0 {
            Isa::Portable => "portable",
            Isa::Avx2Fma => "avx2+fma",
        }
    }

    /// Forward and backward for `positions`, adding gradients (not yet divided by the
    /// count) into `grad`. `scratch` holds [`scratch_len`] floats. Returns the summed loss.
    pub fn accumulate(
        self,
        params: &[f32],
        layout: Layout,
        positions: &[Position],
        wdl: f32,
        grad: &mut [f32],
        scratch: &mut [f32],
    ) -> f64 {
        #[cfg(target_arch = "x86_64")]
        if self.0 == Isa::Avx2Fma {
            // SAFETY: `Isa::Avx2Fma` is only made by `detect` and `avx2_fma`, after the CPU
            // reported AVX2 and FMA.
            return unsafe { accumulate_avx2(params, layout, positions, wdl, grad, scratch) };
        }
        accumulate_portable(params, layout, positions, wdl, grad, scratch)
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn accumulate_avx2(
    params: &[f32],
    layout: Layout,
    positions: &[Position],
    wdl: f32,
    grad: &mut [f32],
    scratch: &mut [f32],
) -> f64 {
    accumulate_portable(params, layout, positions, wdl, grad, scratch)
}

/// Dispatches to a copy of the kernel specialised for the width, so every loop has a
/// compile-time trip count (fully unrolled, no bounds checks); other widths use `N = 0`.
#[inline(always)]
fn accumulate_portable(
    params: &[f32],
    layout: Layout,
    positions: &[Position],
    wdl: f32,
    grad: &mut [f32],
    scratch: &mut [f32],
) -> f64 {
    match layout.hidden {
        32 => kernel::<32>(params, layout, positions, wdl, grad, scratch),
        64 => kernel::<64>(params, layout, positions, wdl, grad, scratch),
        128 => kernel::<128>(params, layout, positions, wdl, grad, scratch),
        256 => kernel::<256>(params, layout, positions, wdl, grad, scratch),
        512 => kernel::<512>(params, layout, positions, wdl, grad, scratch),
        1024 => kernel::<1024>(params, layout, positions, wdl, grad, scratch),
        _ => kernel::<0>(params, layout, positions, wdl, grad, scratch),
    }
}

/// Positions per block: the block's accumulators and gradients (2 x 2N floats each per
/// position) stay in L2 while each weight row and gradient row is touched once per block.
fn block_size(h: usize) -> usize {
    (32 * 1024 / h).clamp(16, 512)
}

/// Floats of scratch the kernel needs per thread: a block's accumulators and lane gradients.
pub fn scratch_len(hidden: usize) -> usize {
    2 * block_size(hidden) * 2 * hidden
}

/// The kernel, loop-interchanged for the cache. Per position, the naive order gathers ~60
/// weight rows and scatters ~60 gradient rows, all over a 768-row matrix that does not fit
/// in L2, so it runs at memory speed. Here a block of positions is first inverted into a
/// list of (position, view) per feature; then each weight row is read once and added into
/// every accumulator that needs it, and each gradient row is summed once over every
/// position that touched it: the large matrices stream once per block, and the per-position
/// work hits the small block buffers in L2.
// `max(0).min(1)` rather than `clamp`: it vectorises (clamp's NaN checks did not).
#[allow(clippy::manual_clamp)]
#[inline(always)]
fn kernel<const N: usize>(
    params: &[f32],
    layout: Layout,
    positions: &[Position],
    wdl: f32,
    grad: &mut [f32],
    scratch: &mut [f32],
) -> f64 {
    let h = if N > 0 { N } else { layout.hidden };
    let buckets = layout.buckets;
    let l = Layout::bucketed(h, buckets);
    let (ft_w, rest) = params.split_at(l.ft_bias);
    let (ft_b, rest) = rest.split_at(h);
    let (out_w_all, out_b_all) = rest.split_at(buckets * 2 * h);
    let (g_ft_w, g_rest) = grad.split_at_mut(l.ft_bias);
    let (g_ft_b, g_rest) = g_rest.split_at_mut(h);
    let (g_out_w_all, g_out_b_all) = g_rest.split_at_mut(buckets * 2 * h);
    let block = block_size(h);
    let (acc, delta) = scratch[..2 * block * 2 * h].split_at_mut(block * 2 * h);
    let mut starts = vec![0u32; INPUTS + 1];
    let mut entries = vec![0u32; block * 64];
    let mut loss = 0.0f64;
    for chunk in positions.chunks(block) {
        // Invert: for each feature, the accumulator slots (2 per position) it feeds.
        starts.iter_mut().for_each(|s| *s = 0);
        for pos in chunk {
            for i in 0..pos.count as usize {
                starts[pos.stm[i] as usize + 1] += 1;
                starts[pos.nstm[i] as usize + 1] += 1;
            }
        }
        for f in 0..INPUTS {
            starts[f + 1] += starts[f];
        }
        let mut fill = starts.clone();
        for (p, pos) in chunk.iter().enumerate() {
            for i in 0..pos.count as usize {
                for (view, f) in [(0, pos.stm[i]), (1, pos.nstm[i])] {
                    let slot = &mut fill[f as usize];
                    entries[*slot as usize] = (2 * p + view) as u32;
                    *slot += 1;
                }
            }
        }
        // Forward: biases, then each weight row into every slot that uses it.
        let slots = &mut acc[..chunk.len() * 2 * h];
        for slot in slots.chunks_exact_mut(h) {
            slot.copy_from_slice(ft_b);
        }
        for f in 0..INPUTS {
            let (a, b) = (starts[f] as usize, starts[f + 1] as usize);
            if a == b {
                continue;
            }
            let row = &ft_w[f * h..(f + 1) * h];
            for &e in &entries[a..b] {
                let e = e as usize;
                add_row(&mut slots[e * h..(e + 1) * h], row);
            }
        }
        // Output layer, loss, and the gradient at every accumulator lane.
        for (p, pos) in chunk.iter().enumerate() {
            let a = &slots[p * 2 * h..(p + 1) * 2 * h];
            let k = output_bucket(pos.count as usize, buckets);
            let out_w = &out_w_all[k * 2 * h..(k + 1) * 2 * h];
            let g_out_w = &mut g_out_w_all[k * 2 * h..(k + 1) * 2 * h];
            let out_b = out_b_all[k];
            let mut lanes = [0.0f32; 8];
            for (a, w) in a.chunks_exact(8).zip(out_w.chunks_exact(8)) {
                for k in 0..8 {
                    let x = a[k].max(0.0).min(1.0);
                    lanes[k] += x * x * w[k];
                }
            }
            let out = out_b + lanes.iter().sum::<f32>();
            let prob = sigmoid(out);
            let t = pos.target(wdl);
            loss += f64::from((prob - t) * (prob - t));
            let d = 2.0 * (prob - t) * prob * (1.0 - prob);
            g_out_b_all[k] += d;
            let da = &mut delta[p * 2 * h..(p + 1) * 2 * h];
            // Two simple loops (each vectorises; the fused four-way one did not): output
            // weight gradients, then the SCReLU derivative, 2x inside (0, 1), else zero.
            for (a, gw) in a.chunks_exact(8).zip(g_out_w.chunks_exact_mut(8)) {
                for k in 0..8 {
                    let x = a[k].max(0.0).min(1.0);
                    gw[k] += d * x * x;
                }
            }
            for ((a, w), da) in a
                .chunks_exact(8)
                .zip(out_w.chunks_exact(8))
                .zip(da.chunks_exact_mut(8))
            {
                for k in 0..8 {
                    let inside = f32::from(u8::from((a[k] > 0.0) & (a[k] < 1.0)));
                    da[k] = 2.0 * d * w[k] * a[k] * inside;
                }
            }
            for half in da.chunks_exact(h) {
                add_row(g_ft_b, half);
            }
        }
        // Backward: each gradient row sums the lanes of every slot that used the feature.
        let deltas = &delta[..chunk.len() * 2 * h];
        for f in 0..INPUTS {
            let (a, b) = (starts[f] as usize, starts[f + 1] as usize);
            if a == b {
                continue;
            }
            let row = &mut g_ft_w[f * h..(f + 1) * h];
            for &e in &entries[a..b] {
                let e = e as usize;
                add_row(row, &deltas[e * h..(e + 1) * h]);
            }
        }
    }
    loss
}

#[inline(always)]
fn add_row(acc: &mut [f32], row: &[f32]) {
    for (a, w) in acc.chunks_exact_mut(8).zip(row.chunks_exact(8)) {
        for k in 0..8 {
            a[k] += w[k];
        }
    }
}

/// The loss of `positions` without gradients (validation).
pub fn loss_only(model: &Model, positions: &[Position], wdl: f32) -> f64 {
    positions
        .iter()
        .map(|p| {
            let e = sigmoid(model.output(p)) - p.target(wdl);
            f64::from(e * e)
        })
        .sum::<f64>()
        / positions.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simd_kernel_only_comes_from_a_cpu_check() {
        let has = cpu_has_avx2_fma();
        assert_eq!(Kernel::avx2_fma().is_ok(), has);
        assert_eq!(Kernel::detect() == Kernel(Isa::Avx2Fma), has);
        assert_eq!(Kernel::portable().name(), "portable");
        if !has {
            assert_eq!(
                Kernel::avx2_fma().unwrap_err().to_string(),
                "this CPU cannot run the AVX2 + FMA kernel"
            );
        }
    }

    #[test]
    fn export_refuses_widths_the_engine_cannot_run() {
        let model = Model::random(8, 1);
        assert!(matches!(
            model.to_network(),
            Err(QuantiseError::Net(nnue::NetError::UnsupportedArchitecture(_)))
        ));
        assert!(model
            .to_network()
            .unwrap_err()
            .to_string()
            .starts_with("unsupported architecture: hidden width 8 (must be a multiple of 16"));
    }

    #[test]
    fn clipped_weights_always_quantise() {
        // The clip keeps every output weight inside the net's range and every feature
        // weight small enough that 32 of them and a bias fit an i16 accumulator.
        let mut model = Model::random(16, 1);
        model.params.fill(WEIGHT_CLIP);
        let net = model.to_network().unwrap();
        assert_eq!(net.output_weights()[0], nnue::quantise::OUTPUT_WEIGHT_MAX);
        model.params.fill(-WEIGHT_CLIP);
        assert!(model.to_network().is_ok());
    }
}
