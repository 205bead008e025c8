//! Every tunable search constant in one place, each declared once, in [`tunables!`], with
//! its default, its range and its SPSA step, so tuning touches one file and each value is
//! named where it is used.
//!
//! Words in the names: a MARGIN is a score (centipawns) added to or subtracted from an
//! evaluation before a comparison; MIN_DEPTH / MAX_DEPTH bound the depths (plies) where a
//! heuristic applies; a BASE is the constant term of a formula, PER_DEPTH its slope; a
//! DIVISOR scales a quantity down; PER_MILLE is a fraction in thousandths, PERCENT in
//! hundredths. Fixed sizes (stack depth, table sizes, fixed-point units) are plain
//! constants at the end, not tunables.
//!
//! **Two builds.** Normally each tunable is a `const fn` that returns its default: the
//! compiler folds it into the code as it would a literal, so the release engine pays
//! nothing and its UCI option list is the usual one. With the `tune` cargo feature each is
//! an `AtomicI32` read with relaxed ordering, offered as a UCI spin option of the same name
//! with its range (the option table describes each from [`TUNABLES`], and the engine sets
//! it with [`Tunable::set`]), and `luft spsa` prints the list in the line format
//! OpenBench's SPSA tuner reads ([`spsa_lines`]). A value set by `setoption` takes effect
//! from the next search (the engine stops a running one before setting an option); values
//! belong to the process, so every engine and thread in it sees them. Nothing here knows
//! the options or the engine.
//!
//! **Integers only.** UCI spin options are integers, so each tunable is an `i32` and a
//! fractional constant is declared in fixed point with its unit in the documentation:
//! `lmr_base` and `lmr_divisor` are in hundredths (75 means 0.75), the time manager's
//! fractions in thousandths. OpenBench tunes them as `int` parameters.

use movegen::PieceType;

/// One tunable as declared: its name (the UCI option's and OpenBench's), its default and
/// range, and its SPSA step.
#[derive(Clone, Copy, Debug)]
pub struct Tunable {
    /// The name: the accessor's name in `params`, the UCI option's name in a tune build.
    pub name: &'static str,
    /// The value the engine plays with.
    pub default: i32,
    /// The smallest value accepted.
    pub min: i32,
    /// The largest value accepted.
    pub max: i32,
    /// The SPSA perturbation at the end of a tune (OpenBench's `c_end`), in the
    /// parameter's units; about a twentieth of the range.
    pub step: i32,
    #[cfg(feature = "tune")]
    cell: &'static std::sync::atomic::AtomicI32,
}

impl Tunable {
    /// The value searches use now: the default unless a tune build's `setoption` changed it.
    pub fn value(&self) -> i32 {
        #[cfg(feature = "tune")]
        {
            self.cell.load(std::sync::atomic::Ordering::Relaxed)
        }
        #[cfg(not(feature = "tune"))]
        {
            self.default
        }
    }

    /// Makes `value` the one searches use from the next on (a tune build's `setoption`,
    /// after the option table checked it against `min..=max`).
    #[cfg(feature = "tune")]
    pub(crate) fn set(&self, value: i32) {
        self.cell.store(value, std::sync::atomic::Ordering::Relaxed);
    }
}

/// OpenBench's `r_end` for every parameter: the learning rate at the end of a tune.
pub const SPSA_R_END: f64 = 0.002;

/// The parameter list in OpenBench's SPSA input format, one line per tunable:
/// `name, int, start, min, max, c_end, r_end`, with `c_end` the tunable's step.
pub fn spsa_lines() -> Vec<String> {
    TUNABLES
        .iter()
        .map(|t| {
            format!(
                "{}, int, {}, {}, {}, {}, {}",
                t.name,
                t.value(),
                t.min,
                t.max,
                t.step,
                SPSA_R_END
            )
        })
        .collect()
}

