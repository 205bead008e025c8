//! The one buffered reader under the data file reader ([`crate::record::DataReader`]) and the
//! pack reader ([`crate::pack::PackReader`]): both look ahead by a varying number of bytes
//! (a header, a chunk or block, a frame, a window searched for the next magic after damage)
//! and step forward by any amount, byte by byte when resynchronising, so they need more than
//! `std::io::BufRead` gives: a contiguous window of at least `need` unread bytes, grown on
//! demand, and the file offset of every byte in it.
//!
//! Reads come in blocks of [`READ_BLOCK`] (1 MiB) or the size asked for, whichever is larger;
//! an interrupted read is retried; the bytes already consumed are dropped before the buffer
//! grows, so it holds about the largest window asked for plus one block.

use std::io::{ErrorKind, Read};

/// Bytes asked of the source at a time (at least).
pub(crate) const READ_BLOCK: usize = 1 << 20;

/// A source with a window of unread bytes over it (see the module notes).
pub(crate) struct ReadBuffer<R> {
    src: R,
    buf: Vec<u8>,
    /// Index in `buf` of the next unread byte; `base` is the file offset of `buf[0]`.
    pos: usize,
    base: u64,
    eof: bool,
}

impl<R> std::fmt::Debug for ReadBuffer<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadBuffer")
            .field("offset", &self.offset())
            .field("available", &self.available())
            .field("eof", &self.eof)
            .finish_non_exhaustive()
    }
}

impl<R: Read> ReadBuffer<R> {
    /// A buffer at offset 0 of `src`, nothing read yet.
    pub(crate) fn new(src: R) -> ReadBuffer<R> {
        ReadBuffer {
            src,
            buf: Vec::new(),
            pos: 0,
            base: 0,
            eof: false,
        }
    }

    /// Makes at least `need` unread bytes available; false when the source ends first (the
    /// bytes there are stay available). Errors: the source's, other than an interruption.
    pub(crate) fn fill(&mut self, need: usize) -> std::io::Result<bool> {
        if self.available() >= need {
            return Ok(true);
        }
        if self.pos > 0 {
            self.buf.drain(..self.pos);
            self.base += self.pos as u64;
            self.pos = 0;
        }
        while !self.eof && self.buf.len() < need {
            let old = self.buf.len();
            self.buf.resize(need.max(old + READ_BLOCK), 0);
            let n = loop {
                match self.src.read(&mut self.buf[old..]) {
                    Ok(n) => break n,
                    Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                    Err(e) => {
                        self.buf.truncate(old);
                        return Err(e);
                    }
                }
            };
            self.buf.truncate(old + n);
            if n == 0 {
                self.eof = true;
            }
        }
        Ok(self.buf.len() >= need)
    }
}

impl<R> ReadBuffer<R> {
    /// The bytes read and not yet consumed (as many as the last [`ReadBuffer::fill`] made
    /// available, or more).
    pub(crate) fn unread(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    /// How many bytes [`ReadBuffer::unread`] holds.
    pub(crate) fn available(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// File offset of the next unread byte.
    pub(crate) fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// Whether the source has ended (everything it held has been read into the buffer).
    pub(crate) fn at_eof(&self) -> bool {
        self.eof
    }

    /// Consumes `n` unread bytes (at most [`ReadBuffer::available`]).
    pub(crate) fn consume(&mut self, n: usize) {
        debug_assert!(n <= self.available());
        self.pos += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source that gives at most `step` bytes a read and is interrupted before each.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
        interrupt: bool,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            self.interrupt = !self.interrupt;
            if self.interrupt {
                return Err(ErrorKind::Interrupted.into());
            }
            let n = out.len().min(self.step).min(self.bytes.len());
            out[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[test]
    fn windows_offsets_and_the_end() {
        let data: Vec<u8> = (0..=255u8).cycle().take(3 * READ_BLOCK / 2).collect();
        let mut r = ReadBuffer::new(Trickle {
            bytes: &data,
            step: 1000,
            interrupt: false,
        });
        assert!(r.fill(10).unwrap());
        assert_eq!(&r.unread()[..10], &data[..10]);
        r.consume(7);
        assert_eq!(r.offset(), 7);
        // A window larger than a block, across the consumed bytes being dropped.
        assert!(r.fill(READ_BLOCK + 5).unwrap());
        assert_eq!(r.offset(), 7);
        assert_eq!(&r.unread()[..READ_BLOCK + 5], &data[7..READ_BLOCK + 12]);
        r.consume(READ_BLOCK);
        assert_eq!(r.offset(), READ_BLOCK as u64 + 7);
        // More than is left: false, with what is left available.
        assert!(!r.fill(data.len()).unwrap());
        assert!(r.at_eof());
        assert_eq!(r.unread(), &data[READ_BLOCK + 7..]);
        let rest = r.available();
        r.consume(rest);
        assert_eq!(r.offset(), data.len() as u64);
        assert!(!r.fill(1).unwrap());
    }

    #[test]
    fn errors_are_passed_on() {
        struct Broken;
        impl Read for Broken {
            fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
                Err(ErrorKind::PermissionDenied.into())
            }
        }
        let mut r = ReadBuffer::new(Broken);
        assert_eq!(r.fill(1).unwrap_err().kind(), ErrorKind::PermissionDenied);
        assert_eq!(r.available(), 0);
    }
}
