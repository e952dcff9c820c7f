//! When and how code objects are hashed (sha256).
//!
//! Hashing reads every byte of a code object, which is most of the cost of an inventory: the
//! metadata a question needs sits in the ELF headers, notes and symbol tables. A scan therefore
//! hashes only when asked ([`Hashing`]), and can take hashes from a [`HashCache`] kept under
//! the user's cache folder, keyed by the file's device, inode, size and modification time and
//! the object's place in the file. Each object says how its hash was obtained
//! ([`HashSource`]), so a report never presents a remembered hash as a computed one.

use sha2::Digest;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Whether a scan hashes the code objects it finds.
#[derive(Debug, Clone, Default)]
pub enum Hashing {
    /// No hashing: objects carry no sha256 ([`HashSource::NotHashed`]).
    Off,
    /// Hash every object.
    #[default]
    Compute,
    /// Hash every object, taking the hash from the cache when the file is unchanged, and
    /// remembering the new ones.
    Cached(Arc<HashCache>),
}

pub use rocpath_docs::object::HashSource;

/// The sha256 of a code object, if it was hashed, and how it was obtained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectHash {
    /// Lower-case hex, when hashed.
    pub sha256: Option<String>,
    /// How it was obtained.
    pub source: HashSource,
}

impl ObjectHash {
    /// No hash.
    pub fn none() -> Self {
        ObjectHash {
            sha256: None,
            source: HashSource::NotHashed,
        }
    }
    /// The hex digest, if any.
    pub fn as_str(&self) -> Option<&str> {
        self.sha256.as_deref()
    }
}

/// Identity of a file on disk as the cache keys it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileKey {
    /// Device.
    pub dev: u64,
    /// Inode.
    pub ino: u64,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
}

impl FileKey {
    /// The key of a file's metadata (`None` off Unix).
    pub fn of(m: &std::fs::Metadata) -> Option<FileKey> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FileKey {
                dev: m.dev(),
                ino: m.ino(),
                size: m.size(),
                mtime_ns: i128::from(m.mtime()) * 1_000_000_000 + i128::from(m.mtime_nsec()),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = m;
            None
        }
    }
}

/// One cached object: a byte range of a file.
type Key = (FileKey, u64, u64);

/// sha256 of byte ranges of files, remembered across runs.
///
/// Kept as one text file (`hashes-v1.tsv`: device, inode, size, mtime, offset, length, sha256
/// per line) in the cache folder; written atomically (temporary file + rename) when a run
/// added hashes. A line whose file changed no longer matches its key and is never used.
#[derive(Debug, Default)]
pub struct HashCache {
    path: Option<PathBuf>,
    known: HashMap<Key, [u8; 32]>,
    added: Mutex<HashMap<Key, [u8; 32]>>,
}

/// Most entries kept in the cache file; beyond it, only this run's entries are kept.
const MAX_ENTRIES: usize = 1 << 20;

/// rocpath's cache folder: `$ROCPATH_CACHE`, else `$XDG_CACHE_HOME/rocpath`, else
/// `~/.cache/rocpath`.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("ROCPATH_CACHE") {
        return (!d.is_empty()).then(|| PathBuf::from(d));
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(d).join("rocpath"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("rocpath"))
}

fn parse_line(line: &str) -> Option<(Key, [u8; 32])> {
    let mut f = line.split('\t');
    let mut num = || f.next()?.parse::<u64>().ok();
    let (dev, ino, size) = (num()?, num()?, num()?);
    let mtime_ns = f.next()?.parse::<i128>().ok()?;
    let (off, len) = (f.next()?.parse().ok()?, f.next()?.parse().ok()?);
    let hex = f.next()?.as_bytes();
    if hex.len() != 64 || f.next().is_some() {
        return None;
    }
    let mut d = [0u8; 32];
    for (i, b) in d.iter_mut().enumerate() {
        let s = std::str::from_utf8(hex.get(2 * i..2 * i + 2)?).ok()?;
        *b = u8::from_str_radix(s, 16).ok()?;
    }
    let key = FileKey {
        dev,
        ino,
        size,
        mtime_ns,
    };
    Some(((key, off, len), d))
}

impl HashCache {
    /// The cache in rocpath's cache folder (see [`cache_dir`]); empty (and not saved) when
    /// there is no such folder. An unreadable or damaged file is treated as empty.
    pub fn open_default() -> HashCache {
        match cache_dir() {
            Some(d) => HashCache::open(&d.join("hashes-v1.tsv")),
            None => HashCache::default(),
        }
    }

    /// The cache kept in `path` (created on [`HashCache::save`]).
    pub fn open(path: &Path) -> HashCache {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let known = text.lines().filter_map(parse_line).collect();
        HashCache {
            path: Some(path.to_path_buf()),
            known,
            added: Mutex::new(HashMap::new()),
        }
    }

    /// Entries read from the file.
    pub fn len(&self) -> usize {
        self.known.len()
    }

    /// True when the file held no entry.
    pub fn is_empty(&self) -> bool {
        self.known.is_empty()
    }

    fn get(&self, k: &Key) -> Option<[u8; 32]> {
        if let Some(d) = self.known.get(k) {
            return Some(*d);
        }
        let added = self.added.lock().unwrap_or_else(|p| p.into_inner());
        added.get(k).copied()
    }

    fn put(&self, k: Key, d: [u8; 32]) {
        let mut added = self.added.lock().unwrap_or_else(|p| p.into_inner());
        added.insert(k, d);
    }

