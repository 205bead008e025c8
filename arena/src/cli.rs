//! Command-line parsing in the style of fastchess and cutechess-cli, so habits and scripts
//! carry over: `--engine cmd=... name=... option.Hash=16`, `--each tc=8+0.08`,
//! `--openings file=... format=epd order=random`, `--sprt elo0=0 elo1=5 ...`. Single-dash
//! spellings (`-engine`) are accepted too. Every value is checked, numbers against the
//! range where they make sense (at least one round, a time margin under a day, finite Elo
//! bounds, ...); a mistake is one clear error line.

use crate::engine_process::EngineConfig;
use crate::play::{Adjudication, Limits};
use crate::stats::Model;

/// SPRT settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SprtConfig {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: Model,
}

/// Where the openings come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningsConfig {
    pub file: String,
    pub pgn: bool,
    pub random: bool,
    pub plies: Option<usize>,
    pub start: usize,
}

/// A whole match.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// The tested engine first.
    pub engines: Vec<EngineConfig>,
    pub limits: Limits,
    pub adjudication: Adjudication,
    pub openings: Option<OpeningsConfig>,
    pub rounds: u64,
    pub games: u64,
    pub concurrency: usize,
    pub sprt: Option<SprtConfig>,
    pub pgnout: Option<String>,
    pub seed: u64,
    pub recover: bool,
    pub rating_interval: u64,
    pub chess960: bool,
}

fn key_values(tokens: &[String]) -> Result<Vec<(String, String)>, String> {
    tokens
        .iter()
        .map(|t| {
            t.split_once('=')
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .ok_or_else(|| format!("expected key=value, found {t:?}"))
        })
        .collect()
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .parse()
        .map_err(|_| format!("bad value {value:?} for {key}"))
}

/// Most rounds a match may have (the game numbers stay far from overflow).
pub const MAX_ROUNDS: u64 = 1_000_000_000;
/// Largest time margin, in milliseconds: a day.
pub const MAX_TIME_MARGIN_MS: u64 = 86_400_000;
/// Largest score, in centipawns, an adjudication rule may name (mates count as 100000).
pub const MAX_ADJUDICATION_SCORE: i32 = 100_000;
/// Largest |Elo| an SPRT bound may have.
pub const MAX_SPRT_ELO: f64 = 1000.0;

/// A whole number from `lo` to `hi`.
fn whole<T>(key: &str, value: &str, lo: T, hi: T) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    match value.trim().parse::<T>() {
        Ok(v) if v >= lo && v <= hi => Ok(v),
        _ => Err(format!(
            "{key} must be a whole number from {lo} to {hi}, found {value:?}"
        )),
    }
}

/// An SPRT Elo bound: finite, at most [`MAX_SPRT_ELO`] either way.
pub fn sprt_elo(key: &str, value: &str) -> Result<f64, String> {
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v.abs() <= MAX_SPRT_ELO => Ok(v),
        _ => Err(format!(
            "{key} must be a number from -{MAX_SPRT_ELO} to {MAX_SPRT_ELO}, found {value:?}"
        )),
    }
}

/// An SPRT error probability, in (0, 0.5).
pub fn sprt_probability(key: &str, value: &str) -> Result<f64, String> {
    match value.trim().parse::<f64>() {
        Ok(v) if v > 0.0 && v < 0.5 => Ok(v),
        _ => Err(format!(
            "{key} must be a probability above 0 and below 0.5, found {value:?}"
        )),
    }
}

/// Parses `tc=base+inc` (seconds, either part fractional; `40/60+1` moves-per-session
/// forms are not supported) into milliseconds.
fn parse_tc(value: &str) -> Result<(u64, u64), String> {
    let (base, inc) = value.split_once('+').unwrap_or((value, "0"));
    let secs = |s: &str| -> Result<u64, String> {
        let v: f64 = s
            .parse()
            .map_err(|_| format!("bad time control {value:?} (expected base+inc in seconds)"))?;
        if !(0.0..=86_400.0).contains(&v) {
            return Err(format!("time control {value:?} out of range"));
        }
        Ok((v * 1000.0).round() as u64)
    };
    let (base, inc) = (secs(base)?, secs(inc)?);
    if base == 0 && inc == 0 {
        return Err(format!("time control {value:?} gives no time"));
    }
    Ok((base, inc))
}

