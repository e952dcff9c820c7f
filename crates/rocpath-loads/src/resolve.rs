//! The loader's search, rule by rule, as glibc's `elf/dl-deps.c` (`_dl_map_object_deps`: the
//! dependencies breadth first, each `DT_NEEDED` in order) and `elf/dl-load.c`
//! (`_dl_map_object`, `decompose_rpath`, `fillin_rpath`, `open_path`, `open_verify`) do it,
//! and as ld.so(8) describes it ("Rules for searching shared objects").

use crate::cache::{self, Cache};
use crate::elf::{self, ElfInfo};
use crate::{
    CacheInfo, Library, Loads, LoadsError, Missing, Options, Rejected, Rule, Searched, Tree, rocm,
};
use object::elf as E;
use rocpath_evidence::{Class, Evidence, Locator, Proof};
use std::os::unix::fs::MetadataExt;

/// One object of the link map.
struct Obj {
    /// The path as the loader names it (`l_name`).
    path: String,
    /// Names it was loaded under, and its `DT_SONAME` (`l_libname`).
    names: Vec<String>,
    /// `st_dev`, `st_ino` (`l_file_id`): a second name for the same file is the same object.
    id: (u64, u64),
    info: ElfInfo,
    /// `$ORIGIN`: the folder of `path` (`_dl_new_object` strips the last component, nothing
    /// else).
    origin: Option<String>,
    /// The object that loaded it (`l_loader`).
    loader: Option<usize>,
    depth: u32,
    /// The interpreter, loaded before the walk and not yet asked for.
    interp_unreported: bool,
}

/// Why a candidate file was not taken.
enum Open {
    /// Not there (`ENOENT`): the search goes on silently.
    Absent,
    /// There but passed over (another class or machine, unreadable, not ELF).
    Rejected(String),
}

/// Opens a file and reads it as the loader does; `Ok` with its identity.
/// A file read (its view and identity), or why not (and where in it).
type Opened = Result<(ElfInfo, (u64, u64)), (Open, Option<u64>)>;

fn open_elf(tree: &dyn Tree, path: &str) -> Opened {
    let mut input = match rocpath_budget::input::open(&tree.host(path)) {
        Ok(i) => i,
        Err(rocpath_budget::input::InputError::Io { source, .. })
            if matches!(
                source.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Err((Open::Absent, None));
        }
        Err(e) => return Err((Open::Rejected(e.to_string()), None)),
    };
    let md = input
        .file()
        .metadata()
        .map_err(|e| (Open::Rejected(e.to_string()), None))?;
    let id = (md.dev(), md.ino());
    let map = rocpath_budget::map::Map::new(input.file())
        .map_err(|e| (Open::Rejected(e.to_string()), None))?;
    let info = elf::parse(&map).map_err(|e| (Open::Rejected(e.what), Some(e.offset)))?;
    if map.shrank() {
        return Err((Open::Rejected("the file shrank while read".into()), None));
    }
    Ok((info, id))
}

/// `$PLATFORM` (`AT_PLATFORM` of the kernel).
fn platform(machine: u16) -> &'static str {
    match machine {
        E::EM_X86_64 => "x86_64",
        E::EM_386 => "i686",
        E::EM_AARCH64 => "aarch64",
        _ => "",
    }
}

/// The multiarch triplet of Debian's loader, when the machine has one.
fn triplet(machine: u16, class: u8) -> Option<&'static str> {
    match (machine, class) {
        (E::EM_X86_64, 2) => Some("x86_64-linux-gnu"),
        (E::EM_386, 1) => Some("i386-linux-gnu"),
        (E::EM_AARCH64, 2) => Some("aarch64-linux-gnu"),
        (E::EM_PPC64, 2) => Some("powerpc64le-linux-gnu"),
        (E::EM_RISCV, 2) => Some("riscv64-linux-gnu"),
        _ => None,
    }
}

