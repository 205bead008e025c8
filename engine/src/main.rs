//! The `luft` binary: UCI by default; `luft bench [depth]`; `luft perft <depth> [fen]`;
//! `luft genfens N seed S book <None|FILE> [plies P] [maxscore M]` (OpenBench); `luft spsa`
//! (the tunables for OpenBench's SPSA tuner, in a build with the `tune` feature);
//! `luft --help`, `luft --version`.
//!
//! The command line is declared with clap (which gives `--help`, `help <command>`,
//! `--version` and its usage errors), but OpenBench's calling conventions come first: it
//! may pass a whole command as one argument (`luft "bench 8"`, `luft "genfens 10 seed 3
//! book None quit"`), which no argument parser splits. So the arguments are joined and
//! split on whitespace before clap sees them, exactly as the hand-written parser before it
//! did; a FEN after `perft` is the remaining words joined again. Errors go to stderr with
//! exit code 2 and never a panic.

use clap::{Parser, Subcommand};
use engine::default_net;
use engine::uci::{stdout_writer, UciEngine};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "luft",
    version,
    about = "Luft: a UCI chess engine (alpha-beta search, NNUE evaluation)",
    long_about = "Luft: a UCI chess engine (alpha-beta search, NNUE evaluation).\n\n\
        Without a command, luft speaks UCI on stdin and stdout: point a GUI or match runner \
        at it. In UCI, `help` lists its commands and extensions (d, eval, bench, go perft N).",
    after_help = "A command may also come as one argument, as OpenBench passes it: luft \"bench 8\"."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Mode>,
}

#[derive(Subcommand, Debug)]
enum Mode {
    /// Search 50 fixed positions on one thread (deterministic); the last line is
    /// `<N> nodes <M> nps`.
    Bench {
        /// Search depth, 1 to 64 (default: the bench depth).
        #[arg(value_parser = clap::value_parser!(i32).range(1..=64))]
        depth: Option<i32>,
    },
    /// Count the leaf nodes of the move tree to a depth ("Nodes searched: N").
    Perft {
        /// Depth, 0 to 20.
        #[arg(value_parser = clap::value_parser!(u32).range(0..=20))]
        depth: u32,
        /// The position as a FEN (its words may be separate arguments); the start
        /// position when left out.
        #[arg(num_args = 0.., trailing_var_arg = true, allow_hyphen_values = true)]
        fen: Vec<String>,
    },
    /// The search tunables in OpenBench's SPSA input format, one a line: "name, int, start,
    /// min, max, c_end, r_end" (needs a build with `--features tune`).
    Spsa,
    /// Opening positions for OpenBench: N seed S book <None|FILE> [plies P] [maxscore M]
    /// [random_moves P] [frc B] [dfrc B]; each printed as "info string genfens FEN".
    Genfens {
        /// The words after genfens (a trailing "quit" is ignored).
        #[arg(num_args = 0.., trailing_var_arg = true, allow_hyphen_values = true)]
        words: Vec<String>,
    },
}

/// Prints a line; a closed stdout (e.g. piped into `head`) ends luft quietly with the status
/// of a closed pipe (`output::line`) instead of a panic.
fn emit(line: &str) {
    output::line(line);
}

fn fail(message: &str) -> ExitCode {
    output::errln!("luft: error: {message}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    // OpenBench may pass a whole command ("bench", "genfens N seed S ...") as one argument.
    let joined = std::env::args().skip(1).collect::<Vec<_>>().join(" ");
    let words = joined.split_whitespace().map(String::from);
    let cli = match Cli::try_parse_from(std::iter::once("luft".to_string()).chain(words)) {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version print to stdout and succeed; usage errors exit 2.
            let _ = e.print();
            return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2));
        }
    };
    match cli.command {
        None => {
            let mut engine = UciEngine::new(stdout_writer());
            engine.run(std::io::stdin().lock());
            ExitCode::SUCCESS
        }
        Some(Mode::Bench { depth }) => {
            match engine::bench::run(depth, &default_net(), &mut |line| emit(line)) {
                Ok(last) => {
                    emit(&last);
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&format!("bench: {e}")),
            }
        }
        Some(Mode::Spsa) => {
            if !engine::TUNE_BUILD {
                return fail(
                    "spsa: this luft was built without the tune feature, so its tunables are not \
                     UCI options; build it with `cargo build --release -p engine --features tune` \
                     (or `make EXE=<path> FEATURES=tune`)",
                );
            }
            for line in engine::spsa_lines() {
                emit(&line);
            }
            ExitCode::SUCCESS
        }
        Some(Mode::Genfens { words }) => {
            let words: Vec<&str> = words
                .iter()
                .map(String::as_str)
                .take_while(|w| *w != "quit")
                .collect();
            let parsed = match movegen::openings::GenfensRequest::parse(&words) {
                Ok(a) => a,
                Err(e) => return fail(&e),
            };
            match engine::genfens::generate(&parsed, &default_net()) {
                Ok(fens) => {
                    for fen in fens {
                        emit(&format!("info string genfens {fen}"));
                    }
                    ExitCode::SUCCESS
                }
                Err(e) => fail(&e.to_string()),
            }
        }
        Some(Mode::Perft { depth, fen }) => {
            let fen = if fen.is_empty() {
                movegen::STARTPOS_FEN.to_string()
            } else {
                fen.join(" ")
            };
            let board = match movegen::Board::from_fen(&fen) {
                Ok(b) => b,
                Err(e) => return fail(&format!("bad FEN {fen:?}: {e}")),
            };
            let start = std::time::Instant::now();
            let nodes = movegen::perft(&board, depth);
            emit(&format!("Nodes searched: {nodes}"));
            output::errln!("time {:.3} s", start.elapsed().as_secs_f64());
            ExitCode::SUCCESS
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Option<Mode>, clap::Error> {
        let words = line.split_whitespace().map(String::from);
        Cli::try_parse_from(std::iter::once("luft".to_string()).chain(words)).map(|c| c.command)
    }

    #[test]
    fn the_command_line_parses_as_openbench_sends_it() {
        assert!(matches!(parse(""), Ok(None)));
        assert!(matches!(parse("bench"), Ok(Some(Mode::Bench { depth: None }))));
        assert!(matches!(
            parse("bench 13"),
            Ok(Some(Mode::Bench { depth: Some(13) }))
        ));
        assert!(parse("bench 0").is_err() && parse("bench 65").is_err() && parse("bench -3").is_err());
        assert!(parse("bench 8 9").is_err());
        match parse("perft 2 8/8/8/8/8/8/8/K6k w - - 0 1") {
            Ok(Some(Mode::Perft { depth, fen })) => {
                assert_eq!(depth, 2);
                assert_eq!(fen.join(" "), "8/8/8/8/8/8/8/K6k w - - 0 1");
            }
            other => panic!("{other:?}"),
        }
        assert!(parse("perft").is_err() && parse("perft 21").is_err());
        assert!(matches!(parse("spsa"), Ok(Some(Mode::Spsa))));
        match parse("genfens 10 seed -4 book None quit") {
            Ok(Some(Mode::Genfens { words })) => {
                assert_eq!(words, ["10", "seed", "-4", "book", "None", "quit"])
            }
            other => panic!("{other:?}"),
        }
        let version = parse("--version").unwrap_err();
        assert_eq!(version.kind(), clap::error::ErrorKind::DisplayVersion);
        assert_eq!(version.exit_code(), 0);
        assert_eq!(parse("frobnicate").unwrap_err().exit_code(), 2);
    }
}
