//! The one way in for every reader of training data (`datagen stats`, `verify`, `convert`,
//! `wdl-fit`, `label-quality`, `pack`, and the trainer): [`DataSource`] opens a data file
//! (`record`'s `LUFTGAME` container, any version) or a pack (`pack`'s `LUFTPACK`), telling
//! them apart by their first bytes, and yields the same items from either: chunks of
//! games ([`GameRecord`](crate::record::GameRecord)), each tagged with the source (data
//! file) it came from, and the damage, repeats and problems found on the way. A data file is
//! one source; a pack holds many, each with its name and settings header.
//!
//! Lone positions without games, the text (`FEN | cp | result`) and bulletformat files that
//! `datagen convert` writes and other tools read and write ([`crate::positions`]), come in
//! through the same interface as two more [`Format`]s: they have no magic bytes, so a file
//! that is neither a data file nor a pack is read as text when its name ends in `.txt` or
//! `.text`, as bulletformat when it ends in `.bullet`, `.bf` or `.data`, and otherwise as a
//! (damaged) data file; [`DataSource::open_as`] names the format instead. They yield
//! [`SourceItem::Positions`], batches of [`ScoredPosition`]s, and a line or record that
//! cannot be read is a [`SourceItem::Problem`] naming it (the rest is read). A reader of
//! games only (`stats`, `pack`, ...) says that such a file holds no games.

use crate::pack::{is_pack, PackItem, PackLoss, PackReader, PackSource};
use crate::positions::{parse_bullet_record, parse_text_line, ScoredPosition, BULLET_RECORD};
use crate::record::{Chunk, Damage, DataReader, Duplicate, Header, Item, RecordError, GAME_MAGIC};
use std::fmt;
use std::io::{BufRead, Read};
use std::path::Path;

/// What kind of file a [`DataSource`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A data file (`record`: the `LUFTGAME` container, versions 1 to 3).
    Games,
    /// A pack (`pack`: `LUFTPACK`).
    Pack,
    /// Text positions, `FEN | cp | result` a line ([`crate::positions`]).
    Text,
    /// bulletformat positions, 32 bytes each ([`crate::positions`]).
    Bullet,
}

impl Format {
    /// The format a file name suggests for a file that is neither a data file nor a pack
    /// (by its first bytes): `.txt`/`.text` text, `.bullet`/`.bf`/`.data` bulletformat.
    pub fn of_name(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "txt" | "text" => Some(Format::Text),
            "bullet" | "bf" | "data" => Some(Format::Bullet),
            _ => None,
        }
    }

    /// Whether the format holds whole games (data files and packs) rather than lone
    /// positions.
    pub fn has_games(self) -> bool {
        matches!(self, Format::Games | Format::Pack)
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    /// `games`, `pack`, `text` or `bullet`.
    fn from_str(s: &str) -> Result<Format, String> {
        match s {
            "games" => Ok(Format::Games),
            "pack" => Ok(Format::Pack),
            "text" => Ok(Format::Text),
            "bullet" => Ok(Format::Bullet),
            other => Err(format!(
                "unknown data format {other:?} (games, pack, text or bullet)"
            )),
        }
    }
}

/// One data file whose games a [`DataSource`] yields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Source {
    /// For a data file, its file name; in a pack, the name it was packed under (a relative
    /// path, `/` between its parts).
    pub name: String,
    /// Its settings header, or why it cannot be read.
    pub header: Result<Header, RecordError>,
    /// The header's bytes as they stood in the data file (empty when it was unreadable).
    pub header_bytes: Vec<u8>,
}

/// What a [`DataSource`] finds, in file order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceItem {
    /// A chunk of games from source `source` (an index in [`DataSource::sources`]; in a
    /// pack whose tables are both lost, beyond its end).
    Chunk {
        /// Index of the source the games came from.
        source: usize,
        /// The games with their chunk's version, sequence number and nodes.
        chunk: Chunk,
    },
    /// Bytes that belong to nothing valid, skipped.
    Damage(Damage),
    /// A data file's chunk that repeats an earlier one (read once).
    Duplicate(Duplicate),
    /// Something wrong that cost no game by itself (in a text or bulletformat file: a line
    /// or record that cannot be read, and the position it held).
    Problem(String),
    /// Lone positions from source `source` (a text or bulletformat file), in file order.
    Positions {
        /// Index of the source the positions came from.
        source: usize,
        /// The positions, each with its score and result (White's view).
        positions: Vec<ScoredPosition>,
    },
}