/// The loader's default folders (`SYSTEM_DIRS`, `elf/dl-load.c` → `rtld_search_dirs`): on
/// a multiarch system (Debian, Ubuntu) `/lib/<triplet>`, `/usr/lib/<triplet>`, `/lib`,
/// `/usr/lib`; else `/lib64`, `/usr/lib64` for 64-bit objects (the `slibdir` and `libdir` of
/// the build) or `/lib`, `/usr/lib`.
fn default_dirs(tree: &dyn Tree, machine: u16, class: u8) -> Vec<String> {
    if let Some(t) = triplet(machine, class) {
        if tree.host(&format!("/lib/{t}")).is_dir() || tree.host(&format!("/usr/lib/{t}")).is_dir()
        {
            return vec![
                format!("/lib/{t}/"),
                format!("/usr/lib/{t}/"),
                "/lib/".into(),
                "/usr/lib/".into(),
            ];
        }
    }
    if class == 2 {
        vec!["/lib64/".into(), "/usr/lib64/".into()]
    } else {
        vec!["/lib/".into(), "/usr/lib/".into()]
    }
}

/// The `glibc-hwcaps` subfolders the loader searches in every folder before the folder
/// itself, best first (`elf/dl-hwcaps.c` `_dl_important_hwcaps`, the levels of
/// `sysdeps/x86/get-isa-level.h`): x86-64-v4, -v3, -v2 as far as the CPU supports them, read
/// from the `flags` of `/proc/cpuinfo` (none when it cannot be read, as in a saved image).
fn hwcaps(tree: &dyn Tree, machine: u16, class: u8) -> Vec<&'static str> {
    if (machine, class) != (E::EM_X86_64, 2) {
        return Vec::new();
    }
    let host = tree.host("/proc/cpuinfo");
    let Ok(text) = rocpath_budget::read_small_text(&host, 16 << 20) else {
        return Vec::new();
    };
    let Some(flags) = text
        .lines()
        .find(|l| l.starts_with("flags"))
        .and_then(|l| l.split_once(':'))
        .map(|(_, f)| f.split_whitespace().collect::<Vec<_>>())
    else {
        return Vec::new();
    };
    let all = |need: &[&str]| need.iter().all(|n| flags.contains(n));
    // /proc/cpuinfo names: SSE3 is `pni`, LAHF64_SAHF64 `lahf_lm`, LZCNT `abm`,
    // CMPXCHG16B `cx16`; OSXSAVE is implied by the kernel listing `avx`.
    let v2 = all(&[
        "cx16", "lahf_lm", "popcnt", "pni", "sse4_1", "sse4_2", "ssse3",
    ]);
    let v3 = v2
        && all(&[
            "avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "xsave",
        ]);
    let v4 = v3 && all(&["avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"]);
    let mut out = Vec::new();
    if v4 {
        out.push("x86-64-v4");
    }
    if v3 {
        out.push("x86-64-v3");
    }
    if v2 {
        out.push("x86-64-v2");
    }
    out
}

/// The interpreter a library would be loaded with (it has no `PT_INTERP` of its own).
fn usual_interp(machine: u16, class: u8) -> Option<&'static str> {
    match (machine, class) {
        (E::EM_X86_64, 2) => Some("/lib64/ld-linux-x86-64.so.2"),
        (E::EM_386, 1) => Some("/lib/ld-linux.so.2"),
        (E::EM_AARCH64, 2) => Some("/lib/ld-linux-aarch64.so.1"),
        _ => None,
    }
}

/// `is_dst` (`elf/dl-load.c`): `$NAME` or `${NAME}` at the start of `s`; for the unbraced
/// form the name must end the string or be followed by `/`. Returns the length matched.
fn is_dst(s: &str, name: &str) -> Option<usize> {
    if let Some(rest) = s.strip_prefix('{') {
        return rest
            .strip_prefix(name)
            .filter(|r| r.starts_with('}'))
            .map(|_| name.len() + 2);
    }
    let rest = s.strip_prefix(name)?;
    (rest.is_empty() || rest.starts_with('/')).then_some(name.len())
}

