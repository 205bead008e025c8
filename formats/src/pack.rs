//! Packs: compact, checksummed, portable archives of self-play games (`datagen pack` writes
//! them, `datagen unpack` turns them back into data files, and every reader of games reads
//! them directly through [`crate::source::DataSource`]).
//!
//! A pack keeps everything the data files it came from hold that a reader reads: every
//! game (start position, start evaluation, result, moves, scores), which file (source) each
//! game came from with that file's whole settings header as it stood, and each chunk's
//! sequence number and nodes searched, so unpacking writes the same games, in order, under
//! the same headers in the same chunks (for files datagen wrote, byte for byte the same
//! files). On Luft's own self-play it takes about 2.5 bytes a position where the data files
//! take about 4.6.
//!
//! # Layout (all fixed-width integers little-endian)
//!
//! ```text
//! prefix        0..8    "LUFTPACK"
//!               8..12   pack version: 2 (1 for packs written before 2026-12-08, which
//!                       have no end record; both are read)
//! source table  twice in a row, the same bytes (a flipped byte spoils one copy):
//!               0..4    "LPST"
//!               4..8    body length T (at most 16 MiB)
//!               8..     body: varint pack version (the authoritative copy), varint
//!                       source count S, then per source: varint length + UTF-8 name (a
//!                       relative path with `/` separators: where `datagen unpack` writes
//!                       it), varint length + the source's whole data file header as it
//!                       stood in the file (magic to checksum, `record`'s layout; empty when
//!                       that header was unreadable)
//!               +8      FNV-1a 64 of the copy's bytes before it
//! blocks        until the end record:
//!               0..4    "LPBK"
//!               4..8    payload length (at most 16 MiB; the writer closes a block once it
//!                       passes 64 KiB)
//!               8..12   games in the payload
//!               12..20  FNV-1a 64 of bytes 0..12 and the payload
//!               20..    payload: game frames, back to back
//! end record    (version 2) last in the file, once:
//!               0..4    "LPND"
//!               4..12   blocks in the pack (u64)
//!               12..20  games in the pack (u64)
//!               20..28  FNV-1a 64 of bytes 0..20
//! game frame    varint  body length n (35 to 1 MiB)
//!               n       body
//!               4       the low 32 bits of FNV-1a 64 of the length varint and the body
//! game body     u8      flags: bit 0 its chunk is a version 2 chunk (version 1 otherwise),
//!                       bit 1 the first game of its chunk, bit 2 the chunk records its
//!                       nodes (bits 0 and 1 set too); bits 3-7 zero
//!               varint  source index (< S)
//!               varint  the chunk's sequence number       (bits 0 and 1)
//!               varint  the chunk's nodes searched, > 0   (bit 2)
//!               32      the start board exactly as `record` lays it out (pieces, side to
//!                       move, en passant, clocks, start evaluation, result)
//!               varint  plies p
//!               p times u8 move index (255: 255 plus a varint follows), then varint
//!                       zigzag(score - prediction)
//! ```
//!
//! A varint is LEB128: 7 bits a byte, low bits first, the top bit set on every byte but the
//! last. zigzag maps a signed d to `2d` (d >= 0) or `-2d - 1` (d < 0), so small differences
//! of either sign take one byte. A score is White's view, centipawns, as in the data files;
//! the prediction for the first ply is the start evaluation and for every later ply the
//! score of the ply before (consecutive searches mostly agree).
//!
//! The move index is the played move's place among the position's legal moves sorted by
//! their 16-bit record encoding ([`crate::record::encode_move`]), not by the order
//! `movegen` generates them in: the pack depends on the rules of chess (standard and
//! Chess960 castling as king takes rook) and on the record move encoding, both fixed, and
//! not on the generator's order, which may change. A change to any of those needs a new
//! pack version, which readers refuse rather than misread.
//!
//! # Damage
//!
//! Each game frame is delimited and checksummed on its own, so one flipped byte costs at most
//! the game it falls in. A [`PackReader`] checks each block; a block that fails (a flipped
//! byte, a cut, a damaged header) is reported and its games are then read frame by frame,
//! each frame kept when its own checksum holds and it decodes. Bytes that belong to no valid
//! table, block or frame are reported as damage and skipped byte by byte until the next
//! valid one (a frame's prefilter, flags and source index, rejects almost every wrong
//! offset before its checksum is computed; a false match needs a 32-bit checksum collision
//! and a body that decodes as legal chess). A damaged table copy is replaced by the other;
//! with both lost the games still read, without their sources' names and headers. A
//! damaged prefix does not hide the pack: it is known by the table magic at byte 12
//! ([`is_pack`]).
//!
//! The end record (version 2) says how many blocks and games the pack holds, so a pack cut
//! between two blocks (which reads as a shorter whole pack) or missing a block cut out
//! cleanly is known, and the games lost are counted exactly: a version 2 pack without its
//! end record was cut ([`PackLoss::cut`]), and one whose end record counts more games than
//! were read lost the difference.

use crate::buffered::ReadBuffer;
use crate::record::{
    encode_move, fnv_extend, pack_board, unpack_board, Chunk, Damage, DataReader, GameRecord, Header,
    RecordError, FNV_OFFSET,
};
use movegen::{Board, Move, MoveList};
use std::collections::VecDeque;
use std::fmt;
use std::io::{Read, Write};

/// The first 8 bytes of every pack.
pub const PACK_MAGIC: &[u8; 8] = b"LUFTPACK";
/// The pack version this build writes.
pub const PACK_VERSION: u32 = 2;
/// The pack versions this build reads: 1 (no end record) and 2.
pub const READ_VERSIONS: [u32; 2] = [1, 2];
/// Magic of the end record (version 2).
pub const END_MAGIC: &[u8; 4] = b"LPND";
/// Bytes of the end record.
pub const END_RECORD: usize = 28;
/// Magic of a source table copy.
pub const TABLE_MAGIC: &[u8; 4] = b"LPST";
/// Magic of a block.
pub const BLOCK_MAGIC: &[u8; 4] = b"LPBK";
/// The writer closes a block once its payload reaches this many bytes.
pub const BLOCK_TARGET: usize = 64 << 10;
/// Largest payload a block may announce.
pub const MAX_BLOCK_PAYLOAD: usize = 16 << 20;
/// Largest source table body.
pub const MAX_TABLE: usize = 16 << 20;
/// Largest game body (a 400-ply game is under 1 KiB).
pub const MAX_GAME_BODY: usize = 1 << 20;
/// Bytes of the prefix (magic and version).
const PREFIX: usize = 12;
/// Bytes before a block's payload.
pub const BLOCK_HEADER: usize = 20;
/// The smallest game body: flags, source, board, plies.
const MIN_BODY: usize = 35;
const FLAG_V2: u8 = 1;
const FLAG_FIRST: u8 = 2;
const FLAG_NODES: u8 = 4;

/// Whether the first bytes of a file (16 or more, where the file has them) are those of a
/// pack: its magic, or, where the magic is damaged, a source table at byte 12; or, for a
/// pack cut from the front (its prefix lost, or its tables too), a table or block at byte 0.
pub fn is_pack(first: &[u8]) -> bool {
    first.starts_with(PACK_MAGIC)
        || first.get(PREFIX..PREFIX + 4) == Some(&TABLE_MAGIC[..])
        || first.starts_with(TABLE_MAGIC)
        || first.starts_with(BLOCK_MAGIC)
}

/// Why the file at `path` is not a pack, in words (`is empty`, `is a data file, not a pack`,
/// `is not a pack: its first bytes are no pack's`), by its first bytes ([`is_pack`]);
/// `None` for a pack (or a damaged one whose second table copy is where it belongs).
///
/// # Errors
/// The file cannot be opened or read.
pub fn why_not_a_pack(path: &std::path::Path) -> std::io::Result<Option<&'static str>> {
    use std::io::Read;
    let mut first = Vec::with_capacity(PREFIX + 4);
    std::fs::File::open(path)?
        .take((PREFIX + 4) as u64)
        .read_to_end(&mut first)?;
    Ok(if is_pack(&first) {
        None
    } else if first.is_empty() {
        Some("is empty, not a pack")
    } else if first.starts_with(crate::record::GAME_MAGIC) {
        Some("is a data file, not a pack (`datagen pack` makes one of it)")
    } else {
        Some("is not a pack: its first bytes are no pack's")
    })
}

/// One data file a pack's games came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackSource {
    /// Where `datagen unpack` writes it: a relative path, `/` between its parts.
    pub name: String,
    /// The file's whole header as it stood (magic to checksum); empty when it was
    /// unreadable.
    pub header_bytes: Vec<u8>,
}

impl PackSource {
    /// The source's settings header, read from its bytes.
    pub fn header(&self) -> Result<Header, RecordError> {
        if self.header_bytes.is_empty() {
            return Err(RecordError::BadHeader(
                "the source's header was unreadable when it was packed".into(),
            ));
        }
        let reader = DataReader::new(&self.header_bytes[..])
            .map_err(|e| RecordError::BadHeader(format!("cannot read the stored header: {e}")))?;
        let header = reader.header().cloned().map_err(Clone::clone)?;
        if reader.header_len() as usize != self.header_bytes.len() {
            return Err(RecordError::BadHeader("bytes after the stored header".into()));
        }
        Ok(header)
    }
}

