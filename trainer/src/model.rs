//! The float model the trainer fits, its forward and backward pass, and quantisation into
//! the `nnue` net format.
//!
//! Parameters live in one flat `ndarray::Array1<f32>` so the optimiser treats them alike:
//! `[feature weights (768 x N, feature-major) | feature bias (N) | output weights (B x 2N) |
//! output bias (B)]` for B output buckets. The network is the engine's: accumulators
//! `b + Σ rows` per perspective, SCReLU `clamp(x, 0, 1)²`, output `Σ h·w[k] + b[k]` with
//! `k = nnue::output_bucket(pieces, B)`; a position's prediction is `sigmoid(output)`, its
//! centipawn evaluation `output · 400`. A model may be horizontally mirrored
//! ([`Model::mirrored`], `trainer train --mirror`) and may have king buckets (`--arch
//! "(768x4hm -> N)x2 -> 1xB"`): its input feature set ([`Model::features`],
//! `nnue::FeatureSet`) says how many feature rows it has (768 per king bucket) and which
//! features its positions carry (`crate::data`); this code only sees the row count, and
//! the exported net carries the feature set.
//!
//! A king-bucketed model may carry a factoriser ([`Model::factoriser`], `trainer train
//! --factorise`): one more block of 768 feature rows `F`, shared by every king bucket, so
//! that feature `f` of bucket `b` has the weight `W_b[f] + F[f]` (the merged weight) and `F`
//! learns from every position while a bucket's own rows learn from about `1/K` of them. The
//! factor rows come last in the parameter vector, after everything the net stores, so
//! the rest of the layout is the merged net's ([`Layout::factor`], [`Layout::merged`]).
//! Training never gives the kernels the factor rows: it merges them into a parameter vector
//! of the merged net's layout once per batch ([`Model::merge_into`]), runs the fused kernel
//! or the general path on that unchanged, and then adds each bucket's row gradients into
//! the factor row's ([`Layout::fold_factor_gradient`]), since `d loss / d F[f] = Σ_b d loss
//! / d W_b[f]`. A factorised batch so costs two passes over the feature weights more, not
//! twice the rows per position. [`Model::merged`] is the net export writes: `W_b + F` in
//! every bucket, the factor dropped, so the net file and the engine are the same as without
//! a factoriser. Clipping keeps every merged weight within ±[`WEIGHT_CLIP`]
//! ([`Model::clip_merged`]), so a factorised model quantises exactly as a plain one does.
//!
//! The hot loop is [`Kernel::accumulate`] (forward and backward over a share of a batch,
//! into a gradient buffer private to the thread). A plain per-sample loop gathers ~2x30 rows
//! of N weights per position out of the 768-row matrix and scatters as many gradient rows
//! back, at the speed of L2 or memory. The kernel instead works on columns of 16 hidden
//! units: the weights are laid out column by column ([`Columns`], a slab of the input rows
//! per column: 48 KiB of 768 rows for the plain inputs, 768 K rows for K king buckets, made
//! once per batch), and a block of 128 positions is summed through one
//! slab at a time, two positions and both perspectives at once, with the accumulators in
//! registers; the backward pass inverts the block into the slots each feature feeds and sums
//! each gradient row over them from the column's lane gradients, which fit in L1. The
//! steps are described at `kernel`. The loops are written against a small vector
//! interface (`crate::simd`), because the compiler's vectoriser did not keep the
//! accumulators in registers, and compiled three times: portable, with AVX2 + FMA (two
//! 256-bit registers a vector), and with AVX-512 (one 512-bit register a vector, and with
//! 32 registers four columns at a time), chosen at run time by [`Kernel::detect`]. Rows and
//! slots are cache-line aligned (`Line`): unaligned, every 64-byte row straddled two
//! lines, which cost a fifth of the speed. Results equal the plain sums up to the order of
//! additions.

use crate::data::{sigmoid, Position, MAX_FEATURES};
#[cfg(target_arch = "x86_64")]
use crate::simd::Avx2;
#[cfg(target_arch = "x86_64")]
#[rustversion::since(1.89)]
use crate::simd::Avx512;
use crate::simd::{self, F32x16, PerIsa, Portable};
use ndarray::Array1;
use nnue::{output_bucket, FeatureSet, FloatNet, Network, QuantiseError, INPUTS};
use rayon::prelude::*;

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
    /// The input feature set (king buckets, horizontal mirroring; `nnue::FeatureSet`): the
    /// positions it trains on must be decoded for it, and its exported net carries it.
    pub features: FeatureSet,
    /// The widths of the hidden layers after the transformer (`nnue::Arch::layers`); empty
    /// for a net whose transformer feeds the output directly (the fused kernel's case).
    pub layers: Vec<usize>,
    /// Whether the model has a factoriser: 768 feature rows shared by every king bucket
    /// (module documentation), after all other parameters. Only with more than one king
    /// bucket ([`Model::with_factoriser`]).
    pub factoriser: bool,
    /// All parameters, `Layout::len` of them.
    pub params: Array1<f32>,
}

/// Offsets into the flat parameter vector.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Feature rows: 768 per king bucket.
    pub inputs: usize,
    /// Hidden width N.
    pub hidden: usize,
    /// Output buckets.
    pub buckets: usize,
    /// Where the feature biases start (the feature weights start at 0).
    pub ft_bias: usize,
    /// Where the output weights start.
    pub out_w: usize,
    /// Where the output biases start (in a model with hidden layers: the first layer's
    /// biases).
    pub out_b: usize,
    /// The number of parameters.
    pub len: usize,
    /// The widths of the hidden layers (the first `hidden_layers` of them); none in the
    /// plain layout.
    pub layer_widths: [usize; nnue::arch::MAX_LAYERS],
    /// How many hidden layers.
    pub hidden_layers: usize,
    /// Where the factoriser's rows start ([`FACTOR_ROWS`] rows of `hidden` floats, the last
    /// parameters, up to `len`); `None` without a factoriser. Everything before them is laid
    /// out as in the merged net ([`Layout::merged`]).
    pub factor: Option<usize>,
}

/// The rows of a factoriser: one for each feature of a king bucket (`nnue::INPUTS`).
pub const FACTOR_ROWS: usize = INPUTS;

/// Rows per task when merging, folding and clipping factorised weights in parallel (a
/// divisor of [`FACTOR_ROWS`]: eight tasks a bucket).
const FACTOR_CHUNK: usize = FACTOR_ROWS / 8;

/// One dense layer after the transformer in the flat parameters: the output layer of a
/// plain model, or each layer of a model with hidden layers ([`Layout::dense`]). Its weights
/// are `buckets · outputs · inputs` floats from `weights` (per bucket, per output, its
/// inputs), its biases `buckets · outputs` from `bias`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dense {
    /// Inputs per output (`2N` for the first).
    pub inputs: usize,
    /// Outputs (1 for the last).
    pub outputs: usize,
    /// Where its weights start.
    pub weights: usize,
    /// Where its biases start.
    pub bias: usize,
}

impl Layout {
    /// The layout of a net with one output bucket.
    pub fn new(hidden: usize) -> Layout {
        Layout::bucketed(hidden, 1)
    }

    /// The layout of a net with `buckets` output buckets (and the plain 768 inputs).
    pub fn bucketed(hidden: usize, buckets: usize) -> Layout {
        Layout::with_inputs(INPUTS, hidden, buckets)
    }

    /// The layout of a net with `inputs` feature rows (`FeatureSet::inputs`), width
    /// `hidden` and `buckets` output buckets.
    pub fn with_inputs(inputs: usize, hidden: usize, buckets: usize) -> Layout {
        Layout::with_layers(inputs, hidden, buckets, &[])
    }