/// `_dl_dst_substitute`: `$ORIGIN`, `$LIB`, `$PLATFORM` (braced or not) replaced; an unknown
/// `$NAME` is kept as written; `None` when the value of a token is unknown (the element is
/// then dropped, as `fillin_rpath` drops it).
fn expand(s: &str, origin: Option<&str>, lib: &str, plat: &str) -> Option<String> {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('$') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let (value, n) = if let Some(n) = is_dst(after, "ORIGIN") {
            (origin?, n)
        } else if let Some(n) = is_dst(after, "LIB") {
            (lib, n)
        } else if let Some(n) = is_dst(after, "PLATFORM") {
            (plat, n)
        } else {
            out.push('$');
            rest = after;
            continue;
        };
        if value.is_empty() {
            return None;
        }
        out.push_str(value);
        rest = &after[n..];
    }
    out.push_str(rest);
    Some(out)
}

/// `fillin_rpath`: a search list split at `sep`, each element expanded, empty results
/// dropped, trailing slashes removed and one added, each folder once. An empty element is the
/// current folder (the empty prefix).
fn fillin(list: &str, sep: &[char], origin: Option<&str>, lib: &str, plat: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for el in list.split(sep) {
        let dir = if el.is_empty() {
            String::new()
        } else {
            let Some(mut d) = expand(el, origin, lib, plat) else {
                continue;
            };
            if d.is_empty() {
                continue;
            }
            while d.len() > 1 && d.ends_with('/') {
                d.pop();
            }
            if !d.ends_with('/') {
                d.push('/');
            }
            d
        };
        if !out.contains(&dir) {
            out.push(dir);
        }
    }
    out
}

/// The folder of a path as `_dl_new_object` computes `l_origin`: relative paths made
/// absolute with the current folder, the last component removed, nothing resolved.
fn origin_of(path: &str) -> Option<String> {
    let abs = if path.starts_with('/') {
        path.to_string()
    } else {
        let cwd = std::env::current_dir().ok()?;
        format!("{}/{path}", cwd.display())
    };
    let i = abs.rfind('/')?;
    Some(if i == 0 {
        "/".into()
    } else {
        abs[..i].to_string()
    })
}

struct Walk {
    tree: std::sync::Arc<dyn Tree>,
    objs: Vec<Obj>,
    cache: Option<Cache>,
    cache_id: Option<i32>,
    cache_path: String,
    lib: String,
    plat: &'static str,
    defaults: Vec<String>,
    llp: Vec<String>,
    class: u8,
    machine: u16,
    hwcaps: Vec<&'static str>,
}

/// What one search found.
struct Found {
    path: String,
    rule: Rule,
    info: ElfInfo,
    id: (u64, u64),
}

impl Walk {
    /// The index of a loaded object that answers to `name` (`_dl_name_match_p`, then its
    /// `DT_SONAME`, as `_dl_map_object` checks before searching).
    fn loaded(&self, name: &str) -> Option<usize> {
        self.objs
            .iter()
            .position(|o| o.path == name || o.names.iter().any(|n| n == name))
    }

    /// Tries one candidate file: taken when it is an ELF object of the same class and
    /// machine (`open_verify` passes over the others and the search goes on).
    fn try_file(&self, path: &str, rejected: &mut Vec<Rejected>) -> Option<(ElfInfo, (u64, u64))> {
        match open_elf(self.tree.as_ref(), path) {
            Ok((info, id)) => {
                // open_verify: "wrong ELF class" / elf_machine_matches_host.
                if info.class != self.class {
                    rejected.push(Rejected {
                        path: path.into(),
                        why: format!("wrong ELF class: ELFCLASS{}", 32 * info.class as u32),
                        offset: None,
                        fatal: false,
                    });
                    None
                } else if info.machine != self.machine {
                    rejected.push(Rejected {
                        path: path.into(),
                        why: format!("another machine ({})", elf::machine_name(info.machine)),
                        offset: None,
                        fatal: false,
                    });
                    None
                } else {
                    Some((info, id))
                }
            }
            Err((Open::Absent, _)) => None,
            Err((Open::Rejected(why), off)) => {
                // open_verify: a file that is not ELF ("invalid ELF header", "file too
                // short") is an error that ends the load (`lose:` → _dl_signal_error).
                rejected.push(Rejected {
                    path: path.into(),
                    why,
                    offset: off,
                    fatal: off.is_some(),
                });
                None
            }
        }
    }

