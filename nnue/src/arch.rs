//! The architecture descriptor: one value that says what a net is, so that the net file,
//! the engine, the trainer and the people reading `nets/README.md` all name a net's shape
//! the same way, and nothing about it is written out by hand in three places.
//!
//! An [`Arch`] holds the input feature set ([`FeatureSet`]: the plain 768 inputs,
//! horizontally mirrored, or king-bucketed with a 64-square bucket map, mirrored or not), the
//! feature transformer's width and [`Activation`], optional hidden layers after the
//! transformer (per output bucket, as multi-layer NNUEs have them), the output buckets and
//! the [`Quantisation`]. The net file (`crate::file`, version 2) stores it in its header,
//! covered by the header's hash; a version 1 file reads as the plain or mirrored SCReLU
//! descriptor its flags say. The type can describe more than this build runs:
//! [`Arch::runnable`] says what the inference implements (SCReLU, the standard
//! quantisation, hidden layers up to [`MAX_LAYER_WIDTH`] wide), and the loader refuses the
//! rest.
//!
//! # The one-line form
//!
//! [`Arch`] prints (Display) and parses (FromStr) as one line; parsing ignores whitespace
//! and case, and `print(parse(s))` is the canonical spelling of `s`:
//!
//! ```text
//! arch       = "(" inputs "->" width [activation] ")x2" "->" head [quantisation]
//! inputs     = "768" ["x" K [":" map]] ["hm"]
//! activation = "relu" | "crelu" | "screlu"          (default screlu)
//! head       = "1" ["x" B] | "(" L1 "->" L2 ... "->" "1" ")x" B
//! quantisation = "q" QA "/" QB "/" SCALE            (default q255/64/400, printed only when other)
//! ```
//!
//! `768` is the plain feature set, `hm` horizontal mirroring, `xK` K king buckets with the
//! default map of [`FeatureSet::default_map`] or, after `:`, an explicit one: 64 base-36
//! digits, the bucket of each king square from that side's own view (a1, b1, .., h1, a2, ..,
//! h8; rank 1 is the side's own back rank). `x2` says that both perspectives share the
//! transformer; B is the number of output buckets. Examples: `(768 -> 128 screlu)x2 -> 1x8`
//! (gen13-128), `(768x4hm -> 256 screlu)x2 -> 1x8`, `(768 -> 64 screlu)x2 -> (16 -> 32 ->
//! 1)x8`.

use crate::{MAX_HIDDEN, MAX_OUTPUT_BUCKETS, QA, QB, SCALE};
use movegen::{Color, Piece, Square};
use std::fmt;
use std::str::FromStr;

/// Inputs per king bucket: 2 colours x 6 piece types x 64 squares.
pub const FEATURES_PER_BUCKET: usize = 768;
/// The most king buckets a feature set may have (a base-36 digit each in the one-line
/// form; 32 x 768 inputs still fit the trainer's 16-bit feature indices).
pub const MAX_KING_BUCKETS: usize = 32;
/// The most hidden layers after the feature transformer a descriptor may hold.
pub const MAX_LAYERS: usize = 4;
/// The widest hidden layer this build's inference runs ([`Arch::runnable`]; the integer
/// forward pass keeps a layer's sums in a fixed array of this many values on the stack).
pub const MAX_LAYER_WIDTH: usize = 256;

/// Why a descriptor is not one: a malformed one-line form, or values out of range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArchError(pub String);

impl fmt::Display for ArchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArchError {}

fn error<T>(text: impl Into<String>) -> Result<T, ArchError> {
    Err(ArchError(text.into()))
}

/// The feature transformer's activation, applied to each accumulator value `x` (in floats,
/// 1.0 standing for `QA`): ReLU `max(x, 0)`, CReLU `clamp(x, 0, 1)`, SCReLU
/// `clamp(x, 0, 1)²`. This build's inference runs SCReLU only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Activation {
    /// `max(x, 0)`.
    ReLU,
    /// `clamp(x, 0, 1)`.
    CReLU,
    /// `clamp(x, 0, 1)²`.
    SCReLU,
}

