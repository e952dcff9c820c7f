//! Loose git objects checked before a git library reads them: libgit2 loops forever inflating
//! a loose object whose file was cut short, so history readers (`gates --blame`, provenance,
//! `follow`'s work-tree status) ask [`damaged`] first and refuse a repository that has one,
//! by name.

use std::path::Path;

/// Largest loose object file checked (compressed); a larger one is reported, not inflated.
const MAX_FILE: u64 = 512 << 20;
/// Most loose object files checked; past it the rest are not checked, and the reader is told.
const MAX_OBJECTS: usize = 200_000;

/// A loose object that a git library must not be asked to read, with its file; it displays
/// as a sentence naming both, with what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("loose object {id} ({}) {what}; history not read (`git fsck` names the damage)", path.display())]
pub struct Damaged {
    /// The object id (fan folder and file name).
    pub id: String,
    /// Its file.
    pub path: std::path::PathBuf,
    /// What is wrong with it.
    pub what: Damage,
}

/// What is wrong with a loose object file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Damage {
    /// The file could not be read.
    #[error("cannot be read: {0}")]
    Unreadable(String),
    /// Not a regular file (a FIFO, a device, …).
    #[error("is {0}, not a file")]
    NotAFile(&'static str),
    /// Larger than [`MAX_FILE`].
    #[error("is {0} bytes, too large to check")]
    TooLarge(u64),
    /// The zlib stream is corrupt.
    #[error("is corrupt ({0})")]
    Corrupt(String),
    /// The zlib stream does not end before the file does.
    #[error("is cut short ({0} bytes, its compressed stream does not end)")]
    CutShort(usize),
}

/// The first loose object of the repository whose git folder is `git_dir` that is not a
/// regular file, does not inflate to its end, or is too large to check. `None` when every one
/// checked inflates whole.
pub fn damaged(git_dir: &Path) -> Option<Damaged> {
    let objects = git_dir.join("objects");
    let fans = std::fs::read_dir(&objects).ok()?;
    let mut seen = 0usize;
    for fan in fans.flatten() {
        let name = fan.file_name();
        let name = name.to_string_lossy();
        if name.len() != 2 || !name.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        for obj in std::fs::read_dir(fan.path()).ok()?.flatten() {
            seen += 1;
            if seen > MAX_OBJECTS {
                return None;
            }
            if let Err(what) = check(&obj.path()) {
                return Some(Damaged {
                    id: format!("{name}{}", obj.file_name().to_string_lossy()),
                    path: obj.path(),
                    what,
                });
            }
        }
    }
    None
}

/// Whether one loose object file inflates to the end of its zlib stream.
fn check(path: &Path) -> Result<(), Damage> {
    let md = std::fs::symlink_metadata(path).map_err(|e| Damage::Unreadable(e.to_string()))?;
    if let Some(what) = rocpath_budget::special::non_regular(md.file_type()) {
        return Err(Damage::NotAFile(what));
    }
    if md.len() > MAX_FILE {
        return Err(Damage::TooLarge(md.len()));
    }
    let data = std::fs::read(path).map_err(|e| Damage::Unreadable(e.to_string()))?;
    inflates_whole(&data)
}

fn inflates_whole(data: &[u8]) -> Result<(), Damage> {
    let mut z = flate2::Decompress::new(true);
    let mut out = vec![0u8; 64 << 10];
    loop {
        let before = (z.total_in(), z.total_out());
        let input = data.get(z.total_in() as usize..).unwrap_or(&[]);
        let status = z
            .decompress(input, &mut out, flate2::FlushDecompress::None)
            .map_err(|e| Damage::Corrupt(e.to_string()))?;
        if status == flate2::Status::StreamEnd {
            return Ok(());
        }
        if (z.total_in(), z.total_out()) == before {
            return Err(Damage::CutShort(data.len()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn object(text: &[u8]) -> Vec<u8> {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(text).unwrap();
        z.finish().unwrap()
    }

    #[test]
    fn a_whole_object_inflates_and_a_cut_one_does_not() {
        let whole = object(&[b"blob 70000\0".as_slice(), &[b'x'; 70_000]].concat());
        assert_eq!(inflates_whole(&whole), Ok(()));
        for cut in [0, 1, 2, 10, whole.len() / 2, whole.len() - 1] {
            let e = inflates_whole(&whole[..cut]).unwrap_err();
            assert!(
                matches!(e, Damage::CutShort(_) | Damage::Corrupt(_)),
                "{cut}: {e}"
            );
        }
        assert!(matches!(
            inflates_whole(b"not zlib at all"),
            Err(Damage::Corrupt(_))
        ));
    }

    #[test]
    fn the_damaged_object_is_named_with_its_file() {
        let dir = std::env::temp_dir().join(format!("rocpath-loose-{}", std::process::id()));
        let fan = dir.join("objects/ab");
        std::fs::create_dir_all(&fan).unwrap();
        std::fs::write(fan.join("cdef"), object(b"blob 3\0abc")).unwrap();
        assert_eq!(damaged(&dir), None);
        std::fs::write(fan.join("0123"), &object(b"blob 3\0abc")[..5]).unwrap();
        let d = damaged(&dir).unwrap();
        assert_eq!((d.id.as_str(), &d.what), ("ab0123", &Damage::CutShort(5)));
        let msg = d.to_string();
        assert!(msg.starts_with("loose object ab0123 ("), "{msg}");
        assert!(
            msg.contains("cut short") && msg.contains("git fsck"),
            "{msg}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
