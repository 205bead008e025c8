//! Allocations whose number a user chooses (each search thread's tables, `Threads`), made
//! fallibly: a machine without the memory refuses the setting (`info string error`, the old
//! setting kept) instead of aborting the engine, as `Vec` does when the allocator says no.
//! The contents are what `vec![value; len]` gives, so searches are the same.

use std::collections::TryReserveError;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_hold_what_vec_gives_or_say_why_not() {
        assert_eq!(try_vec(5, 7i16).unwrap(), vec![7i16; 5]);
        assert!(try_with_capacity::<u64>(9).unwrap().capacity() >= 9);
        assert!(try_vec(usize::MAX / 2, 0u64).is_err());
    }
}
