//! The network's weights and the scalar reference inference.
//!
//! Inputs: [`feature_index`] is the one definition of which input a piece on a square is,
//! seen by a perspective. A net may be horizontally mirrored (a flag in its file,
//! [`Network::mirrored`]): then each perspective whose own king stands on files e-h sees
//! every square mirrored across the d/e line (file `^ 7`) before indexing, so the king is
//! always on files a-d of its own view and the input layer learns one half-board of king
//! placements instead of two. Each perspective decides for itself ([`mirrored_view`] of its
//! own king), so in one position one view may be mirrored and the other not. Nets without
//! the flag index exactly as before. A net may also have king buckets: its input feature set
//! ([`crate::arch::FeatureSet`], [`Network::features`]) then has `768 · K` inputs, and each
//! perspective reads the 768 of its own king's bucket; [`feature_index`] stays the index
//! within a bucket, and the feature set adds the bucket's offset ([`crate::arch::View`]).
//!
//! Layout: `feature_weights` is feature-major, each feature's N weights contiguous (the
//! engine adds and subtracts whole rows); `output_weights` holds, per bucket, 2N weights:
//! first for the side to move's accumulator, then for the other one.
//!
//! Evaluation in integers (exactly what the engine's SIMD code reproduces): the output
//! layer's [`output_sum`] over both halves, then [`output_centipawns`], from the side to
//! move's view. The integer rules a net keeps (output weight range, accumulator bound) are
//! [`crate::quantise`]'s.
//!
//! A net with hidden layers (`(768 -> N)x2 -> (L1 -> L2 -> 1)xB`) has no output layer of that
//! kind: its transformer feeds a stack of [`Layer`]s per output bucket, evaluated by
//! [`crate::quantise::layer_stack`] (layout and quantisation there and at [`Layer`]).

use crate::arch::{king_square, Arch, FeatureSet, View, MAX_LAYERS, MAX_LAYER_WIDTH};
use crate::quantise::{
    check_accumulators, layer_stack, layered_centipawns, LAYER_BIAS_MAX, OUTPUT_WEIGHT_MAX, OUTPUT_WEIGHT_MIN,
};
use crate::{output_centipawns, output_sum, NetError, INPUTS, MAX_HIDDEN, MAX_OUTPUT_BUCKETS, QA, QB};
use movegen::{Board, Color, File, Piece, PieceType, Square};

/// Index of `piece` on `sq` in the input layer as seen by `perspective`: own pieces first,
/// for Black the board flipped vertically (`sq ^ 56`), and when `mirror` every square
/// mirrored horizontally across the d/e line (file `^ 7`, `sq ^ 7`). `mirror` is always
/// false in a net without mirroring; in a mirrored net it is [`mirrored_view`] of the
/// perspective's own king ([`Network::view_mirrored`]).
#[inline(always)]
pub fn feature_index(perspective: Color, piece: Piece, sq: Square, mirror: bool) -> usize {
    let square = sq.index() ^ if mirror { 7 } else { 0 };
    let (side, square) = match perspective {
        Color::White => (piece.color as usize, square),
        Color::Black => ((!piece.color) as usize, square ^ 56),
    };
    side * 384 + piece.kind.index() * 64 + square
}

/// Whether, in a horizontally mirrored net, a perspective whose own king stands on `king`
/// sees the board mirrored: the king on files e to h. The one definition of the boundary
/// (the engine rebuilds a perspective's accumulator when its king crosses it).
#[inline(always)]
pub fn mirrored_view(king: Square) -> bool {
    king.file() >= File::E
}

/// Whether `perspective` sees `board` mirrored in a horizontally mirrored net:
/// [`mirrored_view`] of its king (false without one).
#[inline]
pub fn king_mirrors(board: &Board, perspective: Color) -> bool {
    board
        .colored_pieces(perspective, PieceType::King)
        .into_iter()
        .next()
        .is_some_and(mirrored_view)
}

/// A dense layer after the feature transformer of a net with hidden layers, for every output
/// bucket at once: per bucket, `outputs` rows of `inputs` weights (i8 at scale `QB`; row `o`
/// holds output `o`'s weights, for the first layer `[side to move's N | other side's N]`)
/// and `outputs` biases (i32 at scale `QA · QB`, magnitude at most
/// [`crate::quantise::LAYER_BIAS_MAX`]). Every `Layer` that exists has arrays of exactly
/// these lengths ([`Layer::new`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Layer {
    inputs: usize,
    outputs: usize,
    /// `buckets · outputs · inputs`.
    weights: Vec<i8>,
    /// `buckets · outputs`.
    bias: Vec<i32>,
}

