//! One memory budget for a whole rocpath run, the check that keeps inputs that never end
//! (FIFOs, devices) from being opened ([`special`], [`input`]), bounded child processes
//! ([`child`]), the fence that keeps folder walks inside what the user named ([`fence`]),
//! guarded memory maps ([`map`]) and the run's deadline ([`deadline`]).
//!
//! Every large allocation whose size the input decides — a decompressed CCOB payload, an archive
//! member buffered in memory, a window grown to hold one streamed code object, a YAML document
//! with its aliases expanded — first takes a [`Reservation`] from the run's [`MemoryBudget`].
//! Items scanned in parallel draw from the same counter, so their sum stays under the limit.
//! An item whose reservation cannot be granted is refused with [`OverBudget`], which the caller
//! reports for that item (file, container chain, what to do); the rest of the run goes on.
//!
//! A reservation that would fit the limit on its own but not next to the reservations other
//! items hold waits a bounded time ([`MemoryBudget::WAIT`]) for them to be released before it is
//! refused, so a machine with many threads serializes large items instead of refusing them.
//!
//! ```
//! use rocpath_budget::MemoryBudget;
//! let budget = MemoryBudget::new(1 << 20);
//! let r = budget.reserve(700 << 10).unwrap();
//! assert!(budget.try_reserve(700 << 10).is_err()); // both together are over 1 MiB
//! drop(r);
//! assert!(budget.try_reserve(700 << 10).is_ok());
//! ```

pub mod child;
pub mod deadline;
pub mod fence;
pub mod input;
pub mod map;
pub mod special;
pub use fence::{Fence, Refused};
pub use special::{non_regular, read_small_text};

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A reservation was refused: the item needs more memory than the budget has free.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverBudget {
    /// Bytes asked for.
    pub requested: u64,
    /// Bytes free when it was refused.
    pub available: u64,
    /// The budget's limit.
    pub limit: u64,
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let need = format_size(self.requested);
        let limit = format_size(self.limit);
        let raise = self.requested.div_ceil(1 << 30).saturating_add(1);
        if self.requested > self.limit {
            write!(
                f,
                "needs {need} of memory, more than the {limit} memory budget; raise it with --max-memory (e.g. --max-memory {raise}G)"
            )
        } else {
            write!(
                f,
                "needs {need} of memory, but only {} of the {limit} memory budget stayed free while other items held the rest; raise it with --max-memory (e.g. --max-memory {raise}G) or use fewer --threads",
                format_size(self.available)
            )
        }
    }
}
impl std::error::Error for OverBudget {}

struct Inner {
    limit: u64,
    wait: Duration,
    used: AtomicU64,
    lock: Mutex<()>,
    freed: Condvar,
}

/// A run's memory budget. Clones share one counter.
#[derive(Clone)]
pub struct MemoryBudget {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for MemoryBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryBudget")
            .field("limit", &self.limit())
            .field("in_use", &self.in_use())
            .finish()
    }
}

impl Default for MemoryBudget {
    /// A fresh budget of [`MemoryBudget::DEFAULT`] bytes.
    fn default() -> Self {
        MemoryBudget::new(MemoryBudget::DEFAULT)
    }
}

impl MemoryBudget {
    /// The default limit: 1 GiB.
    pub const DEFAULT: u64 = 1 << 30;
    /// Longest time a reservation waits for other items to release memory before it is refused.
    pub const WAIT: Duration = Duration::from_secs(10);

    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Self {
        MemoryBudget::with_wait(limit, Self::WAIT)
    }

    /// A budget of `limit` bytes whose reservations wait at most `wait` for memory held by
    /// others (zero: refuse at once, as tests want).
    pub fn with_wait(limit: u64, wait: Duration) -> Self {
        MemoryBudget {
            inner: Arc::new(Inner {
                limit,
                wait,
                used: AtomicU64::new(0),
                lock: Mutex::new(()),
                freed: Condvar::new(),
            }),
        }
    }

    /// The limit in bytes.
    pub fn limit(&self) -> u64 {
        self.inner.limit
    }

    /// Bytes reserved now.
    pub fn in_use(&self) -> u64 {
        self.inner.used.load(Ordering::Acquire)
    }

    /// Reserves `bytes` if they are free now; never waits.
    pub fn try_reserve(&self, bytes: u64) -> Result<Reservation, OverBudget> {
        self.take(bytes)?;
        Ok(Reservation {
            budget: self.clone(),
            bytes,
        })
    }

