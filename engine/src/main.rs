//! The `luft` binary: UCI by default; `luft bench [depth]`; `luft perft <depth> [fen]`.

use engine::uci::{default_net, stdout_writer, UciEngine};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
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
            let last = engine::bench::run(depth, &default_net(), &mut |line| println!("{line}"));
            println!("{last}");
            ExitCode::SUCCESS
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
            println!("Nodes searched: {nodes}");
            eprintln!("time {:.3} s", start.elapsed().as_secs_f64());
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("luft: unknown command {other:?}; usage: luft [bench [depth] | perft <depth> [fen]]");
            ExitCode::from(2)
        }
    }
}
