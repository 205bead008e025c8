//! `datagen wdl-fit PATH...`: fits the win-draw-loss model of `engine::wdl` (the numbers
//! behind `UCI_ShowWDL`) to the games in datagen files, by maximum likelihood.
//!
//! The files (or every `*.bin` under a directory; data files or packs) are read chunk by
//! chunk with `records::source`'s [`DataSource`]; damaged or repeated chunks are skipped with a warning,
//! as every datagen reader does. Every position of every game whose score is outside the mate band (and within
//! `--max-score`) is one observation: its search score and material, and how the game
//! ended, both from White's view (the model is symmetric: a White win at score `s` is the
//! same observation as a Black win at `-s`). Positions with equal material count (after
//! the model's clamp) and equal score are pooled into one bin, so each step of the fit
//! costs one pass over at most a few hundred thousand bins, not millions of positions.
//!
//! The fit is Fisher scoring (Newton's method with the expected information matrix, which
//! is positive semi-definite) with Levenberg-Marquardt damping: a step that lowers the
//! likelihood, or leaves `a(x) <= 0` or `b(x) <= 0` somewhere, is refused and the damping
//! raised. It prints the coefficients (also as the Rust constant for `engine/src/wdl.rs`),
//! the log-likelihood against a model that ignores the score, and observed against
//! predicted rates by score.

use anyhow::{bail, Context, Result};
use clap::Args;
use engine::wdl::{cubic, material, material_x, sigmoid, WdlModel, MATERIAL_MAX, MATERIAL_MIN};
use records::record::{GameRecord, Wdl, MATE_BAND};
use records::source::{DataSource, SourceItem};
use std::collections::HashMap;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct FitArgs {
    /// Data files written by datagen, or directories holding them (searched at any depth).
    pub paths: Vec<PathBuf>,
    /// Leave out positions whose score (centipawns) is beyond this in absolute value.
    #[arg(long, default_value_t = i32::from(MATE_BAND) - 1)]
    pub max_score: i32,
    /// Leave out the first plies of each game (recorded after the random opening).
    #[arg(long, default_value_t = 0)]
    pub skip_plies: usize,
}

/// How games ended, from White's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Win = 0,
    Draw = 1,
    Loss = 2,
}

impl From<Wdl> for Outcome {
    fn from(w: Wdl) -> Self {
        match w {
            Wdl::WhiteWins => Outcome::Win,
            Wdl::Draw => Outcome::Draw,
            Wdl::BlackWins => Outcome::Loss,
        }
    }
}

/// Observations pooled by (clamped material, score): counts of wins, draws and losses.
#[derive(Clone, Debug, Default)]
pub struct Bins {
    map: HashMap<(i32, i32), [f64; 3]>,
    /// Observations added (weights summed).
    pub total: f64,
}

/// One bin: model input `x`, score, and `[wins, draws, losses]` (weights).
#[derive(Clone, Copy, Debug)]
pub struct Bin {
    pub x: f64,
    pub score: f64,
    pub counts: [f64; 3],
}

impl Bins {
    /// Adds `weight` observations of `outcome` at `score` with `material` on the board.
    pub fn add(&mut self, material: i32, score: i32, outcome: Outcome, weight: f64) {
        let m = material.clamp(MATERIAL_MIN, MATERIAL_MAX);
        self.map.entry((m, score)).or_insert([0.0; 3])[outcome as usize] += weight;
        self.total += weight;
    }

    /// The bins, in a fixed order (so a fit is reproducible bit for bit).
    pub fn to_vec(&self) -> Vec<Bin> {
        let mut keys: Vec<_> = self.map.keys().copied().collect();
        keys.sort_unstable();
        keys.into_iter()
            .map(|(m, s)| Bin {
                x: material_x(m),
                score: f64::from(s),
                counts: self.map[&(m, s)],
            })
            .collect()
    }
}

