//! The public handle to a set of tables: [`TableBases`], with WDL and root (DTZ) probes.

use std::fmt;
use std::marker::PhantomData;
use std::path::PathBuf;
use std::sync::Arc;

use crate::engine_adapter::{EngineAdapter, Piece};
use crate::tbprobe::{dtz_to_wdl, pack, Fail, Pos, Prober};

/// Tablebase error type
#[derive(Copy, Clone, Debug, Eq, PartialEq)]
pub enum TBError {
    /// No tablebase files were found with the given search path
    BadPath,
    /// The position is not in the loaded tables (or a table it needs is missing)
    ProbeFailed,
    /// A table the probe needed is damaged: the probe has no answer
    Damaged,
}

impl From<Fail> for TBError {
    fn from(fail: Fail) -> TBError {
        match fail {
            Fail::Missing => TBError::ProbeFailed,
            Fail::Damaged => TBError::Damaged,
        }
    }
}

/// Result of a Win-Draw-Loss (WDL) table probe
#[derive(Copy, Clone, Debug, Eq, PartialEq)]
pub enum WdlProbeResult {
    /// The position is losing for the side to play
    Loss,
    /// The position is a forced loss for the side to play, but the 50-move rule
    /// makes this position a draw instead
    BlessedLoss,
    /// The position is drawn
    Draw,
    /// The position is a forced win for the side to play, but the 50-move rule
    /// makes this position a draw instead
    CursedWin,
    /// The position is winning for the side to play
    Win,
}

/// Result of a successful DTZ probe
#[derive(Copy, Clone, Debug, Eq, PartialEq)]
pub struct DtzResult {
    /// WDL value of the position
    pub wdl: WdlProbeResult,
    /// Start square of the suggested move
    pub from_square: u8,
    /// End square of the suggested move
    pub to_square: u8,
    /// Promotion of the suggested move. `[Piece::Pawn]` if there is no promotion
    pub promotion: Piece,
    /// Whether this move is an en passent capture
    pub ep: bool,
    /// Number of plies from this position to a zeroing move (pawn move or capture)
    pub dtz: u16,
}

/// DTZ value for a single position extracted from the tablebases
#[derive(Copy, Clone, Debug, Eq, PartialEq)]
pub enum DtzProbeValue {
    /// The position is a stalemate
    Stalemate,
    /// The position is a checkmate
    Checkmate,
    /// The DTZ probe failed
    Failed,
    /// The DTZ probe succeeded
    DtzResult(DtzResult),
}

/// Result of a Distance-To-Zero (DTZ) table probe
#[derive(Copy, Clone, Debug, Eq, PartialEq)]
pub struct DtzProbeResult {
    /// DTZ probe result for the root of the position
    pub root: DtzProbeValue,
    /// DTZ probe results for all moves from the root.
    pub moves: [DtzProbeValue; 256],
    /// The number of moves score in `moves`, the remaining entries will be `[DtzProbeValue::Failed]`
    pub num_moves: usize,
}

/// A table file refused when the tables were loaded, and why (its structure is not a
/// valid table's, or it cannot be read).
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct RefusedTable {
    /// The file (or a directory that could not be listed).
    pub path: PathBuf,
    /// The reason, for a message (`magic number 0x..., not 0x...`).
    pub reason: String,
}

impl fmt::Display for RefusedTable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)
    }
}

/// Handle to a set of loaded tables.
///
/// ## Usage
/// The tables are loaded and checked by [`TableBases::new`]; a handle is cheap to clone
/// and every probe is safe from any number of threads. A damaged table file is refused at
/// load ([`TableBases::refused`]) or, where its damage shows only in a probe, makes that
/// probe fail with [`TBError::Damaged`] ([`TableBases::take_damaged`] names the file).
pub struct TableBases<E: EngineAdapter> {
    prober: Arc<Prober>,
    _engine: PhantomData<E>,
}

impl<E: EngineAdapter> Clone for TableBases<E> {
    fn clone(&self) -> Self {
        TableBases {
            prober: Arc::clone(&self.prober),
            _engine: PhantomData,
        }
    }
}

impl<E: EngineAdapter> fmt::Debug for TableBases<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TableBases")
            .field("max_pieces", &self.prober.max_pieces())
            .field("refused", &self.prober.refused().len())
            .finish_non_exhaustive()
    }
}

impl<E: EngineAdapter> TableBases<E> {
    /// Loads the tables of `path`: directories separated by `:` (e.g.
    /// `./syzygy/tb345:./syzygy/tb6`). Every WDL file (`KQvKR.rtbw`) found loads with its
    /// DTZ file (`KQvKR.rtbz`) when there is one, each checked; a file that fails its
    /// checks is refused ([`TableBases::refused`]) and the others stay usable.
    ///
    /// ## Errors:
    /// [`TBError::BadPath`] when no WDL file is in any of the directories. A path whose WDL
    /// files are all refused loads with [`TableBases::max_pieces`] 0.
    pub fn new<P: AsRef<str>>(path: P) -> Result<Self, TBError> {
        let prober = Prober::load(path.as_ref());
        if prober.wdl_files_found() == 0 {
            return Err(TBError::BadPath);
        }
        Ok(TableBases {
            prober: Arc::new(prober),
            _engine: PhantomData,
        })
    }

