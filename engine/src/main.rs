//! The `luft` binary: UCI by default; `luft bench [depth]`; `luft perft <depth> [fen]`;
//! `luft genfens N seed S book <None|FILE> [plies P] [maxscore M]` (OpenBench).

use engine::uci::{default_net, stdout_writer, UciEngine};
use std::process::ExitCode;

/// Prints a line; a closed stdout (e.g. piped into `head`) ends quietly instead of panicking.
fn emit(line: &str) {
    use std::io::Write;
    if writeln!(std::io::stdout().lock(), "{line}").is_err() {
        std::process::exit(0);
    }
}

fn main() -> ExitCode {
    // OpenBench may pass a whole command ("bench", "genfens N seed S ...") as one argument.
    let joined = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    let args: Vec<String> = joined.split_whitespace().map(String::from).collect();
    match args.first().map(String::as_str) {
        None => {
            let mut engine = UciEngine::new(stdout_writer());
            engine.run(std::io::stdin().lock());
            ExitCode::SUCCESS
        }
        Some("bench") => {
            let depth = match args.get(1).map(|d| d.parse::<i32>()) {
                None => None,
                Some(Ok(d)) if (1..=64).contains(&d) => Some(d),
                Some(_) => {
                    eprintln!("luft: bad bench depth {:?} (1 to 64)", args[1]);
                    return ExitCode::from(2);
                }
            };
            let last = engine::bench::run(depth, &default_net(), &mut |line| emit(line));
            emit(&last);
            ExitCode::SUCCESS
        }
        Some("genfens") => {
            let words: Vec<&str> = args
                .iter()
                .skip(1)
                .map(String::as_str)
                .take_while(|w| *w != "quit")
                .collect();
            let parsed = match engine::genfens::parse_args(&words) {
                Ok(a) => a,
                Err(e) => {
                    eprintln!("luft: {e}");
                    return ExitCode::from(2);
                }
            };
            match engine::genfens::generate(&parsed, &default_net()) {
                Ok(fens) => {
                    for fen in fens {
                        emit(&format!("info string genfens {fen}"));
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("luft: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Some("perft") => {
            let Some(depth) = args
                .get(1)
                .and_then(|d| d.parse::<u32>().ok())
                .filter(|d| *d <= 20)
            else {
                eprintln!("luft: usage: luft perft <depth 0-20> [fen]");
                return ExitCode::from(2);
            };
            let fen = if args.len() > 2 {
                args[2..].join(" ")
            } else {
                movegen::STARTPOS_FEN.to_string()
            };
            let board = match movegen::Board::from_fen(&fen) {
                Ok(b) => b,
                Err(e) => {
                    eprintln!("luft: bad FEN {fen:?}: {e}");
                    return ExitCode::from(2);
                }
            };
            let start = std::time::Instant::now();
            let nodes = movegen::perft(&board, depth);
            emit(&format!("Nodes searched: {nodes}"));
            eprintln!("time {:.3} s", start.elapsed().as_secs_f64());
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("luft: unknown command {other:?}; usage: luft [bench [depth] | perft <depth> [fen] | genfens N seed S book B]");
            ExitCode::from(2)
        }
    }
}