/// Why a game or chunk cannot go into a pack, or writing failed.
#[derive(Debug)]
pub enum PackError {
    /// Writing failed.
    Io(std::io::Error),
    /// The chunk cannot be packed (the reason).
    Unpackable(String),
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PackError::Io(e) => write!(f, "{e}"),
            PackError::Unpackable(e) => write!(f, "cannot pack: {e}"),
        }
    }
}

impl std::error::Error for PackError {}

impl From<std::io::Error> for PackError {
    fn from(e: std::io::Error) -> PackError {
        PackError::Io(e)
    }
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Reads a varint at `*at`; `None` when the bytes end first or it runs past 64 bits.
fn get_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        let part = u64::from(b & 0x7F);
        if shift == 63 && part > 1 {
            return None;
        }
        v |= part << shift;
        if b & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

fn zigzag(d: i32) -> u64 {
    u64::from(((d << 1) ^ (d >> 31)) as u32)
}

fn unzigzag(v: u64) -> Option<i32> {
    let v = u32::try_from(v).ok()?;
    Some((v >> 1) as i32 ^ -((v & 1) as i32))
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn get_bytes<'a>(bytes: &'a [u8], at: &mut usize) -> Option<&'a [u8]> {
    let len = usize::try_from(get_varint(bytes, at)?).ok()?;
    let end = at.checked_add(len).filter(|&e| e <= bytes.len())?;
    let out = &bytes[*at..end];
    *at = end;
    Some(out)
}

/// The low 32 bits of FNV-1a 64: any one changed byte changes them (each step is a
/// bijection of the low 32 bits of the state).
fn check32(bytes: &[u8]) -> u32 {
    fnv_extend(FNV_OFFSET, bytes) as u32
}

/// The legal moves of `board` with their record encodings, sorted by encoding.
fn sorted_moves(board: &Board, keys: &mut Vec<u32>) -> MoveList {
    let legal = board.legal_moves();
    keys.clear();
    keys.extend(
        legal
            .iter()
            .enumerate()
            .map(|(i, &m)| u32::from(encode_move(board, m)) << 16 | i as u32),
    );
    keys.sort_unstable();
    legal
}

/// The index of `mv` among the legal moves of `board` sorted by record encoding.
fn move_index(board: &Board, mv: Move) -> Option<usize> {
    let code = encode_move(board, mv);
    let mut below = 0;
    let mut found = false;
    for &m in board.legal_moves().iter() {
        let c = encode_move(board, m);
        if c < code {
            below += 1;
        } else if m == mv {
            found = true;
        }
    }
    found.then_some(below)
}

/// One chunk's description in a game body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ChunkPart {
    version: u32,
    first: bool,
    seq: Option<u64>,
    nodes: Option<u64>,
}

/// Appends one game frame.
fn encode_frame(
    out: &mut Vec<u8>,
    body: &mut Vec<u8>,
    source: usize,
    part: ChunkPart,
    game: &GameRecord,
) -> Result<usize, String> {
    body.clear();
    let mut flags = 0;
    if part.version == 2 {
        flags |= FLAG_V2;
    }
    if part.first {
        flags |= FLAG_FIRST;
    }
    if part.nodes.is_some() {
        flags |= FLAG_NODES;
    }
    body.push(flags);
    put_varint(body, source as u64);
    if let Some(seq) = part.seq {
        put_varint(body, seq);
    }
    if let Some(nodes) = part.nodes {
        put_varint(body, nodes);
    }
    pack_board(&game.start, game.start_eval, game.result, body);
    put_varint(body, game.moves.len() as u64);
    let mut board = game.start;
    let mut predicted = i32::from(game.start_eval);
    for (ply, &(mv, score)) in game.moves.iter().enumerate() {
        let index = move_index(&board, mv).ok_or_else(|| format!("the move at ply {ply} is not legal"))?;
        if index < 255 {
            body.push(index as u8);
        } else {
            body.push(255);
            put_varint(body, (index - 255) as u64);
        }
        put_varint(body, zigzag(i32::from(score) - predicted));
        predicted = i32::from(score);
        board.play(mv);
    }
    if body.len() > MAX_GAME_BODY {
        return Err(format!(
            "a game of {} plies takes {} bytes, above the {MAX_GAME_BODY} a frame may hold",
            game.moves.len(),
            body.len()
        ));
    }
    let start = out.len();
    put_varint(out, body.len() as u64);
    out.extend_from_slice(body);
    let check = check32(&out[start..]);
    out.extend_from_slice(&check.to_le_bytes());
    Ok(out.len() - start)
}

/// A decoded game frame.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Frame {
    source: usize,
    part: ChunkPart,
    game: GameRecord,
}

enum Parsed {
    /// A valid frame (boxed: a game record holds its start board) and the bytes it takes.
    Done(Box<Frame>, usize),
    /// More bytes are needed to tell: this many from the frame's start.
    More(usize),
    /// Not a valid frame.
    Bad(String),
}

/// Tries to read a game frame at the start of `window`; `sources` is the number of sources
/// when the table is known.
fn parse_frame(window: &[u8], sources: Option<usize>, keys: &mut Vec<u32>) -> Parsed {
    let mut at = 0;
    let Some(len) = get_varint(window, &mut at) else {
        return if window.len() < 3 && window.iter().all(|b| b & 0x80 != 0) {
            Parsed::More(window.len() + 1)
        } else {
            Parsed::Bad("no game frame".into())
        };
    };
    let Some(len) = usize::try_from(len)
        .ok()
        .filter(|l| (MIN_BODY..=MAX_GAME_BODY).contains(l))
    else {
        return Parsed::Bad("no game frame".into());
    };
    // The prefilter: flags and source index, before waiting for or hashing the body.
    if let Some(&flags) = window.get(at) {
        if !flags_valid(flags) {
            return Parsed::Bad("no game frame".into());
        }
        let mut s = at + 1;
        if let (Some(source), Some(n)) = (get_varint(window, &mut s), sources) {
            if source >= n as u64 {
                return Parsed::Bad("no game frame".into());
            }
        }
    }
    let total = at + len + 4;
    if window.len() < total {
        return Parsed::More(total);
    }
    let stored = u32::from_le_bytes([
        window[total - 4],
        window[total - 3],
        window[total - 2],
        window[total - 1],
    ]);
    if check32(&window[..at + len]) != stored {
        return Parsed::Bad("game checksum mismatch".into());
    }
    match decode_body(&window[at..at + len], sources, keys) {
        Ok(frame) => Parsed::Done(Box::new(frame), total),
        Err(e) => Parsed::Bad(format!("undecodable game whose checksum holds: {e}")),
    }
}

fn flags_valid(flags: u8) -> bool {
    flags & !(FLAG_V2 | FLAG_FIRST | FLAG_NODES) == 0
        && (flags & FLAG_NODES == 0 || flags & (FLAG_V2 | FLAG_FIRST) == FLAG_V2 | FLAG_FIRST)
}

fn decode_body(body: &[u8], sources: Option<usize>, keys: &mut Vec<u32>) -> Result<Frame, String> {
    let flags = body[0];
    if !flags_valid(flags) {
        return Err(format!("flags {flags:#04x}"));
    }
    let mut at = 1;
    let cut = || "cut short".to_string();
    let source = get_varint(body, &mut at).ok_or_else(cut)?;
    let source = usize::try_from(source)
        .ok()
        .filter(|&s| sources.is_none_or(|n| s < n))
        .ok_or_else(|| format!("source {source} out of range"))?;
    let first = flags & FLAG_FIRST != 0;
    let version = if flags & FLAG_V2 != 0 { 2 } else { 1 };
    let seq = if version == 2 && first {
        Some(get_varint(body, &mut at).ok_or_else(cut)?)
    } else {
        None
    };
    let nodes = if flags & FLAG_NODES != 0 {
        Some(get_varint(body, &mut at).ok_or_else(cut)?).filter(|&n| n > 0)
    } else {
        None
    };
    if flags & FLAG_NODES != 0 && nodes.is_none() {
        return Err("nodes 0".into());
    }
    let board_bytes = body.get(at..at + 32).ok_or_else(cut)?;
    let (start, start_eval, result) = unpack_board(board_bytes).map_err(|e| e.to_string())?;
    at += 32;
    let plies = get_varint(body, &mut at).ok_or_else(cut)?;
    // Every ply takes at least two bytes.
    if plies > ((body.len() - at) / 2) as u64 {
        return Err(format!("{plies} plies in {} bytes", body.len() - at));
    }
    let mut moves = Vec::with_capacity(plies as usize);
    let mut board = start;
    let mut predicted = i32::from(start_eval);
    for ply in 0..plies as usize {
        let mut index = usize::from(*body.get(at).ok_or_else(cut)?);
        at += 1;
        if index == 255 {
            let extra = get_varint(body, &mut at).ok_or_else(cut)?;
            index = usize::try_from(extra)
                .ok()
                .and_then(|e| e.checked_add(255))
                .ok_or_else(|| format!("move index at ply {ply}"))?;
        }
        let legal = sorted_moves(&board, keys);
        let key = keys
            .get(index)
            .ok_or_else(|| format!("move index {index} of {} at ply {ply}", keys.len()))?;
        let mv = legal[(key & 0xFFFF) as usize];
        let delta = get_varint(body, &mut at)
            .and_then(unzigzag)
            .ok_or_else(|| format!("score at ply {ply}"))?;
        let score = predicted
            .checked_add(delta)
            .and_then(|s| i16::try_from(s).ok())
            .ok_or_else(|| format!("score out of range at ply {ply}"))?;
        moves.push((mv, score));
        predicted = i32::from(score);
        board.play(mv);
    }
    if at != body.len() {
        return Err(format!("{} bytes after the game", body.len() - at));
    }
    Ok(Frame {
        source,
        part: ChunkPart {
            version,
            first,
            seq,
            nodes,
        },
        game: GameRecord {
            start,
            start_eval,
            result,
            moves,
        },
    })
}

