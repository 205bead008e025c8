//! The `perft` tool: counts move-tree leaves for one position (optionally divided by root
//! move) or checks a whole suite file against its published counts.
//!
//! ```text
//! perft --depth N [--fen FEN] [--chess960] [--divide]
//! perft --suite FILE [--max-nodes N] [--hash MIB] [--skip K] [--take K]
//! ```
//! `--hash` memoises subtrees by position for deep suite runs; `--skip K` starts a suite
//! at its K+1-th position and `--take K` checks K positions from there (to split a long run
//! over processes).
//! Exit codes: 0 success, 1 a suite mismatch, 2 bad arguments or input; 141 when stdout is
//! closed (`perft ... | head -1`), quietly, by the workspace's rule for standard output (the
//! `output` crate's, written out here in a few lines so that `movegen` keeps no
//! dependencies).

use movegen::suite::parse_suite;
use movegen::{perft, perft_divide, Board};
use std::process::ExitCode;
use std::time::Instant;

/// `println!` that ends the program quietly with status 141 when stdout is a closed pipe
/// (and with status 1, saying why, on any other write error) instead of a panic.
macro_rules! outln {
    ($($arg:tt)*) => {
        emit(format_args!($($arg)*))
    };
}

fn emit(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    let result = out.write_fmt(args).and_then(|()| out.write_all(b"\n"));
    drop(out);
    match result {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(141),
        Err(e) => {
            eprintln!("perft: error: cannot write to standard output: {e}");
            std::process::exit(1);
        }
    }
}

const USAGE: &str = "usage: perft --depth N [--fen FEN] [--chess960] [--divide]
       perft --suite FILE [--max-nodes N] [--hash MIB] [--skip K] [--take K]
  --max-nodes N  check only the depths whose published count is at most N
  --hash MIB     memoise subtrees by position (deep suite runs)
  --skip K       start at the suite's K+1-th position; --take K: check K positions
  --version      print the version";

struct Args {
    depth: Option<u32>,
    fen: Option<String>,
    chess960: bool,
    divide: bool,
    suite: Option<String>,
    max_nodes: Option<u64>,
    hash_mib: usize,
    skip: usize,
    take: usize,
}

fn parse_args(mut raw: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut args = Args {
        depth: None,
        fen: None,
        chess960: false,
        divide: false,
        suite: None,
        max_nodes: None,
        hash_mib: 0,
        skip: 0,
        take: usize::MAX,
    };
    while let Some(arg) = raw.next() {
        let mut value = |name: &str| raw.next().ok_or_else(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--depth" => {
                let v = value("--depth")?;
                args.depth = Some(
                    v.parse()
                        .ok()
                        .filter(|d| *d <= 20)
                        .ok_or_else(|| format!("bad depth {v:?}: expected a whole number from 0 to 20"))?,
                );
            }
            "--fen" => args.fen = Some(value("--fen")?),
            "--suite" => args.suite = Some(value("--suite")?),
            "--max-nodes" => {
                let v = value("--max-nodes")?;
                args.max_nodes = Some(
                    v.parse()
                        .map_err(|_| format!("bad --max-nodes {v:?}: expected a whole number"))?,
                );
            }
            "--hash" | "--skip" | "--take" => {
                let v = value(&arg)?;
                let n: usize = v
                    .parse()
                    .map_err(|_| format!("bad {arg} {v:?}: expected a whole number"))?;
                if arg == "--hash" && n > 1 << 16 {
                    return Err(format!("bad --hash {v:?}: at most 65536 (MiB)"));
                }
                match arg.as_str() {
                    "--hash" => args.hash_mib = n,
                    "--skip" => args.skip = n,
                    _ => args.take = n,
                }
            }
            "--chess960" => args.chess960 = true,
            "--divide" => args.divide = true,
            "-h" | "--help" => {
                outln!("{USAGE}");
                std::process::exit(0);
            }
            "-V" | "--version" => {
                outln!("perft {}", env!("CARGO_PKG_VERSION"));
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?} (try --help)")),
        }
    }
    if args.suite.is_some() == args.depth.is_some() {
        return Err("give exactly one of --depth N and --suite FILE (try --help)".to_string());
    }
    Ok(args)
}

fn run_single(args: &Args, depth: u32) -> Result<ExitCode, String> {
    let fen = args.fen.as_deref().unwrap_or(movegen::STARTPOS_FEN);
    let board = Board::from_fen_relaxed(fen).map_err(|e| format!("bad FEN {fen:?}: {e}"))?;
    let start = Instant::now();
    let nodes = if args.divide && depth > 0 {
        let mut total = 0;
        for (mv, count) in perft_divide(&board, depth) {
            outln!("{}: {count}", board.to_uci(mv, args.chess960));
            total += count;
        }
        total
    } else {
        perft(&board, depth)
    };
    let secs = start.elapsed().as_secs_f64();
    outln!("Nodes searched: {nodes}");
    eprintln!(
        "time {:.3} s, {:.1} Mnps",
        secs,
        nodes as f64 / secs.max(1e-9) / 1e6
    );
    Ok(ExitCode::SUCCESS)
}

fn run_suite(path: &str, args: &Args) -> Result<ExitCode, String> {
    let max_nodes = args.max_nodes;
    let mut table = match args.hash_mib {
        0 => None,
        mib => Some(movegen::PerftTable::try_new(mib)?),
    };
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let cases = parse_suite(&text).map_err(|e| format!("{path}: {e}"))?;
    let start = Instant::now();
    let (mut passed, mut failed, mut total_nodes) = (0, 0, 0u64);
    for case in cases.iter().skip(args.skip).take(args.take) {
        let board = match Board::from_fen_relaxed(&case.fen) {
            Ok(b) => b,
            Err(e) => {
                outln!("FAIL {}: bad FEN {:?}: {e}", case.name, case.fen);
                failed += 1;
                continue;
            }
        };
        let mut ok = true;
        let mut deepest = 0;
        for &(depth, expected) in &case.expected {
            if max_nodes.is_some_and(|cap| expected > cap) {
                continue;
            }
            let got = match table.as_mut() {
                Some(t) => movegen::perft_hashed(&board, depth, t),
                None => perft(&board, depth),
            };
            total_nodes += got;
            deepest = deepest.max(depth);
            if got != expected {
                outln!(
                    "FAIL {} depth {depth}: expected {expected}, got {got} ({})",
                    case.name,
                    case.fen
                );
                ok = false;
            }
        }
        if ok {
            outln!("ok   {} to depth {deepest}", case.name);
            passed += 1;
        } else {
            failed += 1;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    outln!("{passed} passed, {failed} failed, {total_nodes} nodes in {secs:.1} s");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

fn main() -> ExitCode {
    let result = parse_args(std::env::args().skip(1)).and_then(|args| match (&args.suite, args.depth) {
        (Some(path), _) => run_suite(path, &args),
        (None, Some(depth)) => run_single(&args, depth),
        (None, None) => Err("give --depth N or --suite FILE (try --help)".to_string()),
    });
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("perft: {message}");
            ExitCode::from(2)
        }
    }
}
