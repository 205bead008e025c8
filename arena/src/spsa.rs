//! The mathematics of `arena spsa`: simultaneous perturbation stochastic approximation
//! (Spall) over an engine's parameters, with the gain sequences, perturbations and update
//! OpenBench's SPSA tuner uses, written from its published description.
//!
//! Each parameter comes from a line of OpenBench's SPSA input (the format `luft spsa`
//! prints): `name, int|float, start, min, max, c_end, r_end`. For a run of `N` iterations
//! with `A = A_ratio * N`, each parameter gets
//!
//! ```text
//! c   = c_end * N^gamma                     c_k = c / k^gamma          (k = 1..N)
//! a   = r_end * c_end^2 * (A + N)^alpha     a_k = a / (A + k)^alpha
//! ```
//!
//! so that at the last iteration the perturbation is `c_end` and the learning rate
//! `a_k / c_k^2` is `r_end`; the defaults are `alpha = 0.602`, `gamma = 0.101`,
//! `A_ratio = 0.1`. As OpenBench, an integer parameter's `c_k` is never below 0.5 (a
//! smaller one could round both sides to the same value).
//!
//! Iteration `k` draws a sign `delta = +-1` per parameter and plays `theta+ = theta +
//! c_k * delta` against `theta- = theta - c_k * delta`. An integer parameter's two values
//! are rounded as OpenBench sends them: `floor(x + u)` with one uniform `u` in [0, 1)
//! shared by both sides (unbiased: the expected value is `x`); both are then clipped to
//! `[min, max]`. After the iteration's games, with `W` and `L` theta+'s wins and losses,
//!
//! ```text
//! theta <- clip(theta + (a_k / c_k) * (W - L) * delta, min, max)
//! ```
//!
//! (OpenBench's `r * c * (W - L) * delta` with `r = a_k / c_k^2`). `theta` itself stays a
//! real number; only the values sent to the engine are rounded.
//!
//! The random numbers come from [`Rng`] (SplitMix64: one `u64` of state, so a saved state
//! resumes the same sequence). Per iteration and per parameter, in the parameters' order, the
//! sign is drawn first, then (integers only) the rounding's `u`.

/// Whether a parameter is sent as a whole number or as a real one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `int`: rounded when sent, `c_k` at least 0.5.
    Int,
    /// `float`: sent as it is.
    Float,
}

impl Kind {
    /// `int` or `float`, as the parameter file spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Int => "int",
            Kind::Float => "float",
        }
    }
}

/// One tuned parameter, as its line in the parameter file gives it. Values are in the
/// parameter's own units (the engine option's).
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The engine's option name (no spaces, `=` or `,`).
    pub name: String,
    /// `int` or `float`.
    pub kind: Kind,
    /// The value the tune starts from.
    pub start: f64,
    /// The smallest value sent or kept.
    pub min: f64,
    /// The largest value sent or kept.
    pub max: f64,
    /// The perturbation at the last iteration (OpenBench's `c_end`), in the parameter's units.
    pub c_end: f64,
    /// The learning rate `a_k / c_k^2` at the last iteration (OpenBench's `r_end`).
    pub r_end: f64,
}

/// A number as the parameter file and the printed lines write it: the shortest text that
/// reads back as the same number (`6`, `0.002`, `-12.5`).
pub fn number_text(v: f64) -> String {
    format!("{v}")
}

impl Param {
    /// `value` as it is sent to the engine or printed as `option.NAME=VALUE`: integers
    /// rounded to the nearest (halves away from zero), reals as they are.
    pub fn value_text(&self, value: f64) -> String {
        match self.kind {
            Kind::Int => number_text(value.round()),
            Kind::Float => number_text(value),
        }
    }

    /// The parameter's line in the `luft spsa` format with `value` as its start:
    /// `name, int, 77, 30, 150, 6, 0.002` (an integer's value rounded, so the line can
    /// start another tune).
    pub fn line(&self, value: f64) -> String {
        format!(
            "{}, {}, {}, {}, {}, {}, {}",
            self.name,
            self.kind.as_str(),
            self.value_text(value),
            number_text(self.min),
            number_text(self.max),
            number_text(self.c_end),
            number_text(self.r_end)
        )
    }