impl Activation {
    /// The three activations, in the order of their file codes (0, 1, 2).
    pub const ALL: [Activation; 3] = [Activation::ReLU, Activation::CReLU, Activation::SCReLU];

    /// The name in the one-line form: "relu", "crelu" or "screlu".
    pub fn name(self) -> &'static str {
        match self {
            Activation::ReLU => "relu",
            Activation::CReLU => "crelu",
            Activation::SCReLU => "screlu",
        }
    }

    /// The code in the net file (0 ReLU, 1 CReLU, 2 SCReLU).
    pub fn code(self) -> u32 {
        match self {
            Activation::ReLU => 0,
            Activation::CReLU => 1,
            Activation::SCReLU => 2,
        }
    }

    /// The activation of a file code; `None` for a code no activation has.
    pub fn from_code(code: u32) -> Option<Activation> {
        Activation::ALL.into_iter().find(|a| a.code() == code)
    }
}

/// How a perspective reads the board in one position: whether its squares are mirrored
/// across the d/e line, and the first input of its king's bucket. Fixed while that side's
/// king stays in one bucket and one half of the board ([`FeatureSet::needs_refresh`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct View {
    /// Every square read mirrored (file `^ 7`).
    pub mirror: bool,
    /// `bucket · 768`: where the king bucket's inputs start.
    pub offset: usize,
}

impl View {
    /// The input of `piece` on `sq` seen by `perspective` in this view: the bucket's offset
    /// plus [`crate::feature_index`] (own pieces first, Black's board flipped vertically,
    /// mirrored when [`View::mirror`]).
    #[inline(always)]
    pub fn index(self, perspective: Color, piece: Piece, sq: Square) -> usize {
        self.offset + crate::feature_index(perspective, piece, sq, self.mirror)
    }
}

/// An input feature set: `768 · K` inputs, for K king buckets (1: none), each
/// perspective's pieces indexed within the bucket of its own king, the board read mirrored
/// across the d/e line while that king stands on files e-h when the set is mirrored.
///
/// The bucket map gives the bucket of each square of that side's king, seen from its own
/// side (White's squares as they are, Black's flipped vertically, so rank 1 is always the
/// own back rank) and, in a mirrored set, after mirroring (so only files a-d are read; the
/// constructors copy them onto e-h, so that one set has one map). Every `FeatureSet` that
/// exists is valid: 1 to [`MAX_KING_BUCKETS`] buckets, each used by some square.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FeatureSet {
    mirrored: bool,
    buckets: u8,
    map: [u8; 64],
}

impl fmt::Debug for FeatureSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FeatureSet({self})")
    }
}

impl FeatureSet {
    /// The plain 768 inputs (no buckets, no mirroring): every net before king buckets.
    pub const fn plain() -> FeatureSet {
        FeatureSet {
            mirrored: false,
            buckets: 1,
            map: [0; 64],
        }
    }

    /// The 768 inputs, horizontally mirrored.
    pub const fn mirrored() -> FeatureSet {
        FeatureSet {
            mirrored: true,
            buckets: 1,
            map: [0; 64],
        }
    }

    /// K king buckets with the map `map` (bucket of each own-view king square, a1 = 0 ..
    /// h8 = 63), mirrored or not. In a mirrored set files e-h of the map are ignored
    /// (overwritten by their images on files a-d).
    ///
    /// Errors: K outside `1..=MAX_KING_BUCKETS`, a map value of K or more, or a bucket no
    /// square (that the set reads) maps to.
    pub fn king_buckets(buckets: usize, map: [u8; 64], mirrored: bool) -> Result<FeatureSet, ArchError> {
        if buckets == 0 || buckets > MAX_KING_BUCKETS {
            return error(format!("{buckets} king buckets (1 to {MAX_KING_BUCKETS})"));
        }
        let mut map = map;
        if mirrored {
            for sq in 0..64 {
                if sq % 8 >= 4 {
                    map[sq] = map[sq ^ 7];
                }
            }
        }
        if let Some(v) = map.iter().find(|&&v| usize::from(v) >= buckets) {
            return error(format!("king bucket map holds {v}, beyond {buckets} buckets"));
        }
        if let Some(unused) = (0..buckets).find(|&b| !map.iter().any(|&v| usize::from(v) == b)) {
            return error(format!("king bucket {unused} has no square in the map"));
        }
        Ok(FeatureSet {
            mirrored,
            buckets: buckets as u8,
            map,
        })
    }

