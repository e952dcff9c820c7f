//! Host binaries (ELF shared libraries and executables, Windows PE DLLs) and the GPU code
//! inside them: `.hip_fatbin` / `.hip_fat` sections holding offload bundles one after
//! another, and AMDGPU ELFs embedded raw in data sections.

use crate::bundle::{self, BUNDLE_MAGIC, CCOB_MAGIC};
use crate::{Ctx, Found, Origin, SourceError, kpack_ref};
use memchr::memmem;
use object::{Object, ObjectSection};
use rayon::prelude::*;

/// Sections whose bytes may hold raw AMDGPU ELFs (ROCr's blit kernels live in `.data`,
/// some Python packages put code objects in `.rodata`).
fn is_data_section(name: &str) -> bool {
    [".data", ".rodata", ".rdata", ".ldata", ".lrodata"]
        .iter()
        .any(|p| name == *p || name.starts_with(&format!("{p}.")))
}

/// Scans a host ELF (any machine but AMDGPU).
pub(crate) fn scan_host_elf(data: &[u8], origin: &Origin, depth: u32, ctx: &Ctx<'_>) {
    scan_object(data, origin, depth, ctx, &[".hip_fatbin"], "elf");
}

/// Scans a Windows PE/COFF image.
pub(crate) fn scan_pe(data: &[u8], origin: &Origin, depth: u32, ctx: &Ctx<'_>) {
    // PE section names are at most 8 bytes: clang names the section `.hip_fat`.
    scan_object(data, origin, depth, ctx, &[".hip_fat", ".hip_fatbin"], "pe");
}

fn scan_object(
    data: &[u8],
    origin: &Origin,
    depth: u32,
    ctx: &Ctx<'_>,
    fatbin_names: &[&str],
    kind: &str,
) {
    let file = match object::File::parse(data) {
        Ok(f) => f,
        Err(e) => {
            // Not every file that starts with the magic is a valid binary; say so for this
            // file and go on.
            ctx.sink.found(Found::Error {
                origin,
                error: SourceError::Format {
                    offset: 0,
                    msg: format!("unreadable {kind} host binary: {e}"),
                },
            });
            return;
        }
    };
    let mut kpack = KpackParts::default();
    for section in file.sections() {
        let name = section.name().unwrap_or("");
        if fatbin_names.contains(&name) && section.kind() == object::SectionKind::UninitializedData
        {
            kpack.fatbin_emptied = true;
        }
        let Some((off, size)) = section.file_range() else {
            continue;
        };
        let Some(bytes) = usize::try_from(off)
            .ok()
            .and_then(|o| Some((o, o.checked_add(usize::try_from(size).ok()?)?)))
            .and_then(|(o, e)| data.get(o..e))
        else {
            ctx.sink.found(Found::Error {
                origin,
                error: SourceError::Format {
                    offset: off,
                    msg: format!(
                        "section {name} ({size} bytes at {off}) extends past the end of the file"
                    ),
                },
            });
            continue;
        };
        if fatbin_names.contains(&name) {
            let link = name.trim_start_matches('.').to_string();
            scan_fatbin_region(bytes, off, &origin.child(link), depth, true, ctx);
        } else if is_data_section(name) {
            scan_embedded_elfs(bytes, off, origin, name, ctx);
        } else if kpack_ref::REF_SECTIONS.contains(&name) {
            kpack.marker = Some((bytes, off));
        } else if kpack_ref::WRAPPER_SECTIONS.contains(&name) {
            kpack.wrappers = kpack_ref::count_wrappers(bytes);
        }
    }
    if let Some((bytes, at)) = kpack.marker {
        kpack_ref::scan_host_ref(bytes, at, kpack.wrappers, kpack.fatbin_emptied, origin, ctx);
    }
}

/// What a host binary packed for kpack carries.
#[derive(Default)]
struct KpackParts<'a> {
    marker: Option<(&'a [u8], u64)>,
    wrappers: kpack_ref::Wrappers,
    fatbin_emptied: bool,
}

/// A unit of parallel work inside a fat binary region.
enum Job<'a> {
    Entry {
        origin: Origin,
        offset: u64,
        bytes: &'a [u8],
        id: String,
        shared: Option<bundle::SharedBy>,
    },
    Ccob {
        origin: Origin,
        bytes: &'a [u8],
        at: u64,
    },
}

