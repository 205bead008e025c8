//! Allocations whose number a user chooses (each search thread's tables, `Threads`), made
//! fallibly: a machine without the memory refuses the setting (`info string error`, the old
//! setting kept) instead of aborting the engine, as `Vec` does when the allocator says no.
//! The contents are what `vec![value; len]` gives, so searches are the same.
//!
//! Large tables read at random (the transposition table) are a [`ZeroedBlock`]: on Linux
//! an anonymous mapping aligned to 2 MiB and advised to be transparent huge pages, since
//! with 4 KiB pages nearly every probe of a 16 MiB table misses the TLB as well as the
//! cache, and a page walk (two-dimensional under a hypervisor) comes on top.

use std::collections::TryReserveError;
use std::ptr::NonNull;

/// `len` copies of `value`, or the allocator's refusal.
pub(crate) fn try_vec<T: Clone>(len: usize, value: T) -> Result<Vec<T>, TryReserveError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)?;
    v.resize(len, value);
    Ok(v)
}

/// An empty vector with room for `capacity` items, or the allocator's refusal.
pub(crate) fn try_with_capacity<T>(capacity: usize) -> Result<Vec<T>, TryReserveError> {
    let mut v = Vec::new();
    v.try_reserve_exact(capacity)?;
    Ok(v)
}

/// The size of a transparent huge page on x86-64 and most arm64 Linux, 2 MiB.
pub(crate) const HUGE_PAGE_BYTES: usize = 2 * 1024 * 1024;

/// `len` zeroed bytes (at least one), aligned to 64 bytes (a cache line), for a table of
/// atomics read at random. Pages are handed out as they are first touched. On Linux the
/// block is its own anonymous mapping (page-aligned); from [`HUGE_PAGE_BYTES`] up it starts
/// on a huge-page boundary (unless only an unaligned mapping fits the address space) and is
/// advised (`madvise(MADV_HUGEPAGE)`) to be backed by transparent huge pages: advice only,
/// so where the kernel gives none (`transparent_hugepage` set to `never`, no free huge page)
/// the block works as before. Elsewhere it comes from the global allocator.
pub(crate) struct ZeroedBlock {
    ptr: NonNull<u8>,
    len: usize,
    /// What to give back on drop: the mapping's size from `ptr` (Linux) or the allocation's
    /// layout.
    #[cfg(target_os = "linux")]
    mapping: usize,
    #[cfg(not(target_os = "linux"))]
    layout: std::alloc::Layout,
}

// SAFETY: the block is plain memory owned by this value; what is stored in it, and how it is
// shared, is up to the owner (the transposition table keeps atomics there).
unsafe impl Send for ZeroedBlock {}
// SAFETY: as above: `&ZeroedBlock` gives out only the pointer.
unsafe impl Sync for ZeroedBlock {}

impl ZeroedBlock {
    /// A block of `len` zeroed bytes, or `None` when the system refuses it.
    pub(crate) fn new(len: usize) -> Option<ZeroedBlock> {
        Self::mapped(len, len)
    }

    /// A block of `len` zeroed bytes for a table read at random whose pages should be huge
    /// ones: from half a huge page up, the mapping is whole huge pages (at most half of it
    /// beyond `len`), so the whole table lies on huge pages. `None` when the system refuses.
    pub(crate) fn huge(len: usize) -> Option<ZeroedBlock> {
        let mapped = if len >= HUGE_PAGE_BYTES / 2 {
            len.checked_next_multiple_of(HUGE_PAGE_BYTES)?
        } else {
            len
        };
        Self::mapped(len, mapped)
    }

