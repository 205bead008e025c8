//! Training positions: games from datagen files (either container version, a file or a
//! whole directory) expanded through the filter of `docs/design/NNUE.md`.
//!
//! Two forms. [`PackedPosition`] is what a large data set is kept in: 32 bytes, the record
//! board of the data files (pieces, side to move) with the position's score and its game's
//! result, so a data set costs about what it costs on disk. [`Position`] is what the network
//! reads: compact feature lists, one per perspective (side to move first), with the score
//! and the result from the side to move's view, 204 bytes (with the feature set it was decoded for); batches are decoded into it
//! ([`draw_samples`] draws from either form, [`Sample`]). [`load`] still returns
//! `Position`s for callers that want them all decoded; [`load_packed`] keeps them packed.
//!
//! Features come from the model's input feature set (`nnue::FeatureSet`: each
//! perspective's `nnue::View`, its king bucket and mirroring, plus `nnue::feature_index`),
//! so a model trains on exactly the inputs the engine gives the exported net. Packed
//! positions are decoded for the model's feature set as batches are drawn; a decoded
//! [`Position`] keeps the feature set it was decoded for.
//!
//! Files are read chunk by chunk through `records::source::DataSource`, the one input interface
//! every reader of games shares: a data file (`records::record`, any container version) or a
//! pack (`records::pack`, `datagen pack`), told apart by their first bytes. A damaged chunk is
//! skipped with a warning naming the file and byte offset, and every intact chunk after it
//! is used. The same interface reads lone positions, the text (`FEN | cp | result`) and
//! bulletformat files `datagen convert` writes (`records::positions`): by their names
//! (`.txt`/`.text`, `.bullet`/`.bf`/`.data`) or as `--data-format` says. They pass the part
//! of the training filter a lone position allows (`records::record::keep_lone_for_training`:
//! not in check, the score outside the mate band, at least 4 pieces); a line or record that
//! cannot be read is a warning, and the rest is used.

use crate::train::{ValidationSplit, LONE_BLOCK};
use movegen::{Board, Color, Piece, PieceType};
use nnue::{feature_index, FeatureSet, View};
use records::positions::ScoredPosition;
use records::record::{
    keep_for_training, keep_lone_for_training, packed_board, packed_codes, packed_side_to_move,
    piece_of_code, GameRecord, Wdl,
};
use records::source::{DataSource, Format, SourceItem};
use std::path::Path;
use std::sync::OnceLock;

/// Most active features in a position (32 pieces).
pub const MAX_FEATURES: usize = 32;

/// One position, ready for the network.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position {
    /// Active features (pieces on the board), at most [`MAX_FEATURES`].
    pub count: u8,
    /// Feature indices from the side to move's view (the first `count`).
    pub stm: [u16; MAX_FEATURES],
    /// Feature indices from the other side's view (the first `count`).
    pub nstm: [u16; MAX_FEATURES],
    /// Search score, side to move's view, centipawns.
    pub score: f32,
    /// Game result, side to move's view: 0, 0.5 or 1.
    pub result: f32,
    /// The input feature set the features are indexed for.
    pub features: FeatureSet,
}

impl Position {
    /// The position of `board` with its search score (centipawns) and game result (0, 0.5
    /// or 1), both from the side to move's view, for a net without mirroring.
    pub fn from_board(board: &Board, score_stm: f32, result_stm: f32) -> Position {
        Position::from_board_mirroring(board, score_stm, result_stm, false)
    }

    /// [`Position::from_board`] for a net that is horizontally mirrored (`mirrored`) or not
    /// (without king buckets).
    pub fn from_board_mirroring(board: &Board, score_stm: f32, result_stm: f32, mirrored: bool) -> Position {
        let features = FeatureSet::plain().with_mirroring(mirrored);
        Position::from_board_features(board, score_stm, result_stm, &features)
    }

    /// [`Position::from_board`] for a net with the input feature set `features`: each
    /// perspective indexed in its view (`nnue::FeatureSet::view` of its king).
    pub fn from_board_features(
        board: &Board,
        score_stm: f32,
        result_stm: f32,
        features: &FeatureSet,
    ) -> Position {
        let mut p = Position::empty(score_stm, result_stm);
        p.features = *features;
        let us = board.side_to_move();
        let view = |color: Color| {
            board
                .colored_pieces(color, PieceType::King)
                .into_iter()
                .next()
                .map_or(View::default(), |k| features.view(color, k))
        };
        let views = [view(us), view(!us)];
        for sq in board.occupied() {
            let piece = board.piece_on(sq).expect("occupied square");
            if !p.push(us, piece, sq, views) {
                break;
            }
        }
        p
    }

    fn empty(score: f32, result: f32) -> Position {
        Position {
            count: 0,
            stm: [0; MAX_FEATURES],
            nstm: [0; MAX_FEATURES],
            score,
            result,
            features: FeatureSet::plain(),
        }
    }

