//! Memory maps that survive the file shrinking under them.
//!
//! rocpath maps large inputs (libraries of hundreds of MB) instead of reading them. When
//! another process truncates or rewrites a mapped file, touching a page past the new end raises
//! `SIGBUS`, which kills the process (exit 135) with every other item of the run. A [`Map`]
//! registers its address range in a fixed table; a `SIGBUS` handler installed once finds the
//! faulting address in the table, puts a page of zeros in place of the lost one (an anonymous
//! mapping at that address) and marks the map as faulted, and the read goes on. The reader asks
//! [`Map::shrank`] when done and reports the file as changed while read — an error for that
//! item; the rest of the run goes on. A fault outside every registered map is not ours: the
//! previous handler is put back and the fault happens again under it (a crash, as before).
//!
//! On other systems than Linux and the BSDs a [`Map`] is a plain map.

use std::fs::File;
use std::ops::Deref;

/// A read-only memory map of a file, guarded against the file shrinking (see the module).
#[derive(Debug)]
pub struct Map {
    map: memmap2::Mmap,
    slot: Option<usize>,
}

impl Map {
    /// Maps `file` read-only. A map taken while every guard slot is held (more than
    /// [`SLOTS`] maps alive at once) is a plain, unguarded map.
    pub fn new(file: &File) -> std::io::Result<Map> {
        #[allow(unsafe_code)]
        // SAFETY: a read-only private mapping of a file rocpath does not write. A concurrent
        // truncation would fault on the lost pages; the guard below turns that into zeros and
        // a flag instead of a crash.
        let map = unsafe { memmap2::Mmap::map(file) }?;
        let slot = guard::register(map.as_ptr() as usize, map.len());
        Ok(Map { map, slot })
    }

    /// Whether a page of the file was gone when read (the file shrank while mapped): what
    /// was read of it is not the file's content.
    pub fn shrank(&self) -> bool {
        self.slot.is_some_and(guard::faulted)
    }

    /// Whether the map is guarded.
    pub fn guarded(&self) -> bool {
        self.slot.is_some()
    }

    /// Drops the resident pages of `[offset, offset + len)` (whole pages inside it): they are
    /// read again from the page cache when touched, so nothing borrowed changes.
    pub fn release(&self, offset: usize, len: usize) {
        #[allow(unsafe_code)]
        // SAFETY: MADV_DONTNEED on a read-only, file-backed mapping only drops resident
        // pages; their contents are re-read from the file on the next access.
        let _ = unsafe {
            self.map
                .unchecked_advise_range(memmap2::UncheckedAdvice::DontNeed, offset, len)
        };
    }
}

impl Deref for Map {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.map
    }
}

impl Drop for Map {
    fn drop(&mut self) {
        // Unregistered before `map` is unmapped (fields drop after this).
        if let Some(s) = self.slot {
            guard::unregister(s);
        }
    }
}

/// Maps guarded at once; more are plain maps.
pub const SLOTS: usize = 256;

#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
mod guard {
    use super::SLOTS;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::sync::{Once, OnceLock};

    struct Slot {
        start: AtomicUsize,
        len: AtomicUsize,
        faulted: AtomicBool,
    }

    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY: Slot = Slot {
        start: AtomicUsize::new(0),
        len: AtomicUsize::new(0),
        faulted: AtomicBool::new(false),
    };
    static TABLE: [Slot; SLOTS] = [EMPTY; SLOTS];
    static INSTALL: Once = Once::new();
    static PAGE: AtomicUsize = AtomicUsize::new(4096);

    /// The handler that was there before ours, to put back for a fault that is not ours.
    struct Previous(libc::sigaction);
    // SAFETY: a plain C struct of integers, flags and a function pointer, written once
    // before the handler is installed and only read after.
    #[allow(unsafe_code)]
    unsafe impl Sync for Previous {}
    #[allow(unsafe_code)]
    unsafe impl Send for Previous {}
    static PREVIOUS: OnceLock<Previous> = OnceLock::new();