    /// Why the parameter cannot be tuned, if it cannot: a name that is not one word without
    /// `=`, an integer's bounds that are not whole, `min >= max`, a start outside `[min,
    /// max]`, a `c_end` or `r_end` that is not above 0, or a number that is not finite.
    pub fn check(&self) -> Result<(), ParamError> {
        let name = &self.name;
        if name.is_empty() || name.contains(|c: char| c.is_whitespace() || c == '=' || c == ',') {
            return Err(ParamError::Name(name.clone()));
        }
        let (start, min, max) = (self.start, self.min, self.max);
        if ![start, min, max, self.c_end, self.r_end]
            .iter()
            .all(|v| v.is_finite())
        {
            return Err(ParamError::NotFinite(name.clone()));
        }
        if self.kind == Kind::Int && (min.fract() != 0.0 || max.fract() != 0.0) {
            return Err(ParamError::IntBounds);
        }
        if min >= max {
            return Err(ParamError::MinMax { min, max });
        }
        if !(min..=max).contains(&start) {
            return Err(ParamError::Start { start, min, max });
        }
        if self.c_end <= 0.0 || self.r_end <= 0.0 {
            return Err(ParamError::Steps);
        }
        Ok(())
    }

    /// `v` clipped to `[min, max]`.
    pub fn clip(&self, v: f64) -> f64 {
        v.clamp(self.min, self.max)
    }
}

/// Why a parameter, or a line of a parameter list, cannot be tuned.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParamError {
    /// A name that is not one word without `=` or `,`.
    #[error("the name {0:?} must be one word without '=' (it becomes option.NAME=VALUE)")]
    Name(String),
    /// A number that is not finite.
    #[error("{0}: every number must be finite")]
    NotFinite(String),
    /// An int parameter's bounds that are not whole.
    #[error("an int parameter's min and max must be whole numbers")]
    IntBounds,
    /// `min >= max`.
    #[error("min ({min}) must be below max ({max})")]
    MinMax {
        /// The lower bound.
        min: f64,
        /// The upper bound.
        max: f64,
    },
    /// A start outside `[min, max]`.
    #[error("start ({start}) must lie in [min, max] = [{min}, {max}]")]
    Start {
        /// The start.
        start: f64,
        /// The lower bound.
        min: f64,
        /// The upper bound.
        max: f64,
    },
    /// A `c_end` or `r_end` not above 0.
    #[error("c_end and r_end must be above 0")]
    Steps,
    /// A line without 7 fields.
    #[error("expected 7 comma-separated fields (name, int|float, start, min, max, c_end, r_end), found {0}")]
    Fields(usize),
    /// A name given twice.
    #[error("{0} is listed twice")]
    Twice(String),
    /// A type that is not `int` or `float`.
    #[error("the type must be int or float, found {0:?}")]
    Kind(String),
    /// A field that is not a finite number.
    #[error("{what} must be a number, found {text:?}")]
    Number {
        /// The field (`start`, `min`, ...).
        what: &'static str,
        /// Its text.
        text: String,
    },
    /// What is wrong with line `line` (1-based) of a list, whose text is `text`.
    #[error("line {line}: {why} (in {text:?})")]
    Line {
        /// The line number, from 1.
        line: usize,
        /// The line, trimmed.
        text: String,
        /// What is wrong with it.
        why: Box<ParamError>,
    },
    /// A list without parameters.
    #[error("no parameters (one line each: name, int|float, start, min, max, c_end, r_end)")]
    Empty,
}