    /// Adds a piece's two features (each perspective in its view of `views`, side to
    /// move's first); false when the lists are full.
    #[inline]
    fn push(&mut self, us: Color, piece: Piece, sq: movegen::Square, views: [View; 2]) -> bool {
        let i = self.count as usize;
        if i == MAX_FEATURES {
            return false;
        }
        self.stm[i] = views[0].index(us, piece, sq) as u16;
        self.nstm[i] = views[1].index(!us, piece, sq) as u16;
        self.count += 1;
        true
    }

    /// The training target: `wdl * result + (1 - wdl) * sigmoid(score / 400)`.
    #[inline]
    pub fn target(&self, wdl: f32) -> f32 {
        wdl * self.result + (1.0 - wdl) * sigmoid(self.score / nnue::SCALE as f32)
    }
}

/// The logistic function `1 / (1 + e^-x)`.
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// A training position in 32 bytes: the data files' record board (`records::record`) whose
/// evaluation field holds the position's score and whose result field holds its game's
/// result, both from White's view.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PackedPosition([u8; 32]);

impl std::fmt::Debug for PackedPosition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let p = self.unpack();
        write!(f, "PackedPosition(score {}, result {})", p.score, p.result)
    }
}

impl PackedPosition {
    /// Packs `board` with its search score and its game's result (White's view).
    pub fn new(board: &Board, score_white: i16, result: Wdl) -> PackedPosition {
        PackedPosition(packed_board(board, score_white, result))
    }

    /// The position as a net without mirroring reads it: [`PackedPosition::unpack_mirroring`]
    /// with `false`.
    #[inline]
    pub fn unpack(&self) -> Position {
        self.unpack_mirroring(false)
    }

    /// The position as a net without king buckets, horizontally mirrored (`mirrored`) or
    /// not, reads it: [`PackedPosition::unpack_features`].
    #[inline]
    pub fn unpack_mirroring(&self, mirrored: bool) -> Position {
        self.unpack_features(&FeatureSet::plain().with_mirroring(mirrored))
    }

    /// The position as a net with the input feature set `features` reads it; equal to
    /// [`Position::from_board_features`] of the board with the score and result turned to
    /// the side to move's view. Batches are decoded with this, so it looks features up in a
    /// table made once from `nnue::feature_index` and adds each perspective's king bucket
    /// offset (tens of nanoseconds a position; a mirrored or bucketed net first finds the
    /// kings).
    #[inline]
    pub fn unpack_features(&self, features: &FeatureSet) -> Position {
        let b = &self.0;
        let us = packed_side_to_move(b);
        let score_white = f32::from(i16::from_le_bytes([b[28], b[29]]));
        let result_white = f32::from(b[30].min(2)) / 2.0;
        let mut p = match us {
            Color::White => Position::empty(score_white, result_white),
            Color::Black => Position::empty(-score_white, 1.0 - result_white),
        };
        p.features = *features;
        let table = feature_table();
        let mut views = [View::default(); 2];
        if features.is_mirrored() || features.king_buckets_count() > 1 {
            for (sq, code) in packed_codes(b) {
                if let Some(color) = table.king_color[usize::from(code)] {
                    views[color as usize] = features.view(color, sq);
                }
            }
        }
        let (v_us, v_them) = (views[us as usize], views[!us as usize]);
        let (ours, theirs) = (
            &table.index[usize::from(v_us.mirror)][us as usize],
            &table.index[usize::from(v_them.mirror)][!us as usize],
        );
        let (o_us, o_them) = (v_us.offset as u16, v_them.offset as u16);
        for (i, (sq, code)) in packed_codes(b).enumerate() {
            p.stm[i] = o_us + ours[usize::from(code)][sq.index()];
            p.nstm[i] = o_them + theirs[usize::from(code)][sq.index()];
            p.count += 1;
        }
        p
    }
}

/// The decoding tables of record boards, made once from `nnue`'s definitions.
struct FeatureTable {
    /// Feature index by mirroring (0 no, 1 yes), perspective, record piece code and
    /// square (unused codes read as pawns).
    index: [[[[u16; 64]; 16]; 2]; 2],
    /// The colour of a king's record piece code; `None` for every other code.
    king_color: [Option<Color>; 16],
}

fn feature_table() -> &'static FeatureTable {
    static TABLE: OnceLock<Box<FeatureTable>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = Box::new(FeatureTable {
            index: [[[[0u16; 64]; 16]; 2]; 2],
            king_color: [None; 16],
        });
        for code in 0..16u8 {
            let piece = piece_of_code(code).unwrap_or(Piece::new(Color::White, PieceType::Pawn));
            if piece_of_code(code).is_some_and(|p| p.kind == PieceType::King) {
                t.king_color[usize::from(code)] = Some(piece.color);
            }
            for (m, mirror) in [false, true].into_iter().enumerate() {
                for perspective in Color::ALL {
                    for sq in 0..64u8 {
                        let sq = movegen::Square::new(sq);
                        t.index[m][perspective as usize][usize::from(code)][sq.index()] =
                            feature_index(perspective, piece, sq, mirror) as u16;
                    }
                }
            }
        }
        t
    })
}