fn encode_table(sources: &[PackSource]) -> Vec<u8> {
    encode_table_of_version(sources, PACK_VERSION)
}

/// A source table copy saying pack version `version` (the tests write version 1 packs).
fn encode_table_of_version(sources: &[PackSource], version: u32) -> Vec<u8> {
    let mut body = Vec::new();
    put_varint(&mut body, u64::from(version));
    put_varint(&mut body, sources.len() as u64);
    for s in sources {
        put_bytes(&mut body, s.name.as_bytes());
        put_bytes(&mut body, &s.header_bytes);
    }
    let mut out = Vec::with_capacity(body.len() + 16);
    out.extend_from_slice(TABLE_MAGIC);
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(&body);
    let hash = fnv_extend(FNV_OFFSET, &out);
    out.extend_from_slice(&hash.to_le_bytes());
    out
}

/// A table body: its version and sources.
fn decode_table_body(body: &[u8]) -> Option<(u64, Vec<PackSource>)> {
    let mut at = 0;
    let version = get_varint(body, &mut at)?;
    if !READ_VERSIONS.iter().any(|&v| u64::from(v) == version) {
        // Another version's sources may be laid out otherwise: only the version is read.
        return Some((version, Vec::new()));
    }
    let count = get_varint(body, &mut at)?;
    let mut sources = Vec::new();
    for _ in 0..count {
        let name = String::from_utf8(get_bytes(body, &mut at)?.to_vec()).ok()?;
        let header_bytes = get_bytes(body, &mut at)?.to_vec();
        sources.push(PackSource { name, header_bytes });
    }
    (at == body.len()).then_some((version, sources))
}

/// What a [`PackWriter`] has written so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PackTotals {
    /// Bytes written, prefix and tables included.
    pub bytes: u64,
    /// Games.
    pub games: u64,
    /// Scored positions (one per recorded move).
    pub positions: u64,
    /// Blocks.
    pub blocks: u64,
}

/// Writes a pack: the prefix and source table at once, then chunks of games in blocks.
#[derive(Debug)]
pub struct PackWriter<W: Write> {
    out: W,
    sources: usize,
    block: Vec<u8>,
    block_games: u32,
    body: Vec<u8>,
    totals: PackTotals,
}

impl<W: Write> PackWriter<W> {
    /// Writes the prefix and both copies of the source table.
    pub fn new(mut out: W, sources: &[PackSource]) -> Result<PackWriter<W>, PackError> {
        let table = encode_table(sources);
        if table.len() > MAX_TABLE + 16 {
            return Err(PackError::Unpackable(format!(
                "the source table takes {} bytes, above {MAX_TABLE}",
                table.len()
            )));
        }
        let mut head = Vec::with_capacity(PREFIX + 2 * table.len());
        head.extend_from_slice(PACK_MAGIC);
        head.extend_from_slice(&PACK_VERSION.to_le_bytes());
        head.extend_from_slice(&table);
        head.extend_from_slice(&table);
        out.write_all(&head)?;
        Ok(PackWriter {
            out,
            sources: sources.len(),
            block: Vec::with_capacity(BLOCK_TARGET + 4096),
            block_games: 0,
            body: Vec::new(),
            totals: PackTotals {
                bytes: head.len() as u64,
                ..PackTotals::default()
            },
        })
    }

    /// Adds one chunk's games (its version, sequence number and nodes as `chunk` says; its
    /// offset, length and problem are not kept) as coming from source `source`.
    pub fn add_chunk(&mut self, source: usize, chunk: &Chunk) -> Result<(), PackError> {
        let bad = |e: String| Err(PackError::Unpackable(e));
        if source >= self.sources {
            return bad(format!("source {source} of {}", self.sources));
        }
        match (chunk.version, chunk.seq) {
            (1, None) | (2, Some(_)) => {}
            (v, seq) => return bad(format!("a version {v} chunk with sequence number {seq:?}")),
        }
        if chunk.games.is_empty() {
            return Ok(());
        }
        let mut frames = Vec::new();
        let mut lengths = Vec::with_capacity(chunk.games.len());
        for (i, game) in chunk.games.iter().enumerate() {
            let part = ChunkPart {
                version: chunk.version,
                first: i == 0,
                seq: chunk.seq.filter(|_| i == 0),
                nodes: chunk.nodes.filter(|&n| i == 0 && n > 0),
            };
            let len = encode_frame(&mut frames, &mut self.body, source, part, game)
                .map_err(|e| PackError::Unpackable(format!("game {i} of the chunk: {e}")))?;
            lengths.push(len);
        }
        self.totals.games += chunk.games.len() as u64;
        self.totals.positions += chunk.games.iter().map(|g| g.moves.len() as u64).sum::<u64>();
        // A chunk's frames go into one block, unless that block would grow too large.
        if !self.block.is_empty() && self.block.len() + frames.len() > MAX_BLOCK_PAYLOAD {
            self.flush_block()?;
        }
        let mut at = 0;
        for len in lengths {
            if !self.block.is_empty() && self.block.len() + len > MAX_BLOCK_PAYLOAD {
                self.flush_block()?;
            }
            self.block.extend_from_slice(&frames[at..at + len]);
            self.block_games += 1;
            at += len;
        }
        if self.block.len() >= BLOCK_TARGET {
            self.flush_block()?;
        }
        Ok(())
    }

    fn flush_block(&mut self) -> std::io::Result<()> {
        if self.block_games == 0 {
            return Ok(());
        }
        let mut head = [0u8; BLOCK_HEADER];
        head[0..4].copy_from_slice(BLOCK_MAGIC);
        head[4..8].copy_from_slice(&(self.block.len() as u32).to_le_bytes());
        head[8..12].copy_from_slice(&self.block_games.to_le_bytes());
        let hash = fnv_extend(fnv_extend(FNV_OFFSET, &head[..12]), &self.block);
        head[12..20].copy_from_slice(&hash.to_le_bytes());
        self.out.write_all(&head)?;
        self.out.write_all(&self.block)?;
        self.totals.bytes += (BLOCK_HEADER + self.block.len()) as u64;
        self.totals.blocks += 1;
        self.block.clear();
        self.block_games = 0;
        Ok(())
    }

    /// What has been written so far (the open block not yet counted in `bytes`).
    pub fn totals(&self) -> PackTotals {
        self.totals
    }

    /// Writes the last block and the end record and flushes; returns the output and the
    /// totals.
    pub fn finish(mut self) -> std::io::Result<(W, PackTotals)> {
        self.flush_block()?;
        self.out
            .write_all(&end_record(self.totals.blocks, self.totals.games))?;
        self.totals.bytes += END_RECORD as u64;
        self.out.flush()?;
        Ok((self.out, self.totals))
    }
}

/// The end record of a pack of `blocks` blocks and `games` games.
fn end_record(blocks: u64, games: u64) -> [u8; END_RECORD] {
    let mut end = [0u8; END_RECORD];
    end[0..4].copy_from_slice(END_MAGIC);
    end[4..12].copy_from_slice(&blocks.to_le_bytes());
    end[12..20].copy_from_slice(&games.to_le_bytes());
    let hash = fnv_extend(FNV_OFFSET, &end[..20]);
    end[20..28].copy_from_slice(&hash.to_le_bytes());
    end
}

/// What a [`PackReader`] finds, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PackItem {
    /// One chunk's games (as the data file it came from held them) and their source index.
    Chunk {
        /// Index in [`PackReader::sources`] (which may be empty: both tables lost).
        source: usize,
        /// The games with their chunk's version, sequence number and nodes; `offset` and
        /// `len` are the frames' place in the pack.
        chunk: Chunk,
    },
    /// Bytes that belong to no valid table, block or frame.
    Damage(Damage),
    /// Something wrong that cost no game by itself (a block that failed its checksum and
    /// was read frame by frame, a second table that differs).
    Problem(String),
}

enum Unit {
    Table(u64, Vec<PackSource>),
    Block(Vec<(u64, u64, Frame)>),
    /// A block that failed, with where its payload ends and the games its header says it
    /// holds, when those fields are plausible.
    BadBlock(String, Option<(u64, u64)>),
    Frame(u64, Box<Frame>),
    /// The end record: blocks and games.
    End(u64, u64),
}

/// The smallest game frame: a one-byte length, the smallest body and the checksum. A
/// damaged range shorter than this cannot have held a whole game.
const MIN_FRAME: u64 = 1 + MIN_BODY as u64 + 4;