/// Reads a parameter list in the `luft spsa` format: one `name, int|float, start, min, max,
/// c_end, r_end` a line; blank lines and lines starting with `#` are skipped. Errors:
/// [`ParamError::Line`], naming the line (1-based) and what is wrong with it, or
/// [`ParamError::Empty`].
pub fn parse_params(text: &str) -> Result<Vec<Param>, ParamError> {
    let mut params: Vec<Param> = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |why: ParamError| ParamError::Line {
            line: i + 1,
            text: line.to_string(),
            why: Box::new(why),
        };
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        if fields.len() != 7 {
            return Err(at(ParamError::Fields(fields.len())));
        }
        let name = fields[0];
        if params.iter().any(|p| p.name == name) {
            return Err(at(ParamError::Twice(name.to_string())));
        }
        let kind = match fields[1] {
            "int" => Kind::Int,
            "float" => Kind::Float,
            other => return Err(at(ParamError::Kind(other.to_string()))),
        };
        let mut numbers = [0.0; 5];
        for (slot, (text, what)) in numbers
            .iter_mut()
            .zip(fields[2..].iter().zip(["start", "min", "max", "c_end", "r_end"]))
        {
            *slot = text
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| {
                    at(ParamError::Number {
                        what,
                        text: text.to_string(),
                    })
                })?;
        }
        let [start, min, max, c_end, r_end] = numbers;
        let param = Param {
            name: name.to_string(),
            kind,
            start,
            min,
            max,
            c_end,
            r_end,
        };
        param.check().map_err(at)?;
        params.push(param);
    }
    if params.is_empty() {
        return Err(ParamError::Empty);
    }
    Ok(params)
}

/// OpenBench's default `alpha`, the decay exponent of `a_k`.
pub const ALPHA: f64 = 0.602;
/// OpenBench's default `gamma`, the decay exponent of `c_k`.
pub const GAMMA: f64 = 0.101;
/// OpenBench's default `A` as a share of the iterations.
pub const A_RATIO: f64 = 0.1;
/// The smallest `c_k` of an integer parameter (OpenBench's).
pub const MIN_INT_C: f64 = 0.5;

/// The gain sequences' settings of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Schedule {
    /// Iterations of the whole run (`N`).
    pub iterations: u64,
    /// The decay exponent of `a_k`.
    pub alpha: f64,
    /// The decay exponent of `c_k`.
    pub gamma: f64,
    /// `A` as a share of `N`.
    pub a_ratio: f64,
}

impl Schedule {
    /// `A = A_ratio * N`, in iterations.
    pub fn big_a(&self) -> f64 {
        self.a_ratio * self.iterations as f64
    }

    /// `c = c_end * N^gamma`: the perturbation of the first iteration, in `p`'s units.
    pub fn c(&self, p: &Param) -> f64 {
        p.c_end * (self.iterations as f64).powf(self.gamma)
    }

    /// `a = r_end * c_end^2 * (A + N)^alpha`.
    pub fn a(&self, p: &Param) -> f64 {
        p.r_end * p.c_end * p.c_end * (self.big_a() + self.iterations as f64).powf(self.alpha)
    }

    /// `c_k = c / k^gamma` (at least [`MIN_INT_C`] for an integer), `k` from 1: the
    /// perturbation of iteration `k`, in `p`'s units.
    pub fn c_k(&self, p: &Param, k: u64) -> f64 {
        let c = self.c(p) / (k as f64).powf(self.gamma);
        match p.kind {
            Kind::Int => c.max(MIN_INT_C),
            Kind::Float => c,
        }
    }

    /// `a_k = a / (A + k)^alpha`, `k` from 1.
    pub fn a_k(&self, p: &Param, k: u64) -> f64 {
        self.a(p) / (self.big_a() + k as f64).powf(self.alpha)
    }

    /// The learning rate `r_k = a_k / c_k^2` of iteration `k` (`r_end` at `k = N`, unless
    /// an integer's `c_k` was raised to [`MIN_INT_C`]).
    pub fn r_k(&self, p: &Param, k: u64) -> f64 {
        let c = self.c_k(p, k);
        self.a_k(p, k) / (c * c)
    }
}

/// SplitMix64 (Steele, Lea and Flood): a small generator whose whole state is one `u64`,
/// saved with the tune so a resumed run draws the same numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rng {
    /// The state; the next output is a function of it alone.
    pub state: u64,
}

impl Rng {
    /// A generator seeded with `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform number in [0, 1) (53 random bits).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// +1 or -1, each with probability one half (the top bit).
    pub fn sign(&mut self) -> f64 {
        if self.next_u64() >> 63 == 1 {
            1.0
        } else {
            -1.0
        }
    }
}