/// Positions in one [`SourceItem::Positions`].
const POSITIONS_PER_ITEM: usize = 4096;
/// Unreadable lines or records reported one by one; the rest are counted at the end.
const PROBLEMS_REPORTED: u64 = 20;

/// Reads text or bulletformat positions, a batch at a time.
struct PositionReader {
    src: std::io::BufReader<Box<dyn Read + Send>>,
    text: bool,
    /// Lines (text) or records (bulletformat) read so far.
    count: u64,
    /// Unreadable ones so far.
    bad: u64,
    /// Problems waiting to be yielded, before the next batch.
    queued: std::collections::VecDeque<String>,
    done: bool,
}

impl PositionReader {
    fn new(src: Box<dyn Read + Send>, format: Format) -> PositionReader {
        PositionReader {
            src: std::io::BufReader::with_capacity(1 << 16, src),
            text: format == Format::Text,
            count: 0,
            bad: 0,
            queued: std::collections::VecDeque::new(),
            done: false,
        }
    }

    fn problem(&mut self, what: String) {
        self.bad += 1;
        if self.bad <= PROBLEMS_REPORTED {
            self.queued.push_back(what);
        }
    }

    /// The next position, `Ok(None)` at the end; an unreadable one is queued as a problem
    /// and skipped.
    fn next_position(&mut self) -> std::io::Result<Option<ScoredPosition>> {
        loop {
            if self.text {
                let mut bytes = Vec::new();
                if self.src.read_until(b'\n', &mut bytes)? == 0 {
                    return Ok(None);
                }
                self.count += 1;
                let Ok(line) = String::from_utf8(bytes) else {
                    self.problem(format!("line {}: not UTF-8 text", self.count));
                    continue;
                };
                let trimmed = line.trim();
                if trimmed.is_empty() || trimmed.starts_with('#') {
                    continue;
                }
                match parse_text_line(trimmed) {
                    Ok(p) => return Ok(Some(p)),
                    Err(e) => self.problem(format!("line {}: {e}", self.count)),
                }
            } else {
                let mut record = [0u8; BULLET_RECORD];
                let mut got = 0;
                while got < BULLET_RECORD {
                    match self.src.read(&mut record[got..]) {
                        Ok(0) => break,
                        Ok(n) => got += n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
                if got == 0 {
                    return Ok(None);
                }
                self.count += 1;
                if got < BULLET_RECORD {
                    self.problem(format!(
                        "the file ends {got} bytes into record {} (records are {BULLET_RECORD} bytes)",
                        self.count
                    ));
                    return Ok(None);
                }
                match parse_bullet_record(&record) {
                    Ok(p) => return Ok(Some(p)),
                    Err(e) => self.problem(format!(
                        "record {} (byte {}): {e}",
                        self.count,
                        (self.count - 1) * BULLET_RECORD as u64
                    )),
                }
            }
        }
    }

    fn next_item(&mut self) -> std::io::Result<Option<SourceItem>> {
        if let Some(p) = self.queued.pop_front() {
            return Ok(Some(SourceItem::Problem(p)));
        }
        if self.done {
            return Ok(None);
        }
        let mut positions = Vec::new();
        while positions.len() < POSITIONS_PER_ITEM && self.queued.is_empty() {
            match self.next_position()? {
                Some(p) => positions.push(p),
                None => {
                    self.done = true;
                    if self.bad > PROBLEMS_REPORTED {
                        let unit = if self.text { "lines" } else { "records" };
                        self.queued.push_back(format!(
                            "{} more unreadable {unit} (the first {PROBLEMS_REPORTED} are named above)",
                            self.bad - PROBLEMS_REPORTED
                        ));
                    }
                    break;
                }
            }
        }
        if positions.is_empty() {
            return Ok(self.queued.pop_front().map(SourceItem::Problem));
        }
        Ok(Some(SourceItem::Positions { source: 0, positions }))
    }
}

enum Reader {
    Games(Box<DataReader<Box<dyn Read + Send>>>),
    Pack(Box<PackReader<Box<dyn Read + Send>>>),
    Positions(Box<PositionReader>, Format),
}

/// Reads games from a data file or a pack (see the module notes).
pub struct DataSource {
    reader: Reader,
    sources: Vec<Source>,
    header_error: Option<String>,
}

impl fmt::Debug for DataSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DataSource")
            .field("format", &self.format())
            .field("sources", &self.sources)
            .finish_non_exhaustive()
    }
}