/// Declares the tunables: for each, its documentation, `name = default, min MIN, max MAX,
/// step STEP;`. Generates the accessor `name()` (a `const fn` returning the default, or in
/// a tune build a relaxed atomic load) and the [`TUNABLES`] table.
macro_rules! tunables {
    ($(
        $(#[doc = $doc:literal])*
        $name:ident = $default:expr, min $min:expr, max $max:expr, step $step:expr;
    )*) => {
        $(
            $(#[doc = $doc])*
            #[cfg(not(feature = "tune"))]
            #[inline(always)]
            pub const fn $name() -> i32 {
                $default
            }

            $(#[doc = $doc])*
            #[cfg(feature = "tune")]
            #[inline(always)]
            pub fn $name() -> i32 {
                cells::$name.load(std::sync::atomic::Ordering::Relaxed)
            }
        )*

        /// The current values of a tune build, one atomic per tunable.
        #[cfg(feature = "tune")]
        #[allow(non_upper_case_globals)]
        mod cells {
            use std::sync::atomic::AtomicI32;
            $(pub static $name: AtomicI32 = AtomicI32::new($default);)*
        }

        /// Every tunable, in declaration order (the order of `luft spsa` and of the
        /// tune build's UCI options).
        pub static TUNABLES: &[Tunable] = &[$(
            Tunable {
                name: stringify!($name),
                default: $default,
                min: $min,
                max: $max,
                step: $step,
                #[cfg(feature = "tune")]
                cell: &cells::$name,
            },
        )*];
    };
}

tunables! {
    // Step 0. Aspiration windows.
    /// Depth from which iterations start with a window around the previous score.
    aspiration_min_depth = 5, min 1, max 10, step 1;
    /// Half-width of the first window (centipawns).
    aspiration_initial_window = 22, min 5, max 60, step 3;
    /// Growth of the half-width after each fail, in percent of itself.
    aspiration_widening_percent = 57, min 10, max 200, step 10;
    /// A half-width beyond this searches the full window.
    aspiration_max_window = 948, min 200, max 4000, step 150;

    // Step 8. Reverse futility pruning.
    /// Deepest depth where it prunes.
    rfp_max_depth = 8, min 2, max 16, step 1;
    /// Margin per depth (less one depth when improving).
    rfp_margin = 75, min 30, max 150, step 6;

    // Step 9. Null move pruning.
    /// Shallowest depth where it is tried.
    nmp_min_depth = 5, min 1, max 8, step 1;
    /// Reduction at any depth.
    nmp_base_reduction = 3, min 1, max 6, step 1;
    /// One more ply of reduction per this many plies of depth.
    nmp_depth_divisor = 4, min 1, max 8, step 1;

    // Step 11. Futility pruning of quiet moves.
    /// Deepest depth where it prunes.
    fp_max_depth = 7, min 2, max 16, step 1;
    /// Margin at depth 0.
    fp_base = 81, min 0, max 250, step 10;
    /// Margin added per ply of depth.
    fp_per_depth = 90, min 30, max 200, step 8;

    // Step 11. Late move pruning: quiet moves are skipped after (base + depth²) / (2 -
    // improving) of them.
    /// The base of the move count.
    lmp_base = 2, min 0, max 12, step 1;

    // Step 11. SEE pruning in the main search.
    /// Threshold per ply of depth for quiet moves.
    see_quiet_margin = -61, min -150, max -10, step 6;
    /// Threshold per depth² for captures and promotions.
    see_noisy_margin = -22, min -100, max -5, step 3;
    /// Deepest depth where it prunes.
    see_prune_max_depth = 8, min 2, max 16, step 1;

    // Step 12. Singular extensions: the TT move is searched deeper when every other move
    // fails low against a bound below its TT score, searched at half depth.
    /// Shallowest depth where the verification search is tried.
    se_min_depth = 7, min 4, max 12, step 1;
    /// The TT entry may be at most this many plies shallower than the node.
    se_tt_depth_margin = 2, min 1, max 6, step 1;
    /// The bound is the TT score less this many sixteenths of a centipawn per ply of depth.
    se_beta_margin = 24, min 8, max 64, step 3;
    /// A non-PV TT move whose alternatives fail low by this much more is extended twice.
    se_double_margin = 22, min 0, max 100, step 5;
    /// The most double extensions on one path from the root.
    se_max_double_extensions = 6, min 0, max 16, step 1;

    // Step 13. Late move reductions: the table holds
    // base + ln(depth) · ln(move number) / divisor.
    /// Shallowest depth where moves are reduced.
    lmr_min_depth = 4, min 1, max 6, step 1;
    /// The table's constant term, in hundredths of a ply.
    lmr_base = 76, min 0, max 200, step 8;
    /// The table's divisor, in hundredths.
    lmr_divisor = 213, min 100, max 400, step 12;
    /// One ply less (more) reduction per this much quiet history (negative history).
    lmr_history_divisor = 8301, min 2048, max 32768, step 512;

    // Step 7. Internal iterative reduction.
    /// Shallowest depth where a node without a hash move is searched one ply shallower.
    iir_min_depth = 5, min 2, max 10, step 1;

    // Quiescence search.
    /// Delta pruning: a capture that cannot lift the evaluation to within this of alpha
    /// is skipped.
    qs_delta_margin = 223, min 50, max 500, step 20;
    /// Captures that lose more than this by SEE are skipped (0: any loss).
    qs_see_margin = 15, min -150, max 150, step 10;

    // History (Step 16): cutoffs add bonus(depth) = clamp(mul · depth - offset, 0, max),
    // the moves tried before lose it.
    /// The bound of every history entry (the "gravity" divisor).
    history_max = 16186, min 4096, max 32000, step 1024;
    /// The bonus per ply of depth.
    history_bonus_mul = 168, min 50, max 400, step 16;
    /// The bonus's offset.
    history_bonus_offset = 77, min 0, max 300, step 16;
    /// The largest bonus.
    history_bonus_max = 1569, min 400, max 4000, step 100;

    // Move ordering (the staged move picker).
    /// MVV: the captured piece's SEE value is multiplied by this.
    mp_mvv_multiplier = 15, min 1, max 64, step 2;
    /// Score of a queen promotion among the noisy moves.
    mp_queen_promotion = 7989, min 0, max 20000, step 500;
    /// Score of an under-promotion among the noisy moves.
    mp_under_promotion = -8316, min -20000, max 0, step 500;
    /// A noisy move is a good one when SEE wins at least this.
    mp_good_noisy_see_margin = -13, min -200, max 200, step 10;

    // Static exchange evaluation: piece values (the king's is 0).
    /// Pawn.
    see_value_pawn = 101, min 50, max 200, step 5;
    /// Knight.
    see_value_knight = 289, min 200, max 500, step 15;
    /// Bishop.
    see_value_bishop = 355, min 200, max 500, step 15;
    /// Rook.
    see_value_rook = 522, min 350, max 750, step 25;
    /// Queen.
    see_value_queen = 972, min 700, max 1400, step 40;

    // Transposition table replacement.
    /// An entry of the same position and search is kept against a non-exact result this
    /// many plies shallower.
    tt_replace_depth_margin = 4, min 0, max 10, step 1;

    // Correction history: the correction is the weighted sum of the entries over
    // CORR_WEIGHT_SCALE; each entry is an average in 1 / CORR_GRAIN centipawns.
    /// The largest entry, in centipawns.
    corr_max = 102, min 16, max 256, step 8;
    /// Weight of the pawn-structure table.
    corr_pawn_weight = 31, min 0, max 64, step 3;
    /// Weight of each side's non-pawn table.
    corr_non_pawn_weight = 20, min 0, max 64, step 3;
    /// Weight of the previous-moves table.
    corr_continuation_weight = 21, min 0, max 64, step 3;
    /// Weight of the minor-piece table (both sides' knights, bishops and kings).
    corr_minor_weight = 16, min 0, max 64, step 3;
    /// Weight of the major-piece table (both sides' rooks, queens and kings).
    corr_major_weight = 16, min 0, max 64, step 3;
    /// An update moves an entry by min((depth + 1)², this) / 256 of the way.
    corr_update_max_weight = 128, min 16, max 256, step 8;

    // Time management: a base time of (time left) / (moves to go) plus a fraction of the
    // increment; soft and hard limits as fractions of it, the hard one at most a fraction
    // of what is left.
    /// Moves to go assumed for sudden death.
    time_default_moves_to_go = 25, min 10, max 60, step 2;
    /// The most moves to go planned for, even with a larger `movestogo`.
    time_max_moves_to_go = 50, min 20, max 100, step 4;
    /// The fraction of the increment added to the base time, per mille.
    time_increment_per_mille = 750, min 0, max 1000, step 50;
    /// The soft limit (start no new iteration past it), per mille of the base time.
    time_soft_per_mille = 600, min 200, max 1500, step 50;
    /// The hard limit (stop at once), per mille of the base time.
    time_hard_per_mille = 2500, min 1000, max 5000, step 200;
    /// The largest hard limit, per mille of the time left.
    time_max_fraction_per_mille = 400, min 100, max 800, step 25;

    // Time management that reads the search: after each iteration from `tm_min_depth` on,
    // the soft limit is its base value times three factors (their product clamped to
    // [`TM_MIN_SCALE`, `TM_MAX_SCALE`]): the share f of the nodes spent below the best
    // move, (base - scale x f); the best move's stability, (base - step x min(iterations
    // unchanged, 8)); and a score drop since the last iteration, 1 + drop x scale, from 0.8
    // to 1.5.
    /// The first depth whose iteration rescales the soft limit.
    tm_min_depth = 5, min 1, max 12, step 1;
    /// Node-share factor at f = 0, per mille.
    tm_nodes_base = 2200, min 1200, max 3000, step 100;
    /// Node-share factor's fall from f = 0 to f = 1, per mille.
    tm_nodes_scale = 1600, min 500, max 2500, step 100;
    /// Stability factor with the best move just changed, per mille.
    tm_stability_base = 1300, min 900, max 2000, step 50;
    /// Its fall for each iteration the best move stayed (at most 8), per mille.
    tm_stability_step = 50, min 0, max 120, step 10;
    /// Score-drop factor's rise per centipawn dropped, per mille.
    tm_score_drop_scale = 8, min 0, max 30, step 2;
}

/// The SEE values of the six piece kinds, pawn to king (in a tune build, as set now).
macro_rules! see_table {
    () => {
        [
            see_value_pawn(),
            see_value_knight(),
            see_value_bishop(),
            see_value_rook(),
            see_value_queen(),
            0,
        ]
    };
}

/// The value of a piece of `kind` for SEE and MVV ordering (centipawns; the king's is 0).
#[inline(always)]
pub fn see_value(kind: PieceType) -> i32 {
    #[cfg(not(feature = "tune"))]
    {
        const TABLE: [i32; 6] = see_table!();
        TABLE[kind.index()]
    }
    #[cfg(feature = "tune")]
    {
        see_table!()[kind.index()]
    }
}

// Fixed sizes and units (not tunable).

/// Deepest ply the search reaches (stacks are sized by it).
pub const MAX_PLY: usize = 128;
/// Deepest iterative-deepening depth.
pub const MAX_DEPTH: i32 = 100;
/// Correction history: table entries per side to move.
pub const CORR_SIZE: usize = 16384;
/// Correction history: entries are in 1 / CORR_GRAIN centipawns.
pub const CORR_GRAIN: i32 = 256;
/// Correction history: the weights are out of this.
pub const CORR_WEIGHT_SCALE: i32 = 64;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_tunable_is_declared_within_its_range_once() {
        assert!(TUNABLES.len() >= 40, "{}", TUNABLES.len());
        for (i, t) in TUNABLES.iter().enumerate() {
            assert!(t.min < t.max && (t.min..=t.max).contains(&t.default), "{t:?}");
            // OpenBench wants an integer parameter's c_end at least 0.5.
            assert!(t.step >= 1 && t.step <= (t.max - t.min) / 4, "{t:?}");
            assert_eq!(t.value(), t.default, "{t:?}");
            assert!(
                t.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'),
                "{t:?}"
            );
            assert!(TUNABLES[i + 1..].iter().all(|u| u.name != t.name), "{t:?}");
        }
        // Divisors never reach zero.
        for name in [
            "nmp_depth_divisor",
            "lmr_divisor",
            "lmr_history_divisor",
            "history_max",
        ] {
            let t = TUNABLES.iter().find(|t| t.name == name).unwrap();
            assert!(t.min > 0, "{name}");
        }
        // The accessors read the table's values (whatever the defaults are now).
        let default = |name: &str| TUNABLES.iter().find(|t| t.name == name).unwrap().default;
        assert_eq!(rfp_margin(), default("rfp_margin"));
        assert_eq!(lmr_divisor(), default("lmr_divisor"));
        assert_eq!(
            PieceType::ALL.map(see_value),
            [
                default("see_value_pawn"),
                default("see_value_knight"),
                default("see_value_bishop"),
                default("see_value_rook"),
                default("see_value_queen"),
                0
            ]
        );
    }

    #[test]
    fn spsa_lines_are_in_openbench_format() {
        let lines = spsa_lines();
        assert_eq!(lines.len(), TUNABLES.len());
        assert!(lines.contains(&"rfp_margin, int, 75, 30, 150, 6, 0.002".to_string()));
        assert!(lines.contains(&"see_quiet_margin, int, -61, -150, -10, 6, 0.002".to_string()));
        for line in &lines {
            // name, int|float, start, min, max, c_end, r_end
            let fields: Vec<&str> = line.split(',').map(str::trim).collect();
            assert_eq!(fields.len(), 7, "{line}");
            assert_eq!(fields[1], "int");
            let numbers: Vec<f64> = fields[2..].iter().map(|f| f.parse().unwrap()).collect();
            assert!(numbers[1] <= numbers[0] && numbers[0] <= numbers[2], "{line}");
            assert!(numbers[3] >= 0.5 && numbers[4] > 0.0, "{line}");
        }
    }
}