    /// `open_path`: each folder of a list in order, the first file taken wins.
    fn in_dirs(
        &self,
        name: &str,
        dirs: &[String],
        rule: Rule,
        searched: &mut Vec<Searched>,
        rejected: &mut Vec<Rejected>,
    ) -> Option<Found> {
        for d in dirs {
            searched.push(Searched {
                rule,
                place: if d.is_empty() { ".".into() } else { d.clone() },
            });
            // open_path: each folder's glibc-hwcaps subfolders (best first), then the folder.
            let subs = self.hwcaps.iter().map(|h| format!("glibc-hwcaps/{h}/"));
            for sub in subs.chain(std::iter::once(String::new())) {
                let path = format!("{d}{sub}{name}");
                if let Some((info, id)) = self.try_file(&path, rejected) {
                    return Some(Found {
                        path,
                        rule,
                        info,
                        id,
                    });
                }
                if stopped(rejected) {
                    return None;
                }
            }
        }
        None
    }

    fn dirs_of(&self, list: &str, k: usize) -> Vec<String> {
        fillin(
            list,
            &[':'],
            self.objs[k].origin.as_deref(),
            &self.lib,
            self.plat,
        )
    }

    /// `_dl_map_object`: the search for one name asked for by object `r`.
    fn search(
        &self,
        name: &str,
        r: usize,
        searched: &mut Vec<Searched>,
        rejected: &mut Vec<Rejected>,
    ) -> Option<Found> {
        // "If the name contains a slash, it is a path name" — opened as it is, no search.
        if name.contains('/') {
            searched.push(Searched {
                rule: Rule::Path,
                place: name.into(),
            });
            let (info, id) = self.try_file(name, rejected)?;
            return Some(Found {
                path: name.into(),
                rule: Rule::Path,
                info,
                id,
            });
        }
        let req = &self.objs[r];
        // "When the object has the RUNPATH information we don't use any RPATHs"
        // (_dl_map_object).
        if req.info.runpath.is_none() {
            if let Some(done) = self.rpaths(name, r, searched, rejected) {
                return done;
            }
        }
        // "Try the LD_LIBRARY_PATH environment variable" (env_path_list, split at ':' and
        // ';' by _dl_init_paths → fillin_rpath).
        let f = self.in_dirs(name, &self.llp, Rule::LdLibraryPath, searched, rejected);
        if let Some(done) = settled(f, rejected) {
            return done;
        }
        // "Look at the RUNPATH information for this binary" — the requesting object only;
        // DT_RUNPATH is not inherited by what it loads.
        if let Some(rp) = &req.info.runpath {
            let dirs = self.dirs_of(rp, r);
            let f = self.in_dirs(name, &dirs, Rule::Runpath, searched, rejected);
            if let Some(done) = settled(f, rejected) {
                return done;
            }
        }
        // DF_1_NODEFLIB: "the object's dependencies are not searched in the cache or the
        // default folders" (ld.so(8), -z nodeflib).
        if req.info.nodeflib {
            return None;
        }
        if let Some(done) = self.cached(name, searched, rejected) {
            return done;
        }
        // "Finally, try the default path" (rtld_search_dirs).
        self.in_dirs(name, &self.defaults, Rule::Default, searched, rejected)
    }