    /// A block of `len` zeroed bytes in a mapping of at least `mapped` bytes.
    fn mapped(len: usize, mapped: usize) -> Option<ZeroedBlock> {
        let len = len.max(1);
        #[cfg(not(target_os = "linux"))]
        let _ = mapped;
        #[cfg(target_os = "linux")]
        {
            // SAFETY: `sysconf` reads a constant of the system.
            let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) })
                .ok()
                .filter(|&p| p.is_power_of_two())
                .unwrap_or(4096);
            let size = mapped.max(len).checked_next_multiple_of(page)?;
            // A table of a huge page or more is mapped a huge page larger, and what lies
            // before the first boundary and after the table is given back at once; when
            // even that much address space is refused, an unaligned mapping of the size.
            let ptr = if size >= HUGE_PAGE_BYTES {
                match map(size.checked_add(HUGE_PAGE_BYTES)?) {
                    Some(base) => {
                        let head = (base as usize).next_multiple_of(HUGE_PAGE_BYTES) - base as usize;
                        // SAFETY: `head < HUGE_PAGE_BYTES`: inside the mapping.
                        let ptr = unsafe { base.add(head) };
                        // SAFETY: both ranges are whole pages of our own fresh mapping
                        // (`base` and `size` are page multiples, so `head` is one too), outside
                        // the table's `size` bytes from `ptr`.
                        unsafe {
                            if head > 0 {
                                libc::munmap(base.cast(), head);
                            }
                            let tail = HUGE_PAGE_BYTES - head;
                            if tail > 0 {
                                libc::munmap(ptr.add(size).cast(), tail);
                            }
                        }
                        ptr
                    }
                    None => map(size)?,
                }
            } else {
                map(size)?
            };
            if size >= HUGE_PAGE_BYTES {
                // SAFETY: the range is our own fresh mapping; the advice keeps its contents.
                unsafe {
                    libc::madvise(ptr.cast(), size, libc::MADV_HUGEPAGE);
                }
            }
            Some(ZeroedBlock {
                ptr: NonNull::new(ptr)?,
                len,
                mapping: size,
            })
        }
        #[cfg(not(target_os = "linux"))]
        {
            let layout = std::alloc::Layout::from_size_align(len, 64).ok()?;
            // SAFETY: `layout` has a non-zero size (`len >= 1`).
            let ptr = NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })?;
            Some(ZeroedBlock { ptr, len, layout })
        }
    }

    /// The first byte; the block is `len()` bytes from here, 64-byte aligned.
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The size in bytes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

/// Integers whose all-zero bytes are the value 0: the items a [`ZeroedTable`] may hold.
///
/// # Safety
/// Every bit pattern of all zero bytes must be a valid value of the type.
pub(crate) unsafe trait Zeroable: Copy {}
// SAFETY: zero bytes are the integer 0.
unsafe impl Zeroable for i16 {}
// SAFETY: zero bytes are the integer 0.
unsafe impl Zeroable for i32 {}

/// A table of `len` integers, all 0 at first, for tables a search thread reads at random
/// (histories, correction histories): a [`ZeroedBlock::huge`] (on Linux, whole transparent
/// huge pages from half a huge page up, so a read misses the cache without missing the TLB
/// as well), or, when the system refuses the mapping, a vector from the allocator, whose
/// refusal is the error. Reads and writes as a slice.
pub(crate) struct ZeroedTable<T: Zeroable> {
    ptr: NonNull<T>,
    len: usize,
    /// What owns the memory: the block, or the vector (empty when the block does).
    _block: Option<ZeroedBlock>,
    _vec: Vec<T>,
}

// SAFETY: the table owns its items as a `Vec<T>` would.
unsafe impl<T: Zeroable + Send> Send for ZeroedTable<T> {}
// SAFETY: as above: shared access gives out `&[T]` only.
unsafe impl<T: Zeroable + Sync> Sync for ZeroedTable<T> {}

impl<T: Zeroable> ZeroedTable<T> {
    /// `len` zeros, or the allocator's refusal.
    pub(crate) fn new(len: usize) -> Result<ZeroedTable<T>, TryReserveError> {
        let bytes = len.checked_mul(std::mem::size_of::<T>());
        if let Some(block) = bytes.and_then(ZeroedBlock::huge) {
            // 64-byte aligned, at least `len * size_of::<T>()` zeroed bytes.
            return Ok(ZeroedTable {
                ptr: NonNull::new(block.as_ptr().cast::<T>()).unwrap_or(NonNull::dangling()),
                len,
                _block: Some(block),
                _vec: Vec::new(),
            });
        }
        // SAFETY: all zero bytes are a valid `T` (`Zeroable`).
        let mut vec = try_vec(len, unsafe { std::mem::zeroed::<T>() })?;
        Ok(ZeroedTable {
            ptr: NonNull::new(vec.as_mut_ptr()).unwrap_or(NonNull::dangling()),
            len,
            _block: None,
            _vec: vec,
        })
    }
}