/// Splits the arguments into `--option values...` groups.
fn groups(args: &[String]) -> Result<Vec<(String, Vec<String>)>, String> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for arg in args {
        if let Some(name) = arg.strip_prefix("--").or_else(|| arg.strip_prefix('-')) {
            if name.is_empty() || name.chars().next().is_some_and(|c| c.is_ascii_digit()) {
                match out.last_mut() {
                    Some(group) => group.1.push(arg.clone()),
                    None => return Err(format!("unexpected argument {arg:?}")),
                }
            } else {
                out.push((name.to_string(), Vec::new()));
            }
        } else {
            match out.last_mut() {
                Some(group) => group.1.push(arg.clone()),
                None => return Err(format!("unexpected argument {arg:?}")),
            }
        }
    }
    Ok(out)
}

/// Parses a match command line (without the program name).
pub fn parse_match(args: &[String]) -> Result<MatchConfig, String> {
    let mut config = MatchConfig {
        engines: Vec::new(),
        limits: Limits {
            time_margin: 0,
            ..Limits::default()
        },
        adjudication: Adjudication::default(),
        openings: None,
        rounds: 1,
        games: 2,
        concurrency: 1,
        sprt: None,
        pgnout: None,
        seed: 0,
        recover: false,
        rating_interval: 10,
        chess960: false,
    };
    let mut each_options: Vec<(String, String)> = Vec::new();
    let mut engine_limits: Vec<Vec<(String, String)>> = Vec::new();
    for (name, values) in groups(args)? {
        let single = |values: &[String]| -> Result<String, String> {
            match values {
                [v] => Ok(v.clone()),
                _ => Err(format!("--{name} takes one value")),
            }
        };
        match name.as_str() {
            "engine" => {
                let mut engine = EngineConfig {
                    cmd: String::new(),
                    name: String::new(),
                    args: Vec::new(),
                    options: Vec::new(),
                };
                let mut limits = Vec::new();
                for (k, v) in key_values(&values)? {
                    match k.as_str() {
                        "cmd" => engine.cmd = v,
                        "name" => engine.name = v,
                        "args" => engine.args = v.split_whitespace().map(String::from).collect(),
                        "proto" if v == "uci" => {}
                        _ if k.starts_with("option.") => {
                            engine.options.push((k["option.".len()..].to_string(), v))
                        }
                        "tc" | "nodes" | "depth" | "st" | "timemargin" => limits.push((k, v)),
                        other => return Err(format!("unknown engine setting {other:?}")),
                    }
                }
                if engine.cmd.is_empty() {
                    return Err("--engine needs cmd=PATH".into());
                }
                if engine.name.is_empty() {
                    engine.name = std::path::Path::new(&engine.cmd)
                        .file_name()
                        .map_or_else(|| engine.cmd.clone(), |n| n.to_string_lossy().into_owned());
                }
                config.engines.push(engine);
                engine_limits.push(limits);
            }
            "each" => {
                for (k, v) in key_values(&values)? {
                    if let Some(option) = k.strip_prefix("option.") {
                        each_options.push((option.to_string(), v));
                    } else {
                        apply_limit(&mut config.limits, &k, &v)?;
                    }
                }
            }
            "openings" => {
                let mut openings = OpeningsConfig {
                    file: String::new(),
                    pgn: false,
                    random: false,
                    plies: None,
                    start: 1,
                };
                for (k, v) in key_values(&values)? {
                    match k.as_str() {
                        "file" => openings.file = v,
                        "format" => {
                            openings.pgn = match v.as_str() {
                                "epd" => false,
                                "pgn" => true,
                                other => {
                                    return Err(format!("unknown openings format {other:?} (epd or pgn)"))
                                }
                            }
                        }
                        "order" => {
                            openings.random = match v.as_str() {
                                "random" => true,
                                "sequential" => false,
                                other => {
                                    return Err(format!("unknown order {other:?} (random or sequential)"))
                                }
                            }
                        }
                        "plies" => openings.plies = Some(whole("--openings plies", &v, 0, 100_000)?),
                        "start" => openings.start = whole("--openings start (1-based)", &v, 1, usize::MAX)?,
                        "policy" => {}
                        other => return Err(format!("unknown openings setting {other:?}")),
                    }
                }
                if openings.file.is_empty() {
                    return Err("--openings needs file=PATH".into());
                }
                config.openings = Some(openings);
            }
            "rounds" => config.rounds = whole("--rounds", &single(&values)?, 1, MAX_ROUNDS)?,
            "games" => {
                config.games = number("--games", &single(&values)?)?;
                if !(1..=2).contains(&config.games) {
                    return Err("--games must be 1 or 2".into());
                }
            }
            "concurrency" => {
                config.concurrency = number("--concurrency", &single(&values)?)?;
                if !(1..=256).contains(&config.concurrency) {
                    return Err("--concurrency must be 1 to 256".into());
                }
            }
            "sprt" => {
                let mut sprt = SprtConfig {
                    elo0: 0.0,
                    elo1: 5.0,
                    alpha: 0.05,
                    beta: 0.05,
                    model: Model::Normalized,
                };
                for (k, v) in key_values(&values)? {
                    match k.as_str() {
                        "elo0" => sprt.elo0 = sprt_elo("--sprt elo0", &v)?,
                        "elo1" => sprt.elo1 = sprt_elo("--sprt elo1", &v)?,
                        "alpha" => sprt.alpha = sprt_probability("--sprt alpha", &v)?,
                        "beta" => sprt.beta = sprt_probability("--sprt beta", &v)?,
                        "model" => sprt.model = v.parse()?,
                        other => return Err(format!("unknown sprt setting {other:?}")),
                    }
                }
                if sprt.elo1 <= sprt.elo0 {
                    return Err("--sprt needs elo1 > elo0".into());
                }
                if !(0.0 < sprt.alpha && sprt.alpha < 0.5 && 0.0 < sprt.beta && sprt.beta < 0.5) {
                    return Err("--sprt alpha and beta must be in (0, 0.5)".into());
                }
                config.sprt = Some(sprt);
            }
            "resign" => {
                let (mut count, mut score) = (3, 600);
                for (k, v) in key_values(&values)? {
                    match k.as_str() {
                        "movecount" => count = whole("--resign movecount", &v, 1, 10_000)?,
                        "score" => score = whole("--resign score", &v, 1, MAX_ADJUDICATION_SCORE)?,
                        "twosided" => {}
                        other => return Err(format!("unknown resign setting {other:?}")),
                    }
                }
                config.adjudication.resign = Some((count, score));
            }
            "draw" => {
                let (mut number_, mut count, mut score) = (34, 8, 20);
                for (k, v) in key_values(&values)? {
                    match k.as_str() {
                        "movenumber" => number_ = whole("--draw movenumber", &v, 0, 10_000)?,
                        "movecount" => count = whole("--draw movecount", &v, 1, 10_000)?,
                        "score" => score = whole("--draw score", &v, 0, MAX_ADJUDICATION_SCORE)?,
                        other => return Err(format!("unknown draw setting {other:?}")),
                    }
                }
                config.adjudication.draw = Some((number_, count, score));
            }
            "maxmoves" => {
                config.adjudication.max_moves = Some(whole("--maxmoves", &single(&values)?, 1, 100_000)?)
            }
            "pgnout" => {
                // fastchess style "file=F" or a bare path.
                let v = single(&values)?;
                config.pgnout = Some(v.strip_prefix("file=").unwrap_or(&v).to_string());
            }
            "seed" => config.seed = number("--seed", &single(&values)?)?,
            "recover" => config.recover = true,
            // 0: no interim reports.
            "ratinginterval" => {
                config.rating_interval = whole("--ratinginterval", &single(&values)?, 0, MAX_ROUNDS)?
            }
            "variant" => {
                config.chess960 = match single(&values)?.as_str() {
                    "standard" => false,
                    "fischerandom" | "chess960" => true,
                    other => return Err(format!("unknown variant {other:?} (standard or chess960)")),
                }
            }
            other => return Err(format!("unknown option --{other}")),
        }
    }
    if config.engines.len() != 2 {
        return Err(format!(
            "exactly two --engine are needed, found {}",
            config.engines.len()
        ));
    }
    for engine in &mut config.engines {
        for (k, v) in &each_options {
            if !engine.options.iter().any(|(name, _)| name == k) {
                engine.options.push((k.clone(), v.clone()));
            }
        }
    }
    for limits in &engine_limits {
        for (k, v) in limits {
            apply_limit(&mut config.limits, k, v)?;
        }
    }
    if config.chess960 {
        for engine in &mut config.engines {
            engine.options.push(("UCI_Chess960".into(), "true".into()));
        }
    }
    let l = &config.limits;
    if l.clock.is_none() && l.nodes.is_none() && l.depth.is_none() && l.movetime.is_none() {
        return Err("no time control: give --each tc=BASE+INC, nodes=N, depth=N or st=SECONDS".into());
    }
    Ok(config)
}