    /// `DT_RPATH` of the requesting object, then of the object that loaded it, and on up
    /// (`l_loader`); then the executable's own, once. `Some` when the search ends here.
    fn rpaths(
        &self,
        name: &str,
        r: usize,
        searched: &mut Vec<Searched>,
        rejected: &mut Vec<Rejected>,
    ) -> Option<Option<Found>> {
        let mut did_main = false;
        let mut l = Some(r);
        while let Some(k) = l {
            if let Some(rp) = &self.objs[k].info.rpath {
                let dirs = self.dirs_of(rp, k);
                let f = self.in_dirs(name, &dirs, Rule::Rpath, searched, rejected);
                if let Some(done) = settled(f, rejected) {
                    return Some(done);
                }
                did_main |= k == 0;
            }
            l = self.objs[k].loader;
        }
        if did_main {
            return None;
        }
        let rp = self.objs[0].info.rpath.as_ref()?;
        let dirs = self.dirs_of(rp, 0);
        let f = self.in_dirs(name, &dirs, Rule::Rpath, searched, rejected);
        settled(f, rejected)
    }

    /// "Check the list of libraries in the file /etc/ld.so.cache" (`_dl_load_cache_lookup`);
    /// the path it gives is verified like any candidate. `Some` when the search ends here.
    fn cached(
        &self,
        name: &str,
        searched: &mut Vec<Searched>,
        rejected: &mut Vec<Rejected>,
    ) -> Option<Option<Found>> {
        let (Some(c), Some(id)) = (&self.cache, self.cache_id) else {
            return None;
        };
        searched.push(Searched {
            rule: Rule::Cache,
            place: self.cache_path.clone(),
        });
        if let Some(p) = c.lookup(name, id, &self.hwcaps) {
            if let Some((info, fid)) = self.try_file(p, rejected) {
                return Some(Some(Found {
                    path: p.into(),
                    rule: Rule::Cache,
                    info,
                    id: fid,
                }));
            }
        }
        stopped(rejected).then_some(None)
    }
}

/// Whether one step settles the search: found (`Some(Some)`), or a candidate that ends it
/// (`Some(None)`); `None` goes on to the next step.
fn settled(found: Option<Found>, rejected: &[Rejected]) -> Option<Option<Found>> {
    match found {
        Some(f) => Some(Some(f)),
        None if stopped(rejected) => Some(None),
        None => None,
    }
}

/// Whether the last candidate ended the search (see [`Rejected::fatal`]).
fn stopped(rejected: &[Rejected]) -> bool {
    rejected.last().is_some_and(|r| r.fatal)
}

/// The glibc rule behind each way a library is found.
fn cite(rule: Rule) -> &'static str {
    match rule {
        Rule::Path => {
            "a DT_NEEDED name with a slash is opened as a path, no search (glibc elf/dl-load.c _dl_map_object; ld.so(8))"
        }
        Rule::Rpath => {
            "DT_RPATH of the requesting object and of the objects that loaded it, used only when the requesting object has no DT_RUNPATH (elf/dl-load.c _dl_map_object, decompose_rpath, fillin_rpath; ld.so(8))"
        }
        Rule::LdLibraryPath => {
            "LD_LIBRARY_PATH, after DT_RPATH and before DT_RUNPATH (elf/dl-load.c _dl_init_paths, _dl_map_object; ld.so(8))"
        }
        Rule::Runpath => {
            "DT_RUNPATH of the requesting object only, not of the objects that loaded it (elf/dl-load.c _dl_map_object; ld.so(8))"
        }
        Rule::Cache => {
            "/etc/ld.so.cache, entries of the object's class and machine (elf/dl-cache.c _dl_load_cache_lookup; ld.so(8))"
        }
        Rule::Default => {
            "the default folders, last (elf/dl-load.c rtld_search_dirs, _dl_map_object; ld.so(8))"
        }
        Rule::Interpreter => {
            "the program interpreter is loaded first and answers to its DT_SONAME (elf/rtld.c; elf/dl-load.c _dl_map_object)"
        }
    }
}