/// What one iteration plays: per parameter, in the parameters' order.
#[derive(Clone, Debug, PartialEq)]
pub struct Perturbation {
    /// The iteration, from 1.
    pub k: u64,
    /// The signs (+1 or -1).
    pub delta: Vec<f64>,
    /// The perturbations `c_k`, in each parameter's units.
    pub c: Vec<f64>,
    /// theta+: the values one side plays with (rounded for integers, clipped).
    pub plus: Vec<f64>,
    /// theta-: the other side's.
    pub minus: Vec<f64>,
}

/// Draws iteration `k`'s signs (and roundings) from `rng` and the two sides' values around
/// `theta`.
pub fn perturb(params: &[Param], theta: &[f64], schedule: &Schedule, k: u64, rng: &mut Rng) -> Perturbation {
    let mut out = Perturbation {
        k,
        delta: Vec::with_capacity(params.len()),
        c: Vec::with_capacity(params.len()),
        plus: Vec::with_capacity(params.len()),
        minus: Vec::with_capacity(params.len()),
    };
    for (p, &t) in params.iter().zip(theta) {
        let delta = rng.sign();
        let c = schedule.c_k(p, k);
        let (mut plus, mut minus) = (t + c * delta, t - c * delta);
        if p.kind == Kind::Int {
            let u = rng.unit();
            plus = (plus + u).floor();
            minus = (minus + u).floor();
        }
        out.delta.push(delta);
        out.c.push(c);
        out.plus.push(p.clip(plus));
        out.minus.push(p.clip(minus));
    }
    out
}