    /// Reserves `bytes`. When they would fit the limit but other reservations hold too much,
    /// waits up to [`MemoryBudget::WAIT`] (or the budget's own wait) for memory to be released
    /// before refusing.
    pub fn reserve(&self, bytes: u64) -> Result<Reservation, OverBudget> {
        self.wait_take(bytes)?;
        Ok(Reservation {
            budget: self.clone(),
            bytes,
        })
    }

    /// Adds `bytes` to the counter if the sum stays within the limit.
    fn take(&self, bytes: u64) -> Result<(), OverBudget> {
        let i = &self.inner;
        let mut cur = i.used.load(Ordering::Acquire);
        loop {
            let next = cur.checked_add(bytes).filter(|&n| n <= i.limit);
            let Some(next) = next else {
                return Err(OverBudget {
                    requested: bytes,
                    available: i.limit.saturating_sub(cur),
                    limit: i.limit,
                });
            };
            match i
                .used
                .compare_exchange_weak(cur, next, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => return Ok(()),
                Err(now) => cur = now,
            }
        }
    }

    fn wait_take(&self, bytes: u64) -> Result<(), OverBudget> {
        let first = match self.take(bytes) {
            Ok(()) => return Ok(()),
            Err(e) => e,
        };
        if bytes > self.inner.limit || self.inner.wait.is_zero() {
            return Err(first);
        }
        let deadline = Instant::now() + self.inner.wait;
        let mut guard = self.inner.lock.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            match self.take(bytes) {
                Ok(()) => return Ok(()),
                Err(e) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(e);
                    }
                    guard = match self.inner.freed.wait_timeout(guard, deadline - now) {
                        Ok((g, _)) => g,
                        Err(p) => p.into_inner().0,
                    };
                }
            }
        }
    }

    fn give_back(&self, bytes: u64) {
        if bytes == 0 {
            return;
        }
        self.inner.used.fetch_sub(bytes, Ordering::AcqRel);
        // Taking the lock orders this release before a waiter's next look at the counter.
        drop(self.inner.lock.lock());
        self.inner.freed.notify_all();
    }
}

/// Bytes held from a [`MemoryBudget`]; given back when dropped.
#[derive(Debug)]
pub struct Reservation {
    budget: MemoryBudget,
    bytes: u64,
}