fn rule_id(rule: Rule) -> &'static str {
    match rule {
        Rule::Path => "loads.path",
        Rule::Rpath => "loads.rpath",
        Rule::LdLibraryPath => "loads.ld_library_path",
        Rule::Runpath => "loads.runpath",
        Rule::Cache => "loads.cache",
        Rule::Default => "loads.default",
        Rule::Interpreter => "loads.interpreter",
    }
}

/// The target's dynamic-loading view and its file id; a static program is refused.
fn open_target(opts: &Options, target: &str) -> Result<(ElfInfo, (u64, u64)), LoadsError> {
    let mut input = rocpath_budget::input::open(&opts.tree.host(target))?;
    let io = |source| LoadsError::Io {
        path: opts.target.clone(),
        source,
    };
    let md = input.file().metadata().map_err(io)?;
    let map = rocpath_budget::map::Map::new(input.file()).map_err(io)?;
    let info = elf::parse(&map).map_err(|source| LoadsError::Elf {
        path: opts.target.clone(),
        source,
    })?;
    if !info.dynamic {
        return Err(LoadsError::Static {
            path: opts.target.clone(),
        });
    }
    Ok((info, (md.dev(), md.ino())))
}

/// `/etc/ld.so.cache` as the loader reads it, or why it could not be (the loader then goes
/// on without it): the cache, its entry count and the problem.
fn read_cache(opts: &Options, path: &str) -> (Option<Cache>, (usize, Option<String>)) {
    let mut input = match rocpath_budget::input::open(&opts.tree.host(path)) {
        Ok(i) => i,
        Err(e) => return (None, (0, Some(e.to_string()))),
    };
    if input.len > cache::MAX_CACHE_BYTES {
        let why = format!(
            "{} bytes, more than the {} a cache is read up to",
            input.len,
            cache::MAX_CACHE_BYTES
        );
        return (None, (0, Some(why)));
    }
    let parsed = rocpath_budget::map::Map::new(input.file())
        .map_err(|e| e.to_string())
        .and_then(|m| {
            let r = cache::parse(&m).map_err(|e| e.to_string());
            if m.shrank() {
                Err("the file shrank while read".into())
            } else {
                r
            }
        });
    match parsed {
        Ok(c) => {
            let n = c.entries.len();
            (Some(c), (n, None))
        }
        Err(e) => (None, (0, Some(e))),
    }
}

/// The walk's starting state: the target, the machine's folders and `$LIB`, the expanded
/// `LD_LIBRARY_PATH`, the cache.
fn start(opts: &Options, target: &str, info: &ElfInfo, id: (u64, u64)) -> (Walk, CacheInfo) {
    let (class, machine) = (info.class, info.machine);
    let plat = platform(machine);
    // $LIB (DL_DST_LIB): the library folder name of the build — `lib/<triplet>` on Debian's
    // multiarch loader, `lib64` / `lib` elsewhere.
    let defaults = default_dirs(opts.tree.as_ref(), machine, class);
    let lib = match triplet(machine, class) {
        Some(t) if defaults.len() == 4 => format!("lib/{t}"),
        _ if class == 2 => "lib64".into(),
        _ => "lib".into(),
    };
    // $ORIGIN of a program that is executed is its real folder (the kernel's
    // /proc/self/exe, _dl_get_origin); of a library, the folder of the path it is opened by.
    let origin = if info.interp.is_some() {
        opts.tree.real(target).and_then(|p| origin_of(&p))
    } else {
        origin_of(target)
    };
    let llp = opts
        .env
        .get("LD_LIBRARY_PATH")
        .map(|l| fillin(l, &[':', ';'], None, &lib, plat))
        .unwrap_or_default();
    let cache_path = opts.cache.to_string_lossy().into_owned();
    let (cache, (entries, error)) = read_cache(opts, &cache_path);
    let mut names = vec![target.to_string()];
    names.extend(info.soname.clone());
    let w = Walk {
        hwcaps: hwcaps(opts.tree.as_ref(), machine, class),
        tree: opts.tree.clone(),
        objs: vec![Obj {
            path: target.to_string(),
            names,
            id,
            info: info.clone(),
            origin,
            loader: None,
            depth: 0,
            interp_unreported: false,
        }],
        cache,
        cache_id: cache::default_id(machine, class),
        cache_path: cache_path.clone(),
        lib,
        plat,
        defaults,
        llp,
        class,
        machine,
    };
    let info = CacheInfo {
        path: cache_path,
        entries,
        error,
    };
    (w, info)
}