/// Games a pack held that reading it did not give back ([`PackReader::loss`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PackLoss {
    /// Games counted lost in blocks that failed their checksum and had damage among their
    /// games (a cut pack's last block included): for each, the games its header says it
    /// holds less those read from it, and at least one per damaged range.
    pub games: u64,
    /// Damaged ranges among the games that no block's count covers (its header was
    /// damaged too), each at least as long as a game: each lost at least one game.
    pub uncounted: u64,
    /// Whether the pack ends inside a table, a block or a game, or (version 2) without its
    /// end record: it was cut, and the games after the cut, if any, are gone without a
    /// count (`games` and `uncounted` count only what was lost before it).
    pub cut: bool,
}

impl PackLoss {
    /// Whether any game was lost (or, for a pack cut before its games, may have been).
    pub fn any(&self) -> bool {
        self.games > 0 || self.uncounted > 0 || self.cut
    }

    /// At least this many games were lost.
    pub fn at_least(&self) -> u64 {
        self.games + self.uncounted
    }

    /// Whether [`PackLoss::at_least`] is the exact count (no cut, no uncounted range).
    pub fn exact(&self) -> bool {
        !self.cut && self.uncounted == 0
    }
}

enum Attempt {
    Found(Unit),
    Failed(String),
}

/// Reads a pack from any byte source, a block (plus a read buffer) at a time, and never
/// stops at damage (see the module notes).
pub struct PackReader<R> {
    input: ReadBuffer<R>,
    sources: Option<Vec<PackSource>>,
    damage: Option<(u64, String)>,
    /// The chunk being gathered: its source and games so far.
    pending: Option<(usize, Chunk)>,
    queue: VecDeque<PackItem>,
    finished: bool,
    keys: Vec<u32>,
    /// Valid source table copies read.
    tables: u32,
    /// Whether a block or game has been found (damage before that is in the prefix or the
    /// tables, which hold no game).
    in_games: bool,
    /// The failed block being read frame by frame: where its payload ends, the games its
    /// header says it holds, those read from it so far, and the damaged ranges in it.
    bad_block: Option<(u64, u64, u64, u64)>,
    loss: PackLoss,
    /// The version the prefix or a table copy first gave (`None` while neither has read).
    version: Option<u32>,
    /// The file read as segments: a pack from its start to its end record (or to the
    /// tables of a pack that follows it, or the end of the file). An end record counts
    /// its segment's games, so the loss of each segment is settled at its end
    /// ([`PackReader::settle_segment`]) into `settled`; `loss` is the open segment's.
    settled: PackLoss,
    /// The open segment's version (by its prefix or tables), blocks found (whole or
    /// failed) and games read.
    seg_version: Option<u32>,
    blocks_read: u64,
    games_read: u64,
    /// Whether a unit (table, block, game) was found in the open segment.
    seg_units: bool,
    /// Whether the open segment began at an end record (what follows one is appended).
    after_end: bool,
    /// Where an end record begins that the pack ends inside of (cut within it).
    end_cut_at: Option<u64>,
    /// Whether the open segment ends in a damaged range of an end record's length after
    /// its games: the end record, damaged (it holds no game, and the pack was not cut).
    end_damaged: bool,
}

impl<R> fmt::Debug for PackReader<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PackReader")
            .field("offset", &self.input.offset())
            .field("sources", &self.sources)
            .finish_non_exhaustive()
    }
}

impl<R: Read> PackReader<R> {
    /// Reads the prefix and the source table. Damage there is reported as items, not as an
    /// error; the error is for reading failures and a pack of a version this build does not
    /// read.
    pub fn new(src: R) -> std::io::Result<PackReader<R>> {
        let mut r = PackReader {
            input: ReadBuffer::new(src),
            sources: None,
            damage: None,
            pending: None,
            queue: VecDeque::new(),
            finished: false,
            keys: Vec::new(),
            tables: 0,
            in_games: false,
            bad_block: None,
            loss: PackLoss::default(),
            version: None,
            settled: PackLoss::default(),
            seg_version: None,
            blocks_read: 0,
            games_read: 0,
            seg_units: false,
            after_end: false,
            end_cut_at: None,
            end_damaged: false,
        };
        r.input.fill(PREFIX)?;
        let head = r.input.unread();
        let prefix_version = (head.len() >= PREFIX && &head[..8] == PACK_MAGIC)
            .then(|| u32::from_le_bytes([head[8], head[9], head[10], head[11]]))
            .filter(|v| READ_VERSIONS.contains(v));
        if let Some(v) = prefix_version {
            r.version = Some(v);
            r.seg_version = Some(v);
            r.input.consume(PREFIX);
        } else if head.is_empty() {
            r.finished = true;
            r.queue.push_back(PackItem::Problem("empty file".into()));
        } else {
            let what = if head.len() < PREFIX {
                "truncated pack prefix".to_string()
            } else if &head[..8] != PACK_MAGIC {
                "missing LUFTPACK magic".to_string()
            } else {
                let v = u32::from_le_bytes([head[8], head[9], head[10], head[11]]);
                format!("prefix version field says {v}")
            };
            // Read from byte 0: a pack whose prefix was lost may start with a table copy or
            // a block (the damage is then empty, reported as a problem).
            r.damage = Some((0, what));
        }
        // Up to the table, or the first games where both copies are lost.
        while r.sources.is_none() && r.pending.is_none() && !r.finished {
            r.step()?;
        }
        Ok(r)
    }

    /// The sources the table names; `None` when both copies are lost.
    pub fn sources(&self) -> Option<&[PackSource]> {
        self.sources.as_deref()
    }

    /// The pack's version, by its prefix or source table (`None` when all are lost).
    pub fn version(&self) -> Option<u32> {
        self.version
    }

    /// The next chunk, damaged range or problem; `None` at the end of the pack.
    pub fn next_item(&mut self) -> std::io::Result<Option<PackItem>> {
        loop {
            if let Some(item) = self.queue.pop_front() {
                return Ok(Some(item));
            }
            if self.finished {
                return Ok(None);
            }
            self.step()?;
        }
    }

    /// The games lost to damage so far; all of them once [`PackReader::next_item`] has
    /// returned `None`. Damage in the prefix, in one table copy or in a block's header
    /// costs no game and is not counted.
    pub fn loss(&self) -> PackLoss {
        PackLoss {
            games: self.settled.games + self.loss.games,
            uncounted: self.settled.uncounted + self.loss.uncounted,
            cut: self.settled.cut || self.loss.cut,
        }
    }

    /// Ends the failed block being read frame by frame once reading has passed its end
    /// (`at`; `None`: the end of the pack, at `eof`), counting its games that did not read.
    ///
    /// Only damage inside the block loses games (a block whose games all read had only its
    /// header damaged, whatever that header's count says), a cut included (the pack ends
    /// before the block does with fewer games read than it counts); each damaged range lost
    /// at least one game, and together at least the games the header counts less those
    /// read.
    fn settle_bad_block(&mut self, at: Option<u64>, eof: u64) {
        if let Some((end, announced, read, mut damaged)) = self.bad_block {
            if at.is_none() && end > eof && read < announced {
                damaged = damaged.max(1);
                self.loss.cut = true;
            }
            if at.is_none_or(|at| at >= end) {
                if damaged > 0 {
                    self.loss.games += announced.saturating_sub(read).max(damaged);
                }
                self.bad_block = None;
            }
        }
    }

    /// File offset of the next unread byte.
    pub fn offset(&self) -> u64 {
        self.input.offset()
    }

    fn flush_pending(&mut self) {
        if let Some((source, chunk)) = self.pending.take() {
            self.queue.push_back(PackItem::Chunk { source, chunk });
        }
    }

    /// Reports the damaged range that ends at `end` (at the end of the pack when `at_end`),
    /// counting the games it cost ([`PackLoss`]).
    fn close_damage(&mut self, end: u64, at_end: bool) {
        if let Some((offset, what)) = self.damage.take() {
            // Inside a failed block it is counted with the block's games. Before any game
            // with a table copy missing, it is that copy (or the prefix), unless the pack
            // ends in it: then it was cut before its games. Elsewhere a range long enough
            // to hold a game lost at least one, and so did a cut (a block header is only
            // written before games).
            let counted_to = match &mut self.bad_block {
                Some((block_end, _, _, damaged)) if offset < *block_end => {
                    *damaged += 1;
                    (*block_end).min(end)
                }
                _ => offset,
            };
            let beyond = end.saturating_sub(counted_to);
            // Bytes after an end record before any unit: appended, no game of the pack.
            let appended = self.after_end && !self.seg_units;
            // Damage that runs to the end of the pack is a cut, unless it lies inside the
            // last block, which ends there too (a damaged last game).
            self.loss.cut |= at_end && beyond > 0 && !appended;
            let past_bad_block = self.bad_block.is_none_or(|(block_end, ..)| offset >= block_end);
            if appended {
            } else if !self.in_games && self.tables < 2 {
                // The prefix or a table copy.
            } else if at_end && self.end_cut_at == Some(offset) {
                // The start of an end record: no game in it.
            } else if at_end && end - offset == END_RECORD as u64 && past_bad_block {
                // The end record, damaged: too short for a game, and a cut would have
                // left a block's bytes here.
                self.end_damaged = true;
                self.loss.cut = false;
            } else if beyond >= MIN_FRAME || (at_end && beyond > 0) {
                self.loss.uncounted += 1;
            }
            if end == offset {
                // Nothing lost: a unit starts where the damage was seen (a pack without its
                // prefix reads from byte 0).
                self.queue
                    .push_back(PackItem::Problem(format!("byte {offset}: {what}")));
                return;
            }
            self.queue.push_back(PackItem::Damage(Damage {
                offset,
                len: end - offset,
                what,
            }));
        }
    }