impl Reservation {
    /// An empty reservation on `budget`, to grow later.
    pub fn empty(budget: &MemoryBudget) -> Self {
        Reservation {
            budget: budget.clone(),
            bytes: 0,
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Makes the reservation hold at least `total` bytes (waiting like
    /// [`MemoryBudget::reserve`]); holding more already is fine.
    pub fn ensure(&mut self, total: u64) -> Result<(), OverBudget> {
        if total <= self.bytes {
            return Ok(());
        }
        let more = total - self.bytes;
        self.budget.wait_take(more).map_err(|mut e| {
            // Report the whole size the item needs, not the increment.
            e.requested = total;
            e.available = e.available.saturating_add(self.bytes);
            e
        })?;
        self.bytes = total;
        Ok(())
    }

    /// Gives back everything above `total` bytes.
    pub fn shrink_to(&mut self, total: u64) {
        if total < self.bytes {
            self.budget.give_back(self.bytes - total);
            self.bytes = total;
        }
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        self.budget.give_back(self.bytes);
    }
}

/// Why a text is not a size.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    /// A unit other than K, M, G, T (with an optional `i`/`iB`/`B`).
    #[error("{0:?}: unknown unit (use K, M, G or T, e.g. 512M or 2G)")]
    Unit(String),
    /// No number before the unit.
    #[error("{0:?}: not a size (e.g. 512M, 2G, 1048576)")]
    Number(String),
    /// Negative, not finite, or more than a u64 holds.
    #[error("{0:?}: out of range")]
    Range(String),
    /// Zero where a limit is asked for.
    #[error("{0:?}: a limit of 0 bytes allows nothing (give a size, e.g. 1G)")]
    Zero(String),
}

/// Parses a size — the one size parser of the tool: a number of bytes with an optional unit
/// `K`, `M`, `G`, `T` (powers of 1024, optionally followed by `i`/`iB`/`B`, any case):
/// `512M`, `2G`, `1.5G`, `16GiB`, `1048576`, `0` (a workspace of none).
pub fn parse_size(s: &str) -> Result<u64, SizeError> {
    let t = s.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let unit = unit.trim().to_ascii_lowercase();
    let shift = match unit.trim_end_matches('b').trim_end_matches('i') {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        _ => return Err(SizeError::Unit(s.to_string())),
    };
    let v: f64 = num.parse().map_err(|_| SizeError::Number(s.to_string()))?;
    let bytes = v * (1u64 << shift) as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes >= u64::MAX as f64 {
        return Err(SizeError::Range(s.to_string()));
    }
    Ok(bytes as u64)
}

/// Parses a limit (`--max-memory`): a size of at least one byte.
pub fn parse_limit(s: &str) -> Result<u64, SizeError> {
    match parse_size(s)? {
        0 => Err(SizeError::Zero(s.to_string())),
        n => Ok(n),
    }
}

/// A size for people: `1 GiB`, `512 MiB`, `4.2 MiB`, `900 B`.
pub fn format_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} B")
    } else if (v - v.round()).abs() < 0.05 {
        format!("{:.0} {}", v.round(), UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn parallel_reservations_share_the_counter() {
        let b = MemoryBudget::new(100);
        let r1 = b.try_reserve(60).unwrap();
        let e = b.try_reserve(50).unwrap_err();
        assert_eq!((e.requested, e.available, e.limit), (50, 40, 100));
        let r2 = b.try_reserve(40).unwrap();
        assert_eq!(b.in_use(), 100);
        drop(r1);
        drop(r2);
        assert_eq!(b.in_use(), 0);
    }

    #[test]
    fn more_than_the_limit_is_refused_at_once_and_names_the_flag() {
        let b = MemoryBudget::new(1 << 30);
        let t = Instant::now();
        let e = b.reserve(4 << 30).unwrap_err();
        assert!(t.elapsed() < MemoryBudget::WAIT);
        let msg = e.to_string();
        assert!(msg.contains("needs 4 GiB"), "{msg}");
        assert!(msg.contains("more than the 1 GiB memory budget"), "{msg}");
        assert!(msg.contains("--max-memory 5G"), "{msg}");
    }

    #[test]
    fn a_waiting_reservation_gets_memory_released_by_another_thread() {
        let b = MemoryBudget::new(100);
        let held = b.try_reserve(80).unwrap();
        let b2 = b.clone();
        let t = std::thread::spawn(move || b2.reserve(50).map(|r| r.bytes()));
        std::thread::sleep(Duration::from_millis(50));
        drop(held);
        assert_eq!(t.join().unwrap(), Ok(50));
        assert_eq!(b.in_use(), 0);
    }

    #[test]
    fn a_reservation_grows_and_shrinks() {
        let b = MemoryBudget::new(100);
        let mut r = Reservation::empty(&b);
        r.ensure(30).unwrap();
        r.ensure(10).unwrap();
        assert_eq!((r.bytes(), b.in_use()), (30, 30));
        let _other = b.try_reserve(60).unwrap();
        let e = b.try_reserve(20).unwrap_err();
        assert_eq!(e.available, 10);
        r.shrink_to(5);
        assert_eq!(b.in_use(), 65);
        let e = {
            let mut big = Reservation::empty(&b);
            big.ensure(200).unwrap_err()
        };
        assert_eq!(e.requested, 200);
    }

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("2GiB"), Ok(2 << 30));
        assert_eq!(parse_size("1.5g"), Ok(3 << 29));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("64k"), Ok(64 << 10));
        assert_eq!(parse_size("16GiB"), Ok(16 << 30));
        assert_eq!(parse_size("0"), Ok(0));
        assert!(matches!(parse_size("12X"), Err(SizeError::Unit(_))));
        assert!(matches!(parse_size("8Q"), Err(SizeError::Unit(_))));
        assert!(matches!(parse_size(""), Err(SizeError::Number(_))));
        assert!(matches!(parse_limit("0"), Err(SizeError::Zero(_))));
        assert_eq!(parse_limit("1G"), Ok(1 << 30));
        assert_eq!(format_size(1 << 30), "1 GiB");
        assert_eq!(format_size(512 << 20), "512 MiB");
        assert_eq!(format_size(900), "900 B");
        assert_eq!(format_size(1536), "1.5 KiB");
    }
}