    /// The layout of a net with hidden layers of widths `layers` after the transformer (at
    /// most `nnue::arch::MAX_LAYERS`; more panics): the transformer as in the plain layout,
    /// then each layer's weights and biases ([`Dense`]), the last with one output. With no
    /// hidden layers this is the plain layout, whose output layer is that one last layer.
    pub fn with_layers(inputs: usize, hidden: usize, buckets: usize, layers: &[usize]) -> Layout {
        let ft_bias = inputs * hidden;
        let out_w = ft_bias + hidden;
        let out_b = out_w + buckets * 2 * hidden * layers.first().copied().unwrap_or(1);
        let mut layer_widths = [0; nnue::arch::MAX_LAYERS];
        layer_widths[..layers.len()].copy_from_slice(layers);
        let mut layout = Layout {
            inputs,
            hidden,
            buckets,
            ft_bias,
            out_w,
            out_b,
            len: 0,
            layer_widths,
            hidden_layers: layers.len(),
            factor: None,
        };
        layout.len = layout
            .dense()
            .last()
            .map_or(out_w, |d| d.bias + buckets * d.outputs);
        layout
    }

    /// This layout with a factoriser: [`FACTOR_ROWS`] rows of `hidden` floats appended after
    /// every other parameter (the same layout if it has one).
    pub fn with_factoriser(self) -> Layout {
        let mut layout = self.merged();
        layout.factor = Some(layout.len);
        layout.len += FACTOR_ROWS * layout.hidden;
        layout
    }

    /// The layout of the merged net: this one without the factoriser's rows (the same
    /// layout if it has none). Its parameters are a prefix of this layout's.
    pub fn merged(self) -> Layout {
        Layout {
            len: self.factor.unwrap_or(self.len),
            factor: None,
            ..self
        }
    }

    /// Where the factor row of feature row `feature` starts (the row of its index within
    /// its king bucket); `None` without a factoriser.
    #[inline(always)]
    pub fn factor_row(&self, feature: u16) -> Option<usize> {
        self.factor
            .map(|at| at + usize::from(feature) % FACTOR_ROWS * self.hidden)
    }