    /// K king buckets with the default map ([`FeatureSet::default_map`]).
    ///
    /// Errors: a K without a default map.
    pub fn default_buckets(buckets: usize, mirrored: bool) -> Result<FeatureSet, ArchError> {
        match FeatureSet::default_map(buckets) {
            Some(map) => FeatureSet::king_buckets(buckets, map, mirrored),
            None => error(format!(
                "no default map for {buckets} king buckets (1, 2, 3, 4 and 8 have one); give the map \
                 as 768x{buckets}:<64 digits>"
            )),
        }
    }

    /// The default bucket map for K = 1, 2, 3, 4 or 8 king buckets (`None` for others),
    /// left-right symmetric, by the own-view rank and file of the king:
    ///
    /// - 1: every square 0;
    /// - 2: rank 1 → 0, ranks 2-8 → 1;
    /// - 3: rank 1 → 0, rank 2 → 1, ranks 3-8 → 2;
    /// - 4: rank 1 files a, b (g, h) → 0, files c, d (e, f) → 1, rank 2 → 2, ranks 3-8 → 3;
    /// - 8: rank 1 each of files a-d (h-e) its own bucket 0-3, rank 2 files a, b (g, h) → 4,
    ///   c-f → 5, ranks 3-4 → 6, ranks 5-8 → 7.
    pub fn default_map(buckets: usize) -> Option<[u8; 64]> {
        let mut map = [0u8; 64];
        for (sq, m) in map.iter_mut().enumerate() {
            let (rank, file) = (sq / 8, sq % 8);
            let edge = file.min(7 - file) as u8; // 0 for a/h .. 3 for d/e
            *m = match buckets {
                1 => 0,
                2 => u8::from(rank > 0),
                3 => rank.min(2) as u8,
                4 => match rank {
                    0 => edge / 2,
                    1 => 2,
                    _ => 3,
                },
                8 => match rank {
                    0 => edge,
                    1 => 4 + edge / 2,
                    2 | 3 => 6,
                    _ => 7,
                },
                _ => return None,
            };
        }
        Some(map)
    }

    /// The number of inputs: `768 · K`.
    #[inline(always)]
    pub fn inputs(&self) -> usize {
        FEATURES_PER_BUCKET * usize::from(self.buckets)
    }

    /// The number of king buckets K (1: none).
    #[inline(always)]
    pub fn king_buckets_count(&self) -> usize {
        usize::from(self.buckets)
    }

    /// Whether the board is read mirrored while a side's king stands on files e-h.
    #[inline(always)]
    pub fn is_mirrored(&self) -> bool {
        self.mirrored
    }

    /// The bucket map (bucket of each own-view king square, a1 = 0 .. h8 = 63).
    pub fn bucket_map(&self) -> &[u8; 64] {
        &self.map
    }

    /// The same set with mirroring on or off (the map's files a-d kept, and copied onto e-h
    /// when on).
    pub fn with_mirroring(self, mirrored: bool) -> FeatureSet {
        FeatureSet::king_buckets(self.king_buckets_count(), self.map, mirrored).unwrap_or(self)
    }

    /// How `perspective` reads the board while its own king stands on `king_sq`.
    #[inline(always)]
    pub fn view(&self, perspective: Color, king_sq: Square) -> View {
        let mirror = self.mirrored && crate::mirrored_view(king_sq);
        let own = king_sq.index() ^ if perspective == Color::Black { 56 } else { 0 };
        let bucket = if self.buckets > 1 {
            usize::from(self.map[own ^ if mirror { 7 } else { 0 }])
        } else {
            0
        };
        View {
            mirror,
            offset: bucket * FEATURES_PER_BUCKET,
        }
    }