impl DataSource {
    /// Opens the file at `path` (its source named by its file name): a data file or a pack
    /// by its first bytes, else text or bulletformat by its name ([`Format::of_name`]),
    /// else a data file (whose damage the reader reports).
    pub fn open(path: &Path) -> std::io::Result<DataSource> {
        DataSource::open_with(path, None)
    }

    /// Opens the file at `path` as `format` whatever its name: text or bulletformat as
    /// named; [`Format::Games`] or [`Format::Pack`], a data file or a pack by its first
    /// bytes.
    pub fn open_as(path: &Path, format: Format) -> std::io::Result<DataSource> {
        DataSource::open_with(path, Some(format))
    }

    fn open_with(path: &Path, format: Option<Format>) -> std::io::Result<DataSource> {
        let file = std::fs::File::open(path)?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        let src = std::io::BufReader::new(file);
        match format.or_else(|| Format::of_name(path)) {
            // A name suggests a format only for a file without a data file's or pack's magic.
            Some(f @ (Format::Text | Format::Bullet)) if format.is_some() => {
                Ok(DataSource::positions(Box::new(src), &name, f))
            }
            Some(f @ (Format::Text | Format::Bullet)) => {
                let (first, src) = peek(src)?;
                if first.starts_with(GAME_MAGIC) || is_pack(&first) {
                    DataSource::from_reader(src, &name)
                } else {
                    Ok(DataSource::positions(src, &name, f))
                }
            }
            _ => DataSource::from_reader(src, &name),
        }
    }

    /// Reads text or bulletformat positions from `src`, its source called `name`.
    pub fn from_positions(src: impl Read + Send + 'static, name: &str, format: Format) -> DataSource {
        DataSource::positions(Box::new(src), name, format)
    }

    fn positions(src: Box<dyn Read + Send>, name: &str, format: Format) -> DataSource {
        let format = if format == Format::Text {
            Format::Text
        } else {
            Format::Bullet
        };
        DataSource {
            reader: Reader::Positions(Box::new(PositionReader::new(src, format)), format),
            sources: vec![Source {
                name: name.to_string(),
                header: Err(RecordError::BadHeader(
                    "text and bulletformat files have no settings header".into(),
                )),
                header_bytes: Vec::new(),
            }],
            header_error: None,
        }
    }

    /// Reads a data file or a pack from `src` (told apart by the first bytes); a data file's
    /// source is called `name`.
    pub fn from_reader(src: impl Read + Send + 'static, name: &str) -> std::io::Result<DataSource> {
        let (first, src) = peek(src)?;
        let pack = is_pack(&first);
        if pack {
            let reader = PackReader::new(src)?;
            let (sources, header_error) = match reader.sources() {
                Some(s) => (s.iter().map(source_of).collect(), None),
                None => (
                    Vec::new(),
                    Some("both copies of the pack's source table are unreadable".to_string()),
                ),
            };
            Ok(DataSource {
                reader: Reader::Pack(Box::new(reader)),
                sources,
                header_error,
            })
        } else {
            let reader = DataReader::new(src)?;
            let header = reader.header().cloned().map_err(Clone::clone);
            let header_error = header.as_ref().err().map(ToString::to_string);
            let sources = vec![Source {
                name: name.to_string(),
                header,
                header_bytes: reader.header_bytes().to_vec(),
            }];
            Ok(DataSource {
                reader: Reader::Games(Box::new(reader)),
                sources,
                header_error,
            })
        }
    }

    /// Whether this is a data file, a pack, text or bulletformat.
    pub fn format(&self) -> Format {
        match self.reader {
            Reader::Games(_) => Format::Games,
            Reader::Pack(_) => Format::Pack,
            Reader::Positions(_, f) => f,
        }
    }

    /// The sources the games come from: a data file's one, a pack's table (empty when both
    /// its copies are lost); a text or bulletformat file's one, without a header.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Why the data file's header or the pack's source table cannot be read, if so (the
    /// games after it are still read). A data file's damaged header is also the first
    /// [`SourceItem::Damage`], at byte 0.
    pub fn header_error(&self) -> Option<&str> {
        self.header_error.as_deref()
    }

