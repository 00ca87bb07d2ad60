//! What the three primitives share: their entries, from the attribute's
//! `inventory` collection and from the builder, sorted by key (a tool's or
//! prompt's name, a resource's URI), duplicates refused with both source
//! locations, and found again by key with a binary search.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::location::Location;

/// Something served under a unique key.
pub(crate) trait Keyed {
    /// The name or URI it is found by.
    fn key(&self) -> &str;
    /// Where it was defined.
    fn location(&self) -> Location;
}

impl<T: Keyed> Keyed for Arc<T> {
    fn key(&self) -> &str {
        (**self).key()
    }

    fn location(&self) -> Location {
        (**self).location()
    }
}

/// Two entries with the same key: the key and both locations.
pub(crate) struct Duplicate {
    pub(crate) key: String,
    pub(crate) first: Location,
    pub(crate) second: Location,
}

/// Sorts `entries` by key, then by location (so that a duplicate is
/// reported the same way on every build), and refuses a key given twice.
pub(crate) fn sort_unique<E: Keyed>(entries: &mut [E]) -> Result<(), Duplicate> {
    entries.sort_by(|a, b| order(a, b));
    match entries
        .windows(2)
        .find(|pair| pair[0].key() == pair[1].key())
    {
        Some(pair) => Err(Duplicate {
            key: pair[0].key().to_owned(),
            first: pair[0].location(),
            second: pair[1].location(),
        }),
        None => Ok(()),
    }
}

fn order<E: Keyed>(a: &E, b: &E) -> Ordering {
    let (la, lb) = (a.location(), b.location());
    (a.key(), la.file, la.line).cmp(&(b.key(), lb.file, lb.line))
}

/// The position of the entry with this key in entries sorted by
/// [`sort_unique`]: a binary search, which beats hashing the key.
pub(crate) fn position<E: Keyed>(entries: &[E], key: &str) -> Option<usize> {
    entries.binary_search_by(|entry| entry.key().cmp(key)).ok()
}

/// Adds `entry` to entries sorted by [`sort_unique`], keeping them sorted;
/// refuses it if its key is taken (the first location is the one served).
pub(crate) fn insert_unique<E: Keyed>(entries: &mut Vec<E>, entry: E) -> Result<(), Duplicate> {
    match entries.binary_search_by(|e| e.key().cmp(entry.key())) {
        Ok(i) => Err(Duplicate {
            key: entry.key().to_owned(),
            first: entries[i].location(),
            second: entry.location(),
        }),
        Err(i) => {
            entries.insert(i, entry);
            Ok(())
        }
    }
}

/// Removes the entry with this key, if there is one.
pub(crate) fn remove<E: Keyed>(entries: &mut Vec<E>, key: &str) -> Option<E> {
    position(entries, key).map(|i| entries.remove(i))
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Entry(&'static str, u32);

    impl Keyed for Entry {
        fn key(&self) -> &str {
            self.0
        }
        fn location(&self) -> Location {
            Location {
                file: "src/lib.rs",
                line: self.1,
                module: "crate",
            }
        }
    }

    #[test]
    fn entries_are_sorted_found_and_unique() {
        let mut entries = vec![Entry("b", 1), Entry("c", 2), Entry("a", 3)];
        assert!(sort_unique(&mut entries).is_ok());
        let keys: Vec<&str> = entries.iter().map(|e| e.0).collect();
        assert_eq!(keys, ["a", "b", "c"]);
        assert_eq!(position(&entries, "c"), Some(2));
        assert_eq!(position(&entries, "d"), None);

        let mut entries = vec![Entry("x", 9), Entry("y", 1), Entry("x", 4)];
        let Err(duplicate) = sort_unique(&mut entries) else {
            panic!("a duplicate was accepted");
        };
        assert_eq!(duplicate.key, "x");
        assert_eq!((duplicate.first.line, duplicate.second.line), (4, 9));
    }

    #[test]
    fn entries_are_added_in_order_and_removed() {
        let mut entries = vec![Entry("b", 1), Entry("d", 2)];
        assert!(insert_unique(&mut entries, Entry("c", 3)).is_ok());
        assert!(insert_unique(&mut entries, Entry("a", 4)).is_ok());
        let keys: Vec<&str> = entries.iter().map(|e| e.0).collect();
        assert_eq!(keys, ["a", "b", "c", "d"]);
        let Err(duplicate) = insert_unique(&mut entries, Entry("b", 7)) else {
            panic!("a duplicate was accepted");
        };
        assert_eq!((duplicate.first.line, duplicate.second.line), (1, 7));
        assert_eq!(remove(&mut entries, "c").map(|e| e.1), Some(3));
        assert!(remove(&mut entries, "c").is_none());
        assert_eq!(position(&entries, "d"), Some(2));
    }
}