    /// The merged net's parameters ([`Layout::merged`]) of `params` (laid out as this
    /// layout) into `out`, resized to hold them: with a factoriser every bucket's feature
    /// row plus its factor row, the rest copied; without, a copy.
    pub fn merge(&self, params: &[f32], out: &mut Vec<f32>) {
        assert_eq!(params.len(), self.len, "parameters for the layout");
        let merged = self.merged().len;
        out.clear();
        out.extend_from_slice(&params[..merged]);
        let Some(factor) = self.factor else {
            return;
        };
        let (chunk, rows) = (FACTOR_CHUNK * self.hidden, FACTOR_ROWS * self.hidden);
        let f = &params[factor..factor + rows];
        out[..self.ft_bias]
            .par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(i, block)| {
                let start = i * chunk % rows;
                for (w, &x) in block.iter_mut().zip(&f[start..start + chunk]) {
                    *w += x;
                }
            });
    }

    /// Turns `grad` (this layout's length), whose bucket rows hold the gradient by the
    /// merged weights, into the gradient by the factorised parameters: each factor row's
    /// gradient becomes the sum of its feature's rows over the buckets (`W_b[f] + F[f]`
    /// moves with `F[f]` in every bucket `b`), overwriting what the factor rows held; the
    /// bucket rows' gradients are already right. Nothing happens without a factoriser.
    pub fn fold_factor_gradient(&self, grad: &mut [f32]) {
        assert_eq!(grad.len(), self.len, "gradients for the layout");
        let Some(factor) = self.factor else {
            return;
        };
        let (chunk, rows) = (FACTOR_CHUNK * self.hidden, FACTOR_ROWS * self.hidden);
        let (buckets, rest) = grad.split_at_mut(self.ft_bias);
        let buckets = &*buckets;
        rest[factor - self.ft_bias..][..rows]
            .par_chunks_mut(chunk)
            .enumerate()
            .for_each(|(i, out)| {
                out.fill(0.0);
                for bucket in buckets.chunks_exact(rows) {
                    for (o, &g) in out.iter_mut().zip(&bucket[i * chunk..]) {
                        *o += g;
                    }
                }
            });
    }

    /// The dense layers after the transformer, first to last (one, the output layer, in the
    /// plain layout).
    pub fn dense(&self) -> Vec<Dense> {
        let widths = &self.layer_widths[..self.hidden_layers];
        let mut at = self.out_w;
        let mut inputs = 2 * self.hidden;
        let mut out = Vec::with_capacity(widths.len() + 1);
        for &outputs in widths.iter().chain(&[1]) {
            let weights = at;
            let bias = weights + self.buckets * outputs * inputs;
            out.push(Dense {
                inputs,
                outputs,
                weights,
                bias,
            });
            at = bias + self.buckets * outputs;
            inputs = outputs;
        }
        out
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
        Model::random_with(FeatureSet::plain(), hidden, buckets, seed)
    }

    /// A freshly initialised model with the input feature set `features` (with the plain
    /// set, the weights of [`Model::random_bucketed`] for the same seed).
    pub fn random_with(features: FeatureSet, hidden: usize, buckets: usize, seed: u64) -> Model {
        let layout = Layout::with_inputs(features.inputs(), hidden, buckets);
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
            features,
            layers: Vec::new(),
            factoriser: false,
            params,
        }
    }

    /// A freshly initialised model of the descriptor `arch`, reproducible by `seed`: the
    /// transformer as [`Model::random_with`] makes it (the same weights for the same seed);
    /// a model with hidden layers has each layer's weights uniform in `±1/sqrt(inputs)`
    /// and its biases zero. The descriptor is taken as it is (`nnue::Arch::runnable` is the
    /// caller's to check; [`Model::to_network`] refuses what the engine cannot run).
    pub fn random_arch(arch: &nnue::Arch, seed: u64) -> Model {
        let mut model = Model::random_with(arch.features, arch.width, arch.output_buckets, seed);
        if arch.layers.is_empty() {
            return model;
        }
        let layout = Layout::with_layers(
            arch.features.inputs(),
            arch.width,
            arch.output_buckets,
            &arch.layers,
        );
        let mut params = Array1::<f32>::zeros(layout.len);
        let p = params.as_slice_mut().expect("contiguous");
        p[..layout.out_w].copy_from_slice(&model.params.as_slice().expect("contiguous")[..layout.out_w]);
        let mut rng = movegen::rng::SplitMix64(seed ^ 0x001A_7EB5);
        for d in layout.dense() {
            let scale = 1.0 / (d.inputs as f32).sqrt();
            for w in &mut p[d.weights..d.bias] {
                *w = uniform(&mut rng) * scale;
            }
        }
        model.layers = arch.layers.clone();
        model.params = params;
        model
    }

    /// The model's descriptor (SCReLU, the standard quantisation).
    pub fn arch(&self) -> nnue::Arch {
        let mut arch = nnue::Arch::simple(self.features, self.hidden, self.buckets);
        arch.layers = self.layers.clone();
        arch
    }

    /// The same model with horizontal mirroring on (`true`) or off; the weights stay.
    pub fn with_mirroring(mut self, mirrored: bool) -> Model {
        self.features = self.features.with_mirroring(mirrored);
        self
    }

    /// Whether the input layer is horizontally mirrored.
    pub fn mirrored(&self) -> bool {
        self.features.is_mirrored()
    }

    /// The float model a quantised net stands for (to fine-tune from it with `--init`),
    /// mirrored as the net is.
    pub fn from_network(net: &Network) -> Result<Model, String> {
        if net.layers().is_empty() {
            return Model::grown_from_network(net, net.hidden(), net.output_buckets(), 0);
        }
        // A net with hidden layers: its arrays in the order of the flat layout.
        let float = FloatNet::from_network(net);
        let arch = net.arch();
        let layout = Layout::with_layers(
            arch.features.inputs(),
            arch.width,
            arch.output_buckets,
            &arch.layers,
        );
        let mut params = Vec::with_capacity(layout.len);
        params.extend_from_slice(&float.feature_weights);
        params.extend_from_slice(&float.feature_bias);
        for layer in &float.layers {
            params.extend_from_slice(&layer.weights);
            params.extend_from_slice(&layer.bias);
        }
        if params.len() != layout.len {
            return Err(format!(
                "{}: {} parameters where the layout has {}",
                arch,
                params.len(),
                layout.len
            ));
        }
        Ok(Model {
            hidden: arch.width,
            buckets: arch.output_buckets,
            features: arch.features,
            layers: arch.layers,
            factoriser: false,
            params: Array1::from_vec(params),
        })
    }

    /// The float model of `net` grown to `hidden` units and `buckets` output buckets with the
    /// same output on every position, so a fine-tune starts from what `net` knows:
    /// new hidden units get small random feature weights (seeded by `seed`) and zero output
    /// weights; a one-bucket net's output layer is copied into every bucket. The model has
    /// `net`'s feature set.
    ///
    /// Errors: a narrower target width, or a bucketed net whose bucket count differs.
    pub fn grown_from_network(
        net: &Network,
        hidden: usize,
        buckets: usize,
        seed: u64,
    ) -> Result<Model, String> {
        Model::grown_into(net, *net.features(), hidden, buckets, seed)
    }

    /// [`Model::grown_from_network`] into the feature set `features`: a net with the same
    /// number of king buckets keeps its rows; a net without king buckets has its 768 rows
    /// copied into every king bucket, so the grown model gives the same output as `net`
    /// (read with `features`' mirroring) on every position, the usual start of a first
    /// king-bucketed net.
    ///
    /// Errors as [`Model::grown_from_network`], and a net with king buckets whose count
    /// differs from `features`'.
    pub fn grown_into(
        net: &Network,
        features: FeatureSet,
        hidden: usize,
        buckets: usize,
        seed: u64,
    ) -> Result<Model, String> {
        if !net.layers().is_empty() {
            return Err(format!(
                "cannot grow a net with hidden layers ({}); give it to --init of the same shape",
                net.arch()
            ));
        }
        let (from_k, to_k) = (net.features().king_buckets_count(), features.king_buckets_count());
        if from_k != 1 && from_k != to_k {
            return Err(format!(
                "cannot turn a net with {from_k} king buckets ({}) into one with {to_k}",
                net.arch()
            ));
        }
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
        let layout = Layout::with_inputs(features.inputs(), hidden, buckets);
        let mut params = Model::random_with(features, hidden, buckets, seed).params;
        let p = params.as_slice_mut().expect("contiguous");
        let from_rows = net.features().inputs();
        for f in 0..features.inputs() {
            // The same row, or the plain net's row for this bucket's feature.
            let src = f % from_rows;
            for j in 0..old {
                p[f * hidden + j] = feature_weights[src * old + j];
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
            features,
            layers: Vec::new(),
            factoriser: false,
            params,
        })
    }

    /// [`Model::grown_into`] for a run with a factoriser. From a net without king buckets,
    /// its rows go into the factor rows and every bucket's rows start at zero (the hidden
    /// units a wider run adds keep their small random weights in the buckets); from a net
    /// with the run's king buckets, its rows stay in the buckets and the factor starts at
    /// zero. Either way the merged net is the one `grown_into` makes, with the same output
    /// as `net`. Errors: those of `grown_into` and of [`Model::with_factoriser`].
    pub fn grown_into_factorised(
        net: &Network,
        features: FeatureSet,
        hidden: usize,
        buckets: usize,
        seed: u64,
    ) -> Result<Model, String> {
        let mut model = Model::grown_into(net, features, hidden, buckets, seed)?.with_factoriser()?;
        if net.features().king_buckets_count() == 1 {
            let layout = model.layout();
            let factor = layout.factor.expect("a factorised layout");
            let old = net.hidden();
            let p = model.params.as_slice_mut().expect("contiguous");
            for f in 0..FACTOR_ROWS {
                for j in 0..old {
                    // Every bucket holds the same copy of the net's weight.
                    p[factor + f * hidden + j] = p[f * hidden + j];
                    for b in 0..features.king_buckets_count() {
                        p[(b * FACTOR_ROWS + f) * hidden + j] = 0.0;
                    }
                }
            }
        }
        Ok(model)
    }

    /// The same model with a factoriser whose rows start at zero, so that the merged net,
    /// and every output, stay as they are; a model that has one is returned unchanged.
    /// Errors: a model without king buckets (a factoriser would only repeat its one block
    /// of rows).
    pub fn with_factoriser(mut self) -> Result<Model, String> {
        if self.factoriser {
            return Ok(self);
        }
        if self.features.king_buckets_count() < 2 {
            return Err(format!(
                "a factoriser needs king buckets (more than one), and {} has none",
                self.arch()
            ));
        }
        let len = self.layout().with_factoriser().len;
        let mut params = self.params.to_vec();
        params.resize(len, 0.0);
        self.params = Array1::from_vec(params);
        self.factoriser = true;
        Ok(self)
    }

    /// The net a factorised model stands for: every bucket's row of feature `f` the merged
    /// weight `W_b[f] + F[f]`, the factor rows dropped. What export quantises, and what
    /// [`Model::output`] computes; a model without a factoriser is returned as it is.
    pub fn merged(&self) -> Model {
        if !self.factoriser {
            return self.clone();
        }
        let mut params = Vec::new();
        self.merge_into(&mut params);
        Model {
            hidden: self.hidden,
            buckets: self.buckets,
            features: self.features,
            layers: self.layers.clone(),
            factoriser: false,
            params: Array1::from_vec(params),
        }
    }

    /// The parameters of [`Model::merged`] into `out` (`layout().merged().len` floats; it
    /// is resized to hold them): what the training kernels run on once per batch.
    pub fn merge_into(&self, out: &mut Vec<f32>) {
        self.layout()
            .merge(self.params.as_slice().expect("contiguous"), out);
    }

    /// Where each part of the parameters lies.
    pub fn layout(&self) -> Layout {
        let layout = Layout::with_layers(self.features.inputs(), self.hidden, self.buckets, &self.layers);
        if self.factoriser {
            layout.with_factoriser()
        } else {
            layout
        }
    }

    /// Keeps every merged weight within ±[`WEIGHT_CLIP`], the range the quantiser is safe
    /// for: each bucket's weight `W_b[f]` is clipped to `[-c - F[f], c - F[f]]` for its
    /// factor weight `F[f]` (which [`Model::clips`] keeps within ±c), so that `W_b[f] + F[f]`
    /// lies within ±c up to a rounding of the last bit. The optimiser calls it after every
    /// step, after the clips; nothing happens without a factoriser.
    pub fn clip_merged(&mut self) {
        let layout = self.layout();
        let Some(factor) = layout.factor else {
            return;
        };
        let chunk = FACTOR_CHUNK * layout.hidden;
        let rows = FACTOR_ROWS * layout.hidden;
        let p = self.params.as_slice_mut().expect("contiguous");
        let (weights, rest) = p.split_at_mut(layout.ft_bias);
        let f = &rest[factor - layout.ft_bias..][..rows];
        weights.par_chunks_mut(chunk).enumerate().for_each(|(i, block)| {
            let start = i * chunk % rows;
            for (w, &x) in block.iter_mut().zip(&f[start..start + chunk]) {
                // max/min rather than clamp: no panic on a NaN bound.
                *w = w.max(-WEIGHT_CLIP - x).min(WEIGHT_CLIP - x);
            }
        });
    }

    /// The clip of each range of parameters after every optimiser step, from the
    /// quantisation each tensor gets: `(start, end, limit)`. A plain model clips all to
    /// [`WEIGHT_CLIP`] (its transformer's accumulator bound and its i16 output weights at
    /// QB = 64 alike, as it always did). A model with hidden layers clips its transformer to
    /// [`WEIGHT_CLIP`], its layer weights to `LAYER_WEIGHT_MAX / QB` (127 / 64, the largest
    /// that rounds into i8) and its layer biases to `LAYER_BIAS_MAX / (QA · QB)`.
    ///
    /// With a factoriser, its rows are clipped to [`WEIGHT_CLIP`] too, and the buckets'
    /// feature weights to twice that (the most a weight can hold whose merged weight and
    /// factor weight lie within ±[`WEIGHT_CLIP`]); [`Model::clip_merged`] then holds each
    /// merged weight to ±[`WEIGHT_CLIP`].
    pub fn clips(&self) -> Vec<(usize, usize, f32)> {
        let layout = self.layout();
        let merged = layout.merged();
        let mut clips = if let Some(factor) = layout.factor {
            vec![
                (0, layout.ft_bias, 2.0 * WEIGHT_CLIP),
                (layout.ft_bias, layout.out_w, WEIGHT_CLIP),
                (factor, layout.len, WEIGHT_CLIP),
            ]
        } else {
            vec![(0, layout.out_w, WEIGHT_CLIP)]
        };
        if self.layers.is_empty() {
            clips.push((layout.out_w, merged.len, WEIGHT_CLIP));
            return clips;
        }
        let weight = f32::from(nnue::quantise::LAYER_WEIGHT_MAX) / nnue::QB as f32;
        let bias = nnue::quantise::LAYER_BIAS_MAX as f32 / (nnue::QA * nnue::QB) as f32;
        for d in layout.dense() {
            clips.push((d.weights, d.bias, weight));
            clips.push((d.bias, d.bias + layout.buckets * d.outputs, bias));
        }
        clips
    }

    /// The output bucket of a training position.
    #[inline]
    pub fn bucket(&self, pos: &Position) -> usize {
        output_bucket(pos.count as usize, self.buckets)
    }

    /// The position of `board` as this model reads it (its feature set), with a score of
    /// 0 and a draw as labels.
    pub fn position(&self, board: &movegen::Board) -> Position {
        Position::from_board_features(board, 0.0, 0.5, &self.features)
    }

    /// The raw output for a position (centipawns / 400). A factorised model reads each
    /// feature's merged weight `W_b[f] + F[f]`, summed as the merged net's one weight, so
    /// its output is that of [`Model::merged`] to the bit.
    pub fn output(&self, pos: &Position) -> f32 {
        let l = self.layout();
        let p = self.params.as_slice().expect("contiguous");
        if !self.layers.is_empty() {
            return crate::general::output(p, &l, pos);
        }
        let h = self.hidden;
        let mut acc = vec![0.0f32; 2 * h];
        acc[..h].copy_from_slice(&p[l.ft_bias..l.out_w]);
        acc[h..].copy_from_slice(&p[l.ft_bias..l.out_w]);
        for i in 0..pos.count as usize {
            for (view, feature) in [(0, pos.stm[i]), (1, pos.nstm[i])] {
                let row = &p[feature as usize * h..(feature as usize + 1) * h];
                let acc = &mut acc[view * h..(view + 1) * h];
                match l.factor_row(feature) {
                    // The merged weight, as the merged net holds it.
                    Some(at) => {
                        for ((a, w), f) in acc.iter_mut().zip(row).zip(&p[at..at + h]) {
                            *a += w + f;
                        }
                    }
                    None => {
                        for (a, w) in acc.iter_mut().zip(row) {
                            *a += w;
                        }
                    }
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

    /// The model as `nnue`'s float net (the parameters split into their four arrays); a
    /// factorised model as its merged net ([`Model::merged`]).
    pub fn float_net(&self) -> FloatNet {
        if self.factoriser {
            return self.merged().float_net();
        }
        let l = self.layout();
        let p = self.params.as_slice().expect("contiguous");
        let layered = !self.layers.is_empty();
        FloatNet {
            hidden: self.hidden,
            output_buckets: self.buckets,
            feature_weights: p[..l.ft_bias].to_vec(),
            feature_bias: p[l.ft_bias..l.out_w].to_vec(),
            output_weights: if layered {
                Vec::new()
            } else {
                p[l.out_w..l.out_b].to_vec()
            },
            output_bias: if layered {
                Vec::new()
            } else {
                p[l.out_b..l.len].to_vec()
            },
            features: self.features,
            layers: if layered {
                l.dense()
                    .iter()
                    .map(|d| nnue::FloatLayer {
                        inputs: d.inputs,
                        outputs: d.outputs,
                        weights: p[d.weights..d.bias].to_vec(),
                        bias: p[d.bias..d.bias + l.buckets * d.outputs].to_vec(),
                    })
                    .collect()
            } else {
                Vec::new()
            },
        }
    }

    /// Quantises into a net with [`FloatNet::quantise`], `nnue`'s one quantiser: every
    /// value must fit its integer type and range, no accumulator may overflow i16 and the
    /// shape must be one the engine runs. Errors: the first rule broken.
    pub fn to_network(&self) -> Result<Network, QuantiseError> {
        self.float_net().quantise()
    }
}

/// Which compiled version of the kernel runs. The SIMD builds can only be had from
/// [`Kernel::detect`], [`Kernel::avx2_fma`] and [`Kernel::avx512`], which check the CPU
/// first, so no safe call runs instructions the CPU lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel(Isa);

/// The instruction sets a [`Kernel`] may use (only checked constructors make the SIMD
/// ones; [`Kernel::run`] builds code for them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Isa {
    /// The target's baseline (SSE2 on x86-64).
    Portable,
    /// AVX2 and FMA: 16 vector registers.
    Avx2Fma,
    /// AVX-512 F, VL, BW and DQ besides AVX2 and FMA: 32 vector registers.
    Avx512,
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

use nnue::cpu::{has_avx2_fma as cpu_has_avx2_fma, has_avx512_full as cpu_has_avx512};

impl Kernel {
    /// The fastest kernel this CPU runs: AVX-512 where it has it, else AVX2 + FMA where it
    /// has both, else the portable one.
    pub fn detect() -> Kernel {
        if cpu_has_avx512() {
            Kernel(Isa::Avx512)
        } else if cpu_has_avx2_fma() {
            Kernel(Isa::Avx2Fma)
        } else {
            Kernel(Isa::Portable)
        }
    }

    /// Every kernel this CPU runs, the portable one first and [`Kernel::detect`]'s last.
    pub fn available() -> Vec<Kernel> {
        let mut all = vec![Kernel::portable()];
        all.extend(Kernel::avx2_fma().ok());
        all.extend(Kernel::avx512().ok());
        all
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

    /// The AVX-512 kernel. Errors: the CPU lacks AVX-512 F, VL, BW or DQ, AVX2 or FMA (or
    /// the trainer was built by a compiler before 1.89, which cannot build it).
    pub fn avx512() -> Result<Kernel, KernelError> {
        if cpu_has_avx512() {
            Ok(Kernel(Isa::Avx512))
        } else {
            Err(KernelError { kernel: "AVX-512" })
        }
    }

    /// The kernel's name: "avx512", "avx2+fma" or "portable".
    pub fn name(self) -> &'static str {
        match self.0 {
            Isa::Portable => "portable",
            Isa::Avx2Fma => "avx2+fma",
            Isa::Avx512 => "avx512",
        }
    }

    /// `work` built for this kernel's instruction set (`crate::simd::PerIsa`): the fused
    /// kernel, the general path and the plain reference all run through here, so each
    /// is compiled with the CPU features that the constructor checked.
    pub(crate) fn run<W: PerIsa>(self, work: W) -> W::Out {
        match self.0 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx512` is made only by `detect` and `avx512`, after
            // `nnue::cpu::has_avx512_full` found every feature `avx512_build` enables.
            Isa::Avx512 => unsafe { simd::avx512_build(work) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `Isa::Avx2Fma` is made only by `detect` and `avx2_fma`, after
            // `nnue::cpu::has_avx2_fma` found AVX2 and FMA, the features `avx2_build` enables.
            Isa::Avx2Fma => unsafe { simd::avx2_build(work) },
            _ => work.portable(),
        }
    }

    /// Forward and backward for `positions`, adding gradients (not yet divided by the
    /// count) into `grad`; returns the summed loss. `columns` holds the feature weights of
    /// `params` ([`Columns::load`]); `scratch` is the calling thread's.
    ///
    /// Panics when the pieces do not fit together: the width must be a positive multiple
    /// of 16, `params` and `grad` must hold `Layout::bucketed(hidden, buckets).len` floats,
    /// `columns` and `scratch` must be made for the width, and every position must have at
    /// most 32 features, each below `layout.inputs` (at most 32 768, the largest feature
    /// set).
    #[allow(clippy::too_many_arguments)]
    pub fn accumulate(
        self,
        params: &[f32],
        columns: &Columns,
        layout: Layout,
        positions: &[Position],
        wdl: f32,
        grad: &mut [f32],
        scratch: &mut Scratch,
    ) -> f64 {
        let h = layout.hidden;
        assert!(
            h > 0 && h.is_multiple_of(LANES),
            "hidden width {h} is no positive multiple of {LANES}"
        );
        assert!(
            (1..=nnue::MAX_OUTPUT_BUCKETS).contains(&layout.buckets),
            "{} output buckets",
            layout.buckets
        );
        let layout = Layout::with_inputs(layout.inputs, h, layout.buckets);
        assert_eq!(params.len(), layout.len, "parameters for the layout");
        assert_eq!(grad.len(), layout.len, "gradients for the layout");
        assert!(
            columns.hidden == h && columns.buckets == layout.buckets && columns.inputs == layout.inputs,
            "columns loaded for width {h}, {} inputs and {} buckets",
            layout.inputs,
            layout.buckets
        );
        assert_eq!(scratch.hidden, h, "scratch for width {h}");
        scratch.fit(layout.inputs);
        let net = Net::split(params, layout);
        let g = Grad::split(grad, layout);
        match columns.slab_rows {
            SLAB_ROWS => self.pass::<SLAB_ROWS>(net, columns, positions, wdl, g, scratch),
            SLAB_ROWS_4 => self.pass::<SLAB_ROWS_4>(net, columns, positions, wdl, g, scratch),
            _ => self.pass::<SLAB_ROWS_MAX>(net, columns, positions, wdl, g, scratch),
        }
    }

    /// [`Kernel::accumulate`] for slabs of `R` rows.
    fn pass<const R: usize>(
        self,
        net: Net<'_>,
        columns: &Columns,
        positions: &[Position],
        wdl: f32,
        grad: Grad<'_>,
        scratch: &mut Scratch,
    ) -> f64 {
        assert_eq!(columns.slab_rows, R, "slabs of {R} rows");
        self.run(Pass::<R> {
            net,
            columns,
            positions,
            wdl,
            grad,
            scratch,
        })
    }
}

/// One call of the kernel on slabs of `R` rows, as [`Kernel::run`] builds it: portable
/// and with AVX2 + FMA, two 256-bit registers a vector and one column at a time in the
/// forward pass (8 of the 16 registers hold the accumulators); with AVX-512, one 512-bit
/// register a vector and four columns at a time (16 of the 32 registers).
struct Pass<'a, const R: usize> {
    net: Net<'a>,
    columns: &'a Columns,
    positions: &'a [Position],
    wdl: f32,
    grad: Grad<'a>,
    scratch: &'a mut Scratch,
}

impl<const R: usize> Pass<'_, R> {
    /// The kernel with vectors `s`, `CP` columns at a time.
    #[inline(always)]
    fn with<S: F32x16, const CP: usize>(self, s: S) -> f64 {
        kernel::<S, CP, R>(
            s,
            self.net,
            self.columns,
            self.positions,
            self.wdl,
            self.grad,
            self.scratch,
        )
    }
}

impl<const R: usize> PerIsa for Pass<'_, R> {
    type Out = f64;

    #[inline(always)]
    fn portable(self) -> f64 {
        self.with::<_, 1>(Portable)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn avx2(self, s: Avx2) -> f64 {
        self.with::<_, 1>(s)
    }

    #[cfg(target_arch = "x86_64")]
    #[rustversion::since(1.89)]
    #[inline(always)]
    fn avx512(self, s: Avx512) -> f64 {
        self.with::<_, 4>(s)
    }
}

/// Hidden units per column: one vector of 16 floats.
const LANES: usize = 16;
/// Rows of a column's slab for the plain inputs: the 768 features, a row of zeros that
/// pads feature lists (row `inputs`, `Scratch::zero_row`), and unused rows up to a power
/// of two, so that a masked row index needs no bounds check.
const SLAB_ROWS: usize = 1024;
/// Rows of a slab for up to 5 king buckets (3 841 rows used at most).
const SLAB_ROWS_4: usize = 4096;
/// Rows of a slab for any feature set (up to 32 king buckets, 24 577 rows). The rows past
/// the zero row are allocated but never read.
const SLAB_ROWS_MAX: usize = 32768;

/// The slab rows for `inputs` feature rows: the smallest of the three sizes above the
/// zero row.
fn slab_rows(inputs: usize) -> usize {
    [SLAB_ROWS, SLAB_ROWS_4, SLAB_ROWS_MAX]
        .into_iter()
        .find(|&r| inputs < r)
        .unwrap_or(SLAB_ROWS_MAX)
}
/// Positions per block.
const BLOCK: usize = 128;
/// Accumulators per block, (position, perspective) pairs: `2 · position + perspective`.
const SLOTS: usize = 2 * BLOCK;
/// Rows from one column's slots to the next: the slots and a row of zeros ([`ZERO_SLOT`]).
/// The odd count also puts a position's slots in successive columns (16 KiB apart
/// otherwise) into different L1 sets.
const COLUMN_STRIDE: usize = SLOTS + 1;
/// The row of zeros after a column's slots; it pads each feature's slot list to an even
/// length, so that the backward pass sums pairs without a branch for the odd one.
const ZERO_SLOT: u16 = SLOTS as u16;
/// A column's slots as the backward pass indexes them: a power of two above
/// [`ZERO_SLOT`], so that a masked index needs no bounds check (the rows past the zero
/// slot, which belong to the next column, are never named).
const COLUMN_WINDOW: usize = 2 * SLOTS;

/// 16 floats: a column of one row.
type Lanes = [f32; LANES];

/// 16 floats on a cache line of their own (64 bytes, aligned), so that reading a row or a
/// slot reads exactly one line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Line(Lanes);

/// The weights as the kernel reads them, on cache lines of their own: the feature weights
/// by column, for each 16 hidden units a slab of rows of 16 floats (row f the weights of
/// feature f, row `inputs` zeros, the rest unused; 1024 rows for the plain inputs, whose
/// 48 KiB stay in L1 and L2 while a block of positions is summed through it, 4096 or 32768
/// for king buckets); and the feature biases and output weights 16 floats to a line. Made
/// once per batch ([`Columns::load`]) and shared by the threads.
#[derive(Clone, Debug)]
pub struct Columns {
    hidden: usize,
    buckets: usize,
    inputs: usize,
    slab_rows: usize,
    slabs: Vec<Line>,
    bias: Vec<Line>,
    out_w: Vec<Line>,
}

impl Columns {
    /// Room for a net of width `hidden` (a multiple of 16).
    pub fn new(hidden: usize) -> Columns {
        Columns {
            hidden,
            buckets: 0,
            inputs: INPUTS,
            slab_rows: SLAB_ROWS,
            slabs: vec![Line([0.0; LANES]); hidden / LANES * SLAB_ROWS],
            bias: vec![Line([0.0; LANES]); hidden / LANES],
            out_w: Vec::new(),
        }
    }

    /// Copies the weights out of `params`, a net of this width laid out as `layout`
    /// says, one column per rayon task (the slabs are made anew for another number of
    /// inputs). Panics on a layout of another width, more than 32 767 inputs, or
    /// parameters of another length.
    pub fn load(&mut self, params: &[f32], layout: Layout) {
        let h = self.hidden;
        assert_eq!(layout.hidden, h, "a layout of width {h}");
        let layout = Layout::with_inputs(layout.inputs, h, layout.buckets);
        assert_eq!(params.len(), layout.len, "parameters for the layout");
        assert!(layout.inputs < SLAB_ROWS_MAX, "{} inputs", layout.inputs);
        if layout.inputs != self.inputs {
            self.inputs = layout.inputs;
            self.slab_rows = slab_rows(layout.inputs);
            self.slabs = vec![Line([0.0; LANES]); h / LANES * self.slab_rows];
        }
        let (inputs, rows) = (self.inputs, self.slab_rows);
        let weights = &params[..layout.ft_bias];
        self.slabs
            .par_chunks_exact_mut(rows)
            .enumerate()
            .for_each(|(c, slab)| {
                for (f, row) in slab[..inputs].iter_mut().enumerate() {
                    *row = Line(*tile(weights, f * h + c * LANES));
                }
            });
        let lines = |floats: &[f32]| {
            floats
                .chunks_exact(LANES)
                .map(|c| Line(*tile(c, 0)))
                .collect::<Vec<_>>()
        };
        self.bias = lines(&params[layout.ft_bias..layout.out_w]);
        self.out_w = lines(&params[layout.out_w..layout.out_b]);
        self.buckets = layout.buckets;
    }
}

/// One thread's buffers for the kernel, allocated once.
#[derive(Clone, Debug)]
pub struct Scratch {
    hidden: usize,
    /// By column, then slot: the block's accumulators, overwritten by their gradients.
    slots: Vec<Line>,
    /// Per position and perspective, the features padded with the zero row.
    lists: Vec<[[u16; MAX_FEATURES]; 2]>,
    /// The slab's row of zeros: the number of inputs.
    zero_row: u16,
    /// Per position, its share of the output so far, lane by lane.
    outputs: Vec<Line>,
    /// The slots each feature feeds, feature after feature (`starts` says where).
    entries: Vec<u16>,
    starts: Vec<u32>,
    fill: Vec<u32>,
}

impl Scratch {
    /// Buffers for a net of width `hidden`.
    pub fn new(hidden: usize) -> Scratch {
        Scratch {
            hidden,
            slots: vec![Line([0.0; LANES]); hidden / LANES * COLUMN_STRIDE + COLUMN_WINDOW],
            lists: vec![[[INPUTS as u16; MAX_FEATURES]; 2]; BLOCK],
            zero_row: INPUTS as u16,
            outputs: vec![Line([0.0; LANES]); BLOCK],
            entries: vec![0; SLOTS * MAX_FEATURES + INPUTS],
            starts: vec![0; INPUTS + 1],
            fill: vec![0; INPUTS],
        }
    }

    /// Makes the feature tables fit `inputs` feature rows (below 32 768).
    fn fit(&mut self, inputs: usize) {
        if usize::from(self.zero_row) != inputs {
            self.zero_row = inputs as u16;
            self.entries = vec![0; SLOTS * MAX_FEATURES + inputs];
            self.starts = vec![0; inputs + 1];
            self.fill = vec![0; inputs];
        }
    }
}

/// The parameters, split by kind.
#[derive(Clone, Copy)]
struct Net<'a> {
    hidden: usize,
    buckets: usize,
    out_b: &'a [f32],
}

impl<'a> Net<'a> {
    fn split(params: &'a [f32], l: Layout) -> Net<'a> {
        Net {
            hidden: l.hidden,
            buckets: l.buckets,
            out_b: &params[l.out_b..l.len],
        }
    }
}

/// The gradients, split by kind.
struct Grad<'a> {
    ft_w: &'a mut [f32],
    ft_b: &'a mut [f32],
    out_w: &'a mut [f32],
    out_b: &'a mut [f32],
}

impl<'a> Grad<'a> {
    fn split(grad: &'a mut [f32], l: Layout) -> Grad<'a> {
        let (ft_w, rest) = grad.split_at_mut(l.ft_bias);
        let (ft_b, rest) = rest.split_at_mut(l.hidden);
        let (out_w, out_b) = rest.split_at_mut(l.buckets * 2 * l.hidden);
        Grad {
            ft_w,
            ft_b,
            out_w,
            out_b,
        }
    }
}

/// The kernel, a block of [`BLOCK`] positions at a time, in four steps.
///
/// 1. Lists: each position's features, padded with the zero row; and the inverse, the
///    slots each feature feeds.
/// 2. Forward, `CP` columns (16 hidden units each; 1, 2 or 4) at a time, through their slabs
///    of weights (48 KiB each, in L1 and L2), two positions at a time, both perspectives:
///    4·CP accumulators in registers, each summed over its ~30 rows (lists padded to the
///    pair's longer one; each row index read serves all CP columns), stored into the
///    column's slots, and their share of the output, `clamp(a)² · w`, added to the
///    position's output lanes.
/// 3. Output layer, position by position: loss, output gradients, and each slot's lane
///    gradients (SCReLU's derivative) written over its accumulators.
/// 4. Backward, two columns at a time: their lane gradients (`2 · BLOCK` slots, 16 KiB a
///    column, in L1) summed into the feature biases, and for each feature over the slots
///    that used it (two chains a column) into its gradient row, touched once per block.
///
/// Every operation in the loops is a vector operation on a row read in one piece from L1
/// (or L2); the per-position gathers of ~60 rows of N floats out of the 768-row matrices,
/// which run at the speed of L2 or memory, are gone. Results differ from the plain
/// per-sample sums only by the order of additions (float rounding).
#[inline(always)]
fn kernel<S: F32x16, const CP: usize, const R: usize>(
    s: S,
    net: Net<'_>,
    columns: &Columns,
    positions: &[Position],
    wdl: f32,
    mut grad: Grad<'_>,
    scratch: &mut Scratch,
) -> f64 {
    let mut loss = 0.0f64;
    for chunk in positions.chunks(BLOCK) {
        lists(chunk, scratch);
        forward::<S, CP, R>(s, net, columns, chunk, scratch);
        loss += output_layer(s, net, columns, chunk, wdl, &mut grad, scratch);
        backward(s, net.hidden, chunk.len(), &mut grad, scratch);
    }
    loss
}

/// Step 1: the padded feature lists and the inverse lists of a block. Panics on a position
/// with more than 32 features or a feature index beyond the inputs.
#[inline(always)]
fn lists(chunk: &[Position], sc: &mut Scratch) {
    let zero_row = sc.zero_row;
    let inputs = usize::from(zero_row);
    sc.starts.fill(0);
    for (pos, lists) in chunk.iter().zip(sc.lists.iter_mut()) {
        let count = usize::from(pos.count);
        for (list, features) in lists.iter_mut().zip([&pos.stm[..count], &pos.nstm[..count]]) {
            list[..count].copy_from_slice(features);
            list[count..].fill(zero_row);
            for &f in features {
                sc.starts[usize::from(f) + 1] += 1;
            }
        }
    }
    // Each feature's list rounded up to an even length; the last entry of an odd one is
    // the zero slot.
    for f in 0..inputs {
        let count = sc.starts[f + 1];
        sc.starts[f + 1] = sc.starts[f] + count + (count & 1);
        if count & 1 == 1 {
            sc.entries[sc.starts[f + 1] as usize - 1] = ZERO_SLOT;
        }
    }
    sc.fill.copy_from_slice(&sc.starts[..inputs]);
    for (p, (pos, lists)) in chunk.iter().zip(&sc.lists).enumerate() {
        let count = usize::from(pos.count);
        for (view, list) in lists.iter().enumerate() {
            for &f in &list[..count] {
                let at = &mut sc.fill[usize::from(f)];
                sc.entries[*at as usize] = (2 * p + view) as u16;
                *at += 1;
            }
        }
    }
}

/// The slab of column `c` (of `R` rows).
#[inline(always)]
fn slab<const R: usize>(columns: &Columns, c: usize) -> &[Line; R] {
    columns.slabs[c * R..(c + 1) * R].try_into().expect("a slab")
}

/// The row of a slab a (masked) index names.
#[inline(always)]
fn row<S: F32x16, const R: usize>(s: S, slab: &[Line; R], i: u16) -> S::V {
    s.load(&slab[usize::from(i) & (R - 1)].0)
}

/// Step 2: the accumulators and the output lanes of a block, `CP` (1, 2 or 4) columns and
/// two positions at a time.
#[inline(always)]
fn forward<S: F32x16, const CP: usize, const R: usize>(
    s: S,
    net: Net<'_>,
    columns: &Columns,
    chunk: &[Position],
    sc: &mut Scratch,
) {
    let h = net.hidden;
    let cols = h / LANES;
    let n = chunk.len();
    for out in &mut sc.outputs[..n] {
        *out = Line([0.0; LANES]);
    }
    for c in (0..cols).step_by(CP) {
        // With fewer than CP columns left, the last pass sums its last column again and
        // keeps it once.
        let here = CP.min(cols - c);
        let cc = |d: usize| c + d.min(here - 1);
        let slabs = [
            slab::<R>(columns, cc(0)),
            slab::<R>(columns, cc(1)),
            slab::<R>(columns, cc(2)),
            slab::<R>(columns, cc(3)),
        ];
        let bias = |d: usize| s.load(&columns.bias[cc(d)].0);
        let biases = [bias(0), bias(1), bias(2), bias(3)];
        for g in (0..n).step_by(2) {
            let pair = &chunk[g..(g + 2).min(n)];
            let len = pair.iter().map(|p| usize::from(p.count)).max().unwrap_or(0);
            let [l0, l1] = &sc.lists[g];
            let [l2, l3] = &sc.lists[g + 1];
            // Four accumulators a column: (position g, g + 1) x (perspective 0, 1).
            let mut acc = [[s.zero(); 4]; 4];
            for d in 0..CP {
                acc[d] = [biases[d]; 4];
            }
            let [mut a0, mut a1, mut a2, mut a3] = acc[0];
            let [mut b0, mut b1, mut b2, mut b3] = acc[1];
            let [mut c0, mut c1, mut c2, mut c3] = acc[2];
            let [mut e0, mut e1, mut e2, mut e3] = acc[3];
            for i in 0..len.min(MAX_FEATURES) {
                let (i0, i1, i2, i3) = (l0[i], l1[i], l2[i], l3[i]);
                a0 = s.add(a0, row(s, slabs[0], i0));
                a1 = s.add(a1, row(s, slabs[0], i1));
                a2 = s.add(a2, row(s, slabs[0], i2));
                a3 = s.add(a3, row(s, slabs[0], i3));
                if CP >= 2 {
                    b0 = s.add(b0, row(s, slabs[1], i0));
                    b1 = s.add(b1, row(s, slabs[1], i1));
                    b2 = s.add(b2, row(s, slabs[1], i2));
                    b3 = s.add(b3, row(s, slabs[1], i3));
                }
                if CP >= 4 {
                    c0 = s.add(c0, row(s, slabs[2], i0));
                    c1 = s.add(c1, row(s, slabs[2], i1));
                    c2 = s.add(c2, row(s, slabs[2], i2));
                    c3 = s.add(c3, row(s, slabs[2], i3));
                    e0 = s.add(e0, row(s, slabs[3], i0));
                    e1 = s.add(e1, row(s, slabs[3], i1));
                    e2 = s.add(e2, row(s, slabs[3], i2));
                    e3 = s.add(e3, row(s, slabs[3], i3));
                }
            }
            let sums = [
                [a0, a1, a2, a3],
                [b0, b1, b2, b3],
                [c0, c1, c2, c3],
                [e0, e1, e2, e3],
            ];
            for (q, pos) in pair.iter().enumerate() {
                let p = g + q;
                let k = output_bucket(usize::from(pos.count), net.buckets);
                let mut lanes = s.load(&sc.outputs[p].0);
                for (d, sums) in sums.iter().enumerate().take(here) {
                    for view in 0..2 {
                        let a = sums[2 * q + view];
                        s.store(&mut sc.slots[(c + d) * COLUMN_STRIDE + 2 * p + view].0, a);
                        let x = s.clamp01(a);
                        let w = s.load(&columns.out_w[(k * 2 + view) * cols + c + d].0);
                        lanes = s.add(lanes, s.mul(s.mul(x, x), w));
                    }
                }
                s.store(&mut sc.outputs[p].0, lanes);
            }
        }
    }
}

/// Step 3: loss and output layer of a block; returns the block's summed loss.
#[inline(always)]
fn output_layer<S: F32x16>(
    s: S,
    net: Net<'_>,
    columns: &Columns,
    chunk: &[Position],
    wdl: f32,
    grad: &mut Grad<'_>,
    sc: &mut Scratch,
) -> f64 {
    let h = net.hidden;
    let cols = h / LANES;
    let mut loss = 0.0f64;
    for (p, (pos, lanes)) in chunk.iter().zip(&sc.outputs).enumerate() {
        let k = output_bucket(usize::from(pos.count), net.buckets);
        let prob = sigmoid(net.out_b[k] + s.sum(s.load(&lanes.0)));
        let target = pos.target(wdl);
        loss += f64::from((prob - target) * (prob - target));
        let d = 2.0 * (prob - target) * prob * (1.0 - prob);
        grad.out_b[k] += d;
        let (d1, d2) = (s.splat(d), s.splat(2.0 * d));
        for view in 0..2 {
            for c in 0..cols {
                let at = k * 2 * h + view * h + c * LANES;
                let slot = &mut sc.slots[c * COLUMN_STRIDE + 2 * p + view].0;
                let a = s.load(slot);
                let x = s.clamp01(a);
                let gw = tile_mut(grad.out_w, at);
                s.store(gw, s.add(s.load(gw), s.mul(s.mul(d1, x), x)));
                // SCReLU's derivative: 2x inside (0, 1), else zero.
                let w = s.load(&columns.out_w[(k * 2 + view) * cols + c].0);
                s.store(slot, s.inside01(a, s.mul(s.mul(d2, w), a)));
            }
        }
    }
    loss
}

/// The slots of column `c` (and rows past them, never named beyond the zero slot).
#[inline(always)]
fn column(sc: &Scratch, c: usize) -> &[Line; COLUMN_WINDOW] {
    sc.slots[c * COLUMN_STRIDE..c * COLUMN_STRIDE + COLUMN_WINDOW]
        .try_into()
        .expect("a column")
}

/// Step 4: the feature biases' and weights' gradients of a block of `n` positions.
#[inline(always)]
fn backward<S: F32x16>(s: S, h: usize, n: usize, grad: &mut Grad<'_>, sc: &Scratch) {
    let cols = h / LANES;
    for c in 0..cols {
        let gb = tile_mut(grad.ft_b, c * LANES);
        let mut sum = s.load(gb);
        for delta in &column(sc, c)[..2 * n] {
            sum = s.add(sum, s.load(&delta.0));
        }
        s.store(gb, sum);
    }
    for c in (0..cols).step_by(2) {
        // With an odd count, the last pass sums its column twice and keeps one.
        let here = 2.min(cols - c);
        let next = if here == 2 { c + 1 } else { c };
        let (col0, col1) = (column(sc, c), column(sc, next));
        let slot = |col: &[Line; COLUMN_WINDOW], e: u16| s.load(&col[usize::from(e) & (COLUMN_WINDOW - 1)].0);
        for f in 0..usize::from(sc.zero_row) {
            let used = &sc.entries[sc.starts[f] as usize..sc.starts[f + 1] as usize];
            if used.is_empty() {
                continue;
            }
            // Two chains a column; the list's length is even.
            let (mut a0, mut a1, mut b0, mut b1) = (s.zero(), s.zero(), s.zero(), s.zero());
            for pair in used.chunks_exact(2) {
                a0 = s.add(a0, slot(col0, pair[0]));
                b0 = s.add(b0, slot(col1, pair[0]));
                a1 = s.add(a1, slot(col0, pair[1]));
                b1 = s.add(b1, slot(col1, pair[1]));
            }
            for (d, sum) in [s.add(a0, a1), s.add(b0, b1)].into_iter().enumerate().take(here) {
                let g = tile_mut(grad.ft_w, f * h + (c + d) * LANES);
                s.store(g, s.add(s.load(g), sum));
            }
        }
    }
}

/// The 16 floats of `s` from `at`.
#[inline(always)]
fn tile(s: &[f32], at: usize) -> &Lanes {
    s[at..at + LANES].try_into().expect("16 floats")
}

/// The 16 floats of `s` from `at`, to write.
#[inline(always)]
fn tile_mut(s: &mut [f32], at: usize) -> &mut Lanes {
    (&mut s[at..at + LANES]).try_into().expect("16 floats")
}

/// The loss of `positions` without gradients (validation); a factorised model is merged
/// once first (the same outputs, [`Model::output`]).
pub fn loss_only(model: &Model, positions: &[Position], wdl: f32) -> f64 {
    let merged;
    let model = if model.factoriser {
        merged = model.merged();
        &merged
    } else {
        model
    };
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
    fn the_simd_kernels_only_come_from_a_cpu_check() {
        let (avx2, avx512) = (cpu_has_avx2_fma(), cpu_has_avx512());
        assert_eq!(Kernel::avx2_fma().is_ok(), avx2);
        assert_eq!(Kernel::avx512().is_ok(), avx512);
        let best = if avx512 {
            Isa::Avx512
        } else if avx2 {
            Isa::Avx2Fma
        } else {
            Isa::Portable
        };
        assert_eq!(Kernel::detect(), Kernel(best));
        assert_eq!(Kernel::available().last(), Some(&Kernel::detect()));
        assert_eq!(Kernel::available()[0].name(), "portable");
        if !avx2 {
            assert_eq!(
                Kernel::avx2_fma().unwrap_err().to_string(),
                "this CPU cannot run the AVX2 + FMA kernel"
            );
        }
        if !avx512 {
            assert_eq!(
                Kernel::avx512().unwrap_err().to_string(),
                "this CPU cannot run the AVX-512 kernel"
            );
        }
    }

    /// Random positions: random pieces on random squares (features of both views).
    fn scattered(count: usize, seed: u64) -> Vec<Position> {
        let mut rng = movegen::rng::SplitMix64(seed);
        (0..count)
            .map(|i| {
                let pieces = 2 + (rng.next_u64() % 31) as usize;
                let mut stm = [0u16; MAX_FEATURES];
                let mut nstm = [0u16; MAX_FEATURES];
                for j in 0..pieces {
                    let f = (rng.next_u64() % INPUTS as u64) as u16;
                    stm[j] = f;
                    nstm[j] = (f + 384) % 768;
                }
                Position {
                    count: pieces as u8,
                    stm,
                    nstm,
                    score: (i % 200) as f32 - 100.0,
                    result: (i % 3) as f32 / 2.0,
                    features: FeatureSet::plain(),
                }
            })
            .collect()
    }

    /// Gradients and loss of `kernel` on a model of `hidden` x `buckets`.
    fn run(kernel: Kernel, model: &Model, positions: &[Position]) -> (f64, Vec<f32>) {
        let layout = model.layout();
        let params = model.params.as_slice().unwrap();
        let mut columns = Columns::new(model.hidden);
        columns.load(params, layout);
        let mut grad = vec![0.0; layout.len];
        let mut scratch = Scratch::new(model.hidden);
        let loss = kernel.accumulate(params, &columns, layout, positions, 0.3, &mut grad, &mut scratch);
        (loss, grad)
    }

    #[test]
    fn every_kernel_this_cpu_runs_matches_the_portable_one() {
        // Widths of 1, 3, 5 and 8 columns (the AVX-512 build sums four at a time); a count of
        // positions that leaves a partial block and a partial group; one and 8 buckets.
        let positions = scattered(2 * BLOCK + 37, 5);
        for (hidden, buckets) in [(16, 1), (48, 8), (80, 2), (128, 8)] {
            let model = Model::random_bucketed(hidden, buckets, 3);
            let (loss, grad) = run(Kernel::portable(), &model, &positions);
            for kernel in Kernel::available() {
                let (l, g) = run(kernel, &model, &positions);
                assert!(
                    (l - loss).abs() <= 1e-9 * loss.abs().max(1.0),
                    "{}: {l} vs {loss}",
                    kernel.name()
                );
                for (i, (a, b)) in g.iter().zip(&grad).enumerate() {
                    assert!(
                        (a - b).abs() <= 1e-5 * a.abs().max(b.abs()).max(1e-2),
                        "{} hidden {hidden}: gradient {i}: {a} vs {b}",
                        kernel.name()
                    );
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "parameters for the layout")]
    fn a_kernel_refuses_parameters_of_another_shape() {
        let model = Model::random(32, 1);
        let params = model.params.as_slice().unwrap();
        let mut columns = Columns::new(32);
        columns.load(params, model.layout());
        let mut grad = vec![0.0; model.layout().len];
        let layout = Layout::new(48);
        Kernel::detect().accumulate(
            params,
            &columns,
            layout,
            &[],
            0.5,
            &mut grad,
            &mut Scratch::new(48),
        );
    }

    #[test]
    #[should_panic(expected = "index out of bounds")]
    fn a_kernel_refuses_a_feature_past_the_inputs() {
        let model = Model::random(32, 1);
        let mut positions = scattered(3, 1);
        positions[1].nstm[0] = INPUTS as u16;
        run(Kernel::detect(), &model, &positions);
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
