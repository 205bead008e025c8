//! Quantisation: the one place that says how a float net becomes the integer net the engine
//! runs, which integer values a net may hold, and how the integer output layer turns into
//! centipawns.
//!
//! A float net's feature weights and biases are multiplied by [`QA`], its output weights by
//! [`QB`], its output biases by `QA · QB`, and each product is rounded to the nearest integer
//! (halves away from zero). [`FloatNet::quantise`] refuses any value whose rounded product
//! does not fit its integer type or range, then hands the integers to [`Network::new`], whose
//! validation (the same checks the net file loader runs) applies the rules below:
//!
//! - output weights lie in `[OUTPUT_WEIGHT_MIN, OUTPUT_WEIGHT_MAX]`, so `clamp(acc, 0, QA) · w`
//!   fits an i16 lane in the SIMD output layer (`255 · 127 < 32767`);
//! - no hidden unit can leave the i16 range: its bias plus the [`MAX_ACTIVE_FEATURES`]
//!   largest feature weights of that unit, in magnitude, stay within `i16::MAX`
//!   ([`check_accumulators`]).
//!
//! The output layer: `sum = Σ clamp(acc, 0, QA)² · w` over both halves (i32, wrapping), then
//! [`output_centipawns`]`(sum, bias) = (sum / QA + bias) · SCALE / (QA · QB)`.
//!
//! # Hidden layers
//!
//! A net with hidden layers (`(768 -> N)x2 -> (L1 -> L2 -> 1)xB`) has, instead of the output
//! layer above, a stack of dense layers per output bucket ([`crate::network::Layer`]), each
//! quantised like the output layer: weights i8 (`[LAYER_WEIGHT_MIN, LAYER_WEIGHT_MAX]`) at
//! scale [`QB`], biases i32 (`|b| <= LAYER_BIAS_MAX`) at scale `QA · QB`. In floats the net
//! computes `h0 = clamp(acc, 0, 1)²` (SCReLU, the `2N` values `[side to move, other]`),
//! then per layer `z = W·h + b`, `h = clamp(z, 0, 1)` (CReLU) between layers and `z` itself
//! out of the last one (one value), `z · SCALE` centipawns. In integers ([`layer_stack`]):
//!
//! - a layer's inputs are at scale `QA`: `h0 = clamp(acc, 0, QA)² / QA` ([`screlu_input`]),
//!   later ones `clamp(z / QB, 0, QA)` ([`crelu_input`]), all in `0..=QA`;
//! - a layer's sums `z = Σ h · w + b` are i32 at scale `QA · QB` and cannot overflow: at most
//!   `2 · MAX_HIDDEN` inputs of `|h · w| <= 255 · 128` make `2.7e8`, and `|b| <= 2^30`;
//! - the output is [`layered_centipawns`]`(z) = z · SCALE / (QA · QB)`, truncating toward zero.
//!
//! Every division truncates toward zero; the integer pipeline is exact and the same in every
//! implementation (the engine runs this very code on its incremental accumulators).

use crate::arch::{FeatureSet, MAX_LAYER_WIDTH};
use crate::network::Layer;
use crate::{NetError, Network, INPUTS};
use std::fmt;

/// Quantisation of the feature transformer (weights and biases are i16 at this scale).
pub const QA: i32 = 255;
/// Quantisation of the output weights.
pub const QB: i32 = 64;
/// Output scale: a network output of 1.0 is `SCALE` centipawns.
pub const SCALE: i32 = 400;
/// The smallest output weight a net may hold.
pub const OUTPUT_WEIGHT_MIN: i16 = -128;
/// The largest output weight a net may hold.
pub const OUTPUT_WEIGHT_MAX: i16 = 127;
/// The most features active in one perspective: one per piece on the board.
pub const MAX_ACTIVE_FEATURES: usize = 32;
/// The smallest weight of a hidden layer (the i8 range, at scale [`QB`]).
pub const LAYER_WEIGHT_MIN: i8 = i8::MIN;
/// The largest weight of a hidden layer.
pub const LAYER_WEIGHT_MAX: i8 = i8::MAX;
/// The largest magnitude of a hidden layer's bias (at scale `QA · QB`): with it no layer sum
/// can leave i32 (module documentation).
pub const LAYER_BIAS_MAX: i32 = 1 << 30;