impl Layer {
    /// A layer of `inputs` x `outputs` for `buckets` output buckets from its arrays.
    ///
    /// Errors: [`NetError::ShapeMismatch`] for an array of another length than the shape
    /// implies ("layer weights", "layer bias"), [`NetError::UnsupportedArchitecture`] for a
    /// shape of zero width, [`NetError::LayerBiasOutOfRange`] for a bias beyond
    /// [`crate::quantise::LAYER_BIAS_MAX`].
    pub fn new(
        inputs: usize,
        outputs: usize,
        buckets: usize,
        weights: Vec<i8>,
        bias: Vec<i32>,
    ) -> Result<Layer, NetError> {
        if inputs == 0 || outputs == 0 || buckets == 0 {
            return Err(NetError::UnsupportedArchitecture(format!(
                "a layer of {inputs} x {outputs} for {buckets} buckets"
            )));
        }
        for (array, expected, found) in [
            ("layer weights", buckets * outputs * inputs, weights.len()),
            ("layer bias", buckets * outputs, bias.len()),
        ] {
            if expected != found {
                return Err(NetError::ShapeMismatch {
                    array,
                    expected,
                    found,
                });
            }
        }
        if let Some(&b) = bias.iter().find(|b| b.unsigned_abs() > LAYER_BIAS_MAX as u32) {
            return Err(NetError::LayerBiasOutOfRange(b));
        }
        Ok(Layer {
            inputs,
            outputs,
            weights,
            bias,
        })
    }

    /// Inputs per output.
    #[inline(always)]
    pub fn inputs(&self) -> usize {
        self.inputs
    }

    /// Outputs.
    #[inline(always)]
    pub fn outputs(&self) -> usize {
        self.outputs
    }

    /// All weights: `buckets · outputs · inputs`, bucket-major, then output-major.
    #[inline(always)]
    pub fn weights(&self) -> &[i8] {
        &self.weights
    }

    /// All biases: `buckets · outputs`, bucket-major.
    #[inline(always)]
    pub fn bias(&self) -> &[i32] {
        &self.bias
    }

    /// The weights (`outputs · inputs`) and biases (`outputs`) of output bucket `bucket`
    /// (the last one for a larger index).
    #[inline(always)]
    pub fn bucket(&self, bucket: usize) -> (&[i8], &[i32]) {
        let buckets = self.bias.len() / self.outputs;
        let b = bucket.min(buckets - 1);
        let per = self.outputs * self.inputs;
        (
            &self.weights[b * per..(b + 1) * per],
            &self.bias[b * self.outputs..(b + 1) * self.outputs],
        )
    }
}