    /// The input of `piece` on `sq` for `perspective` whose own king stands on `king_sq`
    /// (below [`FeatureSet::inputs`]). For the plain set this is [`crate::feature_index`]
    /// unmirrored, for the mirrored set [`crate::feature_index`] mirrored as
    /// [`crate::mirrored_view`] of the king says.
    #[inline(always)]
    pub fn index(&self, perspective: Color, king_sq: Square, piece: Piece, sq: Square) -> usize {
        self.view(perspective, king_sq).index(perspective, piece, sq)
    }

    /// Whether `perspective`'s king moving from `old_king` to `new_king` changes every one
    /// of its inputs (its bucket or its half of the board changes), so that its
    /// accumulator must be rebuilt rather than updated.
    #[inline(always)]
    pub fn needs_refresh(&self, perspective: Color, old_king: Square, new_king: Square) -> bool {
        self.view(perspective, old_king) != self.view(perspective, new_king)
    }
}

impl fmt::Display for FeatureSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{FEATURES_PER_BUCKET}")?;
        if self.buckets > 1 {
            write!(f, "x{}", self.buckets)?;
            let default = FeatureSet::default_buckets(self.king_buckets_count(), self.mirrored);
            if default.map(|d| d.map) != Ok(self.map) {
                f.write_str(":")?;
                for v in self.map {
                    write!(f, "{}", char::from_digit(u32::from(v), 36).unwrap_or('?'))?;
                }
            }
        }
        if self.mirrored {
            f.write_str("hm")?;
        }
        Ok(())
    }
}

/// The integer scales of a quantised net: feature transformer values at `qa`, output
/// weights at `qb`, output biases at `qa · qb`; an output of 1.0 is `scale` centipawns. In
/// a net with hidden layers every layer after the transformer is quantised like the output
/// layer: i8 weights at `qb`, i32 biases at `qa · qb`, its inputs (activations in `[0, 1]`)
/// at `qa` ([`crate::quantise`] has the integer forward pass).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Quantisation {
    /// Scale of the feature transformer's weights and biases (255).
    pub qa: i32,
    /// Scale of the output weights (64).
    pub qb: i32,
    /// Centipawns of an output of 1.0 (400).
    pub scale: i32,
}

impl Quantisation {
    /// The quantisation every Luft net so far has: `QA` 255, `QB` 64, `SCALE` 400.
    pub const STANDARD: Quantisation = Quantisation {
        qa: QA,
        qb: QB,
        scale: SCALE,
    };
}

impl Default for Quantisation {
    fn default() -> Self {
        Quantisation::STANDARD
    }
}

/// A net's architecture (module documentation): what a net file's header says, and what
/// `trainer train --arch` takes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Arch {
    /// The input feature set.
    pub features: FeatureSet,
    /// The feature transformer's width N (outputs per perspective).
    pub width: usize,
    /// The feature transformer's activation.
    pub activation: Activation,
    /// Widths of the hidden layers between the transformer's `2N` outputs and the output
    /// (per output bucket); empty when the transformer feeds the output directly.
    pub layers: Vec<usize>,
    /// The number of output buckets (by material, [`crate::output_bucket`]).
    pub output_buckets: usize,
    /// The integer scales.
    pub quantisation: Quantisation,
}

impl Arch {
    /// The architecture of every net this build runs: `features`, width `width`, SCReLU,
    /// no hidden layers, `output_buckets` output buckets, the standard quantisation.
    pub fn simple(features: FeatureSet, width: usize, output_buckets: usize) -> Arch {
        Arch {
            features,
            width,
            activation: Activation::SCReLU,
            layers: Vec::new(),
            output_buckets,
            quantisation: Quantisation::STANDARD,
        }
    }