/// A first hidden layer's input from a transformer accumulator value `acc` (scale `QA`):
/// SCReLU at scale `QA`, `clamp(acc, 0, QA)² / QA`, in `0..=QA`.
#[inline(always)]
pub fn screlu_input(acc: i16) -> i32 {
    let v = i32::from(acc).clamp(0, QA);
    v * v / QA
}

/// The input of the next layer from a hidden layer's sum `z` (scale `QA · QB`): CReLU at
/// scale `QA`, `clamp(z / QB, 0, QA)`, in `0..=QA`.
#[inline(always)]
pub fn crelu_input(z: i32) -> i32 {
    (z / QB).clamp(0, QA)
}

/// Centipawns of a layer stack's output `z` (scale `QA · QB`): `z · SCALE / (QA · QB)`,
/// truncating toward zero (in 64 bits, so no `z` overflows).
#[inline(always)]
pub fn layered_centipawns(z: i32) -> i32 {
    (i64::from(z) * i64::from(SCALE) / i64::from(QA * QB)) as i32
}

/// Inputs of the first layer turned into activations at a time ([`layer_stack`]).
const CHUNK: usize = 64;

/// The layer stack of a net with hidden layers on the transformer's accumulators `us` (side
/// to move) and `them`, `N` values each, for output bucket `bucket` (the last one beyond):
/// the last layer's output at scale `QA · QB` (module documentation; [`layered_centipawns`]
/// makes centipawns of it). `layers` must chain (`layers[0].inputs() == 2N`, each layer's
/// inputs the previous one's outputs, the last with one output, none wider than
/// [`MAX_LAYER_WIDTH`]), as every [`Network`] with layers does; slices that do not fit panic.
///
/// Always inlined, so that a caller compiled with wider vectors (the engine's AVX2 build)
/// vectorises it with them; integer sums, so every build gives the same value.
#[inline(always)]
pub fn layer_stack(layers: &[Layer], us: &[i16], them: &[i16], bucket: usize) -> i32 {
    let n = us.len();
    let mut sums = [0i32; MAX_LAYER_WIDTH];
    let mut inputs = [0i32; MAX_LAYER_WIDTH];
    let first = &layers[0];
    let (w, b) = first.bucket(bucket);
    let outs = first.outputs();
    let fan_in = first.inputs();
    sums[..outs].copy_from_slice(b);
    // The first layer: its 2N inputs turned into activations CHUNK at a time.
    for (half, acc) in [us, them].into_iter().enumerate() {
        for start in (0..n).step_by(CHUNK) {
            let len = CHUNK.min(n - start);
            let mut x = [0i32; CHUNK];
            for (xi, &a) in x.iter_mut().zip(&acc[start..start + len]) {
                *xi = screlu_input(a);
            }
            for (o, sum) in sums[..outs].iter_mut().enumerate() {
                let at = o * fan_in + half * n + start;
                let row = &w[at..at + len];
                let mut s = 0i32;
                for (xi, &wi) in x[..len].iter().zip(row) {
                    s = s.wrapping_add(xi * i32::from(wi));
                }
                *sum = sum.wrapping_add(s);
            }
        }
    }
    let mut width = outs;
    for layer in &layers[1..] {
        for (x, &z) in inputs[..width].iter_mut().zip(&sums[..width]) {
            *x = crelu_input(z);
        }
        let (w, b) = layer.bucket(bucket);
        let fan_in = layer.inputs();
        width = layer.outputs();
        for (o, sum) in sums[..width].iter_mut().enumerate() {
            let row = &w[o * fan_in..(o + 1) * fan_in];
            let mut s = b[o];
            for (xi, &wi) in inputs[..fan_in].iter().zip(row) {
                s = s.wrapping_add(xi * i32::from(wi));
            }
            *sum = s;
        }
    }
    sums[0]
}