    /// Writes the cache back when this run added entries (atomically). Errors are returned
    /// for the caller to report; the hashes of the run are unaffected.
    pub fn save(&self) -> std::io::Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let added = self.added.lock().unwrap_or_else(|p| p.into_inner());
        if added.is_empty() {
            return Ok(());
        }
        let keep_old = self.known.len() + added.len() <= MAX_ENTRIES;
        let mut text = String::new();
        let old = self.known.iter().filter(|_| keep_old);
        for ((k, off, len), d) in old.chain(added.iter()) {
            use std::fmt::Write as _;
            let _ = writeln!(
                text,
                "{}\t{}\t{}\t{}\t{off}\t{len}\t{}",
                k.dev,
                k.ino,
                k.size,
                k.mtime_ns,
                hex(d)
            );
        }
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        let tmp = dir.join(format!(".hashes-v1.{}.tmp", std::process::id()));
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    }
}

fn hex(d: &[u8]) -> String {
    const H: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(d.len() * 2);
    for b in d {
        s.push(char::from(H[usize::from(b >> 4)]));
        s.push(char::from(H[usize::from(b & 15)]));
    }
    s
}

/// sha256 of `bytes`, fed in 4 MiB chunks; `after` is called with each chunk once it is
/// hashed (to release its pages). sha2 uses the CPU's SHA extensions when it has them.
pub(crate) fn sha256_chunks(bytes: &[u8], after: impl Fn(&[u8])) -> [u8; 32] {
    let mut h = sha2::Sha256::new();
    for chunk in bytes.chunks(4 << 20) {
        h.update(chunk);
        after(chunk);
    }
    h.finalize().into()
}

/// Hashes `bytes` under the policy `how`. `at` is the file and the byte range of `bytes` in
/// it when they are the file's own bytes (the only case the cache can vouch for).
pub(crate) fn object_hash(
    how: &Hashing,
    bytes: &[u8],
    at: Option<Key>,
    after: impl Fn(&[u8]),
) -> ObjectHash {
    let computed = |d: [u8; 32]| ObjectHash {
        sha256: Some(hex(&d)),
        source: HashSource::Computed,
    };
    match how {
        Hashing::Off => ObjectHash::none(),
        Hashing::Compute => computed(sha256_chunks(bytes, after)),
        Hashing::Cached(cache) => {
            if let Some(d) = at.as_ref().and_then(|k| cache.get(k)) {
                return ObjectHash {
                    sha256: Some(hex(&d)),
                    source: HashSource::Cached,
                };
            }
            let d = sha256_chunks(bytes, after);
            if let Some(k) = at {
                cache.put(k, d);
            }
            computed(d)
        }
    }
}

/// The key of `bytes` when they lie inside `own`, the bytes of the file `file`.
pub(crate) fn key_in(file: FileKey, own: &[u8], bytes: &[u8]) -> Option<Key> {
    let map = own;
    let base = map.as_ptr() as usize;
    let start = bytes.as_ptr() as usize;
    let off = start.checked_sub(base)?;
    (off + bytes.len() <= map.len()).then_some((file, off as u64, bytes.len() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> FileKey {
        FileKey {
            dev: 1,
            ino: 2,
            size: 3,
            mtime_ns: 1_700_000_000_123_456_789,
        }
    }

    #[test]
    fn cache_round_trip_and_sources() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.tsv");
        let bytes = b"some code object bytes".to_vec();
        let k = (key(), 0, bytes.len() as u64);
        let cache = Arc::new(HashCache::open(&path));
        let how = Hashing::Cached(cache.clone());
        let first = object_hash(&how, &bytes, Some(k), |_| {});
        assert_eq!(first.source, HashSource::Computed);
        cache.save().unwrap();
        let again = HashCache::open(&path);
        assert_eq!(again.len(), 1);
        let how = Hashing::Cached(Arc::new(again));
        let second = object_hash(&how, &bytes, Some(k), |_| {});
        assert_eq!(second.source, HashSource::Cached);
        assert_eq!(second.sha256, first.sha256);
        // Another mtime: not the same file any more, computed again.
        let mut k2 = k;
        k2.0.mtime_ns += 1;
        assert_eq!(
            object_hash(&how, &bytes, Some(k2), |_| {}).source,
            HashSource::Computed
        );
        // Bytes that are not the file's own (no key): computed.
        assert_eq!(
            object_hash(&how, &bytes, None, |_| {}).source,
            HashSource::Computed
        );
        assert_eq!(
            object_hash(&Hashing::Off, &bytes, Some(k), |_| {}),
            ObjectHash::none()
        );
    }

    #[test]
    fn damaged_lines_are_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.tsv");
        std::fs::write(&path, "1\t2\t3\t4\t0\t5\tnothex\n\x00garbage\n1\t2\n").unwrap();
        assert!(HashCache::open(&path).is_empty());
    }

    proptest::proptest! {
        #[test]
        fn any_cache_line_parses_or_is_ignored(line in "\\PC{0,120}") {
            let _ = parse_line(&line);
        }

        #[test]
        fn written_lines_read_back(dev: u64, ino: u64, size: u64, mtime_ns: i64, off: u64, len: u64, d: [u8; 32]) {
            let k = FileKey { dev, ino, size, mtime_ns: i128::from(mtime_ns) };
            let line = format!("{dev}\t{ino}\t{size}\t{mtime_ns}\t{off}\t{len}\t{}", hex(&d));
            proptest::prop_assert_eq!(parse_line(&line), Some(((k, off, len), d)));
        }
    }

    #[test]
    fn computed_hash_is_sha256() {
        let h = object_hash(&Hashing::Compute, b"abc", None, |_| {});
        assert_eq!(
            h.as_str(),
            Some("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
    }
}
