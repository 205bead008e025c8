//! The one way in for every reader of games (`datagen stats`, `verify`, `convert`,
//! `wdl-fit`, `label-quality`, `pack`, and the trainer): [`DataSource`] opens a data file
//! (`record`'s `LUFTGAME` container, any version) or a pack (`pack`'s `LUFTPACK`), telling
//! them apart by their first bytes, and yields the same items from either: chunks of
//! games ([`GameRecord`](crate::record::GameRecord)), each tagged with the source (data
//! file) it came from, and the damage, repeats and problems found on the way. A data file is
//! one source; a pack holds many, each with its name and settings header. A later format
//! plugs in here: one more [`Format`], one more reader behind the same items.

use crate::pack::{is_pack, PackItem, PackReader, PackSource};
use crate::record::{Chunk, Damage, DataReader, Duplicate, Header, Item, RecordError};
use std::fmt;
use std::io::Read;
use std::path::Path;

/// What kind of file a [`DataSource`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A data file (`record`: the `LUFTGAME` container, versions 1 to 3).
    Games,
    /// A pack (`pack`: `LUFTPACK`).
    Pack,
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
    /// Something wrong that cost no game by itself.
    Problem(String),
}

enum Reader {
    Games(Box<DataReader<Box<dyn Read + Send>>>),
    Pack(Box<PackReader<Box<dyn Read + Send>>>),
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
    /// Opens the file at `path` (its source named by its file name).
    pub fn open(path: &Path) -> std::io::Result<DataSource> {
        let file = std::fs::File::open(path)?;
        let name = path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        );
        DataSource::from_reader(std::io::BufReader::new(file), &name)
    }

    /// Reads from `src`; a data file's source is called `name`.
    pub fn from_reader(mut src: impl Read + Send + 'static, name: &str) -> std::io::Result<DataSource> {
        let mut first = Vec::with_capacity(16);
        (&mut src).take(16).read_to_end(&mut first)?;
        let pack = is_pack(&first);
        let src: Box<dyn Read + Send> = Box::new(std::io::Cursor::new(first).chain(src));
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

    /// Whether this is a data file or a pack.
    pub fn format(&self) -> Format {
        match self.reader {
            Reader::Games(_) => Format::Games,
            Reader::Pack(_) => Format::Pack,
        }
    }

    /// The sources the games come from: a data file's one, a pack's table (empty when both
    /// its copies are lost).
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Why the data file's header or the pack's source table cannot be read, if so (the
    /// games after it are still read). A data file's damaged header is also the first
    /// [`SourceItem::Damage`], at byte 0.
    pub fn header_error(&self) -> Option<&str> {
        self.header_error.as_deref()
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
        })
    }
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
    use crate::record::{encode_chunk, encode_header, GameRecord, GenHeader, Wdl};
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
        type Kept = (usize, u32, Option<u64>, Option<u64>, Vec<GameRecord>);
        let strip = |v: &[SourceItem]| -> Vec<Kept> {
            v.iter()
                .filter_map(|i| match i {
                    SourceItem::Chunk { source, chunk } => Some((
                        *source,
                        chunk.version,
                        chunk.seq,
                        chunk.nodes,
                        chunk.games.clone(),
                    )),
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