/// theta after the iteration `perturbation` describes, in which theta+ scored `wins_minus_losses`
/// (its wins less its losses over the iteration's games).
pub fn update(
    params: &[Param],
    theta: &[f64],
    schedule: &Schedule,
    perturbation: &Perturbation,
    wins_minus_losses: i64,
) -> Vec<f64> {
    let k = perturbation.k;
    params
        .iter()
        .zip(theta)
        .zip(perturbation.delta.iter().zip(&perturbation.c))
        .map(|((p, &t), (&delta, &c))| {
            let step = schedule.a_k(p, k) / c * wins_minus_losses as f64 * delta;
            p.clip(t + step)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(kind: Kind, c_end: f64, r_end: f64) -> Param {
        Param {
            name: "p".into(),
            kind,
            start: 0.0,
            min: -1000.0,
            max: 1000.0,
            c_end,
            r_end,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    #[test]
    fn gains_match_values_worked_by_hand() {
        // N = 1000, A = 100, c_end = 4, r_end = 0.002:
        //   c = 4 * 1000^0.101 = 4 * 10^0.303 = 8.036371250434913
        //   a = 0.002 * 16 * 1100^0.602 = 2.1680454123350703
        let s = Schedule {
            iterations: 1000,
            alpha: ALPHA,
            gamma: GAMMA,
            a_ratio: A_RATIO,
        };
        let p = param(Kind::Float, 4.0, 0.002);
        assert!(close(s.big_a(), 100.0));
        assert!(close(s.c(&p), 8.036371250434913), "{}", s.c(&p));
        assert!(close(s.a(&p), 2.1680454123350703), "{}", s.a(&p));
        for (k, c_k, a_k) in [
            // c_1 = c; a_1 = a / 101^0.602
            (1, 8.036371250434913, 0.13473080596845086),
            // c_10 = c / 10^0.101; a_10 = a / 110^0.602
            (10, 6.368834908204681, 0.1279823199235512),
            (500, 4.29006646727177, 0.0460915509461433),
            // The last iteration: c_N = c_end, a_N = r_end * c_end^2 = 0.032.
            (1000, 4.0, 0.032),
        ] {
            assert!(close(s.c_k(&p, k), c_k), "c_{k} = {}", s.c_k(&p, k));
            assert!(close(s.a_k(&p, k), a_k), "a_{k} = {}", s.a_k(&p, k));
        }
        assert!(close(s.r_k(&p, 1000), 0.002));
        // alpha = 1, gamma = 0.5, A = 0 on 4 iterations, c_end = 1, r_end = 1:
        // c = 4^0.5 = 2, a = 1 * 1 * 4 = 4; c_1 = 2, c_4 = 1; a_1 = 4, a_2 = 2, a_4 = 1.
        let s = Schedule {
            iterations: 4,
            alpha: 1.0,
            gamma: 0.5,
            a_ratio: 0.0,
        };
        let p = param(Kind::Float, 1.0, 1.0);
        assert_eq!((s.c(&p), s.a(&p)), (2.0, 4.0));
        assert_eq!((s.c_k(&p, 1), s.c_k(&p, 4)), (2.0, 1.0));
        assert_eq!((s.a_k(&p, 1), s.a_k(&p, 2), s.a_k(&p, 4)), (4.0, 2.0, 1.0));
    }

    #[test]
    fn an_integers_perturbation_is_at_least_a_half() {
        let s = Schedule {
            iterations: 100,
            alpha: ALPHA,
            gamma: GAMMA,
            a_ratio: A_RATIO,
        };
        // c_end 0.2: c_100 = 0.2 for a float, 0.5 for an int.
        assert!(close(s.c_k(&param(Kind::Float, 0.2, 0.002), 100), 0.2));
        assert_eq!(s.c_k(&param(Kind::Int, 0.2, 0.002), 100), 0.5);
    }

    #[test]
    fn splitmix64_gives_its_published_sequence() {
        // The reference outputs of SplitMix64 seeded with 0.
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(r.next_u64(), 0x06c4_5d18_8009_454f);
        let mut a = Rng::new(42);
        let mut b = a;
        let draws: Vec<f64> = (0..1000).map(|_| a.unit()).collect();
        assert!(draws.iter().all(|u| (0.0..1.0).contains(u)));
        assert_eq!(b.unit(), draws[0]);
        let plus = (0..10_000).filter(|_| b.sign() > 0.0).count();
        assert!((4800..5200).contains(&plus), "{plus}");
    }

    #[test]
    fn perturbations_round_integers_together_and_clip() {
        let s = Schedule {
            iterations: 1,
            alpha: ALPHA,
            gamma: GAMMA,
            a_ratio: A_RATIO,
        };
        let params = vec![
            Param {
                name: "i".into(),
                kind: Kind::Int,
                start: 10.0,
                min: 0.0,
                max: 12.0,
                c_end: 3.0,
                r_end: 0.002,
            },
            Param {
                name: "f".into(),
                kind: Kind::Float,
                start: 0.5,
                min: 0.0,
                max: 1.0,
                c_end: 0.25,
                r_end: 0.002,
            },
        ];
        // N = 1: c_1 = c_end.
        let theta = [10.4, 0.5];
        let mut rng = Rng::new(7);
        let mut expect = rng;
        let p = perturb(&params, &theta, &s, 1, &mut rng);
        let (d0, u0, d1) = (expect.sign(), expect.unit(), expect.sign());
        assert_eq!(rng, expect, "int: a sign and a u; float: a sign");
        assert_eq!(p.delta, [d0, d1]);
        assert_eq!(p.c, [3.0, 0.25]);
        let plus_i = (10.4 + 3.0 * d0 + u0).floor().clamp(0.0, 12.0);
        let minus_i = (10.4 - 3.0 * d0 + u0).floor().clamp(0.0, 12.0);
        assert_eq!((p.plus[0], p.minus[0]), (plus_i, minus_i));
        assert_eq!((p.plus[1], p.minus[1]), (0.5 + 0.25 * d1, 0.5 - 0.25 * d1));
        // The side above 12 is clipped: 10.4 + 3 = 13.4 -> at most 12.
        assert!(p.plus[0].max(p.minus[0]) == 12.0);
        // Rounding is unbiased: the mean of floor(x + u) is x.
        let mut rng = Rng::new(1);
        let n = 100_000;
        let mean: f64 = (0..n).map(|_| (2.3 + rng.unit()).floor()).sum::<f64>() / n as f64;
        assert!((mean - 2.3).abs() < 0.01, "{mean}");
    }

    #[test]
    fn the_update_follows_the_score_and_stays_in_range() {
        let s = Schedule {
            iterations: 4,
            alpha: 1.0,
            gamma: 0.5,
            a_ratio: 0.0,
        };
        let p = Param {
            name: "x".into(),
            kind: Kind::Float,
            start: 0.0,
            min: -10.0,
            max: 10.0,
            c_end: 1.0,
            r_end: 1.0,
        };
        let params = vec![
            p.clone(),
            Param {
                name: "y".into(),
                ..p
            },
        ];
        // Iteration 1: a_1 = 4, c_1 = 2, so each game won net moves theta by 2 * delta.
        let pert = Perturbation {
            k: 1,
            delta: vec![1.0, -1.0],
            c: vec![2.0, 2.0],
            plus: vec![2.0, -2.0],
            minus: vec![-2.0, 2.0],
        };
        assert_eq!(update(&params, &[0.0, 0.0], &s, &pert, 3), [6.0, -6.0]);
        assert_eq!(update(&params, &[0.0, 0.0], &s, &pert, -1), [-2.0, 2.0]);
        assert_eq!(update(&params, &[1.5, 0.0], &s, &pert, 0), [1.5, 0.0]);
        assert_eq!(update(&params, &[9.0, -9.0], &s, &pert, 5), [10.0, -10.0]);
    }

    #[test]
    fn parameter_files_read_and_lines_print_as_luft_spsa_writes_them() {
        let text = "# tuned\n\nrfp_margin, int, 75, 30, 150, 6, 0.002\n  see_quiet_margin,int,-60,-150,-10,6,0.002\n\
                    scale, float, 0.5, 0, 1.5, 0.05, 0.002\n";
        let params = parse_params(text).unwrap();
        assert_eq!(params.len(), 3);
        assert_eq!(params[1].name, "see_quiet_margin");
        assert_eq!(
            (params[1].start, params[1].min, params[1].max),
            (-60.0, -150.0, -10.0)
        );
        assert_eq!(params[0].line(77.49), "rfp_margin, int, 77, 30, 150, 6, 0.002");
        assert_eq!(
            params[1].line(-60.5),
            "see_quiet_margin, int, -61, -150, -10, 6, 0.002"
        );
        assert_eq!(params[2].line(0.625), "scale, float, 0.625, 0, 1.5, 0.05, 0.002");
        assert_eq!(params[0].value_text(76.5), "77");
        // Every line reads back as it was.
        let again: Vec<String> = params.iter().map(|p| p.line(p.start)).collect();
        assert_eq!(parse_params(&again.join("\n")).unwrap(), params);
    }

    #[test]
    fn bad_parameter_files_are_refused_with_the_line() {
        for (text, why) in [
            ("", "no parameters"),
            ("a, int, 1, 0, 2, 1", "line 1: expected 7 comma-separated fields"),
            (
                "\na b, int, 1, 0, 2, 1, 0.1",
                "line 2: the name \"a b\" must be one word",
            ),
            ("a, long, 1, 0, 2, 1, 0.1", "the type must be int or float"),
            ("a, int, x, 0, 2, 1, 0.1", "start must be a number, found \"x\""),
            ("a, int, 1, 0, 2, 1, nan", "r_end must be a number"),
            ("a, int, 1, 0.5, 2, 1, 0.1", "must be whole numbers"),
            ("a, int, 1, 2, 2, 1, 0.1", "min (2) must be below max (2)"),
            (
                "a, int, 3, 0, 2, 1, 0.1",
                "start (3) must lie in [min, max] = [0, 2]",
            ),
            ("a, int, 1, 0, 2, 0, 0.1", "c_end and r_end must be above 0"),
            (
                "a, int, 1, 0, 2, 1, 0.1\na, int, 1, 0, 2, 1, 0.1",
                "line 2: a is listed twice",
            ),
        ] {
            let e = parse_params(text).unwrap_err().to_string();
            assert!(e.contains(why), "{text:?}: {e}");
        }
    }
}
