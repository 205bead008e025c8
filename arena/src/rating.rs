//! Ratings of many players from many games at once, as Ordo and BayesElo compute them:
//! `arena rate FILES...` reads the results of PGN files (the White, Black and Result tags
//! only, so any tool's PGN will do) and fits one Elo per player jointly by maximum
//! likelihood, so that engines that never met are compared through the opponents they
//! share (a gauntlet).
//!
//! The model: the expected score of A against B is 1 / (1 + 10^((R_B - R_A) / 400)), and a
//! draw counts half a point (win 1, draw 1/2, loss 0: Ordo's default; there is no draw
//! parameter as in BayesElo and no White advantage, which paired openings cancel). The
//! log-likelihood, the sum over games of s ln E + (1 - s) ln (1 - E), is concave; Newton's
//! method with a backtracking line search finds its maximum. Ratings are fixed up to a
//! constant: the mean is 0 unless one player is anchored (`--anchor NAME=ELO`). The error
//! bars come from the Fisher information (the negative Hessian at the maximum): the ± column
//! is the 95% interval of each rating relative to the anchor (whose own is 0) or to the
//! mean. The information counts each game as a Bernoulli trial of variance E (1 - E); draws
//! vary less than that, so with many draws the bars are on the wide (safe) side.
//!
//! A player who won (or lost) every game has no finite maximum-likelihood rating. The fit
//! therefore has a weak prior, BayesElo-style: `--prior P` virtual draws (default 1)
//! between every two players who met, which moves a score of s over n games to
//! (s n + P/2) / (n + P) and no further. `--prior 0` asks for the pure maximum-likelihood
//! fit, which is refused with a clear message where it does not exist. Players in groups
//! that never met, directly or through others, have no common scale: an error too.

use matchcore::stats::Z_95;
use std::collections::BTreeMap;
use std::f64::consts::LN_10;

/// One finished game: the players and White's points (1, 0.5 or 0).
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// White's player name, from the `White` tag.
    pub white: String,
    /// Black's player name, from the `Black` tag.
    pub black: String,
    /// White's points: 1, 0.5 or 0.
    pub white_points: f64,
}

/// The results read from PGN text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PgnResults {
    /// Every finished game, in file order.
    pub games: Vec<GameRecord>,
    /// Games whose result is `*` (unfinished), which are left out.
    pub unfinished: usize,
}

/// Why results cannot be read from PGN text, or cannot be rated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RateError {
    /// A game without one of the tags White, Black and Result; `place` names the game.
    #[error("{place} has no {tag} tag")]
    MissingTag {
        /// The source, the game's number and its first line.
        place: String,
        /// The tag.
        tag: &'static str,
    },
    /// A game whose White, Black or Result tag is empty.
    #[error("{place} has an empty {tag} tag")]
    EmptyTag {
        /// The source, the game's number and its first line.
        place: String,
        /// The tag.
        tag: &'static str,
    },
    /// A result that is not 1-0, 0-1, 1/2-1/2 or *.
    #[error("{place} has the result {result:?} (expected 1-0, 0-1, 1/2-1/2 or *)")]
    Result {
        /// The source, the game's number and its first line.
        place: String,
        /// The Result tag.
        result: String,
    },
    /// A game whose White and Black are the same player.
    #[error("{place}: {player} plays itself")]
    PlaysItself {
        /// The source, the game's number and its first line.
        place: String,
        /// The player.
        player: String,
    },
    /// No finished game.
    #[error("no finished games to rate")]
    NoGames,
    /// A prior that is not from 0 to [`MAX_PRIOR`].
    #[error("the prior must be from 0 to {MAX_PRIOR} virtual draws, found {0}")]
    Prior(f64),
    /// A game that is no result between two players.
    #[error("bad game {white} - {black} with {points} points for White")]
    BadGame {
        /// White's player.
        white: String,
        /// Black's player.
        black: String,
        /// White's points.
        points: f64,
    },
    /// An anchor that played no game.
    #[error("the anchor {name:?} is not among the players ({players})")]
    UnknownAnchor {
        /// The anchor's name.
        name: String,
        /// The players, comma-separated.
        players: String,
    },
    /// An anchor rating that is not finite.
    #[error("the anchor's rating must be a finite number, found {0}")]
    AnchorRating(f64),
    /// Groups of players that never meet: `groups` lists them (`{A, B} and {C, D}`).
    #[error(
        "the games do not link all players, so they have no common scale: {groups} never meet \
         (directly or through others); rate each group on its own"
    )]
    Unlinked {
        /// The groups, in braces.
        groups: String,
    },
    /// No finite maximum without a prior: `who` says which players scored all or nothing.
    #[error(
        "with --prior 0 the maximum-likelihood ratings are infinite: {who}; give --prior \
         above 0 (virtual draws per pair, 1 by default)"
    )]
    Infinite {
        /// Who scored 0 % or 100 %.
        who: String,
    },
    /// The information matrix has no inverse.
    #[error("the rating fit failed: the information matrix is singular")]
    Singular,
    /// Newton's method took a step that is not finite.
    #[error("the rating fit failed: a step is not finite")]
    NotFinite,
    /// Newton's method did not converge.
    #[error("the rating fit did not converge in {MAX_ITERATIONS} steps")]
    NoConvergence,
}

