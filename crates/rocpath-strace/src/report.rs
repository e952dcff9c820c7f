//! Catalog-read summaries per process and in total.

use crate::catalog::{self, Kind};
use crate::line::{self, Call, Open};
pub use rocpath_docs::strace::{
    LibraryOpens, ProcessReport, ResearchCounts, StraceReport, TensileOpens, Window,
};
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// One more open of the kind a window counts.
fn window_add(w: &mut Window, line: u64, time: Option<&str>) {
    {
        w.count += 1;
        if w.first_line.is_none() {
            w.first_line = Some(line);
            w.first_time = time.map(str::to_string);
        }
        w.last_line = Some(line);
        w.last_time = time.map(str::to_string);
        if let (Some(a), Some(b)) = (
            w.first_time.as_deref().and_then(line::seconds),
            w.last_time.as_deref().and_then(line::seconds),
        ) {
            w.span_s = Some(((b - a) * 1e6).round() / 1e6);
        }
    }
}

/// Adds another process's counters.
fn merge(r: &mut ResearchCounts, o: &ResearchCounts) {
    {
        r.libggml_hip_openat += o.libggml_hip_openat;
        r.fallback_dat_openat += o.fallback_dat_openat;
        r.fallback_hsaco_openat += o.fallback_hsaco_openat;
    }
}