    /// Checks that the descriptor describes a net at all: width 1 to [`MAX_HIDDEN`], 1 to
    /// [`MAX_OUTPUT_BUCKETS`] output buckets, at most [`MAX_LAYERS`] hidden layers of 1 to
    /// [`MAX_HIDDEN`] each, positive scales.
    ///
    /// Errors: the first value out of range.
    pub fn check(&self) -> Result<(), ArchError> {
        if self.width == 0 || self.width > MAX_HIDDEN {
            return error(format!("transformer width {} (1 to {MAX_HIDDEN})", self.width));
        }
        if self.output_buckets == 0 || self.output_buckets > MAX_OUTPUT_BUCKETS {
            return error(format!(
                "{} output buckets (1 to {MAX_OUTPUT_BUCKETS})",
                self.output_buckets
            ));
        }
        if self.layers.len() > MAX_LAYERS {
            return error(format!(
                "{} hidden layers (at most {MAX_LAYERS})",
                self.layers.len()
            ));
        }
        if let Some(w) = self.layers.iter().find(|&&w| w == 0 || w > MAX_HIDDEN) {
            return error(format!("hidden layer width {w} (1 to {MAX_HIDDEN})"));
        }
        let q = self.quantisation;
        if q.qa <= 0 || q.qb <= 0 || q.scale <= 0 {
            return error(format!(
                "quantisation q{}/{}/{} (each above 0)",
                q.qa, q.qb, q.scale
            ));
        }
        Ok(())
    }

    /// Whether this build's inference (the reference forward pass and the engine) runs
    /// the descriptor: SCReLU, the standard quantisation, a width that is a multiple of 16,
    /// hidden layers (if any) of at most [`MAX_LAYER_WIDTH`] each (any feature set and
    /// output bucket count within range). Hidden layers are quantised as
    /// [`crate::quantise`] says (i8 weights at `QB`, i32 biases at `QA · QB`, CReLU between
    /// layers).
    ///
    /// Errors: what it cannot run, naming the descriptor.
    pub fn runnable(&self) -> Result<(), ArchError> {
        self.check()?;
        let refuse = |what: String| {
            error(format!(
                "{what} in {self}; this build runs only {}",
                self.supported()
            ))
        };
        if self.activation != Activation::SCReLU {
            return refuse(format!("activation {}", self.activation.name()));
        }
        if let Some(w) = self.layers.iter().find(|&&w| w > MAX_LAYER_WIDTH) {
            return refuse(format!("a hidden layer {w} wide (more than {MAX_LAYER_WIDTH})"));
        }
        if self.quantisation != Quantisation::STANDARD {
            return refuse("a non-standard quantisation".to_string());
        }
        if !self.width.is_multiple_of(16) {
            return refuse(format!("width {} (not a multiple of 16)", self.width));
        }
        Ok(())
    }

    /// What this build runs, in words (for errors).
    fn supported(&self) -> String {
        "(768[xK][hm] -> N screlu)x2 -> 1xB or -> (L1 -> .. -> 1)xB, with N a multiple of 16, hidden \
         layers up to 256 wide and the standard quantisation"
            .to_string()
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "({} -> {} {})x2 -> ",
            self.features,
            self.width,
            self.activation.name()
        )?;
        if self.layers.is_empty() {
            write!(f, "1x{}", self.output_buckets)?;
        } else {
            f.write_str("(")?;
            for w in &self.layers {
                write!(f, "{w} -> ")?;
            }
            write!(f, "1)x{}", self.output_buckets)?;
        }
        let q = self.quantisation;
        if q != Quantisation::STANDARD {
            write!(f, " q{}/{}/{}", q.qa, q.qb, q.scale)?;
        }
        Ok(())
    }
}

/// A cursor over the one-line form with whitespace removed and lower-cased.
struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl Cursor<'_> {
    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn eat(&mut self, token: &str) -> bool {
        if self.rest().starts_with(token) {
            self.at += token.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &str) -> Result<(), ArchError> {
        if self.eat(token) {
            Ok(())
        } else {
            error(format!("expected '{token}' at '{}'", self.rest()))
        }
    }

    fn number(&mut self) -> Result<usize, ArchError> {
        let digits = self.rest().bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return error(format!("expected a number at '{}'", self.rest()));
        }
        let value = self.rest()[..digits]
            .parse::<usize>()
            .map_err(|e| ArchError(format!("number '{}': {e}", &self.rest()[..digits])))?;
        self.at += digits;
        Ok(value)
    }

    fn signed(&mut self) -> Result<i32, ArchError> {
        let value = self.number()?;
        i32::try_from(value).map_err(|_| ArchError(format!("{value} does not fit 32 bits")))
    }
}