/// Why `arena rate` stops: its arguments, a file, or the results in it; every message
/// starts with `rate: `.
#[derive(Debug, thiserror::Error)]
pub enum RateCommandError {
    /// An option without its value.
    #[error("rate: {0} needs a value")]
    NeedsValue(String),
    /// `--anchor` that is not NAME=ELO.
    #[error("rate: --anchor expects NAME=ELO (a number), found {0:?}")]
    Anchor(String),
    /// `--prior` out of its range.
    #[error("rate: --prior must be a number of virtual draws from 0 to {MAX_PRIOR}, found {0:?}")]
    Prior(String),
    /// An option `arena rate` does not have.
    #[error("rate: unknown option {0} (usage: {USAGE})")]
    UnknownOption(String),
    /// No file given.
    #[error("rate: no PGN files given (usage: {USAGE})")]
    NoFiles,
    /// A file that cannot be read.
    #[error("rate: cannot read {file}: {source}")]
    Read {
        /// The file.
        file: String,
        /// Why.
        source: std::io::Error,
    },
    /// The results cannot be read or rated.
    #[error("rate: {0}")]
    Rate(#[from] RateError),
}

/// `[Name "value"]`, with `\"` and `\\` escapes.
fn parse_tag(line: &str) -> Option<(String, String)> {
    let inner = line.trim().strip_prefix('[')?.strip_suffix(']')?.trim();
    let quote = inner.find('"')?;
    let name = inner[..quote].trim();
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    let body = inner[quote..].strip_prefix('"')?.strip_suffix('"')?;
    let mut value = String::new();
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(escaped) = chars.next() {
                value.push(escaped);
            }
        } else {
            value.push(c);
        }
    }
    Some((name.to_string(), value))
}

/// Turns one game's tags into a result (`None` for an unfinished game).
fn game_of(tags: &[(String, String)], place: &str) -> Result<Option<GameRecord>, RateError> {
    let tag = |name: &'static str| -> Result<String, RateError> {
        match tags.iter().rev().find(|(k, _)| k == name) {
            Some((_, v)) if !v.trim().is_empty() => Ok(v.trim().to_string()),
            Some(_) => Err(RateError::EmptyTag {
                place: place.to_string(),
                tag: name,
            }),
            None => Err(RateError::MissingTag {
                place: place.to_string(),
                tag: name,
            }),
        }
    };
    let (white, black, result) = (tag("White")?, tag("Black")?, tag("Result")?);
    let white_points = match result.as_str() {
        "1-0" => 1.0,
        "0-1" => 0.0,
        "1/2-1/2" => 0.5,
        "*" => return Ok(None),
        other => {
            return Err(RateError::Result {
                place: place.to_string(),
                result: other.to_string(),
            })
        }
    };
    if white == black {
        return Err(RateError::PlaysItself {
            place: place.to_string(),
            player: white,
        });
    }
    Ok(Some(GameRecord {
        white,
        black,
        white_points,
    }))
}

/// Reads the results of every game in PGN text; `source` names the text in errors. A game
/// is its tag section and the movetext after it; brace comments are followed, so a comment
/// line that starts with `[` is not taken for a tag.
pub fn read_results(text: &str, source: &str) -> Result<PgnResults, RateError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out = PgnResults::default();
    let mut tags: Vec<(String, String)> = Vec::new();
    let (mut first_line, mut number) = (1, 0);
    let (mut in_moves, mut in_comment) = (false, false);
    let mut finish = |tags: &mut Vec<(String, String)>, first_line: usize, number: usize| {
        let place = format!("{source}: game {number} (line {first_line})");
        let game = game_of(tags, &place);
        tags.clear();
        match game? {
            Some(g) => out.games.push(g),
            None => out.unfinished += 1,
        }
        Ok::<(), RateError>(())
    };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if !in_comment && line.starts_with('[') {
            if let Some(tag) = parse_tag(line) {
                if in_moves {
                    finish(&mut tags, first_line, number)?;
                    in_moves = false;
                }
                if tags.is_empty() {
                    number += 1;
                    first_line = i + 1;
                }
                tags.push(tag);
                continue;
            }
        }
        if raw.starts_with('%') {
            continue;
        }
        let mut content = false;
        for c in line.chars() {
            match c {
                '{' if !in_comment => in_comment = true,
                '}' if in_comment => in_comment = false,
                ';' if !in_comment => break,
                c if !in_comment && !c.is_whitespace() => content = true,
                _ => {}
            }
        }
        if content && !in_moves {
            if tags.is_empty() {
                number += 1;
                first_line = i + 1;
            }
            in_moves = true;
        }
    }
    if in_moves || !tags.is_empty() {
        finish(&mut tags, first_line, number)?;
    }
    Ok(out)
}

/// How the ratings are fixed and how strong the prior is.
#[derive(Clone, Debug, PartialEq)]
pub struct FitOptions {
    /// Virtual draws between every two players who met (0: pure maximum likelihood).
    pub prior: f64,
    /// A player and the rating it is given; `None`: the ratings average 0.
    pub anchor: Option<(String, f64)>,
}