    /// The files refused at load, each with its reason.
    pub fn refused(&self) -> Vec<RefusedTable> {
        self.prober
            .refused()
            .iter()
            .map(|r| RefusedTable {
                path: r.path.clone(),
                reason: r.reason.clone(),
            })
            .collect()
    }

    /// The endings loaded (`KQvKR`), each with whether its DTZ table loaded.
    pub fn endings(&self) -> Vec<(String, bool)> {
        self.prober
            .endings()
            .map(|(name, dtz)| (name.to_string(), dtz))
            .collect()
    }

    /// The table files in which a probe met damage since the last call, each file once
    /// for the life of the tables (for a warning).
    pub fn take_damaged(&self) -> Vec<PathBuf> {
        self.prober.take_damaged()
    }

    /// Probe the Win-Draw-Loss (WDL) tables.
    #[allow(clippy::too_many_arguments)]
    pub fn probe_wdl(
        &self,
        white: u64,
        black: u64,
        kings: u64,
        queens: u64,
        rooks: u64,
        bishops: u64,
        knights: u64,
        pawns: u64,
        ep: u32,
        turn: bool,
    ) -> Result<WdlProbeResult, TBError> {
        let pos = Pos {
            white,
            black,
            kings,
            queens,
            rooks,
            bishops,
            knights,
            pawns,
            rule50: 0,
            ep: ep as u8,
            turn,
        };
        let (wdl, _) = self.prober.probe_wdl::<E>(&pos)?;
        wdl_result(u32::try_from(wdl + 2).map_err(|_| TBError::Damaged)?)
    }

    /// Probe the Distance-To-Zero (DTZ) tables: the root's result and every legal move's.
    #[allow(clippy::too_many_arguments)]
    pub fn probe_root(
        &self,
        white: u64,
        black: u64,
        kings: u64,
        queens: u64,
        rooks: u64,
        bishops: u64,
        knights: u64,
        pawns: u64,
        rule50: u32,
        ep: u32,
        turn: bool,
    ) -> Result<DtzProbeResult, TBError> {
        let pos = Pos {
            white,
            black,
            kings,
            queens,
            rooks,
            bishops,
            knights,
            pawns,
            rule50: rule50 as u8,
            ep: ep as u8,
            turn,
        };
        let (best, dtz, results) = self.prober.probe_root::<E>(&pos)?;
        let root = match best {
            0 => return Err(TBError::ProbeFailed),
            0xfffe => DtzProbeValue::Checkmate,
            0xffff => DtzProbeValue::Stalemate,
            m => extract_dtz_result(pack(&pos, m, dtz, dtz_to_wdl(rule50 as i32, dtz)))?,
        };
        let mut dtz_data = DtzProbeResult {
            root,
            moves: [DtzProbeValue::Failed; 256],
            num_moves: 0,
        };
        if let DtzProbeValue::DtzResult(_) = root {
            for (slot, &value) in dtz_data.moves.iter_mut().zip(&results) {
                *slot = extract_dtz_result(value)?;
            }
            dtz_data.num_moves = results.len().min(256);
        }
        Ok(dtz_data)
    }

    /// The maximum number of pieces (including kings) that the loaded tablebases can be probed with
    pub fn max_pieces(&self) -> u32 {
        self.prober.max_pieces()
    }
}

fn wdl_result(value: u32) -> Result<WdlProbeResult, TBError> {
    match value {
        0 => Ok(WdlProbeResult::Loss),
        1 => Ok(WdlProbeResult::BlessedLoss),
        2 => Ok(WdlProbeResult::Draw),
        3 => Ok(WdlProbeResult::CursedWin),
        4 => Ok(WdlProbeResult::Win),
        _ => Err(TBError::Damaged),
    }
}

fn extract_dtz_result(result: u32) -> Result<DtzProbeValue, TBError> {
    let to_square = (result & 0x3F0) >> 4;
    let from_square = (result & 0xFC00) >> 10;
    let promotion = (result & 0x70000) >> 16;
    let ep = (result & 0x80000) >> 19;
    let dtz = (result & 0xFFF00000) >> 20;
    Ok(DtzProbeValue::DtzResult(DtzResult {
        wdl: wdl_result(result & 0xF)?,
        from_square: from_square as u8,
        to_square: to_square as u8,
        promotion: match promotion {
            1 => Piece::Queen,
            2 => Piece::Rook,
            3 => Piece::Bishop,
            4 => Piece::Knight,
            _ => Piece::Pawn,
        },
        ep: ep != 0,
        dtz: dtz as u16,
    }))
}