/// The result of a fit.
#[derive(Clone, Debug)]
pub struct Fit {
    pub model: WdlModel,
    /// Log-likelihood (nats) of the data under the model.
    pub log_likelihood: f64,
    pub iterations: usize,
}

const PARAMS: usize = 8;
type Vector = [f64; PARAMS];
type Matrix = [[f64; PARAMS]; PARAMS];

fn to_params(model: &WdlModel) -> Vector {
    let mut p = [0.0; PARAMS];
    p[..4].copy_from_slice(&model.a);
    p[4..].copy_from_slice(&model.b);
    p
}

fn to_model(p: &Vector) -> WdlModel {
    WdlModel {
        a: [p[0], p[1], p[2], p[3]],
        b: [p[4], p[5], p[6], p[7]],
    }
}

/// `ln(sigmoid(t))`, accurate far out in both tails.
fn ln_sigmoid(t: f64) -> f64 {
    if t >= 0.0 {
        -(-t).exp().ln_1p()
    } else {
        t - t.exp().ln_1p()
    }
}

/// The smallest probability the likelihood uses (an observation the model calls
/// impossible costs about 35 nats instead of infinity).
const FLOOR: f64 = 1e-15;

/// Log-likelihood of `bins` under parameters `p`, with its gradient and the expected
/// information matrix when `derivatives`; `None` when `a` or `b` is not positive at some
/// material count.
fn evaluate(bins: &[Bin], p: &Vector, derivatives: bool) -> Option<(f64, Vector, Matrix)> {
    if !to_model(p).is_valid() {
        return None;
    }
    let mut ll = 0.0;
    let mut grad = [0.0; PARAMS];
    let mut info = [[0.0; PARAMS]; PARAMS];
    for bin in bins {
        let xp = [1.0, bin.x, bin.x * bin.x, bin.x * bin.x * bin.x];
        let a = cubic(&[p[0], p[1], p[2], p[3]], bin.x);
        let b = cubic(&[p[4], p[5], p[6], p[7]], bin.x);
        let u = (bin.score - a) / b;
        let v = (-bin.score - a) / b;
        let (pw, not_w) = (sigmoid(u), sigmoid(-u));
        let (pl, not_l) = (sigmoid(v), sigmoid(-v));
        // 1 - pw - pl without cancellation: v < -u, so sigmoid(-u) > sigmoid(v).
        let pd = (not_w - pl).max(0.0);
        let logs = [ln_sigmoid(u), pd.max(FLOOR).ln(), ln_sigmoid(v)];
        for (count, log) in bin.counts.iter().zip(logs) {
            ll += count * log.max(FLOOR.ln());
        }
        if !derivatives {
            continue;
        }
        let dw = [-pw * not_w / b, -pw * not_w * u / b];
        let dl = [-pl * not_l / b, -pl * not_l * v / b];
        let dd = [-dw[0] - dl[0], -dw[1] - dl[1]];
        let n: f64 = bin.counts.iter().sum();
        for (k, (prob, d)) in [(pw, dw), (pd, dd), (pl, dl)].into_iter().enumerate() {
            let prob = prob.max(FLOOR);
            let mut j = [0.0; PARAMS];
            for i in 0..4 {
                j[i] = d[0] * xp[i];
                j[4 + i] = d[1] * xp[i];
            }
            for r in 0..PARAMS {
                grad[r] += bin.counts[k] * j[r] / prob;
                for c in 0..PARAMS {
                    info[r][c] += n * j[r] * j[c] / prob;
                }
            }
        }
    }
    Some((ll, grad, info))
}