/// Appends the positions of one game that pass the training filter, packed.
pub fn expand_packed(game: &GameRecord, out: &mut Vec<PackedPosition>) {
    for (ply, (board, best, score_white)) in game.positions().enumerate() {
        if keep_for_training(&board, best, score_white, ply) {
            out.push(PackedPosition::new(&board, score_white, game.result));
        }
    }
}

/// Appends the positions of one game that pass the training filter.
pub fn expand(game: &GameRecord, out: &mut Vec<Position>) {
    let white_result = game.result.white_score();
    for (ply, (board, best, score_white)) in game.positions().enumerate() {
        if !keep_for_training(&board, best, score_white, ply) {
            continue;
        }
        let (score, result) = match board.side_to_move() {
            Color::White => (f32::from(score_white), white_result),
            Color::Black => (-f32::from(score_white), 1.0 - white_result),
        };
        out.push(Position::from_board(&board, score, result));
    }
}

/// Reads every game of every data file or pack the paths name (directories searched at any
/// depth for `*.bin`), and every position of the text and bulletformat files they name,
/// packed. Problems (a damaged chunk, a repeated chunk, a bad header, an unreadable line)
/// become warnings; everything intact is used.
pub fn load_packed(paths: &[impl AsRef<Path>]) -> anyhow::Result<(Vec<PackedPosition>, Vec<String>)> {
    load_packed_as(paths, None)
}

/// [`load_packed`], every file read as `format` when one is given (`--data-format`), else
/// as its first bytes or its name say (`records::source`).
pub fn load_packed_as(
    paths: &[impl AsRef<Path>],
    format: Option<Format>,
) -> anyhow::Result<(Vec<PackedPosition>, Vec<String>)> {
    let positions = std::cell::RefCell::new(Vec::new());
    let warnings = read_data(
        paths,
        format,
        |g| expand_packed(g, &mut positions.borrow_mut()),
        |p| {
            if keep_lone_for_training(&p.board, p.score) {
                positions
                    .borrow_mut()
                    .push(PackedPosition::new(&p.board, p.score, p.result));
            }
        },
    )?;
    Ok((positions.into_inner(), warnings))
}

/// [`load_packed_as`] split into (training, validation) positions as `split` says for a
/// run seeded `seed` (`crate::train::ValidationSplit`): by game as the games are read, each
/// game's filtered positions all on one side (the side its record's key gives, or its
/// index for the split in reading order), lone positions in blocks of
/// `crate::train::LONE_BLOCK`; or by position index over the whole list
/// (`crate::train::split`), as runs before checkpoint version 9 did.
pub fn load_packed_split(
    paths: &[impl AsRef<Path>],
    format: Option<Format>,
    split: ValidationSplit,
    seed: u64,
) -> anyhow::Result<(Vec<PackedPosition>, Vec<PackedPosition>, Vec<String>)> {
    if split == ValidationSplit::Positions {
        let (positions, warnings) = load_packed_as(paths, format)?;
        let (train, validation) = crate::train::split(positions, seed);
        return Ok((train, validation, warnings));
    }
    let sides = std::cell::RefCell::new((Vec::new(), Vec::new()));
    let (mut games, mut lone) = (0u64, 0u64);
    let mut buf = Vec::new();
    let warnings = read_data(
        paths,
        format,
        |g| {
            let item = match split {
                ValidationSplit::GamesInOrder => games,
                _ => records::manifest::game_key(g, &mut buf),
            };
            let held = split.held_out(seed, item);
            games += 1;
            let mut sides = sides.borrow_mut();
            expand_packed(g, if held { &mut sides.1 } else { &mut sides.0 });
        },
        |p| {
            let held = split.held_out(seed, u64::MAX - lone / LONE_BLOCK);
            lone += 1;
            if keep_lone_for_training(&p.board, p.score) {
                let mut sides = sides.borrow_mut();
                let side = if held { &mut sides.1 } else { &mut sides.0 };
                side.push(PackedPosition::new(&p.board, p.score, p.result));
            }
        },
    )?;
    let (train, validation) = sides.into_inner();
    Ok((train, validation, warnings))
}