    /// Reads one unit (or one damaged byte).
    fn step(&mut self) -> std::io::Result<()> {
        if !self.input.fill(1)? {
            self.flush_pending();
            let end = self.offset();
            // A pack holds two table copies before its games: ending with fewer, it was cut
            // (after an end record, only once something of another pack was found).
            let began = if self.after_end { self.seg_units } else { end > 0 };
            if !self.in_games && self.tables < 2 && began {
                self.loss.cut = true;
            }
            self.close_damage(end, true);
            self.settle_bad_block(None, end);
            self.settle_segment(end, None);
            self.finished = true;
            return Ok(());
        }
        let at = self.offset();
        match self.attempt()? {
            Attempt::Found(unit) => {
                self.close_damage(at, false);
                self.settle_bad_block(Some(at), at);
                // Tables after games start another pack (two packs joined): the one before
                // ends here, without its end record.
                if matches!(unit, Unit::Table(..)) && self.in_games {
                    self.settle_segment(at, None);
                }
                if self.after_end && !self.seg_units && !matches!(unit, Unit::Table(..) | Unit::End(..)) {
                    self.queue.push_back(PackItem::Problem(format!(
                        "a unit at byte {at} follows the end record without a pack's tables; it is \
                         read as well"
                    )));
                }
                if !matches!(unit, Unit::Table(..) | Unit::End(..)) {
                    self.in_games = true;
                }
                if !matches!(unit, Unit::End(..)) {
                    self.seg_units = true;
                }
                match unit {
                    Unit::Table(version, sources) => {
                        let Some(version) = READ_VERSIONS.into_iter().find(|&v| u64::from(v) == version)
                        else {
                            return Err(std::io::Error::new(
                                std::io::ErrorKind::InvalidData,
                                format!(
                                    "pack version {version}: this build reads versions {}",
                                    READ_VERSIONS.map(|v| v.to_string()).join(" and ")
                                ),
                            ));
                        };
                        self.version.get_or_insert(version);
                        self.seg_version = Some(version);
                        self.tables += 1;
                        match &self.sources {
                            None => self.sources = Some(sources),
                            Some(known) if *known == sources => {}
                            Some(_) => self.queue.push_back(PackItem::Problem(format!(
                                "the source table at byte {at} differs from the first; the first is used"
                            ))),
                        }
                    }
                    Unit::Block(frames) => {
                        self.blocks_read += 1;
                        for (offset, len, frame) in frames {
                            self.take_frame(offset, len, frame);
                        }
                    }
                    Unit::End(blocks, games) => {
                        self.flush_pending();
                        self.settle_segment(at, Some((blocks, games)));
                    }
                    Unit::BadBlock(what, counted) => {
                        self.blocks_read += 1;
                        self.queue.push_back(PackItem::Problem(format!(
                            "block at byte {at}: {what}; its games were read one by one"
                        )));
                        self.bad_block = counted.map(|(end, games)| (end, games, 0, 0));
                    }
                    Unit::Frame(len, frame) => self.take_frame(at, len, *frame),
                }
            }
            Attempt::Failed(what) => {
                if self.damage.is_none() {
                    self.flush_pending();
                    self.damage = Some((at, what));
                }
                self.input.consume(1);
            }
        }
        Ok(())
    }

    /// Ends the open segment at byte `at`, by its end record (`record`: its blocks and
    /// games) or without one, and adds its loss to what is settled. With the end record,
    /// the games it counts that did not read are the segment's loss, exactly (what damage
    /// counted is replaced by that number), and said; without it, a version 2 pack was cut
    /// short after its last whole unit.
    fn settle_segment(&mut self, at: u64, record: Option<(u64, u64)>) {
        match record {
            Some((blocks, games)) => {
                let (read, found) = (self.games_read, self.blocks_read);
                let lost = games.saturating_sub(read);
                if lost > 0 {
                    self.queue.push_back(PackItem::Problem(format!(
                        "the end record at byte {at} counts {games} games in {blocks} blocks, {read} \
                         read from {found}: {lost} game{} lost",
                        if lost == 1 { "" } else { "s" }
                    )));
                } else if games != read || blocks != found {
                    self.queue.push_back(PackItem::Problem(format!(
                        "the end record at byte {at} counts {games} games in {blocks} blocks, {read} \
                         were read from {found}"
                    )));
                }
                self.loss = PackLoss {
                    games: lost,
                    uncounted: 0,
                    cut: false,
                };
            }
            None if self.seg_version == Some(2) && self.seg_units && !self.end_damaged => {
                self.loss.cut = true;
                self.queue.push_back(PackItem::Problem(format!(
                    "the pack ends at byte {at} without its end record: it was cut short, and the \
                     games after the cut, if any, are gone"
                )));
            }
            None => {}
        }
        self.settled.games += self.loss.games;
        self.settled.uncounted += self.loss.uncounted;
        self.settled.cut |= self.loss.cut;
        self.loss = PackLoss::default();
        (self.games_read, self.blocks_read) = (0, 0);
        (self.seg_version, self.seg_units, self.end_damaged) = (None, false, false);
        (self.in_games, self.tables) = (false, 0);
        self.after_end = record.is_some();
    }

    /// Adds a frame's game to the chunk being gathered, or starts the next chunk.
    fn take_frame(&mut self, offset: u64, len: u64, frame: Frame) {
        self.games_read += 1;
        if let Some((end, _, read, _)) = &mut self.bad_block {
            if offset < *end {
                *read += 1;
            }
        }
        let part = frame.part;
        if !part.first {
            if let Some((source, chunk)) = &mut self.pending {
                if *source == frame.source && chunk.version == part.version {
                    chunk.games.push(frame.game);
                    chunk.len = offset + len - chunk.offset;
                    return;
                }
            }
        }
        self.flush_pending();
        let problem = (!part.first).then(|| {
            format!("the game at byte {offset} continues a chunk whose first game was lost; it is kept alone")
        });
        self.pending = Some((
            frame.source,
            Chunk {
                offset,
                len,
                version: part.version,
                seq: part.seq,
                nodes: part.nodes,
                games: vec![frame.game],
                problem,
            },
        ));
    }

    fn attempt(&mut self) -> std::io::Result<Attempt> {
        let fail = |what: &str| Ok(Attempt::Failed(what.to_string()));
        self.input.fill(8)?;
        let window = self.input.unread();
        if window.starts_with(BLOCK_MAGIC) {
            return self.attempt_block();
        }
        let (end_magic, table_magic) = (window.starts_with(END_MAGIC), window.starts_with(TABLE_MAGIC));
        // The first bytes of an end record, the pack ending in them (a cut).
        let end_start = end_magic || (!window.is_empty() && END_MAGIC.starts_with(window));
        if end_magic && self.input.fill(END_RECORD)? {
            let w = &self.input.unread()[..END_RECORD];
            let stored = u64::from_le_bytes(w[20..28].try_into().unwrap_or_default());
            if fnv_extend(FNV_OFFSET, &w[..20]) == stored {
                let blocks = u64::from_le_bytes(w[4..12].try_into().unwrap_or_default());
                let games = u64::from_le_bytes(w[12..20].try_into().unwrap_or_default());
                self.input.consume(END_RECORD);
                return Ok(Attempt::Found(Unit::End(blocks, games)));
            }
            // Not a valid end record: perhaps a frame starts here.
        } else if end_start {
            self.end_cut_at = Some(self.offset());
        }
        if table_magic {
            if let Some(found) = self.attempt_table()? {
                return Ok(Attempt::Found(found));
            }
            // Not a valid table: perhaps a frame starts here.
        }
        let sources = self.sources.as_ref().map(Vec::len);
        loop {
            let window = self.input.unread();
            match parse_frame(window, sources, &mut self.keys) {
                Parsed::Done(frame, len) => {
                    self.input.consume(len);
                    return Ok(Attempt::Found(Unit::Frame(len as u64, frame)));
                }
                Parsed::More(need) => {
                    if !self.input.fill(need)? {
                        return fail("truncated game (a cut)");
                    }
                }
                Parsed::Bad(what) => return Ok(Attempt::Failed(what)),
            }
        }
    }

    fn attempt_table(&mut self) -> std::io::Result<Option<Unit>> {
        if !self.input.fill(8)? {
            return Ok(None);
        }
        let w = self.input.unread();
        let len = u32::from_le_bytes([w[4], w[5], w[6], w[7]]) as usize;
        if len > MAX_TABLE || !self.input.fill(len + 16)? {
            return Ok(None);
        }
        let w = &self.input.unread()[..len + 16];
        let stored = u64::from_le_bytes(w[8 + len..].try_into().unwrap_or_default());
        if fnv_extend(FNV_OFFSET, &w[..8 + len]) != stored {
            return Ok(None);
        }
        let Some((version, sources)) = decode_table_body(&w[8..8 + len]) else {
            return Ok(None);
        };
        self.input.consume(len + 16);
        Ok(Some(Unit::Table(version, sources)))
    }