/// Scans a region that holds offload bundles and/or CCOBs back to back (a `.hip_fatbin`
/// section, a `.hipfb` file). `base` is the region's offset in its container. With
/// `strict`, damaged bundles are reported as errors; without, a magic string that does not
/// start a valid bundle is ignored (libraries contain the magic as a constant).
pub(crate) fn scan_fatbin_region(
    region: &[u8],
    base: u64,
    origin: &Origin,
    depth: u32,
    strict: bool,
    ctx: &Ctx<'_>,
) {
    if depth > ctx.limits.max_depth {
        ctx.sink.found(Found::Error {
            origin,
            error: SourceError::Limit {
                offset: base,
                msg: format!("containers nested deeper than {}", ctx.limits.max_depth),
            },
        });
        return;
    }
    let jobs = region_jobs(region, base, origin, strict, ctx);
    jobs.into_par_iter()
        .for_each(|job| run_job(job, depth, ctx));
}

/// The bundle entries and CCOBs of a region, in order; damaged ones are reported (with
/// `strict`) and stepped over.
fn region_jobs<'a>(
    region: &'a [u8],
    base: u64,
    origin: &Origin,
    strict: bool,
    ctx: &Ctx<'_>,
) -> Vec<Job<'a>> {
    let mut jobs = Vec::new();
    let bundle_finder = memmem::Finder::new(BUNDLE_MAGIC);
    let ccob_finder = memmem::Finder::new(CCOB_MAGIC);
    let mut pos = 0usize;
    let mut index = 0usize;
    while pos < region.len() {
        let Some((at, is_ccob)) = next_magic(region, pos, &bundle_finder, &ccob_finder) else {
            break;
        };
        let here = &region[at..];
        let abs = base + at as u64;
        let step = if is_ccob {
            ccob_job(here, abs, index, origin, ctx, &mut jobs)
        } else {
            bundle_jobs(here, abs, index, origin, ctx, &mut jobs)
        };
        match step {
            Ok(advance) => {
                index += 1;
                pos = at + advance;
            }
            Err((error, skip)) => {
                if strict {
                    ctx.sink.found(Found::Error { origin, error });
                }
                pos = at + skip;
            }
        }
    }
    jobs
}

/// The CCOB at the start of `here` (at `abs`) as a job; `Ok`: the bytes it spans, `Err`: why
/// not and the bytes to step over.
fn ccob_job<'a>(
    here: &'a [u8],
    abs: u64,
    index: usize,
    origin: &Origin,
    ctx: &Ctx<'_>,
    jobs: &mut Vec<Job<'a>>,
) -> Result<usize, (SourceError, usize)> {
    let h = bundle::parse_ccob_header(here, ctx.limits).map_err(|e| (e.shifted(abs), 4))?;
    let end = h.total_size.map(|t| t as usize).unwrap_or(here.len());
    let Some(bytes) = here.get(..end) else {
        let error = SourceError::Truncated {
            offset: abs,
            what: format!("CCOB of {end} bytes ({} available)", here.len()),
        };
        return Err((error, 4));
    };
    let link = format!("ccob#{index}@0x{abs:x} v{} {}", h.version, h.method_name());
    jobs.push(Job::Ccob {
        origin: origin.child(link),
        bytes,
        at: abs,
    });
    Ok(if h.total_size.is_some() {
        end.max(4)
    } else {
        h.header_len as usize
    })
}

/// The entries of the offload bundle at the start of `here` (at `abs`) as jobs; `Ok`: the
/// bytes the bundle spans, `Err`: why not and the bytes to step over.
fn bundle_jobs<'a>(
    here: &'a [u8],
    abs: u64,
    index: usize,
    origin: &Origin,
    ctx: &Ctx<'_>,
    jobs: &mut Vec<Job<'a>>,
) -> Result<usize, (SourceError, usize)> {
    let h = bundle::parse_bundle_header(here, Some(here.len() as u64), ctx.limits)
        .map_err(|e| (e.shifted(abs), 24))?;
    let bundle_origin = origin.child(format!("bundle#{index}@0x{abs:x}"));
    // Entries that start at the same offset are one code object, read once.
    for (e, shared) in bundle::group_entries(&h.entries) {
        let s = e.offset as usize;
        // The entry's bytes are not touched here: reading even its first page maps the pages
        // around it, and across hundreds of bundles that would keep most of the section
        // resident before any is processed.
        let bytes = &here[s..s + e.size as usize];
        jobs.push(Job::Entry {
            origin: bundle_origin.child(e.id.clone()),
            offset: abs + e.offset,
            bytes,
            id: e.id.clone(),
            shared,
        });
    }
    Ok((h.extent as usize).max(24))
}