impl Default for FitOptions {
    fn default() -> Self {
        FitOptions {
            prior: 1.0,
            anchor: None,
        }
    }
}

/// One player's fitted rating and record.
#[derive(Clone, Debug, PartialEq)]
pub struct Rating {
    /// The player's name.
    pub name: String,
    /// Its fitted rating (relative to the anchor, else to the mean of 0).
    pub elo: f64,
    /// Half-width of the 95% interval, relative to the anchor or the mean.
    pub error: f64,
    /// Games it played.
    pub games: u64,
    /// Points scored (a draw is half a point).
    pub points: f64,
    /// Of them, draws.
    pub draws: u64,
}

/// Largest number of Newton steps.
const MAX_ITERATIONS: usize = 500;
/// Largest Newton step for one rating, in Elo; longer steps are shortened.
const MAX_STEP: f64 = 400.0;
/// Largest prior accepted, in virtual draws per pair.
pub const MAX_PRIOR: f64 = 1000.0;

/// Logistic slope: d E / d R at E = 1/2 is K / 4.
const K: f64 = LN_10 / 400.0;

/// ln(1 + e^x) without overflow.
fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// Games and points between every two players.
struct Table {
    /// `games[i][j]`: games (and virtual draws) between i and j.
    games: Vec<Vec<f64>>,
    /// `points[i][j]`: i's points against j.
    points: Vec<Vec<f64>>,
}

impl Table {
    fn len(&self) -> usize {
        self.games.len()
    }

    fn expected(r: &[f64], i: usize, j: usize) -> f64 {
        1.0 / (1.0 + (K * (r[j] - r[i])).exp())
    }

    fn log_likelihood(&self, r: &[f64]) -> f64 {
        let n = self.len();
        let mut sum = 0.0;
        for i in 0..n {
            for j in 0..n {
                if self.points[i][j] > 0.0 {
                    // ln E_ij = -ln(1 + e^{K (r_j - r_i)}).
                    sum -= self.points[i][j] * softplus(K * (r[j] - r[i]));
                }
            }
        }
        sum
    }

    /// The gradient of the log-likelihood and the Fisher information matrix.
    fn gradient_and_information(&self, r: &[f64]) -> (Vec<f64>, Vec<Vec<f64>>) {
        let n = self.len();
        let mut gradient = vec![0.0; n];
        let mut info = vec![vec![0.0; n]; n];
        for i in 0..n {
            for j in 0..n {
                if i == j || self.games[i][j] == 0.0 {
                    continue;
                }
                let e = Self::expected(r, i, j);
                gradient[i] += K * (self.points[i][j] - self.games[i][j] * e);
                let w = K * K * self.games[i][j] * e * (1.0 - e);
                info[i][i] += w;
                info[i][j] -= w;
            }
        }
        (gradient, info)
    }
}

/// Players reachable from `start` along `edge(i, j)`.
fn reachable(edge: impl Fn(usize, usize) -> bool, n: usize, start: usize) -> Vec<bool> {
    let mut seen = vec![false; n];
    seen[start] = true;
    let mut stack = vec![start];
    while let Some(i) = stack.pop() {
        for (j, seen_j) in seen.iter_mut().enumerate() {
            if !*seen_j && edge(i, j) {
                *seen_j = true;
                stack.push(j);
            }
        }
    }
    seen
}

/// Groups of players linked by games (`linked` is symmetric), each sorted, in the order
/// of their first players.
fn components(linked: impl Fn(usize, usize) -> bool, n: usize) -> Vec<Vec<usize>> {
    let mut placed = vec![false; n];
    let mut out = Vec::new();
    for start in 0..n {
        if placed[start] {
            continue;
        }
        let members: Vec<usize> = reachable(&linked, n, start)
            .iter()
            .enumerate()
            .filter_map(|(i, &seen)| seen.then_some(i))
            .collect();
        for &i in &members {
            placed[i] = true;
        }
        out.push(members);
    }
    out
}

/// Inverts a symmetric positive definite matrix (Gauss-Jordan with partial pivoting);
/// `None` if it is singular.
fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let scale = a
        .iter()
        .flat_map(|row| row.iter())
        .fold(0.0_f64, |m, v| m.max(v.abs()));
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        let size = a[pivot][col].abs();
        if size.is_nan() || size <= scale * 1e-13 {
            return None;
        }
        a.swap(col, pivot);
        inv.swap(col, pivot);
        let p = a[col][col];
        for k in 0..n {
            a[col][k] /= p;
            inv[col][k] /= p;
        }
        for row in 0..n {
            if row != col {
                let f = a[row][col];
                if f != 0.0 {
                    for k in 0..n {
                        a[row][k] -= f * a[col][k];
                        inv[row][k] -= f * inv[col][k];
                    }
                }
            }
        }
    }
    Some(inv)
}