/// [`load_packed`], every position decoded (204 bytes each instead of 32).
pub fn load(paths: &[impl AsRef<Path>]) -> anyhow::Result<(Vec<Position>, Vec<String>)> {
    let positions = std::cell::RefCell::new(Vec::new());
    let warnings = read_data(
        paths,
        None,
        |g| expand(g, &mut positions.borrow_mut()),
        |p| {
            if keep_lone_for_training(&p.board, p.score) {
                positions
                    .borrow_mut()
                    .push(PackedPosition::new(&p.board, p.score, p.result).unpack());
            }
        },
    )?;
    Ok((positions.into_inner(), warnings))
}

/// Gives every game of every intact chunk to `each_game` and every lone position to
/// `each_position`; returns the warnings.
fn read_data(
    paths: &[impl AsRef<Path>],
    format: Option<Format>,
    mut each_game: impl FnMut(&GameRecord),
    mut each_position: impl FnMut(&ScoredPosition),
) -> anyhow::Result<Vec<String>> {
    let mut warnings = Vec::new();
    for file in input_files(paths)? {
        read_file(&file, format, &mut each_game, &mut each_position, &mut warnings)?;
    }
    Ok(warnings)
}

/// The files `paths` name, in reading order: each file as given, each directory's data files
/// (`records::record::data_files`: a corpus's manifest, or every `*.bin` at any depth), by
/// `records::record::input_files`, the one expansion of data paths. Errors: a path that
/// cannot be read, a directory without data files, and one file reached twice (given twice,
/// or as a file and again in its directory), naming both ways: its games would count twice,
/// and a game held out for validation would be trained on through its other copy.
pub fn input_files(paths: &[impl AsRef<Path>]) -> anyhow::Result<Vec<std::path::PathBuf>> {
    Ok(records::record::input_files(paths, false)?
        .into_iter()
        .map(|(_, file)| file)
        .collect())
}

/// [`input_files`]'s refusal of a file reached twice alone: a directory without data files
/// yet is allowed (`learn init --extra-data`, a corpus folder that fills later).
pub fn distinct_inputs(paths: &[impl AsRef<Path>]) -> anyhow::Result<()> {
    records::record::input_files(paths, true)?;
    Ok(())
}

fn read_file(
    path: &Path,
    format: Option<Format>,
    each_game: &mut impl FnMut(&GameRecord),
    each_position: &mut impl FnMut(&ScoredPosition),
    warnings: &mut Vec<String>,
) -> anyhow::Result<()> {
    let io = |e: std::io::Error| anyhow::anyhow!("cannot read {}: {e}", path.display());
    let mut source = match format {
        Some(f) => DataSource::open_as(path, f),
        None => DataSource::open(path),
    }
    .map_err(io)?;
    let header_error = source.header_error().map(|e| e.to_string());
    let header_bad = source.format() == Format::Games && header_error.is_some();
    if let Some(e) = &header_error {
        warnings.push(format!("{}: {e}; reading the chunks after it", path.display()));
    }
    let mut read_any = false;
    while let Some(item) = source.next_item().map_err(io)? {
        match item {
            SourceItem::Chunk { chunk: c, .. } => {
                if let Some(p) = c.problem {
                    warnings.push(format!("{}: {p}", path.display()));
                }
                read_any |= !c.games.is_empty();
                c.games.iter().for_each(&mut *each_game);
            }
            SourceItem::Positions { positions, .. } => {
                read_any |= !positions.is_empty();
                positions.iter().for_each(&mut *each_position)
            }
            SourceItem::Damage(d) if d.offset == 0 && header_bad => {}
            SourceItem::Damage(d) => {
                warnings.push(format!("{}: {d}; using the rest of the file", path.display()))
            }
            SourceItem::Duplicate(d) => warnings.push(format!("{}: {d}", path.display())),
            SourceItem::Problem(p) => warnings.push(format!("{}: {p}", path.display())),
        }
    }
    // A bad header and not one game after it: the file is not training data at all (a
    // damaged data file keeps its readable chunks and only warns).
    if let (Some(why), false) = (header_error, read_any) {
        anyhow::bail!(
            "{} is not training data (a data file, pack, or text or bulletformat positions): {why}",
            path.display()
        );
    }
    Ok(())
}

/// What a training set can be kept as: decoded [`Position`]s or [`PackedPosition`]s.
pub trait Sample: Copy + Send + Sync {
    /// The position as a net with the input feature set `features` reads it. A decoded
    /// [`Position`] is returned as it is: it keeps the features it was decoded with (its
    /// `features` field says which), and [`crate::train::train`] refuses a set made for
    /// another feature set.
    fn position(&self, features: &FeatureSet) -> Position;
}

impl Sample for Position {
    #[inline]
    fn position(&self, _features: &FeatureSet) -> Position {
        *self
    }
}

impl Sample for PackedPosition {
    #[inline]
    fn position(&self, features: &FeatureSet) -> Position {
        self.unpack_features(features)
    }
}

