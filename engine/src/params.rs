//! Every tunable search constant in one place, so tuning touches one file and each value
//! is named where it is used.

/// Deepest ply the search reaches (stacks are sized by it).
pub const MAX_PLY: usize = 128;
/// Deepest iterative-deepening depth.
pub const MAX_DEPTH: i32 = 100;

// Aspiration windows.
pub const ASPIRATION_MIN_DEPTH: i32 = 4;
pub const ASPIRATION_INITIAL_WINDOW: i32 = 15;

// Reverse futility pruning.
pub const RFP_MAX_DEPTH: i32 = 8;
pub const RFP_MARGIN: i32 = 75;

// Null move pruning.
pub const NMP_MIN_DEPTH: i32 = 3;
pub const NMP_BASE_REDUCTION: i32 = 3;
pub const NMP_DEPTH_DIVISOR: i32 = 3;

// Futility pruning of quiet moves.
pub const FP_MAX_DEPTH: i32 = 8;
pub const FP_BASE: i32 = 80;
pub const FP_PER_DEPTH: i32 = 90;

// Late move pruning: quiet moves skipped after this many at a depth.
pub const LMP_BASE: i32 = 3;

// SEE pruning thresholds in the main search.
pub const SEE_QUIET_MARGIN: i32 = -60;
pub const SEE_NOISY_MARGIN: i32 = -25;
pub const SEE_PRUNE_MAX_DEPTH: i32 = 8;

// Late move reductions.
pub const LMR_MIN_DEPTH: i32 = 3;
pub const LMR_BASE: f64 = 0.75;
pub const LMR_DIVISOR: f64 = 2.25;
pub const LMR_HISTORY_DIVISOR: i32 = 8192;

// Internal iterative reduction.
pub const IIR_MIN_DEPTH: i32 = 4;

// Quiescence.
pub const QS_DELTA_MARGIN: i32 = 200;

// History.
pub const HISTORY_MAX: i32 = 16384;

// Piece values for SEE and MVV ordering (centipawns).
pub const SEE_VALUES: [i32; 6] = [100, 320, 330, 500, 950, 0];

// Time management (fractions of the remaining time, in thousandths).
pub const TIME_DEFAULT_MOVES_TO_GO: u64 = 25;
pub const TIME_SOFT_PER_MILLE: u64 = 600;
pub const TIME_HARD_PER_MILLE: u64 = 2500;
pub const TIME_MAX_FRACTION_PER_MILLE: u64 = 400;

// Correction history: table entries per side to move, units (1 / GRAIN cp), the largest
// entry, and the weights of the tables in the sum (out of WEIGHT_SCALE).
pub const CORR_SIZE: usize = 16384;
pub const CORR_GRAIN: i32 = 256;
pub const CORR_MAX: i32 = 96 * CORR_GRAIN;
pub const CORR_WEIGHT_SCALE: i32 = 64;
pub const CORR_PAWN_WEIGHT: i32 = 32;
pub const CORR_NON_PAWN_WEIGHT: i32 = 20;
pub const CORR_CONTINUATION_WEIGHT: i32 = 20;