#[derive(Default)]
struct Acc {
    libs: BTreeMap<String, LibraryOpens>,
    tensile: BTreeMap<(String, String, bool, &'static str), TensileOpens>,
}

impl Acc {
    fn open(&mut self, p: &mut ProcessReport, o: &Open, line: u64, file: &str) {
        p.opens += 1;
        if o.ok() {
            p.ok += 1;
        } else {
            p.failed += 1;
        }
        let name = o.path.rsplit('/').next().unwrap_or(&o.path);
        if name.starts_with("libggml-hip.so") {
            p.research.libggml_hip_openat += 1;
        }
        let here = Locator::file(file).with_line(line);
        match catalog::classify(&o.path) {
            Kind::Library(n) => {
                let e = self.libs.entry(n.clone()).or_insert_with(|| LibraryOpens {
                    name: n,
                    ..LibraryOpens::default()
                });
                if o.ok() {
                    e.ok += 1;
                    if e.resolved.is_none() {
                        e.resolved = Some(o.path.clone());
                        e.at = Some(here);
                    }
                } else {
                    e.failed += 1;
                }
            }
            Kind::Tensile(t) => {
                if t.fallback && t.ext == "dat" {
                    p.research.fallback_dat_openat += 1;
                    window_add(&mut p.fallback_dat, line, o.time.as_deref());
                }
                if t.fallback && t.ext == "hsaco" && t.arch.is_some() {
                    p.research.fallback_hsaco_openat += 1;
                    window_add(&mut p.fallback_hsaco, line, o.time.as_deref());
                }
                let tok = t.type_token.clone().unwrap_or_else(|| {
                    if t.lazy_index {
                        "lazy_index".into()
                    } else {
                        "library".into()
                    }
                });
                let e = self
                    .tensile
                    .entry((tok.clone(), t.ext.clone(), t.fallback, t.owner))
                    .or_insert_with(|| TensileOpens {
                        type_token: tok,
                        ext: t.ext.clone(),
                        fallback: t.fallback,
                        owner: t.owner.to_string(),
                        opens: 0,
                        ok: 0,
                        at: here,
                    });
                e.opens += 1;
                e.ok += u64::from(o.ok());
            }
            Kind::Other => {}
        }
    }
}

fn pid_of(path: &Path) -> Option<u64> {
    path.extension()?.to_str()?.parse().ok()
}

/// Reads one split file's text.
pub fn process(path: &str, text: &str) -> ProcessReport {
    let mut p = ProcessReport {
        path: path.to_string(),
        pid: pid_of(Path::new(path)),
        opens: 0,
        ok: 0,
        failed: 0,
        unresolved: 0,
        research: ResearchCounts::default(),
        fallback_dat: Window::default(),
        fallback_hsaco: Window::default(),
        libraries: Vec::new(),
        tensile: Vec::new(),
    };
    let mut acc = Acc::default();
    let mut pending: HashMap<Option<u64>, (Option<String>, String, u64)> = HashMap::new();
    for (i, l) in text.lines().enumerate() {
        let line = (i + 1) as u64;
        match line::parse(l) {
            Some(Call::Open(o)) => {
                if p.pid.is_none() {
                    p.pid = o.pid;
                }
                acc.open(&mut p, &o, line, path);
            }
            Some(Call::Unfinished {
                pid,
                time,
                path: fp,
            }) => {
                // A second unfinished call of the same pid: the first one never resumed.
                let lost = pending.insert(pid, (time, fp, line)).is_some();
                p.unresolved += u64::from(lost);
            }
            Some(Call::Resumed { pid, result, errno }) => {
                if let Some((time, fp, at)) = pending.remove(&pid) {
                    let o = Open {
                        pid,
                        time,
                        path: fp,
                        result,
                        errno,
                    };
                    acc.open(&mut p, &o, at, path);
                }
            }
            None => {}
        }
    }
    p.unresolved += pending.len() as u64;
    let mut libs: Vec<LibraryOpens> = acc.libs.into_values().collect();
    libs.sort_by_key(|l| {
        (
            catalog::ROCM_LIBRARIES
                .iter()
                .position(|r| *r == l.name)
                .unwrap_or(usize::MAX),
            l.name.clone(),
        )
    });
    p.libraries = libs;
    p.tensile = acc.tensile.into_values().collect();
    p
}

/// Sums process reports.
pub fn total(processes: Vec<ProcessReport>) -> StraceReport {
    let mut research = ResearchCounts::default();
    let (mut opens, mut ok, mut failed) = (0, 0, 0);
    for p in &processes {
        merge(&mut research, &p.research);
        opens += p.opens;
        ok += p.ok;
        failed += p.failed;
    }
    let tensile = tensile_opens(&processes);
    let libraries = library_opens(&processes);
    let catalog_read = catalog_read(&tensile, &processes);
    StraceReport {
        files: processes.len() as u64,
        opens,
        ok,
        failed,
        research,
        fallback_confirmed: research.libggml_hip_openat > 0
            && research.fallback_dat_openat > 0
            && research.fallback_hsaco_openat > 0,
        tensile,
        libraries,
        catalog_read,
        processes,
    }
}

/// Tensile catalog opens summed over the processes, most opened first.
fn tensile_opens(processes: &[ProcessReport]) -> Vec<TensileOpens> {
    let mut by: BTreeMap<(String, String, bool, String), TensileOpens> = BTreeMap::new();
    for t in processes.iter().flat_map(|p| &p.tensile) {
        let e = by
            .entry((
                t.type_token.clone(),
                t.ext.clone(),
                t.fallback,
                t.owner.clone(),
            ))
            .or_insert_with(|| TensileOpens {
                opens: 0,
                ok: 0,
                ..t.clone()
            });
        e.opens += t.opens;
        e.ok += t.ok;
    }
    let mut tensile: Vec<TensileOpens> = by.into_values().collect();
    tensile.sort_by(|a, b| {
        b.opens
            .cmp(&a.opens)
            .then_with(|| a.type_token.cmp(&b.type_token))
            .then_with(|| a.ext.cmp(&b.ext))
    });
    tensile
}

/// Library opens summed over the processes, ROCm's libraries first in their order.
fn library_opens(processes: &[ProcessReport]) -> Vec<LibraryOpens> {
    let mut libs: BTreeMap<String, LibraryOpens> = BTreeMap::new();
    for l in processes.iter().flat_map(|p| &p.libraries) {
        let e = libs.entry(l.name.clone()).or_insert_with(|| LibraryOpens {
            name: l.name.clone(),
            ..LibraryOpens::default()
        });
        e.ok += l.ok;
        e.failed += l.failed;
        if e.resolved.is_none() {
            e.resolved.clone_from(&l.resolved);
            e.at.clone_from(&l.at);
        }
    }
    let mut libraries: Vec<LibraryOpens> = libs.into_values().collect();
    libraries.sort_by_key(|l| {
        (
            catalog::ROCM_LIBRARIES
                .iter()
                .position(|r| *r == l.name)
                .unwrap_or(usize::MAX),
            l.name.clone(),
        )
    });
    libraries
}

/// Whether a fallback catalog was read (each process's first fallback open cited), another
/// catalog only, or none.
fn catalog_read(tensile: &[TensileOpens], processes: &[ProcessReport]) -> Evidence {
    let fallback_ok: Vec<&TensileOpens> =
        tensile.iter().filter(|t| t.fallback && t.ok > 0).collect();
    if let Some(first) = fallback_ok.first() {
        let n: u64 = fallback_ok.iter().map(|t| t.ok).sum();
        let mut e = Evidence::new(Class::Confirmed, Proof::RuntimeVerified, "strace.fallback_catalog_read")
            .because(format!("{n} fallback Tensile catalog file(s) opened successfully; a catalog read, not a dispatch"));
        for p in processes {
            let first_line = [p.fallback_dat.first_line, p.fallback_hsaco.first_line]
                .into_iter()
                .flatten()
                .min();
            if let Some(l) = first_line {
                e = e.at(Locator::file(&p.path).with_line(l));
            }
        }
        if e.sources.is_empty() {
            e = e.at(first.at.clone());
        }
        e
    } else if tensile.iter().any(|t| t.ok > 0) {
        Evidence::new(
            Class::Confirmed,
            Proof::RuntimeVerified,
            "strace.catalog_read_no_fallback",
        )
        .because("Tensile catalog files were opened, none of them a fallback catalog")
    } else {
        let mut e = Evidence::new(
            Class::Confirmed,
            Proof::RuntimeVerified,
            "strace.no_catalog_read",
        )
        .because("no Tensile catalog file was opened by the traced processes");
        for p in processes {
            e = e.at(Locator::file(&p.path));
        }
        e
    }
}

/// Expands inputs: files, folders (every file whose name ends in `.<digits>`), and `strace -o`
/// prefixes (`PREFIX` → `PREFIX.<pid>` beside it).
pub fn expand(paths: &[PathBuf]) -> (Vec<PathBuf>, Vec<String>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    let split = |p: &Path| pid_of(p).is_some();
    for p in paths {
        if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(p)
                .map(|rd| {
                    rd.flatten()
                        .map(|e| e.path())
                        .filter(|f| f.is_file() && split(f))
                        .collect()
                })
                .unwrap_or_default();
            v.sort();
            if v.is_empty() {
                errors.push(format!(
                    "{}: no strace split file (NAME.<pid>) in this folder",
                    p.display()
                ));
            }
            out.extend(v);
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            let prefix = p
                .file_name()
                .map(|n| format!("{}.", n.to_string_lossy()))
                .unwrap_or_default();
            let dir = p
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
                .map(|rd| {
                    rd.flatten()
                        .map(|e| e.path())
                        .filter(|f| {
                            f.file_name()
                                .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
                                && split(f)
                        })
                        .collect()
                })
                .unwrap_or_default();
            v.sort();
            if v.is_empty() {
                errors.push(format!(
                    "{}: no such file, and no {}<pid> split beside it",
                    p.display(),
                    prefix
                ));
            }
            out.extend(v);
        }
    }
    (out, errors)
}