    /// For a pack, the games lost to damage so far (all of them once
    /// [`DataSource::next_item`] has returned `None`; see [`PackReader::loss`]); `None` for
    /// other formats.
    pub fn pack_loss(&self) -> Option<PackLoss> {
        match &self.reader {
            Reader::Pack(r) => Some(r.loss()),
            _ => None,
        }
    }

    /// A pack's version (by its prefix or source table; `None` for another file, or a pack
    /// whose prefix and tables are all lost).
    pub fn pack_version(&self) -> Option<u32> {
        match &self.reader {
            Reader::Pack(r) => r.version(),
            _ => None,
        }
    }

    /// The next chunk, damaged range, repeat or problem; `None` at the end.
    pub fn next_item(&mut self) -> std::io::Result<Option<SourceItem>> {
        Ok(match &mut self.reader {
            Reader::Games(r) => r.next_item()?.map(|item| match item {
                Item::Chunk(chunk) => SourceItem::Chunk { source: 0, chunk },
                Item::Damage(d) => SourceItem::Damage(d),
                Item::Duplicate(d) => SourceItem::Duplicate(d),
            }),
            Reader::Pack(r) => r.next_item()?.map(|item| match item {
                PackItem::Chunk { source, chunk } => SourceItem::Chunk { source, chunk },
                PackItem::Damage(d) => SourceItem::Damage(d),
                PackItem::Problem(p) => SourceItem::Problem(p),
            }),
            Reader::Positions(r, _) => r.next_item()?,
        })
    }
}

/// The first 16 bytes of `src` (fewer at its end), and `src` from its start again.
fn peek(mut src: impl Read + Send + 'static) -> std::io::Result<(Vec<u8>, Box<dyn Read + Send>)> {
    let mut first = Vec::with_capacity(16);
    (&mut src).take(16).read_to_end(&mut first)?;
    let again: Box<dyn Read + Send> = Box::new(std::io::Cursor::new(first.clone()).chain(src));
    Ok((first, again))
}