/// Fills `batch` with `size` positions drawn for (superbatch, batch index) from `train`,
/// decoded for a net with the input feature set `features`: the draws of
/// `train::draw_batch`, from either form of training set.
pub fn draw_samples<S: Sample>(
    train: &[S],
    features: &FeatureSet,
    seed: u64,
    superbatch: u32,
    index: u32,
    size: usize,
    batch: &mut Vec<Position>,
) {
    use movegen::rng::hash as mix;
    batch.clear();
    let Some(&first) = train.first() else {
        return;
    };
    // Gather a group of samples first, then decode them: the gathers are independent loads
    // the CPU overlaps, where decoding straight from memory would wait for each cache miss
    // in turn (measured: about 5x slower on a few million packed positions).
    const GROUP: usize = 64;
    let mut group = [first; GROUP];
    let mut state = mix(seed ^ (u64::from(superbatch) << 32) ^ u64::from(index));
    let mut left = size;
    while left > 0 {
        let n = left.min(GROUP);
        for slot in &mut group[..n] {
            state = mix(state);
            *slot = train[(state % train.len() as u64) as usize];
        }
        batch.extend(group[..n].iter().map(|s| s.position(features)));
        left -= n;
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use records::record::{encode_chunk, encode_chunk_v1, encode_header_v1, scan, GenHeader, CHUNK_HEADER};

    /// Games from random playouts (legal, varied: both sides to move, castling rights,
    /// en passant squares, captures).
    fn games(count: usize, seed: u64) -> Vec<GameRecord> {
        let mut state = seed;
        (0..count)
            .map(|i| {
                let start = Board::startpos();
                let mut board = start;
                let mut moves = Vec::new();
                for ply in 0..60 {
                    let legal = board.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    state = movegen::rng::hash(state);
                    let mv = legal[(state % legal.len() as u64) as usize];
                    moves.push((mv, (state >> 40) as i16 % 700 - 350 + ply));
                    board.play(mv);
                }
                GameRecord {
                    start,
                    start_eval: 0,
                    result: [Wdl::BlackWins, Wdl::Draw, Wdl::WhiteWins][i % 3],
                    moves,
                }
            })
            .collect()
    }

    #[test]
    fn packed_positions_unpack_to_the_same_features() {
        let mut packed = Vec::new();
        let mut plain = Vec::new();
        for g in games(40, 7) {
            expand_packed(&g, &mut packed);
            expand(&g, &mut plain);
        }
        assert!(plain.len() > 500, "{}", plain.len());
        let unpacked: Vec<Position> = packed.iter().map(PackedPosition::unpack).collect();
        assert_eq!(unpacked, plain);
        assert!(plain.iter().any(|p| p.result == 0.0) && plain.iter().any(|p| p.result == 1.0));
        assert_eq!(std::mem::size_of::<PackedPosition>(), 32);
        assert_eq!(std::mem::size_of::<Position>(), 204);
    }

    #[test]
    fn packed_batches_draw_like_the_trainer() {
        let mut packed = Vec::new();
        for g in games(10, 3) {
            expand_packed(&g, &mut packed);
        }
        let plain: Vec<Position> = packed.iter().map(PackedPosition::unpack).collect();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        draw_samples(&packed, &FeatureSet::plain(), 5, 2, 7, 300, &mut a);
        draw_samples(&plain, &FeatureSet::plain(), 5, 2, 7, 300, &mut b);
        // The trainer's draws, written out: state = hash(seed ^ superbatch << 32 ^ index),
        // then one hash per position, index = state mod len.
        let mut state = movegen::rng::hash(5 ^ (2u64 << 32) ^ 7);
        let c: Vec<Position> = (0..300)
            .map(|_| {
                state = movegen::rng::hash(state);
                plain[(state % plain.len() as u64) as usize]
            })
            .collect();
        assert_eq!(a.len(), 300);
        assert_eq!(a, c);
        assert_eq!(b, c);
        draw_samples(&packed[..0], &FeatureSet::plain(), 5, 2, 7, 300, &mut a);
        assert!(a.is_empty());
        // Mirrored draws are the same positions, decoded for a mirrored net.
        draw_samples(&packed, &FeatureSet::mirrored(), 5, 2, 7, 300, &mut a);
        let drawn = packed_draws(&packed, 5, 2, 7, 300);
        assert_eq!(drawn.iter().map(PackedPosition::unpack).collect::<Vec<_>>(), c);
        let mirrored: Vec<Position> = drawn.iter().map(|p| p.unpack_mirroring(true)).collect();
        assert_eq!(a, mirrored);
        assert_ne!(a, c);
    }

    /// The packed positions the trainer draws, in order.
    fn packed_draws(
        packed: &[PackedPosition],
        seed: u64,
        sb: u32,
        index: u32,
        n: usize,
    ) -> Vec<PackedPosition> {
        let mut state = movegen::rng::hash(seed ^ (u64::from(sb) << 32) ^ u64::from(index));
        (0..n)
            .map(|_| {
                state = movegen::rng::hash(state);
                packed[(state % packed.len() as u64) as usize]
            })
            .collect()
    }

    #[test]
    fn mirrored_features_decode_alike_from_boards_and_packed_records() {
        let (mut mirrored_views, mut differ, mut count) = (0, 0, 0);
        for g in games(40, 9) {
            for (board, _, score) in g.positions() {
                let packed = PackedPosition::new(&board, score, g.result);
                let plain = packed.unpack();
                let mirrored = packed.unpack_mirroring(true);
                let (s, r) = (plain.score, plain.result);
                assert_eq!(
                    mirrored,
                    Position::from_board_mirroring(&board, s, r, true),
                    "{board}"
                );
                assert_eq!(
                    plain,
                    Position::from_board_mirroring(&board, s, r, false),
                    "{board}"
                );
                let us = board.side_to_move();
                let views = [nnue::king_mirrors(&board, us), nnue::king_mirrors(&board, !us)];
                mirrored_views += usize::from(views[0]) + usize::from(views[1]);
                // A view is mirrored exactly when its king is on files e-h: its features are
                // the unmirrored ones of the mirror image of each square.
                for i in 0..plain.count as usize {
                    for (view, a, b) in [
                        (0, plain.stm[i], mirrored.stm[i]),
                        (1, plain.nstm[i], mirrored.nstm[i]),
                    ] {
                        let image = if views[view] { (a % 64) ^ 7 } else { a % 64 };
                        assert_eq!((b / 64, b % 64), (a / 64, image), "{board}");
                    }
                }
                differ += usize::from(plain != mirrored);
                count += 1;
            }
        }
        assert!(count > 1000 && differ > count / 2, "{differ} of {count}");
        assert!(mirrored_views > count / 2);
    }

    fn write(path: &Path, bytes: &[u8]) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    /// Fault 5a in the trainer: a flipped byte in the middle of a file costs one game's
    /// positions, not every game after it; directories and both versions load.
    #[test]
    fn loading_skips_damage_and_reads_the_rest() {
        let dir = std::env::temp_dir().join(format!("luft-trainer-data-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let all = games(9, 11);
        let mut v2 = records::record::encode_header(&GenHeader::default());
        for (i, g) in all[..6].iter().enumerate() {
            encode_chunk(std::slice::from_ref(g), i as u64, 0, &mut v2);
        }
        let mut v1 = encode_header_v1("nodes=1\n");
        for g in &all[6..] {
            encode_chunk_v1(std::slice::from_ref(g), &mut v1);
        }
        let offsets: Vec<usize> = scan(&v2).chunks.iter().map(|c| c.offset as usize).collect();
        v2[offsets[2] + CHUNK_HEADER + 5] ^= 1;
        write(&dir.join("gen-a/games-0.bin"), &v2);
        write(&dir.join("gen-b/games-0.bin"), &v1);
        write(&dir.join("gen-b/notes.txt"), b"not data");

        let (positions, warnings) = load(&[&dir]).unwrap();
        let mut expected = Vec::new();
        for (i, g) in all.iter().enumerate() {
            if i != 2 {
                expand(g, &mut expected);
            }
        }
        assert_eq!(positions, expected);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains(&format!("bad chunk at byte {}", offsets[2])),
            "{warnings:?}"
        );
        let (packed, _) = load_packed(&[dir.join("gen-a/games-0.bin")]).unwrap();
        let mut first_file = Vec::new();
        for i in [0, 1, 3, 4, 5] {
            expand(&all[i], &mut first_file);
        }
        assert_eq!(
            packed.iter().map(PackedPosition::unpack).collect::<Vec<_>>(),
            first_file
        );
        assert!(load(&[dir.join("nothing-here")]).is_err());
        std::fs::remove_dir_all(&dir).ok();
    }

    /// The trainer reads packs (`datagen pack`) as they are: the same positions, in the same
    /// order, as from the data file the pack holds.
    #[test]
    fn packs_load_like_the_data_files_they_hold() {
        use records::pack::{PackSource, PackWriter};
        use records::record::Chunk;
        let dir = std::env::temp_dir().join(format!("luft-trainer-pack-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let header = records::record::encode_header(&GenHeader::default());
        let mut file = header.clone();
        let mut w = PackWriter::new(
            Vec::new(),
            &[PackSource {
                name: "gen/games-0.bin".into(),
                header_bytes: header,
            }],
        )
        .unwrap();
        for (i, g) in games(8, 21).into_iter().enumerate() {
            encode_chunk(std::slice::from_ref(&g), i as u64, 0, &mut file);
            let chunk = Chunk {
                offset: 0,
                len: 0,
                version: 2,
                seq: Some(i as u64),
                nodes: None,
                games: vec![g],
                problem: None,
            };
            w.add_chunk(0, &chunk).unwrap();
        }
        write(&dir.join("gen/games-0.bin"), &file);
        write(&dir.join("gen.pack"), &w.finish().unwrap().0);
        let (from_file, warnings) = load_packed(&[dir.join("gen/games-0.bin")]).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let (from_pack, warnings) = load_packed(&[dir.join("gen.pack")]).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert!(from_file.len() > 100, "{}", from_file.len());
        assert_eq!(from_pack, from_file);
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Text and bulletformat files as `datagen convert` writes them (`records::positions`)
    /// load to the same training positions as the data file they came from: the same
    /// features, scores and results, in the same order (a bulletformat record reads back as
    /// the side to move's view, which the network sees alike).
    #[test]
    fn text_and_bullet_exports_load_like_their_data_file() {
        use records::positions::{bullet_record, text_line};
        let dir = std::env::temp_dir().join(format!("luft-trainer-lone-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let all = games(12, 31);
        let mut data = records::record::encode_header(&GenHeader::default());
        let (mut text, mut bullet) = (String::new(), Vec::new());
        for (i, g) in all.iter().enumerate() {
            encode_chunk(std::slice::from_ref(g), i as u64, 0, &mut data);
            for (ply, (board, mv, score)) in g.positions().enumerate() {
                if keep_for_training(&board, mv, score, ply) {
                    text.push_str(&text_line(&board, score, g.result));
                    text.push('\n');
                    bullet.extend_from_slice(&bullet_record(&board, score, g.result));
                }
            }
        }
        write(&dir.join("games.bin"), &data);
        write(&dir.join("positions.txt"), text.as_bytes());
        write(&dir.join("positions.bullet"), &bullet);
        write(&dir.join("positions.dat"), &bullet);
        let decoded = |p: &[PackedPosition]| p.iter().map(PackedPosition::unpack).collect::<Vec<_>>();
        let (from_data, w) = load_packed(&[dir.join("games.bin")]).unwrap();
        assert!(w.is_empty() && from_data.len() > 300, "{w:?} {}", from_data.len());
        let (from_text, w) = load_packed(&[dir.join("positions.txt")]).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(from_text, from_data, "text keeps the whole board");
        // A flipped board lists the same features in another order (the network sums them).
        let sorted = |mut p: Position| {
            let n = p.count as usize;
            p.stm[..n].sort_unstable();
            p.nstm[..n].sort_unstable();
            p
        };
        let (from_bullet, w) = load_packed(&[dir.join("positions.bullet")]).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(from_bullet.len(), from_data.len());
        for mirrored in [false, true] {
            let differ = from_bullet
                .iter()
                .zip(&from_data)
                .filter(|(a, b)| sorted(a.unpack_mirroring(mirrored)) != sorted(b.unpack_mirroring(mirrored)))
                .count();
            assert_eq!(
                differ,
                0,
                "mirrored {mirrored}: {differ} of {} differ",
                from_data.len()
            );
        }
        // A name that says nothing: as --data-format says.
        let (named, _) = load_packed_as(&[dir.join("positions.dat")], Some(Format::Bullet)).unwrap();
        assert_eq!(named, from_bullet);
        let (decoded_text, _) = load(&[dir.join("positions.txt")]).unwrap();
        assert_eq!(decoded_text, decoded(&from_data));
        std::fs::remove_dir_all(&dir).ok();
    }

    /// The split by game holds out whole games: every game's filtered positions land on one
    /// side, the side `ValidationSplit::held_out` gives its record's key (its index in
    /// reading order for `GamesInOrder`), so the same games whatever the files' order; lone
    /// positions go in blocks of `LONE_BLOCK`. The split by position is `train::split` of
    /// the whole list, as before checkpoint version 9.
    #[test]
    fn the_split_by_game_holds_out_whole_games() {
        use records::positions::text_line;
        let dir = testing::temp("split");
        let all = games(400, 41);
        let mut data = records::record::encode_header(&GenHeader::default());
        let mut text = String::new();
        for (i, g) in all.iter().enumerate() {
            encode_chunk(std::slice::from_ref(g), i as u64, 0, &mut data);
            for (ply, (board, mv, score)) in g.positions().enumerate() {
                if keep_for_training(&board, mv, score, ply) {
                    text.push_str(&text_line(&board, score, g.result));
                    text.push('\n');
                }
            }
        }
        write(&dir.join("games.bin"), &data);
        write(&dir.join("positions.txt"), text.as_bytes());
        let seed = 9;
        let (mut want_train, mut want_validation, mut held_games) = (Vec::new(), Vec::new(), 0);
        let mut buf = Vec::new();
        for g in &all {
            let key = records::manifest::game_key(g, &mut buf);
            let held = ValidationSplit::Games.held_out(seed, key);
            held_games += usize::from(held);
            expand_packed(
                g,
                if held {
                    &mut want_validation
                } else {
                    &mut want_train
                },
            );
        }
        assert!(
            (1..20).contains(&held_games),
            "{held_games} of 400 games held out"
        );
        let (train, validation, w) =
            load_packed_split(&[dir.join("games.bin")], None, ValidationSplit::Games, seed).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(validation, want_validation);
        assert_eq!(train, want_train);
        // Another seed holds out other games.
        let (_, other, _) =
            load_packed_split(&[dir.join("games.bin")], None, ValidationSplit::Games, seed + 1).unwrap();
        assert_ne!(other, validation);

        // The same games split in two files, read in either order: the same games held out
        // (by record); by index in reading order, other games once the order changes.
        let half = all.len() / 2;
        for (name, games) in [("first.bin", &all[..half]), ("second.bin", &all[half..])] {
            let mut bytes = records::record::encode_header(&GenHeader::default());
            for (i, g) in games.iter().enumerate() {
                encode_chunk(std::slice::from_ref(g), i as u64, 0, &mut bytes);
            }
            write(&dir.join(name), &bytes);
        }
        let sorted = |mut v: Vec<PackedPosition>| {
            v.sort_unstable_by_key(|p| p.0);
            v
        };
        let (first, second) = (dir.join("first.bin"), dir.join("second.bin"));
        for split in [ValidationSplit::Games, ValidationSplit::GamesInOrder] {
            let (_, forward, _) = load_packed_split(&[&first, &second], None, split, seed).unwrap();
            let (_, backward, _) = load_packed_split(&[&second, &first], None, split, seed).unwrap();
            let same = sorted(forward) == sorted(backward);
            assert_eq!(same, split == ValidationSplit::Games, "{}", split.name());
        }
        let (_, in_order, _) =
            load_packed_split(&[&first, &second], None, ValidationSplit::GamesInOrder, seed).unwrap();
        let mut want_in_order = Vec::new();
        for (i, g) in all.iter().enumerate() {
            if ValidationSplit::GamesInOrder.held_out(seed, i as u64) {
                expand_packed(g, &mut want_in_order);
            }
        }
        assert_eq!(in_order, want_in_order);

        // By position: the old split of the whole list, neighbours on both sides.
        let (all_positions, _) = load_packed(&[dir.join("games.bin")]).unwrap();
        let (by_position, by_position_validation, _) =
            load_packed_split(&[dir.join("games.bin")], None, ValidationSplit::Positions, seed).unwrap();
        assert_eq!(
            (by_position, by_position_validation),
            crate::train::split(all_positions.clone(), seed)
        );

        // Lone positions: blocks of LONE_BLOCK consecutive positions.
        let (train, validation, _) =
            load_packed_split(&[dir.join("positions.txt")], None, ValidationSplit::Games, seed).unwrap();
        let (mut want_train, mut want_validation) = (Vec::new(), Vec::new());
        for (i, p) in all_positions.iter().enumerate() {
            let block = u64::MAX - i as u64 / LONE_BLOCK;
            let side = if ValidationSplit::Games.held_out(seed, block) {
                &mut want_validation
            } else {
                &mut want_train
            };
            side.push(*p);
        }
        assert!(!validation.is_empty() && train.len() > 10 * validation.len());
        assert_eq!((train, validation), (want_train, want_validation));
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Lone positions pass the part of the filter a lone position allows: in check, mate
    /// scores and the import's scoreless plies are dropped; a bad line is a warning naming
    /// it, and the rest is used.
    #[test]
    fn lone_positions_are_filtered_and_bad_lines_warned() {
        let dir = std::env::temp_dir().join(format!("luft-trainer-lone-filter-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let text = "\
r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 | 35 | 1.0
rnbqkbnr/ppppp2p/5p2/6pQ/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 3 | -400 | 1.0
r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 | 30990 | 1.0
r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 | 32767 | 1.0
8/8/4k3/8/8/4K3/8/8 w - - 0 1 | 0 | 0.5
r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 | 12 | win
";
        write(&dir.join("few.txt"), text.as_bytes());
        let (kept, warnings) = load(&[dir.join("few.txt")]).unwrap();
        assert_eq!(kept.len(), 1, "only the first line passes");
        assert_eq!((kept[0].score, kept[0].result), (35.0, 1.0));
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].contains("few.txt: line 6: the result \"win\""),
            "{warnings:?}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Version 1 files still load, every position the training filter keeps: the first 120
    /// games of a generation-3 file, committed as `testdata/selfplay/gen3-b-v1.bin`.
    #[test]
    fn v1_file_still_loads() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/selfplay/gen3-b-v1.bin");
        assert!(path.is_file(), "{} is missing", path.display());
        let (packed, warnings) = load_packed(&[&path]).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(packed.len(), 11_476);
    }
}
