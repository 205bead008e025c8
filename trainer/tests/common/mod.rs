//! What the trainer's integration tests share. Their small training data sets all come from
//! one generator, random playouts from the start position ([`playouts`]) with every position
//! labelled by its material (the score, and the result it points to: something a net
//! learns), taken as [`positions`] to train on in memory, as text and bulletformat files
//! ([`text_positions`], [`bullet_positions`]) and as a data file of games ([`data_file`]).
//! Besides: boards of `movegen`'s valid FENs, a slice of Luft's own self-play, random lines
//! for the engine's incremental evaluation, a fresh scratch directory, and the `trainer`
//! binary run to its end.

#![allow(dead_code)] // each test file uses a different part

use movegen::rng::SplitMix64;
use movegen::{Board, Color, Move, PieceType};
use nnue::FeatureSet;
use records::positions::{bullet_record, text_line};
use records::record::{encode_chunk, encode_header, GameRecord, GenHeader, Wdl};
use std::ffi::OsStr;
use std::path::Path;
use std::process::Command;
use trainer::data::{load_packed, PackedPosition, Position};

/// White's material on `board` in centipawns: pawn 100, knight and bishop 300, rook 500,
/// queen 900.
pub fn material(board: &Board) -> i16 {
    [100, 300, 300, 500, 900]
        .iter()
        .enumerate()
        .map(|(k, v)| {
            let kind = PieceType::from_index(k).unwrap();
            v * (board.colored_pieces(Color::White, kind).len() as i16
                - board.colored_pieces(Color::Black, kind).len() as i16)
        })
        .sum()
}

/// The result a material score (White's view) points to.
fn result_of(score: i16) -> Wdl {
    match score.signum() {
        1 => Wdl::WhiteWins,
        -1 => Wdl::BlackWins,
        _ => Wdl::Draw,
    }
}

/// Random playouts from the start position, without end: games of up to `plies` plies
/// (fewer where one is mate or stalemate), each move drawn from the legal ones by a linear
/// congruential generator (Knuth's MMIX constants) from `seed`, its state running on from
/// game to game. Each move's score is the [`material`] of the position it is played from; a
/// game's result is the one its final material points to.
pub fn playouts(plies: usize, seed: u64) -> impl Iterator<Item = GameRecord> {
    let mut state = seed;
    std::iter::repeat_with(move || {
        let start = Board::startpos();
        let mut board = start;
        let mut moves = Vec::new();
        for _ in 0..plies {
            let legal = board.legal_moves();
            if legal.is_empty() {
                break;
            }
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let mv = legal[(state >> 33) as usize % legal.len()];
            moves.push((mv, material(&board)));
            board.play(mv);
        }
        GameRecord {
            start,
            start_eval: 0,
            result: result_of(material(&board)),
            moves,
        }
    })
}

/// Every position of `game` after a move, labelled: its [`material`] (White's view) and the
/// result that points to.
pub fn labelled(game: &GameRecord) -> impl Iterator<Item = (Board, i16, Wdl)> + '_ {
    let mut board = game.start;
    game.moves.iter().map(move |&(mv, _)| {
        board.play(mv);
        let score = material(&board);
        (board, score, result_of(score))
    })
}

/// The first `count` positions of 80-ply [`playouts`] from `seed`, labelled (the score and
/// result from the side to move's view), for a net with horizontal mirroring (`mirrored`) or
/// without: the sets `training.rs`'s tolerances were set on.
pub fn positions(count: usize, seed: u64, mirrored: bool) -> Vec<Position> {
    positions_for(&FeatureSet::plain().with_mirroring(mirrored), count, seed)
}

/// [`positions`] decoded for the input feature set `features` (king buckets, mirroring).
pub fn positions_for(features: &FeatureSet, count: usize, seed: u64) -> Vec<Position> {
    playouts(80, seed)
        .flat_map(|game| labelled(&game).collect::<Vec<_>>())
        .take(count)
        .map(|(board, score, result)| {
            let (score, result) = match board.side_to_move() {
                Color::White => (score, result.white_score()),
                Color::Black => (-score, 1.0 - result.white_score()),
            };
            Position::from_board_features(&board, f32::from(score), result, features)
        })
        .collect()
}