/// The output layer's integer sum for one position: `Σ clamp(acc, 0, QA)² · w` over the side
/// to move's accumulator `us` with weights `w_us` and the other side's `them` with `w_them`
/// (each `hidden` values, as [`Network::bucket_weights`] splits them). Wrapping i32
/// arithmetic, as the SIMD lanes wrap; the order of the terms does not matter.
#[inline]
pub fn output_sum(us: &[i16], them: &[i16], w_us: &[i16], w_them: &[i16]) -> i32 {
    let mut sum: i32 = 0;
    for (acc, w) in us.iter().zip(w_us).chain(them.iter().zip(w_them)) {
        let v = i32::from(*acc).clamp(0, QA);
        sum = sum.wrapping_add(v * v * i32::from(*w));
    }
    sum
}

/// Centipawns, from the side to move's view, of an output layer whose [`output_sum`] is
/// `sum` with output bias `bias` (at scale `QA · QB`): `(sum / QA + bias) · SCALE / (QA · QB)`,
/// integer division truncating toward zero. The one definition every forward pass uses.
#[inline(always)]
pub fn output_centipawns(sum: i32, bias: i32) -> i32 {
    (sum / QA + bias) * SCALE / (QA * QB)
}

/// Checks that no hidden unit's accumulator can overflow i16: for each of the `hidden`
/// units, `|bias| +` the sum of its [`MAX_ACTIVE_FEATURES`] largest `|weight|` over the
/// [`INPUTS`] features must not exceed `i16::MAX`. `feature_weights` is feature-major
/// (`INPUTS * hidden` values), `feature_bias` has `hidden` values; shorter arrays are the
/// caller's error (it panics).
///
/// Errors: [`NetError::AccumulatorOverflow`] naming the first unit that could overflow and
/// the magnitude it could reach.
pub fn check_accumulators(
    hidden: usize,
    feature_weights: &[i16],
    feature_bias: &[i16],
) -> Result<(), NetError> {
    let mut magnitudes = vec![0i32; INPUTS];
    for unit in 0..hidden {
        for (f, m) in magnitudes.iter_mut().enumerate() {
            *m = i32::from(feature_weights[f * hidden + unit]).abs();
        }
        // The largest MAX_ACTIVE_FEATURES magnitudes, in any order.
        magnitudes.select_nth_unstable_by(MAX_ACTIVE_FEATURES - 1, |a, b| b.cmp(a));
        let worst =
            i32::from(feature_bias[unit]).abs() + magnitudes[..MAX_ACTIVE_FEATURES].iter().sum::<i32>();
        if worst > i32::from(i16::MAX) {
            return Err(NetError::AccumulatorOverflow { unit, worst });
        }
    }
    Ok(())
}

/// A net in floats, as the trainer fits it: the [`Network`] layout with real values, where
/// 1.0 in a feature weight or bias stands for [`QA`], in an output weight for [`QB`] and in
/// an output bias for `QA · QB`.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatNet {
    /// The hidden width N (a multiple of 16 up to [`crate::MAX_HIDDEN`] to quantise).
    pub hidden: usize,
    /// The number of output buckets (1 to [`crate::MAX_OUTPUT_BUCKETS`] to quantise).
    pub output_buckets: usize,
    /// `features.inputs() * hidden` values, feature-major (each feature's `hidden` weights
    /// together; 768 rows per king bucket).
    pub feature_weights: Vec<f32>,
    /// `hidden` values.
    pub feature_bias: Vec<f32>,
    /// `output_buckets * 2 * hidden` values: per bucket the side to move's `hidden`
    /// weights, then the other side's.
    pub output_weights: Vec<f32>,
    /// `output_buckets` values.
    pub output_bias: Vec<f32>,
    /// The input feature set (king buckets, horizontal mirroring; [`Network::features`]);
    /// the quantised net carries it.
    pub features: FeatureSet,
    /// The layers after the transformer of a net with hidden layers (the last has one
    /// output); empty for a net whose transformer feeds the output layer directly. A net
    /// with layers has empty `output_weights` and `output_bias`.
    pub layers: Vec<FloatLayer>,
}

/// A layer after the feature transformer in floats ([`crate::network::Layer`]'s layout):
/// 1.0 in a weight stands for [`QB`], in a bias for `QA · QB`.
#[derive(Clone, Debug, PartialEq)]
pub struct FloatLayer {
    /// Inputs per output (`2N` for the first layer).
    pub inputs: usize,
    /// Outputs (1 for the last layer).
    pub outputs: usize,
    /// `buckets · outputs · inputs` values: per output bucket, per output, its inputs' weights.
    pub weights: Vec<f32>,
    /// `buckets · outputs` values.
    pub bias: Vec<f32>,
}