    fn attempt_block(&mut self) -> std::io::Result<Attempt> {
        if !self.input.fill(BLOCK_HEADER)? {
            return Ok(Attempt::Failed("truncated block header (a cut)".into()));
        }
        let h = &self.input.unread()[..BLOCK_HEADER];
        let len = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
        let count = u32::from_le_bytes([h[8], h[9], h[10], h[11]]) as usize;
        // The header's length and count, where they could be a block's (the checksum that
        // failed may be the payload's fault): what the block held, to count what is lost.
        let counted = (len <= MAX_BLOCK_PAYLOAD && count >= 1 && count as u64 * MIN_FRAME <= len as u64)
            .then(|| (self.offset() + (BLOCK_HEADER + len) as u64, count as u64));
        let bad = |what: String| Ok(Attempt::Found(Unit::BadBlock(what, counted)));
        let stored = u64::from_le_bytes([h[12], h[13], h[14], h[15], h[16], h[17], h[18], h[19]]);
        // From here on a failure skips the block's header only: its frames are read one by
        // one after it.
        let skip_header = |r: &mut Self| r.input.consume(BLOCK_HEADER);
        if len > MAX_BLOCK_PAYLOAD {
            skip_header(self);
            return bad(format!("payload length {len} out of range"));
        }
        if !self.input.fill(BLOCK_HEADER + len)? {
            let have = self.input.available();
            skip_header(self);
            return bad(format!(
                "truncated ({have} of {} bytes; a cut)",
                BLOCK_HEADER + len
            ));
        }
        let block = &self.input.unread()[..BLOCK_HEADER + len];
        let computed = fnv_extend(fnv_extend(FNV_OFFSET, &block[..12]), &block[BLOCK_HEADER..]);
        if computed != stored {
            skip_header(self);
            return bad("checksum mismatch".into());
        }
        let sources = self.sources.as_ref().map(Vec::len);
        let mut frames = Vec::with_capacity(count.min(4096));
        let mut at = BLOCK_HEADER;
        let base = self.offset();
        while at < block.len() {
            match parse_frame(&block[at..], sources, &mut self.keys) {
                Parsed::Done(frame, used) => {
                    frames.push((base + at as u64, used as u64, *frame));
                    at += used;
                }
                Parsed::More(_) | Parsed::Bad(_) => {
                    skip_header(self);
                    return bad(format!(
                        "game {} does not decode though the block's checksum holds",
                        frames.len()
                    ));
                }
            }
        }
        if frames.len() != count {
            skip_header(self);
            return bad(format!("says {count} games, holds {}", frames.len()));
        }
        self.input.consume(BLOCK_HEADER + len);
        Ok(Attempt::Found(Unit::Block(frames)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{encode_chunk, encode_header, scan, ChunkContent, GenHeader, Wdl};

    /// What a chunk keeps through a pack: source, then version, sequence number, nodes, games.
    type Kept = (usize, ChunkContent);

    /// Games from random playouts from the start position and a Chess960 one: captures,
    /// castling both ways, promotions, en passant, both results; scores that jump.
    fn games(count: usize, seed: u64) -> Vec<GameRecord> {
        let mut state = seed;
        let starts = [
            Board::startpos(),
            Board::from_fen("1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1").unwrap(),
        ];
        (0..count)
            .map(|i| {
                let start = starts[i % 2];
                let mut board = start;
                let mut moves = Vec::new();
                for ply in 0..(20 + i * 7 % 90) {
                    let legal = board.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    state = movegen::rng::hash(state);
                    let mv = legal[(state % legal.len() as u64) as usize];
                    let score = match ply % 17 {
                        0 => 31_000 - ply as i16,
                        5 => -32_768,
                        _ => (state >> 40) as i16 % 300,
                    };
                    moves.push((mv, score));
                    board.play(mv);
                }
                GameRecord {
                    start,
                    start_eval: (i as i16) * 3 - 20,
                    result: [Wdl::BlackWins, Wdl::Draw, Wdl::WhiteWins][i % 3],
                    moves,
                }
            })
            .collect()
    }

    fn sources() -> Vec<PackSource> {
        vec![
            PackSource {
                name: "gen-a/games-0.bin".into(),
                header_bytes: encode_header(&GenHeader::default()),
            },
            PackSource {
                name: "gen-b/games-3.bin".into(),
                header_bytes: Vec::new(),
            },
        ]
    }

    fn chunk(version: u32, seq: Option<u64>, nodes: Option<u64>, games: Vec<GameRecord>) -> Chunk {
        Chunk {
            offset: 0,
            len: 0,
            version,
            seq,
            nodes,
            games,
            problem: None,
        }
    }

    /// (source, chunk) pairs: one-game v2 chunks, a three-game v2 chunk, v1 chunks.
    fn content(n: usize) -> Vec<(usize, Chunk)> {
        let all = games(n, 5);
        let mut out = Vec::new();
        for (i, g) in all.into_iter().enumerate() {
            let item = match i % 5 {
                4 => (1, chunk(1, None, None, vec![g])),
                _ => (
                    0,
                    chunk(
                        2,
                        Some(i as u64),
                        Some(1000 + i as u64).filter(|_| i % 3 > 0),
                        vec![g],
                    ),
                ),
            };
            out.push(item);
        }
        let extra = games(3, 77);
        out.push((0, chunk(2, Some(999), Some(5), extra)));
        out
    }

    fn write_pack(content: &[(usize, Chunk)], block_games: Option<usize>) -> Vec<u8> {
        let mut w = PackWriter::new(Vec::new(), &sources()).unwrap();
        for (i, (s, c)) in content.iter().enumerate() {
            w.add_chunk(*s, c).unwrap();
            if block_games.is_some_and(|b| (i + 1) % b == 0) {
                w.flush_block().unwrap();
            }
        }
        w.finish().unwrap().0
    }

    /// The games lost reading `bytes` to the end ([`PackReader::loss`]).
    fn loss_of(bytes: &[u8]) -> PackLoss {
        let mut r = PackReader::new(bytes).unwrap();
        while r.next_item().unwrap().is_some() {}
        r.loss()
    }

    fn read_all(bytes: &[u8]) -> (Option<Vec<PackSource>>, Vec<PackItem>) {
        let mut r = PackReader::new(bytes).unwrap();
        let sources = r.sources().map(<[PackSource]>::to_vec);
        let mut items = Vec::new();
        while let Some(item) = r.next_item().unwrap() {
            items.push(item);
        }
        (sources, items)
    }

    fn chunks(items: &[PackItem]) -> Vec<Kept> {
        items
            .iter()
            .filter_map(|i| match i {
                PackItem::Chunk { source, chunk } => Some((*source, chunk.content())),
                _ => None,
            })
            .collect()
    }

    fn expected(content: &[(usize, Chunk)]) -> Vec<Kept> {
        content.iter().map(|(s, c)| (*s, c.content())).collect()
    }

    #[test]
    fn varints_and_zigzag() {
        for v in [0u64, 1, 127, 128, 300, 1 << 35, u64::MAX] {
            let mut b = Vec::new();
            put_varint(&mut b, v);
            let mut at = 0;
            assert_eq!(get_varint(&b, &mut at), Some(v));
            assert_eq!(at, b.len());
        }
        assert_eq!(get_varint(&[0xFF; 11], &mut 0), None);
        assert_eq!(get_varint(&[0x80], &mut 0), None);
        for d in [0, 1, -1, 63, -64, 64, 65_535, -65_536, i32::MAX, i32::MIN] {
            assert_eq!(unzigzag(zigzag(d)), Some(d));
        }
        assert_eq!((zigzag(0), zigzag(-1), zigzag(1), zigzag(-64)), (0, 1, 2, 127));
    }

    #[test]
    fn round_trip_keeps_games_chunks_and_sources() {
        let content = content(40);
        let bytes = write_pack(&content, Some(7));
        let (srcs, items) = read_all(&bytes);
        assert_eq!(srcs, Some(sources()));
        assert!(
            items
                .iter()
                .all(|i| matches!(i, PackItem::Chunk { chunk, .. } if chunk.problem.is_none())),
            "{items:?}"
        );
        assert_eq!(chunks(&items), expected(&content));
        assert_eq!(sources()[0].header(), Ok(Header::V3(GenHeader::default())));
        assert!(sources()[1].header().is_err());
        // One big block too, and tiny reads.
        let one = write_pack(&content, None);
        assert_eq!(chunks(&read_all(&one).1), expected(&content));
        assert!(one.len() < bytes.len());
    }

    #[test]
    fn sorted_index_is_independent_of_the_generator_order() {
        // The index counts moves with a smaller record encoding: reversing the generator's
        // order would not change it.
        let board = Board::from_fen("r3k2r/1P6/8/8/5p2/8/4P3/R3K2R w KQkq - 0 30").unwrap();
        let mut codes: Vec<u16> = board
            .legal_moves()
            .iter()
            .map(|&m| encode_move(&board, m))
            .collect();
        codes.sort_unstable();
        for &m in board.legal_moves().iter() {
            let i = move_index(&board, m).unwrap();
            assert_eq!(codes[i], encode_move(&board, m));
            let mut keys = Vec::new();
            let legal = sorted_moves(&board, &mut keys);
            assert_eq!(legal[(keys[i] & 0xFFFF) as usize], m);
        }
    }

    #[test]
    fn an_illegal_move_is_refused() {
        let mut g = games(1, 3).remove(0);
        g.moves[3].0 = g.moves[0].0;
        let mut w = PackWriter::new(Vec::new(), &sources()).unwrap();
        let e = w.add_chunk(0, &chunk(2, Some(0), None, vec![g])).unwrap_err();
        assert!(e.to_string().contains("ply 3 is not legal"), "{e}");
        let e = w.add_chunk(5, &chunk(2, Some(0), None, vec![])).unwrap_err();
        assert!(e.to_string().contains("source 5"), "{e}");
        assert!(w.add_chunk(0, &chunk(1, Some(0), None, vec![])).is_err());
    }

    /// One flipped byte anywhere costs at most one game (exactly the game it falls in, when
    /// it falls in one), never a panic, and is always reported.
    #[test]
    fn a_flipped_byte_costs_at_most_its_game() {
        let content: Vec<(usize, Chunk)> = content(12).into_iter().take(12).collect();
        let bytes = write_pack(&content, Some(4));
        let want = expected(&content);
        let all_games: Vec<GameRecord> = want.iter().flat_map(|c| c.1 .3.clone()).collect();
        // Where each game's frame lies.
        let (_, items) = read_all(&bytes);
        let spans: Vec<(u64, u64)> = items
            .iter()
            .filter_map(|i| match i {
                PackItem::Chunk { chunk, .. } => Some((chunk.offset, chunk.offset + chunk.len)),
                _ => None,
            })
            .collect();
        assert_eq!(spans.len(), all_games.len());
        for i in 0..bytes.len() {
            for flip in [0x01u8, 0x80] {
                let mut bad = bytes.clone();
                bad[i] ^= flip;
                let (srcs, items) = read_all(&bad);
                let got: Vec<GameRecord> = chunks(&items).into_iter().flat_map(|c| c.1 .3).collect();
                let lost = all_games.iter().filter(|g| !got.contains(g)).count();
                assert!(lost <= 1, "flip {flip:#x} at {i}: {lost} games lost");
                // The loss is counted exactly: a game's frame, never a table or header.
                let loss = loss_of(&bad);
                assert_eq!(
                    (loss.at_least(), loss.any(), loss.exact()),
                    (lost as u64, lost > 0, true),
                    "flip {flip:#x} at {i}: {loss:?}"
                );
                assert!(
                    got.iter().all(|g| all_games.contains(g)),
                    "flip at {i}: a game made up"
                );
                assert!(got.len() + lost == all_games.len(), "flip at {i}");
                if let Some(k) = spans.iter().position(|&(s, e)| (s..e).contains(&(i as u64))) {
                    assert!(
                        !got.contains(&all_games[k]),
                        "flip at {i} in game {k} went unnoticed"
                    );
                }
                assert_eq!(srcs, Some(sources()), "flip at {i}: the sources survive");
                assert!(
                    items.iter().any(|i| !matches!(i, PackItem::Chunk { .. })),
                    "flip at {i} not reported"
                );
                // The surviving games keep their chunks' numbers.
                for c in chunks(&items) {
                    assert!(want
                        .iter()
                        .any(|w| w.0 == c.0 && w.1 .1 == c.1 .1 && w.1 .2 == c.1 .2 && w.1 .3 == c.1 .3));
                }
            }
        }
    }

    #[test]
    fn cuts_keep_every_whole_game_and_never_panic() {
        let content: Vec<(usize, Chunk)> = content(6);
        let bytes = write_pack(&content, Some(2));
        let all: Vec<GameRecord> = expected(&content).into_iter().flat_map(|c| c.1 .3).collect();
        let (_, items) = read_all(&bytes);
        let ends: Vec<u64> = items
            .iter()
            .flat_map(|i| match i {
                PackItem::Chunk { chunk, .. } => {
                    // Each game's frame end: frames of a chunk are back to back unless a block
                    // header lies between; check whole chunks only.
                    vec![chunk.offset + chunk.len]
                }
                _ => vec![],
            })
            .collect();
        for cut in 0..bytes.len() {
            let (_, items) = read_all(&bytes[..cut]);
            let got: Vec<GameRecord> = chunks(&items).into_iter().flat_map(|c| c.1 .3).collect();
            let whole_chunks = ends.iter().filter(|&&e| e <= cut as u64).count();
            let want_at_least: usize = expected(&content)[..whole_chunks]
                .iter()
                .map(|c| c.1 .3.len())
                .sum();
            assert!(got.len() >= want_at_least, "cut at {cut}");
            assert_eq!(got[..], all[..got.len()], "cut at {cut}");
            // A cut is a loss, counted at least as the games missing, between two blocks
            // and before the end record too (it is missing), except at 0 (an empty file,
            // which is no pack).
            let loss = loss_of(&bytes[..cut]);
            if cut > 0 {
                assert!(loss.any(), "cut at {cut}: {loss:?}");
                assert!(loss.cut && !loss.exact(), "cut at {cut}: {loss:?}");
                assert!(
                    loss.at_least() as usize <= all.len() - got.len(),
                    "cut at {cut}: {loss:?}"
                );
            }
        }
    }

    /// The end record: a block cut out cleanly loses exactly its games; bytes appended after
    /// it lose none (and are reported); a version 1 pack (no end record) reads whole.
    #[test]
    fn the_end_record_counts_what_is_missing() {
        let content: Vec<(usize, Chunk)> = content(6);
        let bytes = write_pack(&content, Some(2));
        assert_eq!(&bytes[bytes.len() - END_RECORD..][..4], END_MAGIC);
        let all: usize = expected(&content).iter().map(|c| c.1 .3.len()).sum();
        assert_eq!(loss_of(&bytes), PackLoss::default());
        // The blocks, by their magic at the start of a unit.
        let mut blocks = Vec::new();
        let (_, items) = read_all(&bytes);
        for item in &items {
            if let PackItem::Chunk { chunk, .. } = item {
                let header = chunk.offset as usize - BLOCK_HEADER;
                if bytes[header..].starts_with(BLOCK_MAGIC) && !blocks.contains(&header) {
                    blocks.push(header);
                }
            }
        }
        assert!(blocks.len() >= 3, "{blocks:?}");
        let games_in = |at: usize| u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as u64;
        let cut_out = [&bytes[..blocks[1]], &bytes[blocks[2]..]].concat();
        assert_eq!(
            loss_of(&cut_out),
            PackLoss {
                games: games_in(blocks[1]),
                uncounted: 0,
                cut: false
            }
        );
        let (_, items) = read_all(&cut_out);
        let got: usize = chunks(&items).iter().map(|c| c.1 .3.len()).sum();
        assert_eq!(got as u64, all as u64 - games_in(blocks[1]));
        // Appended bytes: reported, no game lost.
        let appended = [&bytes[..], &[7u8; 100][..]].concat();
        assert_eq!(loss_of(&appended), PackLoss::default());
        assert!(read_all(&appended)
            .1
            .iter()
            .any(|i| matches!(i, PackItem::Damage(_))));
        // Version 1: the same games without an end record, read whole.
        let table = encode_table_of_version(&sources(), 1);
        let mut v1 = PACK_MAGIC.to_vec();
        v1.extend_from_slice(&1u32.to_le_bytes());
        v1.extend_from_slice(&table);
        v1.extend_from_slice(&table);
        let first_block = blocks.iter().min().copied().unwrap_or_default();
        v1.extend_from_slice(&bytes[first_block..bytes.len() - END_RECORD]);
        let reader = PackReader::new(&v1[..]).unwrap();
        assert_eq!(reader.version(), Some(1));
        assert_eq!(loss_of(&v1), PackLoss::default());
        assert_eq!(chunks(&read_all(&v1).1), expected(&content));
        // Cut between two blocks: a version 2 pack knows; a version 1 pack cannot.
        let v2_cut = &bytes[..blocks[2]];
        assert!(loss_of(v2_cut).cut);
        let v1_cut = v1.len() - (bytes.len() - END_RECORD - blocks[2]);
        assert_eq!(loss_of(&v1[..v1_cut]), PackLoss::default());
        // The last block cut out: no gap below any source's last number, only the end
        // record's count says so, and a problem names it (so `verify` does).
        let last = *blocks.iter().max().unwrap();
        let without_last = [&bytes[..last], &bytes[bytes.len() - END_RECORD..]].concat();
        assert_eq!(loss_of(&without_last).games, games_in(last));
        assert!(read_all(&without_last)
            .1
            .iter()
            .any(|i| matches!(i, PackItem::Problem(p) if p.contains("end record") && p.contains("lost"))));
        // Two packs joined: each settles its own loss, the second's end record does not
        // hide the first's (a block cut out; cut between two blocks; one game damaged).
        let flipped = {
            let mut b = bytes.clone();
            b[blocks[1] + BLOCK_HEADER + 10] ^= 0x10;
            b
        };
        for (what, first, lost, cut) in [
            ("a block cut out", cut_out.clone(), games_in(blocks[1]), false),
            ("cut between blocks", bytes[..blocks[2]].to_vec(), 0, true),
            ("one game damaged", flipped, 1, false),
        ] {
            let joined = [&first[..], &bytes[..]].concat();
            let loss = loss_of(&joined);
            assert_eq!((loss.at_least(), loss.cut), (lost, cut), "{what}: {loss:?}");
            assert!(loss.any(), "{what}");
        }
        assert_eq!(loss_of(&[&bytes[..], &bytes[..]].concat()), PackLoss::default());
        // A damaged last game and a damaged end record: that game lost, no cut.
        let mut both = bytes.clone();
        both[last + BLOCK_HEADER + 10] ^= 0x10;
        let n = both.len();
        both[n - 20] ^= 1;
        assert_eq!(
            loss_of(&both),
            PackLoss {
                games: 1,
                uncounted: 0,
                cut: false
            }
        );
    }

    #[test]
    fn other_versions_and_other_files_are_refused_or_reported() {
        // A table of another version is an error, not a misread.
        let mut table = Vec::new();
        put_varint(&mut table, 3);
        let mut bytes = PACK_MAGIC.to_vec();
        bytes.extend_from_slice(&3u32.to_le_bytes());
        bytes.extend_from_slice(TABLE_MAGIC);
        bytes.extend_from_slice(&(table.len() as u32).to_le_bytes());
        bytes.extend_from_slice(&table);
        let hash = fnv_extend(FNV_OFFSET, &bytes[PREFIX..]);
        bytes.extend_from_slice(&hash.to_le_bytes());
        let e = PackReader::new(&bytes[..]).unwrap_err();
        assert!(
            e.to_string()
                .contains("pack version 3: this build reads versions 1 and 2"),
            "{e}"
        );
        // A data file is not a pack: no games, damage reported.
        let mut file = encode_header(&GenHeader::default());
        encode_chunk(&games(2, 1), 0, 0, &mut file);
        assert!(!is_pack(&file));
        let (srcs, items) = read_all(&file);
        assert!(srcs.is_none() && chunks(&items).is_empty());
        assert!(matches!(items[0], PackItem::Damage(_)));
        assert!(matches!(read_all(b"").1[..], [PackItem::Problem(_)]));
        // A damaged magic still reads as a pack.
        let mut pack = write_pack(&content(3), None);
        assert!(is_pack(&pack));
        pack[2] ^= 1;
        assert!(is_pack(&pack));
        assert_eq!(chunks(&read_all(&pack).1), expected(&content(3)));
        assert!(scan(&pack).games.is_empty());
    }

    /// A pack cut from the front reads from its first byte: without its prefix every game
    /// and the sources read (a problem names the missing magic); without the prefix and both
    /// table copies, the block at byte 0 and every game after it still read.
    #[test]
    fn a_pack_without_its_prefix_reads_from_byte_0() {
        let content = content(5);
        let bytes = write_pack(&content, Some(2));
        let table_len = encode_table(&sources()).len();
        let (srcs, items) = read_all(&bytes[PREFIX..]);
        assert_eq!(srcs, Some(sources()));
        assert_eq!(chunks(&items), expected(&content));
        assert!(
            !items.iter().any(|i| matches!(i, PackItem::Damage(_))),
            "{items:?}"
        );
        assert!(
            matches!(&items[0], PackItem::Problem(p) if p.contains("missing LUFTPACK magic")),
            "{items:?}"
        );
        assert_eq!(loss_of(&bytes[PREFIX..]), PackLoss::default());
        let games_only = &bytes[PREFIX + 2 * table_len..];
        let (srcs, items) = read_all(games_only);
        assert!(srcs.is_none());
        assert_eq!(chunks(&items), expected(&content));
        assert!(
            !items.iter().any(|i| matches!(i, PackItem::Damage(_))),
            "{items:?}"
        );
        assert!(!loss_of(games_only).any(), "{:?}", loss_of(games_only));
        // Every reader takes both for packs (`is_pack`), through the one reader of data.
        for (name, cut) in [("no-prefix", &bytes[PREFIX..]), ("games-only", games_only)] {
            assert!(is_pack(cut), "{name}");
            let mut source =
                crate::source::DataSource::from_reader(std::io::Cursor::new(cut.to_vec()), name).unwrap();
            assert_eq!(source.format(), crate::source::Format::Pack, "{name}");
            let mut games = 0;
            while let Some(item) = source.next_item().unwrap() {
                match item {
                    crate::source::SourceItem::Chunk { chunk, .. } => games += chunk.games.len(),
                    crate::source::SourceItem::Damage(d) => panic!("{name}: {d}"),
                    _ => {}
                }
            }
            assert_eq!(
                games,
                content.iter().map(|(_, c)| c.games.len()).sum::<usize>(),
                "{name}"
            );
        }
    }

    /// Both table copies lost: the games still read, their source indices kept.
    #[test]
    fn games_survive_both_tables() {
        let content = content(5);
        let mut bytes = write_pack(&content, None);
        let table_len = encode_table(&sources()).len();
        bytes[PREFIX + 10] ^= 1;
        bytes[PREFIX + table_len + 10] ^= 1;
        let (srcs, items) = read_all(&bytes);
        assert!(srcs.is_none());
        assert_eq!(chunks(&items), expected(&content));
    }
    /// The first `n` chunks of the first data file packed in a pack of the corpus
    /// (`data/selfplay/NAME`, in the repository) and that file's header.
    fn corpus_slice(name: &str, n: usize) -> (Vec<u8>, Vec<Chunk>) {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../data/selfplay")
            .join(name);
        let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut r = PackReader::new(std::io::BufReader::new(file)).unwrap();
        let mut out = Vec::new();
        while out.len() < n {
            match r.next_item().unwrap() {
                Some(PackItem::Chunk { source: 0, chunk }) => out.push(chunk),
                Some(PackItem::Chunk { .. }) => {}
                Some(other) => panic!("{other:?}"),
                None => break,
            }
        }
        let header = r.sources().expect("the pack's source table")[0]
            .header_bytes
            .clone();
        (header, out)
    }

    /// Luft's own self-play (the first 2000 games of generation 13, classical and double
    /// Chess960) packs in at most 3 bytes a position, and reads back exactly.
    #[test]
    fn real_self_play_packs_under_3_bytes_a_position_and_round_trips() {
        for name in ["gen13-classical-001.pack", "gen13-dfrc-001.pack"] {
            let (header, real) = corpus_slice(name, 2000);
            let sources = [PackSource {
                name: format!("selfplay/{name}"),
                header_bytes: header,
            }];
            let mut w = PackWriter::new(Vec::new(), &sources).unwrap();
            for c in &real {
                w.add_chunk(0, c).unwrap();
            }
            let (bytes, totals) = w.finish().unwrap();
            assert_eq!(totals.bytes as usize, bytes.len());
            let positions: u64 = real
                .iter()
                .flat_map(|c| &c.games)
                .map(|g| g.moves.len() as u64)
                .sum();
            assert_eq!(totals.positions, positions);
            let per = bytes.len() as f64 / positions as f64;
            eprintln!(
                "{name}: {} games, {positions} positions, {per:.3} bytes a position",
                real.len()
            );
            assert!(per <= 3.0, "{name}: {per:.3} bytes a position");
            let (srcs, items) = read_all(&bytes);
            assert_eq!(srcs.as_deref(), Some(&sources[..]));
            assert_eq!(srcs.unwrap()[0].header().map(|h| h.version()), Ok(3));
            let want: Vec<Kept> = real.iter().map(|c| (0, c.content())).collect();
            assert_eq!(chunks(&items), want);
        }
    }

    /// The flipped-byte guarantee on real games: every byte of a pack of 6 real games.
    #[test]
    fn a_flipped_byte_in_real_games_costs_at_most_that_game() {
        let (header, real) = corpus_slice("gen13-dfrc-001.pack", 6);
        let sources = [PackSource {
            name: "selfplay/gen13-dfrc-a.bin".into(),
            header_bytes: header,
        }];
        let mut w = PackWriter::new(Vec::new(), &sources).unwrap();
        for (i, c) in real.iter().enumerate() {
            w.add_chunk(0, c).unwrap();
            if i == 2 {
                w.flush_block().unwrap();
            }
        }
        let bytes = w.finish().unwrap().0;
        let all: Vec<GameRecord> = real.iter().flat_map(|c| c.games.clone()).collect();
        let spans: Vec<(u64, u64)> = read_all(&bytes)
            .1
            .iter()
            .filter_map(|i| match i {
                PackItem::Chunk { chunk, .. } => Some((chunk.offset, chunk.offset + chunk.len)),
                _ => None,
            })
            .collect();
        assert_eq!(spans.len(), all.len());
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x04;
            let (srcs, items) = read_all(&bad);
            let got: Vec<GameRecord> = chunks(&items).into_iter().flat_map(|c| c.1 .3).collect();
            let lost: Vec<usize> = (0..all.len()).filter(|&k| !got.contains(&all[k])).collect();
            assert!(
                lost.len() <= 1 && got.len() + lost.len() == all.len(),
                "flip at {i}: lost {lost:?}"
            );
            if let Some(k) = spans.iter().position(|&(s, e)| (s..e).contains(&(i as u64))) {
                assert_eq!(lost, vec![k], "flip at {i}");
            } else {
                assert!(lost.is_empty(), "flip at {i} outside every game lost {lost:?}");
            }
            assert_eq!(srcs.as_deref(), Some(&sources[..]));
        }
    }
}