/// Hands one bundle entry to the sink, or opens one CCOB and scans its payload.
fn run_job(job: Job<'_>, depth: u32, ctx: &Ctx<'_>) {
    match job {
        Job::Entry {
            origin,
            offset,
            bytes,
            id,
            shared,
        } => {
            let _release = Release(ctx, bytes);
            if bundle::is_bitcode(bytes) {
                // LLVM bitcode (relocatable device code): no machine code.
            } else if rocpath_codeobj::is_amdgpu_elf(bytes) {
                let release = |b: &[u8]| ctx.release(b);
                ctx.sink.found(Found::CodeObject {
                    sha256: &ctx.digest(bytes),
                    release: &release,
                    origin: &origin,
                    offset,
                    bytes,
                    bundle_id: Some(&id),
                    shared_by: shared.as_ref(),
                });
            } else {
                ctx.sink.found(Found::Error {
                    origin: &origin,
                    error: SourceError::Format {
                        offset,
                        msg: bundle::not_amdgpu_elf(&id, bytes),
                    },
                });
            }
        }
        Job::Ccob { origin, bytes, at } => {
            match bundle::decompress_ccob(bytes, ctx.limits).inspect(|_| ctx.release(bytes)) {
                // The payload's memory stays reserved until its entries are handled.
                Ok((_, payload)) => scan_fatbin_region(&payload, 0, &origin, depth + 1, true, ctx),
                Err(e) => ctx.sink.found(Found::Error {
                    origin: &origin,
                    error: e.shifted(at),
                }),
            }
        }
    }
}

/// Finds the next bundle or CCOB magic at or after `pos`, searching forward in 1 MiB windows
/// so that only the bytes up to the first match are read (a region holds hundreds of
/// bundles back to back; searching each magic to the end every time would touch the whole
/// region and be quadratic).
fn next_magic(
    region: &[u8],
    pos: usize,
    b: &memmem::Finder<'_>,
    c: &memmem::Finder<'_>,
) -> Option<(usize, bool)> {
    const WINDOW: usize = 1 << 20;
    let mut start = pos;
    while start < region.len() {
        let end = (start + WINDOW + BUNDLE_MAGIC.len()).min(region.len());
        let w = &region[start..end];
        // Look for a CCOB only before the first bundle magic: the next structure is
        // whichever comes first, and scanning past it would read the bundle's contents.
        let hb = b.find(w);
        let hc = c.find(&w[..hb.unwrap_or(w.len())]);
        match (hb, hc) {
            (Some(x), Some(y)) if y < x => return Some((start + y, true)),
            (Some(x), _) => return Some((start + x, false)),
            (None, Some(y)) => return Some((start + y, true)),
            (None, None) => start += WINDOW,
        }
    }
    None
}

/// Releases a code object's pages when it has been handled (on drop).
struct Release<'c, 's, 'b>(&'c Ctx<'s>, &'b [u8]);

impl Drop for Release<'_, '_, '_> {
    fn drop(&mut self) {
        self.0.release(self.1);
    }
}

/// Finds AMDGPU ELFs stored raw inside a data section and reports each with its extent
/// (end of its section header table or furthest section).
pub(crate) fn scan_embedded_elfs(
    region: &[u8],
    base: u64,
    origin: &Origin,
    section: &str,
    ctx: &Ctx<'_>,
) {
    let finder = memmem::Finder::new(b"\x7fELF");
    let mut pos = 0usize;
    while let Some(p) = finder.find(&region[pos..]) {
        let at = pos + p;
        let here = &region[at..];
        if rocpath_codeobj::is_amdgpu_elf(here) {
            if let Ok(ext) = rocpath_codeobj::elf_extent(here) {
                if let Some(bytes) = usize::try_from(ext).ok().and_then(|e| here.get(..e)) {
                    let abs = base + at as u64;
                    let o = origin.child(format!("{}@0x{abs:x}", section.trim_start_matches('.')));
                    let release = |b: &[u8]| ctx.release(b);
                    ctx.sink.found(Found::CodeObject {
                        sha256: &ctx.digest(bytes),
                        release: &release,
                        origin: &o,
                        offset: abs,
                        bytes,
                        bundle_id: None,
                        shared_by: None,
                    });
                    pos = at + bytes.len().max(4);
                    continue;
                }
            }
        }
        pos = at + 4;
    }
}