impl FromStr for Arch {
    type Err = ArchError;

    /// Parses the one-line form (module documentation). Errors: where the text departs from
    /// the grammar, or a value [`Arch::check`] or [`FeatureSet::king_buckets`] refuses.
    fn from_str(s: &str) -> Result<Arch, ArchError> {
        let text: String = s
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_lowercase();
        let mut c = Cursor { text: &text, at: 0 };
        c.expect("(")?;
        if c.number()? != FEATURES_PER_BUCKET {
            return error(format!("inputs must start with {FEATURES_PER_BUCKET} in '{s}'"));
        }
        let mut buckets = 1;
        let mut map = None;
        if c.eat("x") {
            buckets = c.number()?;
            if c.eat(":") {
                let digits: Vec<u8> = c
                    .rest()
                    .chars()
                    .take(64)
                    .map_while(|d| d.to_digit(36))
                    .map(|d| d as u8)
                    .collect();
                if digits.len() != 64 {
                    return error(format!("a king bucket map has 64 base-36 digits in '{s}'"));
                }
                c.at += 64;
                map = Some(<[u8; 64]>::try_from(digits).map_err(|_| ArchError("map".into()))?);
            }
        }
        let mirrored = c.eat("hm");
        let features = match map {
            Some(map) => FeatureSet::king_buckets(buckets, map, mirrored)?,
            None => FeatureSet::default_buckets(buckets, mirrored)?,
        };
        c.expect("->")?;
        let width = c.number()?;
        let activation = Activation::ALL
            .into_iter()
            // "screlu" before "crelu" and "relu": the longest name that matches.
            .rev()
            .find(|a| c.eat(a.name()))
            .unwrap_or(Activation::SCReLU);
        c.expect(")x2->")?;
        let mut layers = Vec::new();
        let output_buckets;
        if c.eat("(") {
            loop {
                let w = c.number()?;
                if c.eat("->") {
                    layers.push(w);
                    continue;
                }
                if w != 1 {
                    return error(format!("the last layer has 1 output, not {w}, in '{s}'"));
                }
                c.expect(")x")?;
                output_buckets = c.number()?;
                break;
            }
        } else {
            if c.number()? != 1 {
                return error(format!("the output has 1 value per bucket in '{s}'"));
            }
            output_buckets = if c.eat("x") { c.number()? } else { 1 };
        }
        let mut quantisation = Quantisation::STANDARD;
        if c.eat("q") {
            quantisation.qa = c.signed()?;
            c.expect("/")?;
            quantisation.qb = c.signed()?;
            c.expect("/")?;
            quantisation.scale = c.signed()?;
        }
        if !c.rest().is_empty() {
            return error(format!("unexpected '{}' at the end of '{s}'", c.rest()));
        }
        let arch = Arch {
            features,
            width,
            activation,
            layers,
            output_buckets,
            quantisation,
        };
        arch.check()?;
        Ok(arch)
    }
}