/// Why a float net could not be quantised.
#[derive(Clone, Debug, PartialEq)]
pub enum QuantiseError {
    /// A value whose scaled, rounded product is not finite or lies outside the range of its
    /// integer type (i16 for the feature transformer, `[OUTPUT_WEIGHT_MIN,
    /// OUTPUT_WEIGHT_MAX]` for output weights, i32 for output biases).
    OutOfRange {
        /// Which array: "feature weight", "feature bias", "output weight", "output bias",
        /// "layer weight" or "layer bias".
        array: &'static str,
        /// The value's index in its array.
        index: usize,
        /// The float value.
        value: f32,
        /// Its scaled, rounded product.
        quantised: f64,
        /// The smallest integer allowed.
        min: i64,
        /// The largest integer allowed.
        max: i64,
    },
    /// The quantised net breaks a rule every net keeps (its shape, the output weight range,
    /// the accumulator bound): [`Network::new`]'s error.
    Net(NetError),
}

impl fmt::Display for QuantiseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuantiseError::OutOfRange {
                array,
                index,
                value,
                quantised,
                min,
                max,
            } => write!(
                f,
                "{array} {value} quantises to {quantised}, outside [{min}, {max}] (index {index})"
            ),
            QuantiseError::Net(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for QuantiseError {}

impl From<NetError> for QuantiseError {
    fn from(e: NetError) -> Self {
        QuantiseError::Net(e)
    }
}

/// `values` times `scale`, rounded, each checked to lie in `[min, max]`.
fn round_all(
    values: &[f32],
    scale: i32,
    array: &'static str,
    min: i64,
    max: i64,
) -> Result<Vec<i64>, QuantiseError> {
    values
        .iter()
        .enumerate()
        .map(|(index, &value)| {
            let quantised = (f64::from(value) * f64::from(scale)).round();
            if !quantised.is_finite() || quantised < min as f64 || quantised > max as f64 {
                return Err(QuantiseError::OutOfRange {
                    array,
                    index,
                    value,
                    quantised,
                    min,
                    max,
                });
            }
            Ok(quantised as i64)
        })
        .collect()
}

impl FloatNet {
    /// The integer net this float net stands for, with every range and overflow check (see
    /// the module documentation): the one quantiser, used by `trainer export`.
    ///
    /// Errors: [`QuantiseError::Net`] with [`NetError::UnsupportedArchitecture`] for a width
    /// or bucket count no net may have; [`QuantiseError::OutOfRange`] for the first value
    /// (feature weights, then feature biases, output weights, output biases) that does not
    /// fit; [`QuantiseError::Net`] for arrays of the wrong length or a hidden unit whose
    /// accumulator could overflow. A float net with hidden layers ([`FloatNet::layers`])
    /// quantises its layers too (weights times `QB` into i8, biases times `QA · QB` within
    /// `±LAYER_BIAS_MAX`, "layer weight" and "layer bias" when they do not fit) into a net
    /// with layers ([`Network::with_layers`], whose chaining rules apply).
    pub fn quantise(&self) -> Result<Network, QuantiseError> {
        crate::network::check_shape(self.hidden, self.output_buckets)?;
        let i16_range = (i64::from(i16::MIN), i64::from(i16::MAX));
        let narrow = |v: Vec<i64>| v.into_iter().map(|q| q as i16).collect::<Vec<i16>>();
        let feature_weights = narrow(round_all(
            &self.feature_weights,
            QA,
            "feature weight",
            i16_range.0,
            i16_range.1,
        )?);
        let feature_bias = narrow(round_all(
            &self.feature_bias,
            QA,
            "feature bias",
            i16_range.0,
            i16_range.1,
        )?);
        let output_weights = narrow(round_all(
            &self.output_weights,
            QB,
            "output weight",
            i64::from(OUTPUT_WEIGHT_MIN),
            i64::from(OUTPUT_WEIGHT_MAX),
        )?);
        let output_bias = round_all(
            &self.output_bias,
            QA * QB,
            "output bias",
            i64::from(i32::MIN),
            i64::from(i32::MAX),
        )?
        .into_iter()
        .map(|q| q as i32)
        .collect();
        if !self.layers.is_empty() {
            let layers = self
                .layers
                .iter()
                .map(|l| {
                    let weights = round_all(
                        &l.weights,
                        QB,
                        "layer weight",
                        i64::from(LAYER_WEIGHT_MIN),
                        i64::from(LAYER_WEIGHT_MAX),
                    )?
                    .into_iter()
                    .map(|q| q as i8)
                    .collect();
                    let limit = i64::from(LAYER_BIAS_MAX);
                    let bias = round_all(&l.bias, QA * QB, "layer bias", -limit, limit)?
                        .into_iter()
                        .map(|q| q as i32)
                        .collect();
                    Ok(Layer::new(
                        l.inputs,
                        l.outputs,
                        self.output_buckets,
                        weights,
                        bias,
                    )?)
                })
                .collect::<Result<Vec<Layer>, QuantiseError>>()?;
            return Ok(Network::with_layers(
                self.features,
                self.hidden,
                self.output_buckets,
                feature_weights,
                feature_bias,
                layers,
            )?);
        }
        Ok(Network::with_features(
            self.features,
            self.hidden,
            self.output_buckets,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        )?)
    }

    /// The float net `net` stands for: each integer divided by its scale (the inverse of
    /// [`FloatNet::quantise`], exact up to the rounding quantisation did).
    pub fn from_network(net: &Network) -> FloatNet {
        let scaled =
            |values: &[i16], scale: i32| values.iter().map(|&v| f32::from(v) / scale as f32).collect();
        FloatNet {
            hidden: net.hidden(),
            output_buckets: net.output_buckets(),
            feature_weights: scaled(net.feature_weights(), QA),
            feature_bias: scaled(net.feature_bias(), QA),
            output_weights: scaled(net.output_weights(), QB),
            output_bias: net
                .output_bias()
                .iter()
                .map(|&b| b as f32 / (QA * QB) as f32)
                .collect(),
            features: *net.features(),
            layers: net
                .layers()
                .iter()
                .map(|l| FloatLayer {
                    inputs: l.inputs(),
                    outputs: l.outputs(),
                    weights: l.weights().iter().map(|&w| f32::from(w) / QB as f32).collect(),
                    bias: l.bias().iter().map(|&b| b as f32 / (QA * QB) as f32).collect(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn float_net(hidden: usize, buckets: usize) -> FloatNet {
        let net = Network::random(hidden, buckets, 3).unwrap();
        FloatNet::from_network(&net)
    }

    #[test]
    fn quantising_a_dequantised_net_gives_it_back() {
        let net = Network::random(32, 2, 3).unwrap();
        assert_eq!(FloatNet::from_network(&net).quantise(), Ok(net.clone()));
        // The mirroring flag goes through both ways.
        let mirrored = net.with_mirroring(true);
        let float = FloatNet::from_network(&mirrored);
        assert!(float.features.is_mirrored());
        assert_eq!(float.quantise(), Ok(mirrored));
    }

    #[test]
    fn a_net_with_hidden_layers_quantises_back_to_itself() {
        let arch: crate::Arch = "(768x2 -> 32)x2 -> (16 -> 8 -> 1)x4".parse().unwrap();
        let net = Network::random_arch(&arch, 9).unwrap();
        let float = FloatNet::from_network(&net);
        assert_eq!(float.layers.len(), 3);
        assert!(float.output_weights.is_empty());
        assert_eq!(float.quantise(), Ok(net));
        // A layer weight beyond i8 at QB, and a bias beyond the bound, are refused.
        let mut f = float.clone();
        f.layers[1].weights[5] = 2.1; // 134 > 127
        assert!(matches!(
            f.quantise(),
            Err(QuantiseError::OutOfRange {
                array: "layer weight",
                index: 5,
                ..
            })
        ));
        let mut f = float;
        f.layers[2].bias[0] = 1e6; // 1.6e10 > 2^30
        assert!(matches!(
            f.quantise(),
            Err(QuantiseError::OutOfRange {
                array: "layer bias",
                index: 0,
                ..
            })
        ));
    }

    #[test]
    fn rounding_is_to_the_nearest_with_halves_away_from_zero() {
        let mut f = float_net(16, 1);
        f.feature_weights[0] = 0.5 / QA as f32;
        f.feature_weights[1] = -0.5 / QA as f32;
        f.feature_weights[2] = 1.49 / QA as f32;
        f.output_weights[0] = 1.98;
        f.output_bias[0] = -0.25;
        let net = f.quantise().unwrap();
        assert_eq!(&net.feature_weights()[..3], &[1, -1, 1]);
        assert_eq!(net.output_weights()[0], 127);
        assert_eq!(net.output_bias()[0], -(QA * QB) / 4);
    }

    #[test]
    fn every_range_is_checked() {
        let mut f = float_net(16, 1);
        f.output_weights[3] = 2.5; // 160 > 127
        assert_eq!(
            f.quantise(),
            Err(QuantiseError::OutOfRange {
                array: "output weight",
                index: 3,
                value: 2.5,
                quantised: 160.0,
                min: -128,
                max: 127
            })
        );
        assert!(f
            .quantise()
            .unwrap_err()
            .to_string()
            .starts_with("output weight 2.5 quantises to 160, outside [-128, 127]"));
        let mut f = float_net(16, 1);
        f.output_weights[0] = -128.4 / QB as f32;
        assert_eq!(f.quantise().unwrap().output_weights()[0], OUTPUT_WEIGHT_MIN);
        // Which array and index refuses, for one value set out of range in each array.
        let refused = |edit: fn(&mut FloatNet)| {
            let mut f = float_net(16, 1);
            edit(&mut f);
            match f.quantise() {
                Err(QuantiseError::OutOfRange { array, index, .. }) => Some((array, index)),
                _ => None,
            }
        };
        assert_eq!(
            refused(|f| f.feature_bias[1] = f32::NAN),
            Some(("feature bias", 1))
        );
        // 200 · 255 = 51000 > 32767.
        assert_eq!(
            refused(|f| f.feature_weights[7] = 200.0),
            Some(("feature weight", 7))
        );
        assert_eq!(refused(|f| f.output_bias[0] = 1e6), Some(("output bias", 0)));
    }

    #[test]
    fn shapes_and_accumulator_overflow_are_refused() {
        let narrow = FloatNet {
            hidden: 8,
            ..float_net(16, 1)
        };
        assert!(matches!(
            narrow.quantise(),
            Err(QuantiseError::Net(NetError::UnsupportedArchitecture(_)))
        ));
        let mut f = float_net(16, 1);
        f.feature_bias.pop();
        assert!(matches!(
            f.quantise(),
            Err(QuantiseError::Net(NetError::ShapeMismatch { .. }))
        ));
        // Unit 5: 32 features at 1000 each and a bias of 100 could reach 32100 (fits);
        // one more at 1000 elsewhere does not raise the worst case (only 32 are active).
        let mut f = float_net(16, 1);
        for feature in 0..33 {
            f.feature_weights[feature * 16 + 5] = 1000.0 / QA as f32;
        }
        f.feature_bias[5] = 100.0 / QA as f32;
        assert!(f.quantise().is_ok());
        // A bias of 800 takes it to 32800: refused.
        f.feature_bias[5] = -800.0 / QA as f32;
        assert_eq!(
            f.quantise(),
            Err(QuantiseError::Net(NetError::AccumulatorOverflow {
                unit: 5,
                worst: 32800
            }))
        );
    }

    #[test]
    fn the_output_formula() {
        assert_eq!(output_centipawns(0, QA * QB), SCALE);
        assert_eq!(output_centipawns(QA * QA * QB, 0), SCALE);
        assert_eq!(output_centipawns(-QA * QA * QB, 0), -SCALE);
        // Truncation toward zero at both divisions.
        assert_eq!(output_centipawns(QA - 1, 0), 0);
        assert_eq!(output_centipawns(-100 * QA, 0), -2);
        let us = [300i16, -5, 100, 255];
        let them = [1i16, 2, 3, 4];
        let w = [1i16, 127, -128, 2];
        assert_eq!(
            output_sum(&us, &them, &w, &w),
            255 * 255 - 100 * 100 * 128 + 255 * 255 * 2 + 1 + 4 * 127 - 9 * 128 + 16 * 2
        );
    }
}