fn apply_limit(limits: &mut Limits, key: &str, value: &str) -> Result<(), String> {
    match key {
        "tc" => limits.clock = Some(parse_tc(value)?),
        "nodes" => limits.nodes = Some(whole("nodes", value, 1, u64::MAX / 2)?),
        "depth" => limits.depth = Some(whole("depth", value, 1, 1000)?),
        "st" => {
            let secs: f64 = number(key, value)?;
            if !(0.001..=86_400.0).contains(&secs) {
                return Err(format!("st must be 0.001 to 86400 seconds, found {value:?}"));
            }
            limits.movetime = Some((secs * 1000.0).round() as u64);
        }
        "timemargin" => limits.time_margin = whole("timemargin (ms)", value, 0, MAX_TIME_MARGIN_MS)?,
        "proto" => {}
        other => return Err(format!("unknown setting {other:?}")),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> Vec<String> {
        text.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_a_fastchess_style_command_line() {
        let c = parse_match(&args(
            "--engine cmd=./new name=new option.Hash=32 --engine cmd=./old name=old \
             --each tc=8+0.08 timemargin=50 option.Threads=1 --openings file=book.epd format=epd order=random \
             --rounds 100 --games 2 --concurrency 2 --sprt elo0=0 elo1=5 model=logistic \
             --resign movecount=3 score=600 --draw movenumber=34 movecount=8 score=20 --maxmoves 200 \
             --pgnout games.pgn --seed 42 --recover --ratinginterval 5",
        ))
        .unwrap();
        assert_eq!(c.engines[0].name, "new");
        assert_eq!(
            c.engines[0].options,
            vec![
                ("Hash".to_string(), "32".to_string()),
                ("Threads".to_string(), "1".to_string())
            ]
        );
        assert_eq!(c.limits.clock, Some((8000, 80)));
        assert_eq!(c.limits.time_margin, 50);
        assert!(c.openings.as_ref().unwrap().random);
        assert_eq!((c.rounds, c.games, c.concurrency, c.seed), (100, 2, 2, 42));
        assert_eq!(c.sprt.as_ref().unwrap().model, Model::Logistic);
        assert_eq!(c.adjudication.resign, Some((3, 600)));
        assert_eq!(c.adjudication.draw, Some((34, 8, 20)));
        assert_eq!(c.adjudication.max_moves, Some(200));
        assert!(c.recover);
        // Single-dash spellings and node limits.
        let c = parse_match(&args("-engine cmd=a -engine cmd=b -each nodes=5000 -rounds 2")).unwrap();
        assert_eq!((c.limits.nodes, c.engines[1].name.as_str()), (Some(5000), "b"));
    }

    #[test]
    fn rejects_bad_values_with_a_reason() {
        for (line, error) in [
            (
                "--engine cmd=a --each tc=1+0",
                "exactly two --engine are needed, found 1",
            ),
            (
                "--engine cmd=a --engine cmd=b",
                "no time control: give --each tc=BASE+INC, nodes=N, depth=N or st=SECONDS",
            ),
            (
                "--engine cmd=a --engine cmd=b --each tc=x",
                "bad time control \"x\" (expected base+inc in seconds)",
            ),
            (
                "--engine cmd=a --engine cmd=b --each tc=1 --games 3",
                "--games must be 1 or 2",
            ),
            (
                "--engine cmd=a --engine cmd=b --each tc=1 --sprt elo0=5 elo1=0",
                "--sprt needs elo1 > elo0",
            ),
            (
                "--engine cmd=a --engine cmd=b --each tc=1 --bogus",
                "unknown option --bogus",
            ),
            (
                "--engine name=x --engine cmd=b --each tc=1",
                "--engine needs cmd=PATH",
            ),
            ("stray", "unexpected argument \"stray\""),
        ] {
            assert_eq!(parse_match(&args(line)), Err(error.to_string()), "{line}");
        }
    }

    #[test]
    fn numbers_out_of_range_are_refused_with_the_range() {
        let base = "--engine cmd=a --engine cmd=b";
        for (rest, error) in [
            ("--each tc=1 --rounds 0", "--rounds must be a whole number from 1 to 1000000000, found \"0\""),
            ("--each tc=1 --rounds -1", "--rounds must be a whole number from 1 to 1000000000, found \"-1\""),
            (
                "--each tc=1 --rounds 18446744073709551615",
                "--rounds must be a whole number from 1 to 1000000000, found \"18446744073709551615\"",
            ),
            ("--each nodes=0", "nodes must be a whole number from 1 to 9223372036854775807, found \"0\""),
            ("--each depth=0", "depth must be a whole number from 1 to 1000, found \"0\""),
            ("--each st=0", "st must be 0.001 to 86400 seconds, found \"0\""),
            ("--each st=NaN", "st must be 0.001 to 86400 seconds, found \"NaN\""),
            ("--each st=0.0001", "st must be 0.001 to 86400 seconds, found \"0.0001\""),
            ("--each tc=inf", "time control \"inf\" out of range"),
            (
                "--each tc=1 timemargin=18446744073709551615",
                "timemargin (ms) must be a whole number from 0 to 86400000, found \"18446744073709551615\"",
            ),
            ("--each tc=1 --maxmoves 0", "--maxmoves must be a whole number from 1 to 100000, found \"0\""),
            (
                "--each tc=1 --resign movecount=0",
                "--resign movecount must be a whole number from 1 to 10000, found \"0\"",
            ),
            (
                "--each tc=1 --resign score=-5",
                "--resign score must be a whole number from 1 to 100000, found \"-5\"",
            ),
            (
                "--each tc=1 --draw movecount=0",
                "--draw movecount must be a whole number from 1 to 10000, found \"0\"",
            ),
            ("--each tc=1 --draw score=-1", "--draw score must be a whole number from 0 to 100000, found \"-1\""),
            (
                "--each tc=1 --sprt elo0=0 elo1=NaN",
                "--sprt elo1 must be a number from -1000 to 1000, found \"NaN\"",
            ),
            (
                "--each tc=1 --sprt elo0=-inf elo1=5",
                "--sprt elo0 must be a number from -1000 to 1000, found \"-inf\"",
            ),
            (
                "--each tc=1 --sprt alpha=0.5",
                "--sprt alpha must be a probability above 0 and below 0.5, found \"0.5\"",
            ),
            (
                "--each tc=1 --sprt beta=nan",
                "--sprt beta must be a probability above 0 and below 0.5, found \"nan\"",
            ),
            (
                "--each tc=1 --openings file=x start=0",
                "--openings start (1-based) must be a whole number from 1 to 18446744073709551615, found \"0\"",
            ),
            (
                "--each tc=1 --ratinginterval -3",
                "--ratinginterval must be a whole number from 0 to 1000000000, found \"-3\"",
            ),
        ] {
            let line = format!("{base} {rest}");
            assert_eq!(parse_match(&args(&line)), Err(error.to_string()), "{line}");
        }
        // The edges of each range are accepted.
        let c = parse_match(&args(&format!(
            "{base} --each depth=1000 st=0.001 timemargin=86400000 --rounds 1000000000 --maxmoves 1 \
             --resign movecount=1 score=1 --draw movenumber=0 movecount=1 score=0 --ratinginterval 0 \
             --sprt elo0=-1000 elo1=1000"
        )))
        .unwrap();
        assert_eq!(
            (c.rounds, c.limits.depth, c.limits.movetime),
            (1_000_000_000, Some(1000), Some(1))
        );
        assert_eq!(c.adjudication.draw, Some((0, 1, 0)));
    }
}