impl<T: Zeroable> std::ops::Deref for ZeroedTable<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `len` initialised items from `ptr` live as long as `self` (owned by the
        // block or the vector, neither moved nor resized).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> std::ops::DerefMut for ZeroedTable<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`, and `&mut self` is the only access.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

/// A fresh anonymous read-write mapping of `size` bytes (zeroed, untouched), or `None`.
#[cfg(target_os = "linux")]
fn map(size: usize) -> Option<*mut u8> {
    // SAFETY: an anonymous private mapping at an address the kernel picks touches no memory of
    // ours; failure is `MAP_FAILED`, checked.
    let base = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    (base != libc::MAP_FAILED).then_some(base.cast::<u8>())
}

impl Drop for ZeroedBlock {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        // SAFETY: the whole mapping kept in `new`, unmapped once.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.mapping);
        }
        #[cfg(not(target_os = "linux"))]
        // SAFETY: allocated in `new` with this layout, freed once.
        unsafe {
            std::alloc::dealloc(self.ptr.as_ptr(), self.layout);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_blocks_are_zero_aligned_and_writable() {
        for len in [
            1,
            4096,
            HUGE_PAGE_BYTES - 1,
            HUGE_PAGE_BYTES,
            3 * HUGE_PAGE_BYTES + 16,
        ] {
            let block = ZeroedBlock::new(len).unwrap();
            assert_eq!(block.len(), len);
            assert_eq!(block.as_ptr() as usize % 64, 0);
            #[cfg(target_os = "linux")]
            if len >= HUGE_PAGE_BYTES {
                assert_eq!(block.as_ptr() as usize % HUGE_PAGE_BYTES, 0);
            }
            // SAFETY: `len` bytes from `as_ptr` belong to the block.
            let bytes = unsafe { std::slice::from_raw_parts_mut(block.as_ptr(), len) };
            assert!(bytes.iter().all(|&b| b == 0));
            bytes[0] = 9;
            bytes[len - 1] = 7;
            assert_eq!(bytes[len - 1], 7);
            assert_eq!(bytes[0], if len == 1 { 7 } else { 9 });
        }
        assert!(ZeroedBlock::new(usize::MAX - 4096).is_none());
    }

    #[test]
    fn huge_blocks_cover_whole_huge_pages_and_tables_read_as_zeroed_slices() {
        for len in [
            1,
            HUGE_PAGE_BYTES / 2,
            HUGE_PAGE_BYTES + 3,
            5 * HUGE_PAGE_BYTES / 2,
        ] {
            let block = ZeroedBlock::huge(len).unwrap();
            assert_eq!(block.len(), len);
            #[cfg(target_os = "linux")]
            if len >= HUGE_PAGE_BYTES / 2 {
                assert_eq!(block.as_ptr() as usize % HUGE_PAGE_BYTES, 0);
                assert_eq!(block.mapping % HUGE_PAGE_BYTES, 0);
                assert!(block.mapping >= len && block.mapping - len < HUGE_PAGE_BYTES);
            }
        }
        for len in [0, 1, 1000, 768 * 768] {
            let mut table = ZeroedTable::<i16>::new(len).unwrap();
            assert_eq!(table.len(), len);
            assert!(table.iter().all(|&v| v == 0));
            if len > 0 {
                table[len - 1] = -5;
                table[0] += 3;
                assert_eq!(table[len - 1], if len == 1 { -2 } else { -5 });
                table.fill(0);
                assert!(table.iter().all(|&v| v == 0));
            }
        }
        assert!(ZeroedTable::<i32>::new(usize::MAX / 2).is_err());
    }

    #[test]
    fn vectors_hold_what_vec_gives_or_say_why_not() {
        assert_eq!(try_vec(5, 7i16).unwrap(), vec![7i16; 5]);
        assert!(try_with_capacity::<u64>(9).unwrap().capacity() >= 9);
        assert!(try_vec(usize::MAX / 2, 0u64).is_err());
    }
}