fn name_list(names: &[String], members: &[usize]) -> String {
    members
        .iter()
        .map(|&i| names[i].as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Fits the ratings of every player in `games`, strongest first.
pub fn fit(games: &[GameRecord], options: &FitOptions) -> Result<Vec<Rating>, RateError> {
    if games.is_empty() {
        return Err(RateError::NoGames);
    }
    if !(options.prior.is_finite() && (0.0..=MAX_PRIOR).contains(&options.prior)) {
        return Err(RateError::Prior(options.prior));
    }
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for g in games {
        index.insert(&g.white, 0);
        index.insert(&g.black, 0);
    }
    let names: Vec<String> = index.keys().map(|s| s.to_string()).collect();
    for (i, v) in index.values_mut().enumerate() {
        *v = i;
    }
    let n = names.len();
    let mut table = Table {
        games: vec![vec![0.0; n]; n],
        points: vec![vec![0.0; n]; n],
    };
    let mut records: Vec<Rating> = names
        .iter()
        .map(|name| Rating {
            name: name.clone(),
            elo: 0.0,
            error: 0.0,
            games: 0,
            points: 0.0,
            draws: 0,
        })
        .collect();
    for g in games {
        let (w, b) = (index[g.white.as_str()], index[g.black.as_str()]);
        if !matches!(g.white_points, 0.0 | 0.5 | 1.0) || w == b {
            return Err(RateError::BadGame {
                white: g.white.clone(),
                black: g.black.clone(),
                points: g.white_points,
            });
        }
        table.games[w][b] += 1.0;
        table.games[b][w] += 1.0;
        table.points[w][b] += g.white_points;
        table.points[b][w] += 1.0 - g.white_points;
        for (p, points) in [(w, g.white_points), (b, 1.0 - g.white_points)] {
            records[p].games += 1;
            records[p].points += points;
            if points == 0.5 {
                records[p].draws += 1;
            }
        }
    }
    let anchor = match &options.anchor {
        Some((name, elo)) => {
            let Some(&a) = index.get(name.as_str()) else {
                return Err(RateError::UnknownAnchor {
                    name: name.clone(),
                    players: names.join(", "),
                });
            };
            if !elo.is_finite() {
                return Err(RateError::AnchorRating(*elo));
            }
            Some((a, *elo))
        }
        None => None,
    };
    let groups = components(|i, j| table.games[i][j] > 0.0, n);
    if groups.len() > 1 {
        let listed: Vec<String> = groups
            .iter()
            .map(|g| format!("{{{}}}", name_list(&names, g)))
            .collect();
        return Err(RateError::Unlinked {
            groups: listed.join(" and "),
        });
    }
    if options.prior > 0.0 {
        for i in 0..n {
            for j in 0..n {
                if table.games[i][j] > 0.0 {
                    table.games[i][j] += options.prior;
                    table.points[i][j] += options.prior / 2.0;
                }
            }
        }
    } else {
        // A finite maximum exists when every player scored against someone who scored
        // against someone ... who scored against every other player: the graph of "scored
        // points against" is strongly connected.
        let forward = reachable(|i, j| table.points[i][j] > 0.0, n, 0);
        let backward = reachable(|i, j| table.points[j][i] > 0.0, n, 0);
        if forward.iter().chain(&backward).any(|&seen| !seen) {
            let extreme: Vec<usize> = (0..n)
                .filter(|&i| records[i].points == 0.0 || records[i].points == records[i].games as f64)
                .collect();
            let who = if extreme.is_empty() {
                "a group of players scored every point (or none) against the rest".to_string()
            } else {
                format!("{} scored 0 % or 100 %", name_list(&names, &extreme))
            };
            return Err(RateError::Infinite { who });
        }
    }

    // Newton's method on the ratings of players 1.., player 0 held at 0.
    let mut r = vec![0.0; n];
    let mut converged = n == 1;
    for _ in 0..MAX_ITERATIONS {
        if converged {
            break;
        }
        let (gradient, info) = table.gradient_and_information(&r);
        let reduced: Vec<Vec<f64>> = info[1..].iter().map(|row| row[1..].to_vec()).collect();
        let inverse = invert(reduced).ok_or(RateError::Singular)?;
        let mut step: Vec<f64> = inverse
            .iter()
            .map(|row| row.iter().zip(&gradient[1..]).map(|(a, g)| a * g).sum())
            .collect();
        let longest = step.iter().fold(0.0_f64, |m, s| m.max(s.abs()));
        if !longest.is_finite() {
            return Err(RateError::NotFinite);
        }
        if longest > MAX_STEP {
            step.iter_mut().for_each(|s| *s *= MAX_STEP / longest);
        }
        let before = table.log_likelihood(&r);
        let mut t = 1.0;
        let mut trial = r.clone();
        for _ in 0..60 {
            for (x, (old, s)) in trial[1..].iter_mut().zip(r[1..].iter().zip(&step)) {
                *x = old + t * s;
            }
            if table.log_likelihood(&trial) >= before - 1e-12 * before.abs() {
                break;
            }
            t /= 2.0;
        }
        let moved = trial
            .iter()
            .zip(&r)
            .fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
        r = trial;
        converged = moved < 1e-9;
    }
    if !converged {
        return Err(RateError::NoConvergence);
    }

    // Covariance of r (player 0's row and column are 0), then each reported rating as a
    // contrast c·r: r_i - r_anchor, or r_i - mean(r).
    let (_, info) = table.gradient_and_information(&r);
    let reduced: Vec<Vec<f64>> = info[1..].iter().map(|row| row[1..].to_vec()).collect();
    let inverse = invert(reduced).ok_or(RateError::Singular)?;
    let cov = |i: usize, j: usize| {
        if i == 0 || j == 0 {
            0.0
        } else {
            inverse[i - 1][j - 1]
        }
    };
    let mean = r.iter().sum::<f64>() / n as f64;
    for (i, record) in records.iter_mut().enumerate() {
        let contrast: Vec<f64> = match anchor {
            Some((a, _)) => (0..n)
                .map(|j| f64::from(u8::from(j == i)) - f64::from(u8::from(j == a)))
                .collect(),
            None => (0..n)
                .map(|j| f64::from(u8::from(j == i)) - 1.0 / n as f64)
                .collect(),
        };
        let mut variance = 0.0;
        for (j, cj) in contrast.iter().enumerate() {
            for (k, ck) in contrast.iter().enumerate() {
                variance += cj * ck * cov(j, k);
            }
        }
        record.elo = match anchor {
            Some((a, elo)) => r[i] - r[a] + elo,
            None => r[i] - mean,
        };
        record.error = Z_95 * variance.max(0.0).sqrt();
    }
    records.sort_by(|a, b| b.elo.total_cmp(&a.elo).then_with(|| a.name.cmp(&b.name)));
    Ok(records)
}

/// The ratings as a table: rank, name, Elo, ±, games, score, draws.
pub fn render(ratings: &[Rating]) -> String {
    let width = ratings
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut out = format!(
        "{:>4}  {:<width$}  {:>7}  {:>6}  {:>6}  {:>6}  {:>6}\n",
        "Rank", "Name", "Elo", "+/-", "Games", "Score", "Draws"
    );
    for (rank, r) in ratings.iter().enumerate() {
        let games = r.games.max(1) as f64;
        // No "-0.0".
        let elo = if r.elo.abs() < 0.05 { 0.0 } else { r.elo };
        out.push_str(&format!(
            "{:>4}  {:<width$}  {:>7.1}  {:>6.1}  {:>6}  {:>5.1}%  {:>5.1}%\n",
            rank + 1,
            r.name,
            elo,
            r.error,
            r.games,
            100.0 * r.points / games,
            100.0 * r.draws as f64 / games,
        ));
    }
    out
}

/// The usage line of `arena rate`.
pub const USAGE: &str = "arena rate [--anchor NAME=ELO] [--prior P] FILE.pgn...";

/// `arena rate [--anchor NAME=ELO] [--prior P] FILE...`: reads the files, fits the
/// ratings and returns the report to print.
pub fn rate_command(args: &[String]) -> Result<String, RateCommandError> {
    let mut options = FitOptions::default();
    let mut files = Vec::new();
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| RateCommandError::NeedsValue(arg.clone()))
        };
        match arg.as_str() {
            "--help" | "-h" => return Ok(format!("usage: {USAGE}\n")),
            "--anchor" => {
                let v = value()?;
                let parsed = v
                    .rsplit_once('=')
                    .and_then(|(name, elo)| Some((name.trim(), elo.trim().parse::<f64>().ok()?)));
                match parsed {
                    Some((name, elo)) if !name.is_empty() && elo.is_finite() && elo.abs() <= 100_000.0 => {
                        options.anchor = Some((name.to_string(), elo))
                    }
                    _ => return Err(RateCommandError::Anchor(v)),
                }
            }
            "--prior" => {
                let v = value()?;
                match v.trim().parse::<f64>() {
                    Ok(p) if p.is_finite() && (0.0..=MAX_PRIOR).contains(&p) => options.prior = p,
                    _ => return Err(RateCommandError::Prior(v)),
                }
            }
            other if other.starts_with('-') && other.len() > 1 => {
                return Err(RateCommandError::UnknownOption(other.to_string()))
            }
            file => files.push(file.to_string()),
        }
    }
    if files.is_empty() {
        return Err(RateCommandError::NoFiles);
    }
    let mut games = Vec::new();
    let mut unfinished = 0;
    for file in &files {
        let bytes = std::fs::read(file).map_err(|source| RateCommandError::Read {
            file: file.clone(),
            source,
        })?;
        let results = read_results(&String::from_utf8_lossy(&bytes), file)?;
        games.extend(results.games);
        unfinished += results.unfinished;
    }
    let ratings = fit(&games, &options)?;
    let mut out = format!(
        "{} games of {} players from {} file{}{}\n",
        games.len(),
        ratings.len(),
        files.len(),
        if files.len() == 1 { "" } else { "s" },
        if unfinished > 0 {
            format!(" ({unfinished} unfinished left out)")
        } else {
            String::new()
        }
    );
    out.push_str(&format!(
        "Joint maximum-likelihood fit, logistic, a draw is half a point, prior {} virtual draw{} \
         per pair that met; +/- is a 95% interval relative to {}\n",
        options.prior,
        if options.prior == 1.0 { "" } else { "s" },
        match &options.anchor {
            Some((name, elo)) => format!("the anchor {name} = {elo}"),
            None => "the mean (0)".to_string(),
        }
    ));
    out.push_str(&render(&ratings));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use movegen::rng::SplitMix64;

    fn game(white: &str, black: &str, white_points: f64) -> GameRecord {
        GameRecord {
            white: white.into(),
            black: black.into(),
            white_points,
        }
    }

    /// `wins`, `draws` and `losses` of `a` against `b`, colours alternating.
    fn results(a: &str, b: &str, wins: u32, draws: u32, losses: u32) -> Vec<GameRecord> {
        let mut out = Vec::new();
        let outcomes = std::iter::repeat_n(1.0, wins as usize)
            .chain(std::iter::repeat_n(0.5, draws as usize))
            .chain(std::iter::repeat_n(0.0, losses as usize));
        for (i, s) in outcomes.enumerate() {
            if i % 2 == 0 {
                out.push(game(a, b, s));
            } else {
                out.push(game(b, a, 1.0 - s));
            }
        }
        out
    }

    fn find<'a>(ratings: &'a [Rating], name: &str) -> &'a Rating {
        ratings.iter().find(|r| r.name == name).unwrap()
    }

    fn closed_form(score: f64) -> f64 {
        -400.0 * (1.0 / score - 1.0).log10()
    }

    #[test]
    fn two_players_match_the_closed_form() {
        // 30 wins, 10 draws, 20 losses: 35 / 60.
        let games = results("A", "B", 30, 10, 20);
        let pure = FitOptions {
            prior: 0.0,
            anchor: Some(("B".into(), 0.0)),
        };
        let ratings = fit(&games, &pure).unwrap();
        let (a, b) = (find(&ratings, "A"), find(&ratings, "B"));
        let expected = closed_form(35.0 / 60.0);
        assert!((a.elo - expected).abs() < 1e-6, "{} vs {expected}", a.elo);
        assert_eq!((b.elo, b.error), (0.0, 0.0));
        // The error: 1 / sqrt(information), information = K^2 n s (1 - s).
        let s: f64 = 35.0 / 60.0;
        let sigma = 1.0 / (K * (60.0 * s * (1.0 - s)).sqrt());
        assert!(
            (a.error - Z_95 * sigma).abs() < 1e-6,
            "{} vs {}",
            a.error,
            Z_95 * sigma
        );
        assert_eq!((a.games, a.points, a.draws), (60, 35.0, 10));
        // Mean 0: each half of the difference, the same error bar for both, halved.
        let ratings = fit(
            &games,
            &FitOptions {
                prior: 0.0,
                anchor: None,
            },
        )
        .unwrap();
        assert!((find(&ratings, "A").elo - expected / 2.0).abs() < 1e-6);
        assert!((find(&ratings, "B").elo + expected / 2.0).abs() < 1e-6);
        assert!((find(&ratings, "B").error - Z_95 * sigma / 2.0).abs() < 1e-6);
        // The default prior is one virtual draw: (35 + 0.5) / 61.
        let ratings = fit(&games, &FitOptions::default()).unwrap();
        let diff = find(&ratings, "A").elo - find(&ratings, "B").elo;
        assert!((diff - closed_form(35.5 / 61.0)).abs() < 1e-6);
        // A losing score is negative.
        let ratings = fit(&results("A", "B", 2, 4, 14), &pure).unwrap();
        assert!((find(&ratings, "A").elo - closed_form(4.0 / 20.0)).abs() < 1e-6);
    }

    #[test]
    fn a_synthetic_tournament_recovers_the_true_ratings() {
        let truth = [
            ("p0", -300.0),
            ("p1", -120.0),
            ("p2", 0.0),
            ("p3", 60.0),
            ("p4", 250.0),
            ("p5", 420.0),
        ];
        let mut rng = SplitMix64(7);
        let mut games = Vec::new();
        // A round robin of 4000 games a pair, except that the two extremes never meet.
        for (i, &(a, ra)) in truth.iter().enumerate() {
            for &(b, rb) in &truth[i + 1..] {
                if (a, b) == ("p0", "p5") {
                    continue;
                }
                let expected = 1.0 / (1.0 + 10f64.powf((rb - ra) / 400.0));
                let draw = expected.min(1.0 - expected) * 0.6;
                for g in 0..4000 {
                    let u = rng.next_u64() as f64 / u64::MAX as f64;
                    let s = if u < expected - draw / 2.0 {
                        1.0
                    } else if u < expected + draw / 2.0 {
                        0.5
                    } else {
                        0.0
                    };
                    games.push(if g % 2 == 0 {
                        game(a, b, s)
                    } else {
                        game(b, a, 1.0 - s)
                    });
                }
            }
        }
        let options = FitOptions {
            prior: 1.0,
            anchor: Some(("p2".into(), 0.0)),
        };
        let ratings = fit(&games, &options).unwrap();
        assert_eq!(
            ratings.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
            ["p5", "p4", "p3", "p2", "p1", "p0"]
        );
        for (name, true_elo) in truth {
            let r = find(&ratings, name);
            // Within 3 standard errors, and the error bars are of the expected size.
            assert!(
                (r.elo - true_elo).abs() <= 1.5 * r.error.max(1.0),
                "{name}: {} +- {} vs {true_elo}",
                r.elo,
                r.error
            );
            if name != "p2" {
                assert!((4.0..12.0).contains(&r.error), "{name}: +- {}", r.error);
            }
        }
        // Mean 0: the same differences, shifted.
        let centred = fit(&games, &FitOptions::default()).unwrap();
        let mean: f64 = centred.iter().map(|r| r.elo).sum::<f64>() / centred.len() as f64;
        assert!(mean.abs() < 1e-6);
        let shift = find(&centred, "p2").elo;
        for r in &ratings {
            assert!((find(&centred, &r.name).elo - shift - r.elo).abs() < 1e-6);
        }
    }

    #[test]
    fn the_anchor_fixes_the_scale_and_has_no_error() {
        let mut games = results("luft", "sf2200", 12, 4, 4);
        games.extend(results("luft", "glaurung", 3, 5, 12));
        games.extend(results("other", "sf2200", 6, 8, 6));
        let anchored = fit(
            &games,
            &FitOptions {
                prior: 1.0,
                anchor: Some(("sf2200".into(), 2200.0)),
            },
        )
        .unwrap();
        let sf = find(&anchored, "sf2200");
        assert_eq!((sf.elo, sf.error), (2200.0, 0.0));
        let free = fit(&games, &FitOptions::default()).unwrap();
        for r in &anchored {
            let shifted = find(&free, &r.name).elo - find(&free, "sf2200").elo + 2200.0;
            assert!((r.elo - shifted).abs() < 1e-6, "{}", r.name);
            // Relative to an anchor the bars are wider than relative to the mean.
            if r.name != "sf2200" {
                assert!(r.error > find(&free, &r.name).error, "{}", r.name);
            }
        }
        // "other" drew its match with the anchor.
        assert!((find(&anchored, "other").elo - 2200.0).abs() < 1e-6);
        let missing = FitOptions {
            prior: 1.0,
            anchor: Some(("sf9999".into(), 1.0)),
        };
        assert_eq!(
            fit(&games, &missing).map_err(|e| e.to_string()),
            Err("the anchor \"sf9999\" is not among the players (glaurung, luft, other, sf2200)".into())
        );
    }

    #[test]
    fn a_perfect_score_stays_finite_under_the_prior_and_is_refused_without_it() {
        let mut games = results("A", "B", 20, 0, 0);
        games.extend(results("B", "C", 5, 10, 5));
        let ratings = fit(&games, &FitOptions::default()).unwrap();
        let (a, b) = (find(&ratings, "A"), find(&ratings, "B"));
        // A met only B: their difference is the closed form of 20.5 / 21.
        assert!((a.elo - b.elo - closed_form(20.5 / 21.0)).abs() < 1e-6);
        assert!(a.elo.is_finite() && a.error.is_finite() && a.error > 100.0);
        assert_eq!(ratings[0].name, "A");
        let pure = FitOptions {
            prior: 0.0,
            anchor: None,
        };
        assert_eq!(
            fit(&games, &pure).map_err(|e| e.to_string()),
            Err(
                "with --prior 0 the maximum-likelihood ratings are infinite: A scored 0 % or 100 %; \
                 give --prior above 0 (virtual draws per pair, 1 by default)"
                    .into()
            )
        );
        // A group that scored everything against another group, with no one at 100 %.
        let mut games = results("A", "B", 5, 5, 5);
        games.extend(results("C", "D", 5, 5, 5));
        games.extend(results("A", "C", 10, 0, 0));
        assert!(fit(&games, &pure)
            .unwrap_err()
            .to_string()
            .contains("a group of players scored every point"));
        assert!(fit(&games, &FitOptions::default()).is_ok());
        // The largest prior is accepted, anything beyond refused.
        assert!(fit(
            &games,
            &FitOptions {
                prior: MAX_PRIOR,
                anchor: None
            }
        )
        .is_ok());
        assert!(fit(
            &games,
            &FitOptions {
                prior: f64::NAN,
                anchor: None
            }
        )
        .is_err());
    }

    #[test]
    fn players_who_never_meet_are_refused() {
        let mut games = results("A", "B", 5, 5, 5);
        games.extend(results("C", "D", 5, 5, 5));
        assert_eq!(
            fit(&games, &FitOptions::default()).map_err(|e| e.to_string()),
            Err(
                "the games do not link all players, so they have no common scale: {A, B} and {C, D} \
                 never meet (directly or through others); rate each group on its own"
                    .into()
            )
        );
        assert_eq!(fit(&[], &FitOptions::default()), Err(RateError::NoGames));
    }

    #[test]
    fn pgn_results_are_read_from_the_tags() {
        let text = "\u{feff}[Event \"arena match\"]\n[White \"luft \\\"dev\\\"\"]\n[Black \"sf2200\"]\n\
                    [Result \"1-0\"]\n\n1. e4 {book\n[not a tag]} e5 2. Qh5 1-0\n\n\
                    [White \"sf2200\"]\n[Black \"luft \\\"dev\\\"\"]\n[Result \"1/2-1/2\"]\n\n1. d4 1/2-1/2\n\
                    [White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n\n*\n\
                    ; a comment\n%escape\n[White \"b\"]\n[Black \"a\"]\n[Result \"0-1\"]\n0-1\n";
        let r = read_results(text, "x.pgn").unwrap();
        assert_eq!(
            r.games,
            vec![
                game("luft \"dev\"", "sf2200", 1.0),
                game("sf2200", "luft \"dev\"", 0.5),
                game("b", "a", 0.0)
            ]
        );
        assert_eq!(r.unfinished, 1);
        // A file of tags only (no movetext) is one game.
        let r = read_results("[White \"a\"]\n[Black \"b\"]\n[Result \"0-1\"]\n", "y").unwrap();
        assert_eq!(r.games, vec![game("a", "b", 0.0)]);
        assert_eq!(read_results("", "empty").unwrap(), PgnResults::default());
    }

    #[test]
    fn bad_pgn_results_are_refused_with_the_place() {
        for (text, error) in [
            (
                "[White \"a\"]\n[Result \"1-0\"]\n1-0\n",
                "x.pgn: game 1 (line 1) has no Black tag",
            ),
            (
                "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n1-0\n\n[White \"a\"]\n[Black \"b\"]\n\
                 [Result \"2-0\"]\n1-0\n",
                "x.pgn: game 2 (line 6) has the result \"2-0\" (expected 1-0, 0-1, 1/2-1/2 or *)",
            ),
            (
                "[White \"a\"]\n[Black \" \"]\n[Result \"1-0\"]\n",
                "x.pgn: game 1 (line 1) has an empty Black tag",
            ),
            (
                "[White \"a\"]\n[Black \"a\"]\n[Result \"1-0\"]\n",
                "x.pgn: game 1 (line 1): a plays itself",
            ),
            ("1. e4 e5 1-0\n", "x.pgn: game 1 (line 1) has no White tag"),
        ] {
            assert_eq!(
                read_results(text, "x.pgn").map_err(|e| e.to_string()),
                Err(error.to_string()),
                "{text}"
            );
        }
    }

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn the_rate_command_reads_files_and_checks_its_arguments() {
        let dir = testing::temp("rate");
        let write = |name: &str, games: &[GameRecord]| {
            let mut text = String::new();
            for g in games {
                let result = match g.white_points {
                    1.0 => "1-0",
                    0.0 => "0-1",
                    _ => "1/2-1/2",
                };
                text.push_str(&format!(
                    "[White \"{}\"]\n[Black \"{}\"]\n[Result \"{result}\"]\n\n{result}\n\n",
                    g.white, g.black
                ));
            }
            let path = dir.join(name);
            std::fs::write(&path, text).unwrap();
            path.to_string_lossy().into_owned()
        };
        let one = write("one.pgn", &results("luft", "sf2200", 12, 0, 8));
        let two = write("two.pgn", &results("luft", "toga", 5, 0, 15));
        let out = rate_command(&args(&format!("--anchor sf2200=2200 {one} {two}"))).unwrap();
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "40 games of 3 players from 2 files");
        assert!(lines[1].contains("the anchor sf2200 = 2200"), "{}", lines[1]);
        assert_eq!(
            lines[2].split_whitespace().collect::<Vec<_>>(),
            ["Rank", "Name", "Elo", "+/-", "Games", "Score", "Draws"]
        );
        // sf2200 met only luft: their difference is the closed form of (12 + 0.5) / 21.
        let row: Vec<&str> = lines[4].split_whitespace().collect();
        let luft = format!("{:.1}", 2200.0 + closed_form(12.5 / 21.0));
        assert_eq!(row[..3], ["2", "luft", luft.as_str()], "{out}");
        assert_eq!(row[4..], ["40", "42.5%", "0.0%"], "{out}");
        let row: Vec<&str> = lines[5].split_whitespace().collect();
        assert_eq!(row[..4], ["3", "sf2200", "2200.0", "0.0"], "{out}");
        for (line, error) in [
            ("", "rate: no PGN files given (usage: arena rate [--anchor NAME=ELO] [--prior P] FILE.pgn...)"),
            ("--anchor sf2200", "rate: --anchor expects NAME=ELO (a number), found \"sf2200\""),
            ("--anchor =5", "rate: --anchor expects NAME=ELO (a number), found \"=5\""),
            ("--anchor a=inf", "rate: --anchor expects NAME=ELO (a number), found \"a=inf\""),
            ("--prior", "rate: --prior needs a value"),
            (
                "--prior -1",
                "rate: --prior must be a number of virtual draws from 0 to 1000, found \"-1\"",
            ),
            ("--bogus x", "rate: unknown option --bogus (usage: arena rate [--anchor NAME=ELO] [--prior P] FILE.pgn...)"),
        ] {
            assert_eq!(
                rate_command(&args(line)).map_err(|e| e.to_string()),
                Err(error.to_string()),
                "{line}"
            );
        }
        let missing = dir.join("missing.pgn").to_string_lossy().into_owned();
        assert!(rate_command(std::slice::from_ref(&missing))
            .unwrap_err()
            .to_string()
            .starts_with(&format!("rate: cannot read {missing}:")));
        assert!(rate_command(&args("--help"))
            .unwrap()
            .starts_with("usage: arena rate"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