/// The libraries the loader resolves for `opts.target`.
pub fn loads(opts: &Options) -> Result<Loads, LoadsError> {
    let target = opts.target.to_string_lossy().into_owned();
    let (info, id) = open_target(opts, &target)?;
    let (mut w, cache) = start(opts, &target, &info, id);
    let interp = info
        .interp
        .clone()
        .or_else(|| usual_interp(w.machine, w.class).map(str::to_string));
    let mut out = Loads {
        target: target.clone(),
        class: format!("ELF{}", 32 * w.class as u32),
        machine: elf::machine_name(w.machine),
        interpreter: interp.clone(),
        rpath: info.rpath.clone(),
        runpath: info.runpath.clone(),
        ld_library_path: opts.env.get("LD_LIBRARY_PATH").cloned(),
        default_dirs: w.defaults.clone(),
        hwcaps: w.hwcaps.iter().map(|h| h.to_string()).collect(),
        cache,
        libraries: Vec::new(),
        missing: Vec::new(),
        rocm_data: Vec::new(),
        truncated: false,
    };
    if let Some(ip) = &interp {
        w.push_interpreter(ip);
    }
    map_deps(&mut w, &mut out, opts.max_objects);
    // The target's own data (its kpack archives; a ROCm library asked about directly), then
    // what each library it loads reads.
    let name = target.rsplit('/').next().unwrap_or(&target);
    let mut read = vec![library(name, &target, Rule::Path, &target, 0, &info)];
    read.extend(out.libraries.iter().cloned());
    out.rocm_data = rocm::data_paths(opts.tree.as_ref(), &read, &opts.env);
    Ok(out)
}

impl Walk {
    /// The interpreter (rtld) is in the link map before any dependency: a `DT_NEEDED` of its
    /// soname is it.
    fn push_interpreter(&mut self, ip: &str) {
        if let Ok((iinfo, iid)) = open_elf(self.tree.as_ref(), ip) {
            let mut names = vec![ip.to_string()];
            names.extend(iinfo.soname.clone());
            self.objs.push(Obj {
                path: ip.to_string(),
                names,
                id: iid,
                info: iinfo,
                origin: origin_of(ip),
                loader: None,
                depth: 0,
                interp_unreported: true,
            });
        }
    }
}

/// `_dl_map_object_deps`: breadth first, each object's `DT_NEEDED` in order, each name
/// resolved once (an object already loaded answers to it), at most `max_objects` objects.
fn map_deps(w: &mut Walk, out: &mut Loads, max_objects: usize) {
    let mut i = 0;
    while i < w.objs.len() {
        if w.objs[i].interp_unreported && i != 0 {
            i += 1;
            continue;
        }
        let needed = w.objs[i].info.needed.clone();
        let depth = w.objs[i].depth + 1;
        let by = w.objs[i].path.clone();
        for raw in needed {
            // DT_NEEDED names are expanded too (expand_dst in dl-deps.c).
            let name = expand(&raw, w.objs[i].origin.as_deref(), &w.lib, w.plat).unwrap_or(raw);
            if let Some(k) = w.loaded(&name) {
                if w.objs[k].interp_unreported {
                    w.objs[k].interp_unreported = false;
                    let path = w.objs[k].path.clone();
                    let l = library(&name, &path, Rule::Interpreter, &by, depth, &w.objs[k].info);
                    out.libraries.push(l);
                }
                continue;
            }
            if out.missing.iter().any(|m| m.name == name) {
                continue;
            }
            if w.objs.len() >= max_objects {
                out.truncated = true;
                break;
            }
            map_one(w, out, i, name, &by, depth);
        }
        i += 1;
    }
}