/// A quantised network whose shape has been checked: every `Network` that exists has a
/// hidden width that is a multiple of 16 in `16..=MAX_HIDDEN`, `1..=MAX_OUTPUT_BUCKETS`
/// output buckets, arrays of exactly the lengths that shape implies, output weights in
/// `[OUTPUT_WEIGHT_MIN, OUTPUT_WEIGHT_MAX]` and accumulators that cannot overflow i16
/// ([`crate::quantise`]). The constructors ([`Network::new`], [`Network::zeroed`],
/// [`Network::random`], [`Network::material`], [`Network::from_bytes`]) are the only way to
/// make one and each refuses anything else with a [`NetError`], so SIMD inference can rely
/// on the shape (16 lanes of i16 per step) without checking it again. Whether its input
/// layer is horizontally mirrored is set by [`Network::with_mirroring`] (the loader reads it
/// from the file's flags); it changes no array, only which inputs a position activates. Its
/// input feature set ([`Network::features`]) says how many inputs the feature weights have
/// rows for (768 per king bucket).
#[derive(Clone, PartialEq, Eq)]
pub struct Network {
    pub(crate) hidden: usize,
    /// The input feature set: king buckets, and horizontal mirroring of each perspective
    /// whose king is on files e-h.
    pub(crate) features: FeatureSet,
    pub(crate) output_buckets: usize,
    /// `features.inputs() * hidden`, feature-major.
    pub(crate) feature_weights: Vec<i16>,
    /// `hidden`.
    pub(crate) feature_bias: Vec<i16>,
    /// `output_buckets * 2 * hidden`.
    pub(crate) output_weights: Vec<i16>,
    /// `output_buckets`, at scale `QA * QB`.
    pub(crate) output_bias: Vec<i32>,
    /// The layers after the transformer of a net with hidden layers (then `output_weights`
    /// and `output_bias` are empty); empty otherwise.
    pub(crate) layers: Vec<Layer>,
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Network")
            .field("hidden", &self.hidden)
            .field("output_buckets", &self.output_buckets)
            .field("features", &self.features)
            .field(
                "layers",
                &self.layers.iter().map(Layer::outputs).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// Checks a hidden width and an output bucket count: the width a multiple of 16 (one AVX2
/// register of i16) from 16 to [`MAX_HIDDEN`], the buckets from 1 to [`MAX_OUTPUT_BUCKETS`].
pub(crate) fn check_shape(hidden: usize, output_buckets: usize) -> Result<(), NetError> {
    if hidden == 0 || hidden > MAX_HIDDEN || !hidden.is_multiple_of(16) {
        return Err(NetError::UnsupportedArchitecture(format!(
            "hidden width {hidden} (must be a multiple of 16 up to {MAX_HIDDEN})"
        )));
    }
    if output_buckets == 0 || output_buckets > MAX_OUTPUT_BUCKETS {
        return Err(NetError::UnsupportedArchitecture(format!(
            "{output_buckets} output buckets (1 to {MAX_OUTPUT_BUCKETS})"
        )));
    }
    Ok(())
}

impl Network {
    /// A network from its arrays, checked: `hidden` a multiple of 16 in `16..=MAX_HIDDEN`,
    /// `output_buckets` in `1..=MAX_OUTPUT_BUCKETS`, `feature_weights` of
    /// `INPUTS * hidden` values (feature-major: each feature's `hidden` weights together),
    /// `feature_bias` of `hidden`, `output_weights` of `output_buckets * 2 * hidden` (per
    /// bucket the side to move's `hidden` weights, then the other side's), each in
    /// `[OUTPUT_WEIGHT_MIN, OUTPUT_WEIGHT_MAX]` (-128 to 127), and `output_bias` of
    /// `output_buckets` values at scale `QA * QB`. The net file loader and the quantiser
    /// ([`crate::FloatNet::quantise`]) both end here, so both apply these same checks.
    /// The net is not mirrored; [`Network::with_mirroring`] makes it so.
    ///
    /// Errors: [`NetError::UnsupportedArchitecture`] for a width or bucket count out of
    /// range, [`NetError::ShapeMismatch`] for an array of the wrong length,
    /// [`NetError::OutputWeightOutOfRange`] for an output weight out of range,
    /// [`NetError::AccumulatorOverflow`] for a hidden unit whose bias and 32 largest
    /// feature weights could overflow an i16 accumulator
    /// ([`crate::quantise::check_accumulators`]).
    pub fn new(
        hidden: usize,
        output_buckets: usize,
        feature_weights: Vec<i16>,
        feature_bias: Vec<i16>,
        output_weights: Vec<i16>,
        output_bias: Vec<i32>,
    ) -> Result<Network, NetError> {
        Network::with_features(
            FeatureSet::plain(),
            hidden,
            output_buckets,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
        )
    }

    /// [`Network::new`] for the input feature set `features`: `feature_weights` holds
    /// `features.inputs() * hidden` values (768 rows per king bucket), and the accumulator
    /// bound is checked per king bucket (a perspective reads one bucket at a time).
    /// Errors as [`Network::new`].
    pub fn with_features(
        features: FeatureSet,
        hidden: usize,
        output_buckets: usize,
        feature_weights: Vec<i16>,
        feature_bias: Vec<i16>,
        output_weights: Vec<i16>,
        output_bias: Vec<i32>,
    ) -> Result<Network, NetError> {
        check_shape(hidden, output_buckets)?;
        for (array, expected, found) in [
            (
                "feature weights",
                features.inputs() * hidden,
                feature_weights.len(),
            ),
            ("feature bias", hidden, feature_bias.len()),
            (
                "output weights",
                output_buckets * 2 * hidden,
                output_weights.len(),
            ),
            ("output bias", output_buckets, output_bias.len()),
        ] {
            if expected != found {
                return Err(NetError::ShapeMismatch {
                    array,
                    expected,
                    found,
                });
            }
        }
        if let Some(&w) = output_weights
            .iter()
            .find(|w| !(OUTPUT_WEIGHT_MIN..=OUTPUT_WEIGHT_MAX).contains(*w))
        {
            return Err(NetError::OutputWeightOutOfRange(w));
        }
        for bucket in feature_weights.chunks_exact(INPUTS * hidden) {
            check_accumulators(hidden, bucket, &feature_bias)?;
        }
        Ok(Network {
            hidden,
            features,
            output_buckets,
            feature_weights,
            feature_bias,
            output_weights,
            output_bias,
            layers: Vec::new(),
        })
    }

    /// A network with hidden layers: the feature transformer as [`Network::with_features`]
    /// takes it, then `layers` (the hidden layers and the last, of one output, each for
    /// `output_buckets` buckets). The layers must chain: the first has `2 · hidden` inputs,
    /// each next one as many inputs as the previous has outputs, the last one output; at
    /// most [`MAX_LAYERS`] hidden layers, each at most [`MAX_LAYER_WIDTH`] wide.
    ///
    /// Errors: as [`Network::with_features`] for the transformer, and
    /// [`NetError::UnsupportedArchitecture`] for layers that do not chain (or no layer),
    /// [`NetError::ShapeMismatch`] for a layer made for another bucket count.
    pub fn with_layers(
        features: FeatureSet,
        hidden: usize,
        output_buckets: usize,
        feature_weights: Vec<i16>,
        feature_bias: Vec<i16>,
        layers: Vec<Layer>,
    ) -> Result<Network, NetError> {
        let mut net = Network::with_features(
            features,
            hidden,
            output_buckets,
            feature_weights,
            feature_bias,
            vec![0; output_buckets * 2 * hidden],
            vec![0; output_buckets],
        )?;
        let bad = |what: String| Err(NetError::UnsupportedArchitecture(what));
        if layers.is_empty() || layers.len() > MAX_LAYERS + 1 {
            return bad(format!(
                "{} layers after the transformer (1 to {})",
                layers.len(),
                MAX_LAYERS + 1
            ));
        }
        let mut fan_in = 2 * hidden;
        for (i, layer) in layers.iter().enumerate() {
            let last = i + 1 == layers.len();
            if layer.inputs != fan_in {
                return bad(format!(
                    "layer {} has {} inputs where {fan_in} come",
                    i + 1,
                    layer.inputs
                ));
            }
            if last && layer.outputs != 1 {
                return bad(format!("the last layer has {} outputs, not 1", layer.outputs));
            }
            if layer.outputs > MAX_LAYER_WIDTH {
                return bad(format!(
                    "a hidden layer {} wide (at most {MAX_LAYER_WIDTH})",
                    layer.outputs
                ));
            }
            if layer.bias.len() != output_buckets * layer.outputs {
                return Err(NetError::ShapeMismatch {
                    array: "layer bias",
                    expected: output_buckets * layer.outputs,
                    found: layer.bias.len(),
                });
            }
            fan_in = layer.outputs;
        }
        net.output_weights = Vec::new();
        net.output_bias = Vec::new();
        net.layers = layers;
        Ok(net)
    }

    /// A network of the given shape with every weight zero. Errors as [`Network::new`].
    pub fn zeroed(hidden: usize, output_buckets: usize) -> Result<Network, NetError> {
        Network::zeroed_with(FeatureSet::plain(), hidden, output_buckets)
    }

    /// A network with the input feature set `features` and every weight zero. Errors as
    /// [`Network::new`].
    pub fn zeroed_with(
        features: FeatureSet,
        hidden: usize,
        output_buckets: usize,
    ) -> Result<Network, NetError> {
        check_shape(hidden, output_buckets)?;
        Ok(Network {
            hidden,
            features,
            output_buckets,
            feature_weights: vec![0; features.inputs() * hidden],
            feature_bias: vec![0; hidden],
            output_weights: vec![0; output_buckets * 2 * hidden],
            output_bias: vec![0; output_buckets],
            layers: Vec::new(),
        })
    }

    /// The same weights read with horizontal mirroring (`true`) or without: with it, each
    /// perspective whose own king stands on files e-h sees every square mirrored (see
    /// [`feature_index`]). Stored as bit 0 of the net file's flags.
    pub fn with_mirroring(mut self, mirrored: bool) -> Network {
        self.features = self.features.with_mirroring(mirrored);
        self
    }

    /// Whether the input layer is horizontally mirrored ([`Network::with_mirroring`]).
    #[inline(always)]
    pub fn mirrored(&self) -> bool {
        self.features.is_mirrored()
    }

    /// The input feature set (king buckets, mirroring).
    #[inline(always)]
    pub fn features(&self) -> &FeatureSet {
        &self.features
    }

    /// The net's architecture: its feature set, width, hidden layers and output buckets,
    /// with SCReLU and the standard quantisation (all this build runs).
    pub fn arch(&self) -> Arch {
        let mut arch = Arch::simple(self.features, self.hidden, self.output_buckets);
        if let Some((_, hidden)) = self.layers.split_last() {
            arch.layers = hidden.iter().map(Layer::outputs).collect();
        }
        arch
    }

    /// The layers after the transformer of a net with hidden layers (the last with one
    /// output); empty for a net whose transformer feeds its output layer directly.
    #[inline(always)]
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Whether `perspective` sees `board` mirrored in this net: the net is mirrored and
    /// that side's king stands on files e-h ([`king_mirrors`]).
    #[inline]
    pub fn view_mirrored(&self, board: &Board, perspective: Color) -> bool {
        self.mirrored() && king_mirrors(board, perspective)
    }

    /// How `perspective` reads `board` ([`FeatureSet::view`] of its king; the unmirrored
    /// first bucket on a board without that king).
    #[inline]
    pub fn view(&self, board: &Board, perspective: Color) -> View {
        king_square(board, perspective).map_or(View::default(), |k| self.features.view(perspective, k))
    }

    /// The hidden width N (the feature transformer's outputs per perspective).
    #[inline(always)]
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The number of output buckets.
    #[inline(always)]
    pub fn output_buckets(&self) -> usize {
        self.output_buckets
    }

    /// The feature transformer's weights: `features().inputs() * hidden` values,
    /// feature-major, at scale `QA`.
    #[inline(always)]
    pub fn feature_weights(&self) -> &[i16] {
        &self.feature_weights
    }

    /// The feature transformer's biases: `hidden` values at scale `QA`.
    #[inline(always)]
    pub fn feature_bias(&self) -> &[i16] {
        &self.feature_bias
    }

    /// The output weights: `output_buckets * 2 * hidden` values at scale `QB`, per bucket
    /// first the side to move's `hidden`, then the other side's (none in a net with hidden
    /// layers, [`Network::layers`]).
    #[inline(always)]
    pub fn output_weights(&self) -> &[i16] {
        &self.output_weights
    }

    /// The output weights of `bucket` (`2 * hidden` values; the last bucket's for a
    /// larger index; empty in a net with hidden layers).
    #[inline(always)]
    pub fn bucket_weights(&self, bucket: usize) -> &[i16] {
        if !self.layers.is_empty() {
            return &[];
        }
        let bucket = bucket.min(self.output_buckets - 1);
        &self.output_weights[bucket * 2 * self.hidden..(bucket + 1) * 2 * self.hidden]
    }

    /// The output biases: `output_buckets` values at scale `QA * QB` (none in a net with
    /// hidden layers).
    #[inline(always)]
    pub fn output_bias(&self) -> &[i32] {
        &self.output_bias
    }

    /// The output bucket for a position: see [`output_bucket`].
    #[inline]
    pub fn output_bucket(&self, board: &Board) -> usize {
        output_bucket(board.occupied().len() as usize, self.output_buckets)
    }

    /// The row of N weights of input `feature` (below `features().inputs()`; panics beyond).
    #[inline(always)]
    pub fn feature_row(&self, feature: usize) -> &[i16] {
        &self.feature_weights[feature * self.hidden..(feature + 1) * self.hidden]
    }

    /// Computes both accumulators from scratch: `(white view, black view)`.
    pub fn refresh(&self, board: &Board) -> (Vec<i16>, Vec<i16>) {
        let mut white = vec![0; self.hidden];
        let mut black = vec![0; self.hidden];
        self.refresh_view(board, Color::White, &mut white);
        self.refresh_view(board, Color::Black, &mut black);
        (white, black)
    }

    /// Computes `perspective`'s accumulator of `board` from scratch into `acc`, which
    /// must hold `hidden` values (panics otherwise): the bias plus the row of every piece,
    /// indexed in `perspective`'s [`Network::view`] (its king bucket, mirrored or not).
    pub fn refresh_view(&self, board: &Board, perspective: Color, acc: &mut [i16]) {
        acc.copy_from_slice(&self.feature_bias);
        let view = self.view(board, perspective);
        for color in Color::ALL {
            for kind in PieceType::ALL {
                for sq in board.colored_pieces(color, kind) {
                    let piece = Piece::new(color, kind);
                    let row = self.feature_row(view.index(perspective, piece, sq));
                    for (a, w) in acc.iter_mut().zip(row) {
                        *a = a.wrapping_add(*w);
                    }
                }
            }
        }
    }

    /// The output layer (or, in a net with hidden layers, the layer stack,
    /// [`crate::quantise::layer_stack`]) on two accumulators of `hidden` values (side to
    /// move first), in centipawns; `bucket` beyond the last is read as the last.
    pub fn forward(&self, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        let bucket = bucket.min(self.output_buckets - 1);
        if !self.layers.is_empty() {
            return layered_centipawns(layer_stack(&self.layers, us, them, bucket));
        }
        let weights = self.bucket_weights(bucket);
        let (w_us, w_them) = weights.split_at(self.hidden);
        output_centipawns(output_sum(us, them, w_us, w_them), self.output_bias[bucket])
    }

    /// The reference evaluation of `board` from the side to move's view, in centipawns.
    pub fn evaluate(&self, board: &Board) -> i32 {
        let (white, black) = self.refresh(board);
        let bucket = self.output_bucket(board);
        match board.side_to_move() {
            Color::White => self.forward(&white, &black, bucket),
            Color::Black => self.forward(&black, &white, bucket),
        }
    }

    /// A net whose output is exactly linear in material: pawn 1, knight 3, bishop 3,
    /// rook 5, queen 9 (units of about 99 cp).
    ///
    /// Under SCReLU a pair of hidden units with bias `b` and opposite inputs `b + m` and
    /// `b - m` gives `(b + m)² - (b - m)² = 4bm`, exactly linear while both stay in
    /// `[0, QA]`. With `b = 127` that holds for `|m| <= 127` pawn units, beyond any legal
    /// material difference (at most 103). 16 such pairs with output weights ±127 scale the
    /// result to centipawns; ±127 keeps `clamp(acc) · w` inside i16 for the SIMD path.
    ///
    /// Errors: a width [`Network::new`] refuses (the material pairs need at least 32 for
    /// the scale above; 16 works at half the scale).
    pub fn material(hidden: usize) -> Result<Network, NetError> {
        let pairs = 16.min(hidden / 2);
        let mut net = Network::zeroed(hidden, 1)?;
        let values = [1i16, 3, 3, 5, 9, 0];
        for pair in 0..pairs {
            let (plus, minus) = (2 * pair, 2 * pair + 1);
            net.feature_bias[plus] = 127;
            net.feature_bias[minus] = 127;
            for feature in 0..INPUTS {
                let own = feature < 384;
                let kind = (feature % 384) / 64;
                let value = if own { values[kind] } else { -values[kind] };
                net.feature_weights[feature * hidden + plus] = value;
                net.feature_weights[feature * hidden + minus] = -value;
            }
            net.output_weights[plus] = 127;
            net.output_weights[minus] = -127;
        }
        Ok(net)
    }

    /// A network with pseudo-random weights in the ranges a trained net uses (for speed
    /// measurements and SIMD tests), reproducible from `seed` with the workspace's one
    /// generator, [`movegen::rng::SplitMix64`]: feature weights uniform in `[-60, 60]`,
    /// feature biases in `[-200, 200]` (so no accumulator can overflow), output weights in
    /// `[-127, 127]`, output biases in `[-QA·QB, QA·QB]`. Errors as [`Network::zeroed`]:
    /// `Network::random(8, 1, 0)` is refused, since 8 is no multiple of 16.
    pub fn random(hidden: usize, output_buckets: usize, seed: u64) -> Result<Network, NetError> {
        Network::random_with(FeatureSet::plain(), hidden, output_buckets, seed)
    }

    /// [`Network::random`] with the input feature set `features` (the same ranges; with
    /// one bucket and the same seed, the same weights as [`Network::random`]).
    pub fn random_with(
        features: FeatureSet,
        hidden: usize,
        output_buckets: usize,
        seed: u64,
    ) -> Result<Network, NetError> {
        let mut rng = movegen::rng::SplitMix64(seed);
        let mut next = move |range: i32| rng.below(2 * range as usize + 1) as i32 - range;
        let mut net = Network::zeroed_with(features, hidden, output_buckets)?;
        net.feature_weights.iter_mut().for_each(|w| *w = next(60) as i16);
        net.feature_bias.iter_mut().for_each(|w| *w = next(200) as i16);
        net.output_weights.iter_mut().for_each(|w| *w = next(127) as i16);
        net.output_bias.iter_mut().for_each(|w| *w = next(QA * QB));
        Ok(net)
    }
}

impl Network {
    /// A network of the descriptor `arch` (which this build must run, [`Arch::runnable`])
    /// with pseudo-random weights, reproducible from `seed`: the transformer as
    /// [`Network::random_with`] makes it (the same weights for the same seed), then for a
    /// net with hidden layers each layer's weights uniform in `±max(1, 64 / sqrt(inputs))`
    /// and biases in `±QA · QB / 4`, so that the integer activations spread over their
    /// range rather than sit at its ends.
    ///
    /// Errors: [`NetError::UnsupportedArchitecture`] for a descriptor this build cannot run.
    pub fn random_arch(arch: &Arch, seed: u64) -> Result<Network, NetError> {
        arch.runnable()
            .map_err(|e| NetError::UnsupportedArchitecture(e.to_string()))?;
        let net = Network::random_with(arch.features, arch.width, arch.output_buckets, seed)?;
        if arch.layers.is_empty() {
            return Ok(net);
        }
        let mut rng = movegen::rng::SplitMix64(seed ^ 0x001A_7EB5);
        let mut next = move |range: i32| rng.below(2 * range as usize + 1) as i32 - range;
        let mut fan_in = 2 * arch.width;
        let mut layers = Vec::new();
        for &outputs in arch.layers.iter().chain(&[1]) {
            let range = (64.0 / (fan_in as f64).sqrt()).max(1.0) as i32;
            let weights = (0..arch.output_buckets * outputs * fan_in)
                .map(|_| next(range) as i8)
                .collect();
            let bias = (0..arch.output_buckets * outputs)
                .map(|_| next(QA * QB / 4))
                .collect();
            layers.push(Layer::new(fan_in, outputs, arch.output_buckets, weights, bias)?);
            fan_in = outputs;
        }
        Network::with_layers(
            arch.features,
            arch.width,
            arch.output_buckets,
            net.feature_weights,
            net.feature_bias,
            layers,
        )
    }
}

/// The output bucket of a position with `pieces` pieces (kings included) in a net with
/// `buckets` output buckets: `(pieces - 2) / ceil(32 / buckets)`, at most `buckets - 1`
/// (with 8 buckets: `(pieces - 2) / 4`). The one definition shared by the engine, the
/// reference forward pass and the trainer.
#[inline]
pub fn output_bucket(pieces: usize, buckets: usize) -> usize {
    if buckets <= 1 {
        return 0;
    }
    let per_bucket = 32usize.div_ceil(buckets);
    (pieces.saturating_sub(2) / per_bucket).min(buckets - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_index_mirrors_between_perspectives() {
        let sq = movegen::Square::parse("e2").unwrap();
        let white_pawn = Piece::new(Color::White, PieceType::Pawn);
        assert_eq!(feature_index(Color::White, white_pawn, sq, false), 12);
        // From Black's view a white pawn is an enemy pawn on e7.
        assert_eq!(feature_index(Color::Black, white_pawn, sq, false), 384 + 52);
        let black_king = Piece::new(Color::Black, PieceType::King);
        let e8 = movegen::Square::parse("e8").unwrap();
        assert_eq!(feature_index(Color::Black, black_king, e8, false), 5 * 64 + 4);
        // Mirrored, e2 is read as d2 (and as d7 from Black's view), e8 as d8.
        assert_eq!(feature_index(Color::White, white_pawn, sq, true), 11);
        assert_eq!(feature_index(Color::Black, white_pawn, sq, true), 384 + 51);
        assert_eq!(feature_index(Color::Black, black_king, e8, true), 5 * 64 + 3);
    }

    #[test]
    fn mirroring_flips_files_only_and_is_its_own_inverse() {
        for view in Color::ALL {
            for color in Color::ALL {
                for kind in PieceType::ALL {
                    let piece = Piece::new(color, kind);
                    let mut seen = [false; INPUTS];
                    for i in 0..64u8 {
                        let sq = Square::new(i);
                        let image = Square::from_coords(File::new(7 - sq.file().index() as u8), sq.rank());
                        assert_eq!(
                            feature_index(view, piece, sq, true),
                            feature_index(view, piece, image, false)
                        );
                        seen[feature_index(view, piece, sq, true)] = true;
                    }
                    assert_eq!(seen.iter().filter(|s| **s).count(), 64);
                }
            }
        }
        let files: Vec<bool> = "a1 b1 c1 d1 e1 f1 g1 h1"
            .split(' ')
            .map(|s| mirrored_view(Square::parse(s).unwrap()))
            .collect();
        assert_eq!(files, [false, false, false, false, true, true, true, true]);
    }

    /// The FEN of `fen`'s horizontal mirror image (no castling rights; the en passant
    /// square mirrored).
    fn mirror_fen(fen: &str) -> String {
        let fields: Vec<&str> = fen.split(' ').collect();
        let placement: Vec<String> = fields[0].split('/').map(|r| r.chars().rev().collect()).collect();
        let ep = match fields[3] {
            "-" => "-".to_string(),
            sq => {
                let mut c = sq.chars();
                let file = c.next().unwrap();
                format!("{}{}", (b'h' - (file as u8 - b'a')) as char, c.as_str())
            }
        };
        format!(
            "{} {} {} {} {}",
            placement.join("/"),
            fields[1],
            fields[2],
            ep,
            fields[4..].join(" ")
        )
    }

    #[test]
    fn a_mirrored_net_scores_a_position_and_its_mirror_image_alike() {
        let positions = include_str!("../../movegen/tests/data/valid.fens");
        for (hidden, buckets) in [(32, 1), (64, 8)] {
            let plain = Network::random(hidden, buckets, 21).unwrap();
            let mirrored = plain.clone().with_mirroring(true);
            let (mut checked, mut differ) = (0, 0);
            for fen in positions
                .lines()
                .filter(|f| f.split(' ').nth(2) == Some("-"))
                .take(400)
            {
                let board = Board::from_fen(fen).unwrap();
                let image = Board::from_fen(&mirror_fen(fen)).unwrap();
                assert_eq!(mirrored.evaluate(&board), mirrored.evaluate(&image), "{fen}");
                differ += usize::from(plain.evaluate(&board) != plain.evaluate(&image));
                checked += 1;
            }
            assert_eq!(checked, 400);
            // Without mirroring the two differ: the test can tell.
            assert!(differ > 300, "{differ}");
            // With no king on files e-h, mirroring changes nothing.
            let board = Board::from_fen("3k4/8/8/8/8/8/2P5/1K6 w - - 0 1").unwrap();
            assert_eq!(mirrored.evaluate(&board), plain.evaluate(&board));
        }
        assert_eq!(
            mirror_fen("4k3/8/8/3pP3/8/8/8/R3K3 w - d6 0 2"),
            "3k4/8/8/3Pp3/8/8/8/3K3R w - e6 0 2"
        );
    }

    #[test]
    fn shapes_simd_cannot_run_are_refused_where_a_net_is_made() {
        // 8 is no multiple of 16: the AVX2 forward pass would read past its slices.
        for (hidden, buckets) in [(8, 1), (0, 1), (24, 1), (MAX_HIDDEN + 16, 1), (32, 0), (32, 17)] {
            assert!(
                matches!(
                    Network::random(hidden, buckets, 0),
                    Err(NetError::UnsupportedArchitecture(_))
                ),
                "{hidden} x {buckets}"
            );
            assert!(Network::zeroed(hidden, buckets).is_err(), "{hidden} x {buckets}");
        }
        assert!(Network::material(8).is_err());
        assert!(Network::material(16).is_ok());
        let good = Network::random(32, 2, 1).unwrap();
        let parts = || {
            (
                good.feature_weights().to_vec(),
                good.feature_bias().to_vec(),
                good.output_weights().to_vec(),
                good.output_bias().to_vec(),
            )
        };
        let (fw, fb, ow, ob) = parts();
        assert_eq!(Network::new(32, 2, fw, fb, ow, ob), Ok(good.clone()));
        let (fw, fb, ow, ob) = parts();
        assert_eq!(
            Network::new(32, 2, fw[1..].to_vec(), fb, ow, ob),
            Err(NetError::ShapeMismatch {
                array: "feature weights",
                expected: INPUTS * 32,
                found: INPUTS * 32 - 1
            })
        );
        let (fw, fb, ow, ob) = parts();
        assert!(matches!(
            Network::new(16, 2, fw, fb, ow, ob),
            Err(NetError::ShapeMismatch { .. })
        ));
        let (fw, fb, mut ow, ob) = parts();
        ow[5] = 300;
        assert_eq!(
            Network::new(32, 2, fw, fb, ow, ob),
            Err(NetError::OutputWeightOutOfRange(300))
        );
        // Accessors give the shapes the constructors promise.
        assert_eq!(
            (good.hidden(), good.output_buckets(), good.bucket_weights(1).len()),
            (32, 2, 64)
        );
        assert_eq!(good.bucket_weights(9), good.bucket_weights(1));
    }

    /// The layer stack written out the plain way (each activation, then each dot product),
    /// independently of `layer_stack`'s chunks.
    fn naive_stack(net: &Network, us: &[i16], them: &[i16], bucket: usize) -> i32 {
        let mut x: Vec<i32> = us
            .iter()
            .chain(them)
            .map(|&a| {
                let v = i32::from(a).clamp(0, QA);
                v * v / QA
            })
            .collect();
        let mut z = Vec::new();
        for (i, layer) in net.layers().iter().enumerate() {
            if i > 0 {
                x = z.iter().map(|&s: &i32| (s / QB).clamp(0, QA)).collect();
            }
            let (w, b) = layer.bucket(bucket);
            z = (0..layer.outputs())
                .map(|o| {
                    b[o] + (0..layer.inputs())
                        .map(|j| x[j] * i32::from(w[o * layer.inputs() + j]))
                        .sum::<i32>()
                })
                .collect();
        }
        (i64::from(z[0]) * 400 / i64::from(QA * QB)) as i32
    }

    #[test]
    fn the_layer_stack_is_the_integer_pipeline_of_its_documentation() {
        let fens = include_str!("../../movegen/tests/data/valid.fens");
        for text in [
            "(768 -> 64)x2 -> (16 -> 32 -> 1)x8",
            "(768 -> 96)x2 -> (16 -> 1)x2",
            "(768x4hm -> 32)x2 -> (8 -> 8 -> 1)x8",
        ] {
            let arch: Arch = text.parse().unwrap();
            let net = Network::random_arch(&arch, 5).unwrap();
            let (mut distinct, mut nonzero) = (std::collections::HashSet::new(), 0);
            for fen in fens.lines().take(500) {
                let board = Board::from_fen(fen).unwrap();
                let (white, black) = net.refresh(&board);
                let (us, them) = match board.side_to_move() {
                    Color::White => (&white, &black),
                    Color::Black => (&black, &white),
                };
                let bucket = net.output_bucket(&board);
                let eval = net.evaluate(&board);
                assert_eq!(eval, naive_stack(&net, us, them, bucket), "{text} {fen}");
                assert_eq!(eval, net.forward(us, them, bucket));
                distinct.insert(eval);
                nonzero += usize::from(eval != 0);
            }
            // The random layers do not saturate into a constant: the test can tell.
            assert!(distinct.len() > 50 && nonzero > 400, "{text}: {}", distinct.len());
        }
        // A hand-made net: unit 0 of each side active, one hidden unit summing both.
        let arch: Arch = "(768 -> 16)x2 -> (1 -> 1)x1".parse().unwrap();
        let mut net = Network::random_arch(&arch, 1).unwrap();
        net.feature_bias.fill(0);
        net.feature_bias[0] = 100;
        let mut w0 = vec![0i8; 32];
        w0[0] = 64; // QB: weight 1.0
        w0[16] = -32; // -0.5
        net.layers[0] = Layer::new(32, 1, 1, w0, vec![1000]).unwrap();
        net.layers[1] = Layer::new(1, 1, 1, vec![127], vec![-5]).unwrap();
        let us = vec![100i16; 16];
        let mut them = vec![0i16; 16];
        them[0] = 255;
        // h0: 100² / 255 = 39 and 255; z = 39·64 - 255·32 + 1000 = -4664 → CReLU 0;
        let zero = net.forward(&us, &them, 0);
        assert_eq!(zero, (-5 * 400) / (255 * 64));
        them[0] = 20; // 20²/255 = 1: z = 2496 - 32 + 1000 = 3464 → 3464 / 64 = 54
        assert_eq!(net.forward(&us, &them, 0), ((54 * 127 - 5) * 400) / (255 * 64));
        assert_eq!(net.forward(&us, &them, 0), 167);
    }

    #[test]
    fn layers_that_do_not_chain_are_refused() {
        let net = Network::random(32, 2, 1).unwrap();
        let layer = |i: usize, o: usize| Layer::new(i, o, 2, vec![0; 2 * i * o], vec![0; 2 * o]).unwrap();
        let make = |layers: Vec<Layer>| {
            Network::with_layers(
                FeatureSet::plain(),
                32,
                2,
                net.feature_weights().to_vec(),
                net.feature_bias().to_vec(),
                layers,
            )
        };
        assert!(make(vec![layer(64, 8), layer(8, 1)]).is_ok());
        for (layers, says) in [
            (vec![layer(32, 8), layer(8, 1)], "32 inputs where 64"),
            (vec![layer(64, 8), layer(4, 1)], "4 inputs where 8"),
            (vec![layer(64, 8), layer(8, 2)], "2 outputs, not 1"),
            (vec![layer(64, 300), layer(300, 1)], "300 wide"),
            (vec![], "0 layers"),
        ] {
            match make(layers) {
                Err(NetError::UnsupportedArchitecture(e)) => assert!(e.contains(says), "{e}"),
                other => panic!("{says}: {other:?}"),
            }
        }
        assert!(matches!(
            make(vec![
                Layer::new(64, 8, 1, vec![0; 512], vec![0; 8]).unwrap(),
                layer(8, 1)
            ]),
            Err(NetError::ShapeMismatch {
                array: "layer bias",
                ..
            })
        ));
        assert!(matches!(
            Layer::new(4, 2, 1, vec![0; 7], vec![0; 2]),
            Err(NetError::ShapeMismatch {
                array: "layer weights",
                expected: 8,
                found: 7
            })
        ));
        assert_eq!(
            Layer::new(4, 1, 1, vec![0; 4], vec![i32::MIN]),
            Err(NetError::LayerBiasOutOfRange(i32::MIN))
        );
    }

    #[test]
    fn material_net_is_linear_in_material() {
        let net = Network::material(32).unwrap();
        let eval = |fen: &str| net.evaluate(&Board::from_fen(fen).unwrap());
        // The exact integer pipeline for a material difference of m pawn units.
        let expected = |m: i32| output_centipawns(16 * 127 * 4 * 127 * m, 0);
        assert_eq!(expected(1), 99);
        assert_eq!(eval(movegen::STARTPOS_FEN), 0);
        assert_eq!(
            eval("rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            expected(1)
        );
        assert_eq!(
            eval("rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"),
            expected(-1)
        );
        assert_eq!(
            eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR w KQkq - 0 1"),
            expected(-3)
        );
        // Far beyond legal material (relaxed FEN): 8 pawns and 7 queens, m = 71.
        let extreme = Board::from_fen_relaxed("7k/8/8/8/8/8/PPPPPPPP/QQQQQQQK w - - 0 1").unwrap();
        assert_eq!(net.evaluate(&extreme), expected(71));
    }
}