/// Reads split files into a report. Unreadable files are errors (`path: message`).
pub fn read_files(paths: &[PathBuf]) -> (StraceReport, Vec<String>) {
    let (files, mut errors) = expand(paths);
    let mut procs = Vec::new();
    for f in files {
        match rocpath_budget::input::read_bytes(
            &f,
            &rocpath_budget::MemoryBudget::default(),
            crate::MAX_LOG_BYTES,
            "an strace log",
        ) {
            Ok((b, _held)) => procs.push(process(
                &f.display().to_string(),
                &String::from_utf8_lossy(&b),
            )),
            Err(e) => errors.push(e.to_string()),
        }
    }
    (total(procs), errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPLIT: &str = r#"01:47:08.419501 openat(AT_FDCWD, "/o/lib/ollama/libggml-hip.so", O_RDONLY|O_CLOEXEC) = 9
01:47:08.420922 openat(AT_FDCWD, "/o/lib/ollama/librocblas.so.5", O_RDONLY|O_CLOEXEC) = -1 ENOENT (No such file or directory)
01:47:08.421131 openat(AT_FDCWD, "/opt/rocm-7.2.0/lib/librocblas.so.5", O_RDONLY|O_CLOEXEC) = 9
01:47:08.670021 openat(AT_FDCWD, "/l/TensileLibrary_Type_HH_Contraction_l_Alik_Bljk_Cijk_Dijk_fallback_gfx900.hsaco", O_RDONLY) = 11
01:47:08.900000 openat(AT_FDCWD, "/l//TensileLibrary_Type_HH_Contraction_l_Alik_Bljk_Cijk_Dijk_fallback.dat", O_RDONLY <unfinished ...>
01:47:08.900100 <... openat resumed>) = 12
01:47:09.972815 openat(AT_FDCWD, "/l/TensileLibrary_Type_CC_Contraction_l_Alik_Bljk_Cijk_Dijk_fallback_gfx900.hsaco", O_RDONLY) = 11
01:47:10.000000 openat(AT_FDCWD, "/l/TensileLibrary_Type_HS_HPA_Contraction_l_Alik_Bljk_Cijk_Dijk_gfx900.hsaco", O_RDONLY) = 11
"#;

    #[test]
    fn one_split() {
        let p = process("x.log.3269468", SPLIT);
        assert_eq!(p.pid, Some(3269468));
        assert_eq!((p.opens, p.ok, p.failed), (7, 6, 1));
        assert_eq!(
            p.research,
            ResearchCounts {
                libggml_hip_openat: 1,
                fallback_dat_openat: 1,
                fallback_hsaco_openat: 2
            }
        );
        assert_eq!(p.fallback_hsaco.first_line, Some(4));
        assert_eq!(p.fallback_hsaco.last_line, Some(7));
        assert_eq!(p.fallback_hsaco.span_s, Some(1.302794));
        assert_eq!(p.fallback_dat.first_line, Some(5));
        let rb = p.libraries.iter().find(|l| l.name == "librocblas").unwrap();
        assert_eq!(
            (rb.ok, rb.failed, rb.resolved.as_deref()),
            (1, 1, Some("/opt/rocm-7.2.0/lib/librocblas.so.5"))
        );
        assert_eq!(p.libraries[0].name, "libggml-hip");
        let t = total(vec![p]);
        assert!(t.fallback_confirmed);
        assert_eq!(t.catalog_read.class, Class::Confirmed);
        assert_eq!(t.tensile.len(), 4);
    }

    #[test]
    fn nothing_read() {
        let t = total(vec![process(
            "y.1",
            "openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY) = 3\n",
        )]);
        assert!(!t.fallback_confirmed);
        assert_eq!(t.catalog_read.rule, "strace.no_catalog_read");
    }
}