/// The square of `color`'s king on a board, if it has one.
pub(crate) fn king_square(board: &movegen::Board, color: Color) -> Option<Square> {
    board
        .colored_pieces(color, movegen::PieceType::King)
        .into_iter()
        .next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use movegen::PieceType;

    #[test]
    fn the_one_line_form_round_trips() {
        for text in [
            "(768 -> 128 screlu)x2 -> 1x8",
            "(768hm -> 256 screlu)x2 -> 1x1",
            "(768x4hm -> 256 screlu)x2 -> 1x8",
            "(768x2 -> 64 crelu)x2 -> 1x8",
            "(768x8hm -> 1024 relu)x2 -> (16 -> 32 -> 1)x8",
            "(768 -> 64 screlu)x2 -> (16 -> 1)x8 q127/64/300",
        ] {
            let arch: Arch = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(arch.to_string(), text);
            assert_eq!(arch.to_string().parse::<Arch>(), Ok(arch.clone()));
        }
        // The issue's spellings, with defaults and without spaces.
        let a: Arch = "(768x4hm -> 64)x2 -> 1x8".parse().unwrap();
        assert_eq!(a.to_string(), "(768x4hm -> 64 screlu)x2 -> 1x8");
        assert_eq!(a.features.inputs(), 4 * 768);
        let b: Arch = "(768->64)x2->(16->32->1)x8".parse().unwrap();
        assert_eq!((b.layers.clone(), b.output_buckets), (vec![16, 32], 8));
        assert_eq!("(768 -> 32)x2 -> 1".parse::<Arch>().unwrap().output_buckets, 1);
        assert_eq!(
            "(768 -> 32 SCReLU)X2 -> 1X4"
                .parse::<Arch>()
                .unwrap()
                .output_buckets,
            4
        );
        // A map that is no default is spelled out, and read back.
        let mut map = [1u8; 64];
        map[..8].fill(0);
        map[8..16].fill(2);
        let custom = Arch::simple(FeatureSet::king_buckets(3, map, false).unwrap(), 32, 1);
        let text = custom.to_string();
        assert!(text.starts_with("(768x3:0000000022222222111"), "{text}");
        assert_eq!(text.parse::<Arch>(), Ok(custom));
    }

    #[test]
    fn malformed_forms_are_refused_with_a_reason() {
        for (text, says) in [
            ("768 -> 128", "expected '('"),
            ("(769 -> 128)x2 -> 1x8", "start with 768"),
            ("(768 -> 128)x3 -> 1x8", "expected ')x2->'"),
            ("(768 -> 128)x2 -> 2x8", "1 value per bucket"),
            ("(768 -> 128)x2 -> (16 -> 2)x8", "the last layer has 1 output"),
            ("(768 -> 128)x2 -> 1x17", "output buckets"),
            ("(768 -> 0)x2 -> 1x8", "transformer width"),
            ("(768x5 -> 128)x2 -> 1x8", "no default map for 5"),
            ("(768x40 -> 128)x2 -> 1x8", "40 king buckets"),
            ("(768x2:0101 -> 128)x2 -> 1x8", "64 base-36 digits"),
            ("(768 -> 128)x2 -> 1x8 extra", "unexpected"),
            (
                "(768 -> 128)x2 -> (1 -> 1 -> 1 -> 1 -> 1 -> 1)x8",
                "hidden layers",
            ),
        ] {
            let e = text.parse::<Arch>().unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
        let zeros = "0".repeat(64);
        let e = format!("(768x2:{zeros} -> 32)x2 -> 1")
            .parse::<Arch>()
            .unwrap_err();
        assert!(e.0.contains("bucket 1 has no square"), "{e}");
    }

    #[test]
    fn plain_and_mirrored_sets_index_as_feature_index() {
        let sets = [FeatureSet::plain(), FeatureSet::mirrored()];
        for (set, mirrored) in sets.into_iter().zip([false, true]) {
            assert_eq!(set.inputs(), 768);
            for king in 0..64u8 {
                let king = Square::new(king);
                for view in Color::ALL {
                    let mirror = mirrored && crate::mirrored_view(king);
                    for sq in [0u8, 7, 12, 52, 63] {
                        let piece = Piece::new(Color::Black, PieceType::Knight);
                        let sq = Square::new(sq);
                        assert_eq!(
                            set.index(view, king, piece, sq),
                            crate::feature_index(view, piece, sq, mirror)
                        );
                    }
                }
            }
        }
        // Only a mirrored set refreshes, when the king crosses the d/e line.
        let (d1, e1, e2) = (Square::new(3), Square::new(4), Square::new(12));
        assert!(!FeatureSet::plain().needs_refresh(Color::White, d1, e1));
        assert!(FeatureSet::mirrored().needs_refresh(Color::White, d1, e1));
        assert!(!FeatureSet::mirrored().needs_refresh(Color::Black, e1, e2));
    }

    #[test]
    fn king_buckets_index_from_each_sides_own_view() {
        let set = FeatureSet::default_buckets(4, true).unwrap();
        assert_eq!(set.inputs(), 3072);
        let sq = |s: &str| Square::parse(s).unwrap();
        let pawn = Piece::new(Color::White, PieceType::Pawn);
        // White king a1: bucket 0; h1 mirrored to a1: bucket 0, squares mirrored.
        assert_eq!(set.index(Color::White, sq("a1"), pawn, sq("e2")), 12);
        assert_eq!(set.index(Color::White, sq("h1"), pawn, sq("e2")), 11);
        // d1 and e1: bucket 1; rank 2: bucket 2; beyond: bucket 3.
        assert_eq!(set.view(Color::White, sq("d1")).offset, 768);
        assert_eq!(
            set.view(Color::White, sq("e1")),
            View {
                mirror: true,
                offset: 768
            }
        );
        assert_eq!(set.view(Color::White, sq("c2")).offset, 2 * 768);
        assert_eq!(set.view(Color::White, sq("c5")).offset, 3 * 768);
        // Black's own back rank is rank 8.
        assert_eq!(set.view(Color::Black, sq("b8")).offset, 0);
        assert_eq!(set.view(Color::Black, sq("b7")).offset, 2 * 768);
        assert_eq!(set.view(Color::Black, sq("b1")).offset, 3 * 768);
        // Every (view, king, piece, square) has its own input within the king's bucket.
        for view in Color::ALL {
            for king in 0..64 {
                let king = Square::new(king);
                let mut seen = vec![false; set.inputs()];
                for color in Color::ALL {
                    for kind in PieceType::ALL {
                        for s in 0..64 {
                            let i = set.index(view, king, Piece::new(color, kind), Square::new(s));
                            assert!(!seen[i]);
                            seen[i] = true;
                        }
                    }
                }
                let v = set.view(view, king);
                assert!(seen[v.offset..v.offset + 768].iter().all(|s| *s));
            }
        }
        // Refreshes: a bucket change or a crossing of the d/e line, not a step inside both.
        assert!(set.needs_refresh(Color::White, sq("b1"), sq("c1")));
        assert!(set.needs_refresh(Color::White, sq("c1"), sq("c2")));
        assert!(set.needs_refresh(Color::White, sq("d3"), sq("e3")));
        assert!(!set.needs_refresh(Color::White, sq("c3"), sq("d4")));
        assert!(!set.needs_refresh(Color::Black, sq("a8"), sq("b8")));
        // Unmirrored, a1 and h1 share a bucket but read the board as it is.
        let plain4 = FeatureSet::default_buckets(4, false).unwrap();
        assert!(!plain4.needs_refresh(Color::White, sq("d3"), sq("e3")));
        assert_eq!(plain4.index(Color::White, sq("h1"), pawn, sq("e2")), 12);
        assert_eq!(plain4.with_mirroring(true), set);
        // Default maps exist for 1, 2, 3, 4 and 8 and use every bucket.
        for k in [1, 2, 3, 4, 8] {
            for m in [false, true] {
                assert_eq!(FeatureSet::default_buckets(k, m).unwrap().king_buckets_count(), k);
            }
        }
        assert!(FeatureSet::default_map(5).is_none());
    }

    #[test]
    fn what_this_build_cannot_run_is_named() {
        let ok: Arch = "(768x4hm -> 256)x2 -> 1x8".parse().unwrap();
        assert_eq!(ok.runnable(), Ok(()));
        for layered in [
            "(768 -> 64)x2 -> (16 -> 32 -> 1)x8",
            "(768x4hm -> 32)x2 -> (256 -> 1)x1",
        ] {
            assert_eq!(layered.parse::<Arch>().unwrap().runnable(), Ok(()), "{layered}");
        }
        for (text, says) in [
            ("(768 -> 256 crelu)x2 -> 1x8", "activation crelu"),
            ("(768 -> 256 relu)x2 -> 1x8", "activation relu"),
            ("(768 -> 256)x2 -> (512 -> 1)x8", "hidden layer 512 wide"),
            ("(768 -> 24)x2 -> 1x8", "multiple of 16"),
            ("(768 -> 256)x2 -> 1x8 q127/64/400", "quantisation"),
        ] {
            let arch: Arch = text.parse().unwrap();
            let e = arch.runnable().unwrap_err().0;
            assert!(e.contains(says) && e.contains(&arch.to_string()), "{e}");
        }
    }
}