/// The labelled positions of `games` as a text file (`FEN | cp | result` lines, as
/// `datagen convert --to text` writes them).
pub fn text_positions(games: &[GameRecord]) -> String {
    games
        .iter()
        .flat_map(labelled)
        .map(|(board, score, result)| text_line(&board, score, result) + "\n")
        .collect()
}

/// The labelled positions of `games` as a bulletformat file (as `datagen convert --to
/// bullet` writes it).
pub fn bullet_positions(games: &[GameRecord]) -> Vec<u8> {
    games
        .iter()
        .flat_map(labelled)
        .flat_map(|(board, score, result)| bullet_record(&board, score, result))
        .collect()
}

/// `games` as a data file (datagen's container format, a game a chunk).
pub fn data_file(games: &[GameRecord]) -> Vec<u8> {
    let mut bytes = encode_header(&GenHeader::default());
    for (seq, game) in games.iter().enumerate() {
        encode_chunk(std::slice::from_ref(game), seq as u64, 0, &mut bytes);
    }
    bytes
}

/// The first `count` boards of `movegen`'s valid FENs.
pub fn boards(count: usize) -> Vec<Board> {
    include_str!("../../../movegen/tests/data/valid.fens")
        .lines()
        .take(count)
        .map(|f| Board::from_fen(f).unwrap())
        .collect()
}

/// The first 40,000 training positions of a pack of Luft's own self-play in the corpus
/// (`data/selfplay/gen13-classical-001.pack`, in the repository); a missing pack fails the
/// test.
pub fn selfplay_slice() -> Vec<PackedPosition> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../data/selfplay/gen13-classical-001.pack");
    assert!(path.is_file(), "{} is missing", path.display());
    let (mut positions, _) = load_packed(&[path.as_path()]).unwrap();
    positions.truncate(40_000);
    positions
}

/// A random game from the start position of up to `plies` plies, each move drawn by
/// SplitMix64 from `seed`; with `kings`, a king move half of the time where there is one.
pub fn random_line(seed: u64, plies: usize, kings: bool) -> Vec<Move> {
    let mut rng = SplitMix64(seed);
    let mut board = Board::startpos();
    let mut line = Vec::new();
    for _ in 0..plies {
        let moves = board.legal_moves();
        if moves.is_empty() {
            break;
        }
        let king_moves: Vec<Move> = moves
            .iter()
            .copied()
            .filter(|m| kings && board.piece_type_on(m.from()) == Some(PieceType::King))
            .collect();
        let mv = if !king_moves.is_empty() && rng.below(2) == 0 {
            king_moves[rng.below(king_moves.len())]
        } else {
            moves[rng.below(moves.len())]
        };
        board.play(mv);
        line.push(mv);
    }
    line
}

/// A fresh, empty directory for one test's files (the workspace's one helper,
/// `testing::temp`).
pub use testing::temp as temp_dir;

/// The arguments of `trainer train` on tiny settings, the form the bookkeeping tests share:
/// `train --data DATA --out OUT --batches-per-superbatch 2` and then `extra`. Panics on a
/// path that is not UTF-8.
pub fn train_tiny_args(data: &Path, out: &Path, extra: &[&str]) -> Vec<String> {
    let (data, out) = (data.to_str().unwrap(), out.to_str().unwrap());
    let mut args = vec![
        "train",
        "--data",
        data,
        "--out",
        out,
        "--batches-per-superbatch",
        "2",
    ];
    args.extend_from_slice(extra);
    args.into_iter().map(String::from).collect()
}

/// `trainer train` with [`train_tiny_args`], run to its end. Returns the exit code, stdout
/// and stderr.
#[allow(dead_code)]
pub fn train_tiny(data: &Path, out: &Path, extra: &[&str]) -> (i32, String, String) {
    trainer(&train_tiny_args(data, out, extra))
}

/// The `trainer` binary with `args`, run to its end: its exit code (-1 for a signal),
/// stdout and stderr.
pub fn trainer<S: AsRef<OsStr>>(args: &[S]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_trainer"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