fn source_of(s: &PackSource) -> Source {
    Source {
        name: s.name.clone(),
        header: s.header(),
        header_bytes: s.header_bytes.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::PackWriter;
    use crate::positions::ScoredPosition;
    use crate::record::{encode_chunk, encode_header, ChunkContent, GameRecord, GenHeader, Wdl};
    use movegen::Board;

    fn game(eval: i16) -> GameRecord {
        let start = Board::startpos();
        let mut board = start;
        let mut moves = Vec::new();
        for (uci, score) in [("e2e4", 20), ("e7e5", 15), ("g1f3", 30)] {
            let mv = board.parse_uci(uci).unwrap();
            moves.push((mv, score));
            board.play(mv);
        }
        GameRecord {
            start,
            start_eval: eval,
            result: Wdl::Draw,
            moves,
        }
    }

    fn items(mut s: DataSource) -> Vec<SourceItem> {
        let mut out = Vec::new();
        while let Some(i) = s.next_item().unwrap() {
            out.push(i);
        }
        out
    }

    fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
        // One directory per file: the tests calling this run in parallel.
        let path = testing::temp(&format!("source-{name}")).join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn positions(items: &[SourceItem]) -> Vec<ScoredPosition> {
        items
            .iter()
            .filter_map(|i| match i {
                SourceItem::Positions { positions, .. } => Some(positions.clone()),
                _ => None,
            })
            .flatten()
            .collect()
    }

    fn problems(items: &[SourceItem]) -> Vec<String> {
        items
            .iter()
            .filter_map(|i| match i {
                SourceItem::Problem(p) => Some(p.clone()),
                _ => None,
            })
            .collect()
    }

    /// Text and bulletformat files come in by their names (or as named), a bad line or
    /// record is a problem naming it and the rest is read; a data file is a data file
    /// whatever its name.
    #[test]
    fn text_and_bullet_files_yield_positions() {
        use crate::positions::{bullet_record, text_line};
        let g = game(0);
        let boards: Vec<(Board, i16)> = g.positions().map(|(b, _, s)| (b, s)).collect();
        let mut text = String::from("# a comment\n\n");
        let mut bullet = Vec::new();
        for (b, s) in &boards {
            text.push_str(&text_line(b, *s, Wdl::Draw));
            text.push('\n');
            bullet.extend_from_slice(&bullet_record(b, *s, Wdl::Draw));
        }
        text.push_str("not a position\n");
        let t = DataSource::open(&temp_file("p.txt", text.as_bytes())).unwrap();
        assert_eq!(t.format(), Format::Text);
        assert!(t.header_error().is_none());
        let items_t = items(t);
        let read: Vec<(Board, i16)> = positions(&items_t).iter().map(|p| (p.board, p.score)).collect();
        assert_eq!(read, boards);
        assert_eq!(problems(&items_t).len(), 1);
        assert!(problems(&items_t)[0].starts_with("line 6: expected `FEN | cp | result`"));

        bullet.extend_from_slice(&[1, 2, 3]);
        let b = DataSource::open(&temp_file("p.bullet", &bullet)).unwrap();
        assert_eq!(b.format(), Format::Bullet);
        let items_b = items(b);
        assert_eq!(positions(&items_b).len(), boards.len());
        assert_eq!(
            positions(&items_b)[0].board.to_fen(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"
        );
        assert_eq!(
            positions(&items_b)[1].score,
            -boards[1].1,
            "Black to move: its view"
        );
        assert!(
            problems(&items_b)[0].contains("ends 3 bytes into record 4"),
            "{:?}",
            problems(&items_b)
        );
        // Named as what it is, whatever the name; a data file by its magic.
        let as_text =
            DataSource::open_as(&temp_file("positions.dat", text.as_bytes()), Format::Text).unwrap();
        assert_eq!(positions(&items(as_text)).len(), boards.len());
        let mut data = encode_header(&GenHeader::default());
        encode_chunk(&[game(1)], 0, 0, &mut data);
        let d = DataSource::open(&temp_file("games.data", &data)).unwrap();
        assert_eq!(d.format(), Format::Games);
        assert_eq!("bullet".parse::<Format>(), Ok(Format::Bullet));
        assert!("csv"
            .parse::<Format>()
            .unwrap_err()
            .contains("games, pack, text or bullet"));
    }

    /// Of many bad lines the first 20 are named and the rest counted.
    #[test]
    fn many_bad_lines_are_counted() {
        let text = "x\n".repeat(25);
        let s = DataSource::from_positions(std::io::Cursor::new(text.into_bytes()), "bad.txt", Format::Text);
        let p = problems(&items(s));
        assert_eq!(p.len(), 21, "{p:?}");
        assert_eq!(p[20], "5 more unreadable lines (the first 20 are named above)");
    }

    #[test]
    fn data_files_and_packs_yield_the_same_chunks() {
        let header = encode_header(&GenHeader::default());
        let mut file = header.clone();
        encode_chunk(&[game(1)], 0, 500, &mut file);
        encode_chunk(&[game(2), game(3)], 1, 0, &mut file);
        let a = DataSource::from_reader(std::io::Cursor::new(file.clone()), "games-0.bin").unwrap();
        assert_eq!(a.format(), Format::Games);
        assert_eq!(a.sources()[0].header_bytes, header);
        assert_eq!(a.sources()[0].header, Ok(Header::V3(GenHeader::default())));
        assert!(a.header_error().is_none());
        let from_file = items(a);

        let sources = [PackSource {
            name: "gen/games-0.bin".into(),
            header_bytes: header.clone(),
        }];
        let mut w = PackWriter::new(Vec::new(), &sources).unwrap();
        for item in &from_file {
            if let SourceItem::Chunk { source, chunk } = item {
                w.add_chunk(*source, chunk).unwrap();
            }
        }
        let pack = w.finish().unwrap().0;
        let b = DataSource::from_reader(std::io::Cursor::new(pack), "ignored").unwrap();
        assert_eq!(b.format(), Format::Pack);
        assert_eq!(b.sources()[0].name, "gen/games-0.bin");
        assert_eq!(b.sources()[0].header, Ok(Header::V3(GenHeader::default())));
        let from_pack = items(b);
        let strip = |v: &[SourceItem]| -> Vec<(usize, ChunkContent)> {
            v.iter()
                .filter_map(|i| match i {
                    SourceItem::Chunk { source, chunk } => Some((*source, chunk.content())),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(strip(&from_pack), strip(&from_file));
        assert_eq!(strip(&from_file).len(), 2);
        // Short and empty inputs are no error here: the reader reports them.
        assert!(DataSource::from_reader(std::io::Cursor::new(Vec::new()), "x").is_ok());
        assert!(DataSource::from_reader(std::io::Cursor::new(b"LUFT".to_vec()), "x").is_ok());
    }
}