/// Solves `m x = rhs` by Gaussian elimination with partial pivoting; `None` if singular.
fn solve(mut m: Matrix, mut rhs: Vector) -> Option<Vector> {
    for col in 0..PARAMS {
        let pivot = (col..PARAMS).max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs()))?;
        if m[pivot][col].abs() < 1e-300 || !m[pivot][col].is_finite() {
            return None;
        }
        m.swap(col, pivot);
        rhs.swap(col, pivot);
        let (top, bottom) = m.split_at_mut(col + 1);
        let pivot_row = &top[col];
        for (offset, row) in bottom.iter_mut().enumerate() {
            let f = row[col] / pivot_row[col];
            for (value, p) in row[col..].iter_mut().zip(&pivot_row[col..]) {
                *value -= f * p;
            }
            rhs[col + 1 + offset] -= f * rhs[col];
        }
    }
    let mut x = [0.0; PARAMS];
    for row in (0..PARAMS).rev() {
        let mut s = rhs[row];
        for c in row + 1..PARAMS {
            s -= m[row][c] * x[c];
        }
        x[row] = s / m[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// Fits the model to `bins` by damped Fisher scoring from `start` (which must be valid).
pub fn fit(bins: &[Bin], start: WdlModel) -> Result<Fit> {
    if bins.is_empty() {
        bail!("no positions to fit");
    }
    let mut p = to_params(&start);
    let Some((mut ll, mut grad, mut info)) = evaluate(bins, &p, true) else {
        bail!("the starting model is not valid: {start:?}");
    };
    let total: f64 = bins.iter().map(|b| b.counts.iter().sum::<f64>()).sum();
    let mut lambda = 1e-3;
    let mut iterations = 0;
    while iterations < 500 {
        iterations += 1;
        let mut damped = info;
        for (i, row) in damped.iter_mut().enumerate() {
            row[i] += lambda * info[i][i].max(1e-12);
        }
        let step = solve(damped, grad);
        let candidate = step.map(|s| {
            let mut q = p;
            for i in 0..PARAMS {
                q[i] += s[i];
            }
            q
        });
        let accepted = candidate.and_then(|q| {
            let (new_ll, _, _) = evaluate(bins, &q, false)?;
            (new_ll >= ll).then_some((q, new_ll))
        });
        match accepted {
            Some((q, new_ll)) => {
                let gain = (new_ll - ll) / total;
                p = q;
                let Some(e) = evaluate(bins, &p, true) else {
                    bail!("internal error: an accepted step left the model invalid");
                };
                (ll, grad, info) = e;
                lambda = (lambda / 4.0).max(1e-9);
                if gain < 1e-13 {
                    break;
                }
            }
            None => {
                lambda *= 8.0;
                if lambda > 1e12 {
                    break;
                }
            }
        }
    }
    Ok(Fit {
        model: to_model(&p),
        log_likelihood: ll,
        iterations,
    })
}

/// The model a fit starts from: a draw band of about 1.5 pawns, odds changing by e per pawn.
pub const START: WdlModel = WdlModel {
    a: [150.0, 0.0, 0.0, 0.0],
    b: [100.0, 0.0, 0.0, 0.0],
};

/// Pools every usable position of one game into `bins`.
fn add_game(bins: &mut Bins, game: &GameRecord, args: &FitArgs) {
    let outcome = Outcome::from(game.result);
    for (_, (board, _, score)) in game.positions().enumerate().skip(args.skip_plies) {
        let score = i32::from(score);
        if score.abs() >= i32::from(MATE_BAND) || score.abs() > args.max_score {
            continue;
        }
        bins.add(material(&board), score, outcome, 1.0);
    }
}

/// Reads every game of the data files `args.paths` names into bins; returns the bins and
/// the counts of files and games.
fn read_paths(args: &FitArgs) -> Result<(Bins, usize, u64)> {
    let files = crate::expand(&args.paths)?;
    let mut bins = Bins::default();
    let mut games = 0u64;
    for file in &files {
        let cannot = || format!("cannot read {}", file.display());
        let mut reader = DataSource::open(file).with_context(cannot)?;
        if let Some(e) = reader.header_error() {
            output::errln!("warning: {}: {e} (reading the chunks after it)", file.display());
        }
        while let Some(item) = reader.next_item().with_context(cannot)? {
            match item {
                SourceItem::Chunk { chunk, .. } => {
                    for game in &chunk.games {
                        games += 1;
                        add_game(&mut bins, game, args);
                    }
                }
                SourceItem::Damage(d) => output::errln!("warning: {}: {d}", file.display()),
                SourceItem::Duplicate(d) => output::errln!("warning: {}: {d}", file.display()),
                SourceItem::Problem(p) => output::errln!("warning: {}: {p}", file.display()),
                SourceItem::Positions { .. } => anyhow::bail!("{}", crate::no_games(file, reader.format())),
            }
        }
    }
    Ok((bins, files.len(), games))
}

fn format_coefficients(c: &[f64; 4]) -> String {
    let parts: Vec<String> = c.iter().map(|v| format!("{v:.3}")).collect();
    format!("[{}]", parts.join(", "))
}

/// `datagen wdl-fit`: reads, fits, prints; exit code 0.
pub fn run(args: &FitArgs) -> Result<i32> {
    let (bins, files, games) = read_paths(args)?;
    let list = bins.to_vec();
    output::outln!(
        "data: {files} files, {games} games, {} positions in {} bins",
        bins.total,
        list.len()
    );
    let fit = fit(&list, START)?;
    let n = bins.total.max(1.0);
    // The baseline: the overall W/D/L rates, whatever the score.
    let mut rates = [0.0; 3];
    for b in &list {
        for (rate, count) in rates.iter_mut().zip(b.counts) {
            *rate += count;
        }
    }
    let baseline: f64 = (0..3)
        .filter(|&k| rates[k] > 0.0)
        .map(|k| rates[k] * (rates[k] / n).ln())
        .sum();
    output::outln!(
        "fit: {} iterations; log-likelihood {:.5} nats/position (score-blind baseline {:.5})",
        fit.iterations,
        fit.log_likelihood / n,
        baseline / n
    );
    let m = fit.model;
    output::outln!("a(x) = {}", format_coefficients(&m.a));
    output::outln!("b(x) = {}", format_coefficients(&m.b));
    output::outln!("x = (clamp(material, {MATERIAL_MIN}, {MATERIAL_MAX}) - 43) / 35");
    output::outln!("\nmaterial    a      b    (score for 50% wins = a; width b)");
    for mat in [8, 16, 24, 32, 40, 48, 56, 64, 72, 78] {
        let (a, b) = m.params_at(material_x(mat));
        output::outln!("{mat:>8} {a:>6.1} {b:>6.1}");
    }
    output::outln!("\nscore bucket   positions   observed W/D/L %      predicted W/D/L %");
    for centre in (-600..=600).step_by(100) {
        let (mut obs, mut pred, mut count) = ([0.0; 3], [0.0; 3], 0.0);
        for b in list
            .iter()
            .filter(|b| (b.score - f64::from(centre)).abs() <= 25.0)
        {
            let c: f64 = b.counts.iter().sum();
            let p = m.probabilities_at(b.score, b.x);
            for k in 0..3 {
                obs[k] += b.counts[k];
                pred[k] += c * p[k];
            }
            count += c;
        }
        if count == 0.0 {
            continue;
        }
        let pct = |v: f64| 100.0 * v / count;
        output::outln!(
            "{:>5} +-25   {count:>9}   {:>5.1} {:>5.1} {:>5.1}      {:>5.1} {:>5.1} {:>5.1}",
            centre,
            pct(obs[0]),
            pct(obs[1]),
            pct(obs[2]),
            pct(pred[0]),
            pct(pred[1]),
            pct(pred[2])
        );
    }
    output::outln!("\nfor engine/src/wdl.rs:");
    output::outln!("pub const MODEL: WdlModel = WdlModel {{");
    output::outln!("    a: {},", format_coefficients(&m.a));
    output::outln!("    b: {},", format_coefficients(&m.b));
    output::outln!("}};");
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use movegen::rng::SplitMix64;

    const KNOWN: WdlModel = WdlModel {
        a: [160.0, -40.0, 25.0, 12.0],
        b: [90.0, -25.0, 8.0, 6.0],
    };

    /// Bins holding, at every (material, score) of a grid, the model's exact expected
    /// counts (`exact`) or `per_point` outcomes drawn from it.
    fn synthetic(model: &WdlModel, exact: bool, per_point: usize, seed: u64) -> Vec<Bin> {
        let mut rng = SplitMix64(seed);
        let mut bins = Bins::default();
        for m in (MATERIAL_MIN..=MATERIAL_MAX).step_by(2) {
            for score in (-800..=800).step_by(20) {
                let p = model.probabilities(f64::from(score), m);
                if exact {
                    for (k, outcome) in [Outcome::Win, Outcome::Draw, Outcome::Loss]
                        .into_iter()
                        .enumerate()
                    {
                        bins.add(m, score, outcome, 1000.0 * p[k]);
                    }
                    continue;
                }
                for _ in 0..per_point {
                    let r = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
                    let outcome = if r < p[0] {
                        Outcome::Win
                    } else if r < p[0] + p[1] {
                        Outcome::Draw
                    } else {
                        Outcome::Loss
                    };
                    bins.add(m, score, outcome, 1.0);
                }
            }
        }
        bins.to_vec()
    }

    fn max_probability_error(a: &WdlModel, b: &WdlModel) -> f64 {
        let mut worst = 0.0f64;
        for m in MATERIAL_MIN..=MATERIAL_MAX {
            for score in (-800..=800).step_by(10) {
                let p = a.probabilities(f64::from(score), m);
                let q = b.probabilities(f64::from(score), m);
                for k in 0..3 {
                    worst = worst.max((p[k] - q[k]).abs());
                }
            }
        }
        worst
    }

    #[test]
    fn recovers_known_coefficients_from_exact_expectations() {
        let bins = synthetic(&KNOWN, true, 0, 0);
        let fit = fit(&bins, START).unwrap();
        for (got, want) in fit
            .model
            .a
            .iter()
            .zip(KNOWN.a)
            .chain(fit.model.b.iter().zip(KNOWN.b))
        {
            assert!((got - want).abs() < 0.01, "{:?} vs {KNOWN:?}", fit.model);
        }
    }

    #[test]
    fn recovers_known_coefficients_from_sampled_games() {
        let bins = synthetic(&KNOWN, false, 60, 7);
        let fit = fit(&bins, START).unwrap();
        let m = fit.model;
        assert!((m.a[0] - KNOWN.a[0]).abs() < 4.0, "{m:?}");
        assert!((m.b[0] - KNOWN.b[0]).abs() < 3.0, "{m:?}");
        for i in 1..4 {
            assert!((m.a[i] - KNOWN.a[i]).abs() < 10.0, "{m:?}");
            assert!((m.b[i] - KNOWN.b[i]).abs() < 8.0, "{m:?}");
        }
        let error = max_probability_error(&m, &KNOWN);
        assert!(error < 0.025, "probabilities off by {error}");
        // Sanity of the test itself: the start is far from the answer.
        assert!(max_probability_error(&START, &KNOWN) > 0.1);
    }

    #[test]
    fn the_fit_beats_the_start_and_stays_valid() {
        let bins = synthetic(&KNOWN, false, 5, 11);
        let start = evaluate(&bins, &to_params(&START), false).unwrap().0;
        let fit = fit(&bins, START).unwrap();
        assert!(fit.log_likelihood > start);
        assert!(fit.model.is_valid());
    }

    #[test]
    fn clear_errors_for_no_data_or_a_bad_start() {
        assert!(fit(&[], START).is_err());
        let bins = synthetic(&KNOWN, true, 0, 0);
        let bad = WdlModel {
            a: [-1.0, 0.0, 0.0, 0.0],
            b: [100.0, 0.0, 0.0, 0.0],
        };
        let error = fit(&bins, bad).unwrap_err().to_string();
        assert!(error.contains("not valid"), "{error}");
    }

    #[test]
    fn outcomes_follow_white() {
        assert_eq!(Outcome::from(Wdl::WhiteWins), Outcome::Win);
        assert_eq!(Outcome::from(Wdl::BlackWins), Outcome::Loss);
        let mut bins = Bins::default();
        bins.add(200, 30, Outcome::Draw, 1.0);
        bins.add(78, 30, Outcome::Win, 2.0);
        let list = bins.to_vec();
        assert_eq!(list.len(), 1, "material above the clamp shares the bin");
        assert_eq!(list[0].counts, [2.0, 1.0, 0.0]);
        assert_eq!(bins.total, 3.0);
    }

    /// A game from the start position: its moves' White-view scores and the result.
    fn game(scores: &[i16], result: Wdl) -> GameRecord {
        let mut board = movegen::Board::startpos();
        let mut moves = Vec::new();
        for &score in scores {
            let mv = board.legal_moves()[0];
            moves.push((mv, score));
            board.play(mv);
        }
        GameRecord {
            start: movegen::Board::startpos(),
            start_eval: 0,
            result,
            moves,
        }
    }

    #[test]
    fn reads_data_files_and_directories_with_the_record_reader() {
        use records::record::{encode_chunk_v1, encode_header_v1};
        let dir = testing::temp("wdl-fit");
        let sub = dir.join("gen1");
        std::fs::create_dir_all(&sub).unwrap();
        let mut bytes = encode_header_v1("test");
        encode_chunk_v1(&[game(&[10, -20, 30], Wdl::WhiteWins)], &mut bytes);
        // A mate score is left out; --skip-plies and --max-score leave out more.
        encode_chunk_v1(&[game(&[5, 25_000, 700], Wdl::Draw)], &mut bytes);
        std::fs::write(sub.join("games-0.bin"), &bytes).unwrap();
        let args = |paths: Vec<PathBuf>, skip_plies, max_score| FitArgs {
            paths,
            max_score,
            skip_plies,
        };
        let (bins, files, games) = read_paths(&args(vec![dir.clone()], 0, 19_999)).unwrap();
        assert_eq!((files, games, bins.total), (1, 2, 5.0));
        let list = bins.to_vec();
        let at = |score: f64| list.iter().find(|b| b.score == score).map(|b| b.counts);
        assert_eq!(at(10.0), Some([1.0, 0.0, 0.0]));
        assert_eq!(at(700.0), Some([0.0, 1.0, 0.0]));
        let (bins, _, _) = read_paths(&args(vec![sub.join("games-0.bin")], 1, 100)).unwrap();
        assert_eq!(bins.total, 2.0, "plies 2 and 3 of the first game, below 100");
        let missing = read_paths(&args(vec![dir.join("nothing-here")], 0, 19_999)).unwrap_err();
        assert!(missing.to_string().contains("cannot read"), "{missing}");
        let empty = dir.join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        let none = read_paths(&args(vec![empty], 0, 19_999)).unwrap_err();
        assert!(none.to_string().contains("no data files"), "{none}");
        assert!(read_paths(&args(vec![], 0, 19_999)).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn solves_linear_systems() {
        let mut m = [[0.0; PARAMS]; PARAMS];
        for (i, row) in m.iter_mut().enumerate() {
            row[i] = 2.0;
            row[(i + 1) % PARAMS] = 1.0;
        }
        let want = [1.0, -2.0, 3.0, 0.5, 0.0, 7.0, -1.0, 2.5];
        let mut rhs = [0.0; PARAMS];
        for r in 0..PARAMS {
            rhs[r] = (0..PARAMS).map(|c| m[r][c] * want[c]).sum();
        }
        let x = solve(m, rhs).unwrap();
        for i in 0..PARAMS {
            assert!((x[i] - want[i]).abs() < 1e-9);
        }
        assert!(solve([[0.0; PARAMS]; PARAMS], rhs).is_none());
    }
}