    #[allow(unsafe_code)]
    fn install() {
        INSTALL.call_once(|| {
            // SAFETY: sysconf, sigaction and sigemptyset with valid pointers to locals.
            unsafe {
                let page = libc::sysconf(libc::_SC_PAGESIZE);
                if page > 0 {
                    PAGE.store(page as usize, Ordering::Relaxed);
                }
                let mut old: libc::sigaction = std::mem::zeroed();
                let mut act: libc::sigaction = std::mem::zeroed();
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    handler;
                act.sa_sigaction = f as usize;
                act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                libc::sigemptyset(&mut act.sa_mask);
                if libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut old) != 0 {
                    return;
                }
                let _ = PREVIOUS.set(Previous(old));
                libc::sigaction(libc::SIGBUS, &act, std::ptr::null_mut());
            }
        });
    }

    /// Runs on the faulting thread; only atomics and system calls that are async-signal-safe.
    #[allow(unsafe_code)]
    extern "C" fn handler(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
        // SAFETY: the kernel passes a valid siginfo_t for a SA_SIGINFO handler.
        let addr = unsafe { (*info).si_addr() } as usize;
        for s in &TABLE {
            let start = s.start.load(Ordering::Acquire);
            let len = s.len.load(Ordering::Acquire);
            if start == 0
                || start == usize::MAX
                || addr < start
                || addr >= start.saturating_add(len)
            {
                continue;
            }
            let page = PAGE.load(Ordering::Relaxed);
            let at = addr & !(page - 1);
            // SAFETY: replaces one page inside a mapping this process owns and still holds
            // (it is unregistered before it is unmapped) with zeros.
            let r = unsafe {
                libc::mmap(
                    at as *mut libc::c_void,
                    page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if r != libc::MAP_FAILED {
                s.faulted.store(true, Ordering::Release);
                return;
            }
            break;
        }
        // Not ours (or the page could not be replaced): the previous handler takes the
        // fault again when the instruction is retried.
        // SAFETY: sigaction with a pointer to the saved action, or SIG_DFL.
        unsafe {
            match PREVIOUS.get() {
                Some(p) => {
                    libc::sigaction(libc::SIGBUS, &p.0, std::ptr::null_mut());
                }
                None => {
                    libc::signal(libc::SIGBUS, libc::SIG_DFL);
                }
            }
        }
    }

    pub fn register(start: usize, len: usize) -> Option<usize> {
        if start == 0 || len == 0 {
            return None;
        }
        install();
        PREVIOUS.get()?;
        for (i, s) in TABLE.iter().enumerate() {
            if s.start
                .compare_exchange(0, usize::MAX, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
            {
                s.faulted.store(false, Ordering::Release);
                s.len.store(len, Ordering::Release);
                s.start.store(start, Ordering::Release);
                return Some(i);
            }
        }
        None
    }

    pub fn faulted(slot: usize) -> bool {
        TABLE[slot].faulted.load(Ordering::Acquire)
    }

    pub fn unregister(slot: usize) {
        let s = &TABLE[slot];
        s.len.store(0, Ordering::Release);
        s.start.store(0, Ordering::Release);
    }
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_os = "freebsd")))]
mod guard {
    pub fn register(_start: usize, _len: usize) -> Option<usize> {
        None
    }
    pub fn faulted(_slot: usize) -> bool {
        false
    }
    pub fn unregister(_slot: usize) {}
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::io::Write;

    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_truncated_while_mapped_reads_as_zeros_and_says_so() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("lib.so");
        let mut f = File::create(&p).unwrap();
        f.write_all(&vec![0xAB; 64 * 1024]).unwrap();
        drop(f);
        let map = Map::new(&File::open(&p).unwrap()).unwrap();
        assert!(map.guarded());
        assert_eq!(map[40_000], 0xAB);
        assert!(!map.shrank());
        // Another process truncates the file: the pages past the end are gone.
        File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_len(4096)
            .unwrap();
        let sum: u64 = map.iter().map(|&b| u64::from(b)).sum();
        assert!(map.shrank());
        assert_eq!(
            sum,
            4096 * 0xAB,
            "the first page is read, the rest are zeros"
        );
        drop(map);
        // A fresh map of the short file is not faulted.
        let again = Map::new(&File::open(&p).unwrap()).unwrap();
        assert_eq!(again.len(), 4096);
        assert!(!again.shrank());
    }
}