/// Searches one name for object `i` and records it loaded, or missing with why.
fn map_one(w: &mut Walk, out: &mut Loads, i: usize, name: String, by: &str, depth: u32) {
    let (mut searched, mut rejected) = (Vec::new(), Vec::new());
    let Some(f) = w.search(&name, i, &mut searched, &mut rejected) else {
        let evidence = missing_evidence(&name, by, searched.len(), &rejected);
        out.missing.push(Missing {
            name,
            needed_by: by.to_string(),
            depth,
            searched,
            rejected,
            evidence,
        });
        return;
    };
    // _dl_map_object_from_fd: a file already loaded under another name is that object
    // (l_file_id).
    if let Some(o) = w.objs.iter_mut().find(|o| o.id == f.id) {
        o.names.push(name);
        return;
    }
    out.libraries
        .push(library(&name, &f.path, f.rule, by, depth, &f.info));
    let mut names = vec![name];
    names.extend(f.info.soname.clone());
    w.objs.push(Obj {
        origin: origin_of(&f.path),
        path: f.path,
        names,
        id: f.id,
        info: f.info,
        loader: Some(i),
        depth,
        interp_unreported: false,
    });
}

/// Why a name is missing: the first file by it is not a readable ELF object (the loader
/// stops there), or no place searched has it.
fn missing_evidence(name: &str, by: &str, places: usize, rejected: &[Rejected]) -> Evidence {
    match rejected.last().filter(|x| x.fatal) {
        Some(bad) => Evidence::new(Class::Inferred, Proof::CodeVerified, "loads.invalid_file")
            .at(Locator::file(&bad.path))
            .because(format!(
                "the first file by this name is not a readable ELF object: the program stops with \"error while loading shared libraries: {}: invalid ELF header\" (glibc elf/dl-load.c open_verify)",
                bad.path
            )),
        None => Evidence::new(Class::Inferred, Proof::CodeVerified, "loads.not_found")
            .at(Locator::file(by))
            .because(format!(
                "no file by this name in the {places} places searched: the program stops with \"error while loading shared libraries: {name}: cannot open shared object file\" (glibc elf/dl-load.c _dl_map_object; ld.so(8))"
            )),
    }
}

fn library(name: &str, path: &str, rule: Rule, by: &str, depth: u32, info: &ElfInfo) -> Library {
    let evidence = Evidence::new(Class::Inferred, Proof::CodeVerified, rule_id(rule))
        .at(Locator::file(by))
        .because(cite(rule));
    Library {
        name: name.into(),
        path: path.into(),
        rule,
        needed_by: by.into(),
        depth,
        runpath: info.runpath.clone(),
        rpath: info.rpath.clone(),
        rocm: rocm::which(name),
        kpack_search_paths: info.kpack_search_paths.clone(),
        evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dst_expansion() {
        let o = Some("/opt/t/bin");
        assert_eq!(
            expand("$ORIGIN/../lib", o, "lib64", "x86_64").as_deref(),
            Some("/opt/t/bin/../lib")
        );
        assert_eq!(
            expand("${ORIGIN}/x", o, "lib64", "x86_64").as_deref(),
            Some("/opt/t/bin/x")
        );
        assert_eq!(
            expand("/usr/$LIB/$PLATFORM", o, "lib64", "x86_64").as_deref(),
            Some("/usr/lib64/x86_64")
        );
        assert_eq!(
            expand("$ORIGINX/a", o, "lib64", "x86_64").as_deref(),
            Some("$ORIGINX/a")
        );
        assert_eq!(expand("$ORIGIN/a", None, "lib64", "x86_64"), None);
    }

    #[test]
    fn fillin_splits_and_dedups() {
        let o = Some("/o");
        assert_eq!(
            fillin("/a//:$ORIGIN:/a::/", &[':'], o, "lib", "p"),
            vec!["/a/", "/o/", "", "/"]
        );
    }
}
