//! `rocpath loads`: the libraries the loader resolves, from where and by which rule; the names
//! it does not find with the places searched; where each ROCm library reads its data.

use crate::table;
use comfy_table::Cell;
use rocpath_loads::process::Running;
use rocpath_loads::python::ModuleLoads;
use rocpath_loads::rocm::DataPath;
use rocpath_loads::{Library, Loads, Missing};
use std::fmt::Write;

/// The table for people.
pub fn loads_table(l: &Loads) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} ({} {})", l.target, l.class, l.machine);
    if let Some(i) = &l.interpreter {
        let _ = writeln!(out, "  interpreter      {i}");
    }
    if let Some(r) = &l.rpath {
        let _ = writeln!(out, "  DT_RPATH         {r}");
    }
    if let Some(r) = &l.runpath {
        let _ = writeln!(out, "  DT_RUNPATH       {r}");
    }
    if let Some(p) = &l.ld_library_path {
        let _ = writeln!(out, "  LD_LIBRARY_PATH  {p}");
    }
    match &l.cache.error {
        Some(e) => {
            let _ = writeln!(out, "  cache            {} (not used: {e})", l.cache.path);
        }
        None => {
            let _ = writeln!(
                out,
                "  cache            {} ({} entries)",
                l.cache.path, l.cache.entries
            );
        }
    }
    let _ = writeln!(out, "  default folders  {}", l.default_dirs.join(" "));
    if !l.hwcaps.is_empty() {
        let _ = writeln!(
            out,
            "  glibc-hwcaps     {} (searched first in every folder)",
            l.hwcaps.join(" ")
        );
    }
    out.push('\n');
    let _ = writeln!(out, "{}", libraries(&l.libraries, true));
    missing(
        &mut out,
        &l.missing,
        "the program stops with \"error while loading shared libraries\"",
    );
    rocm_data(&mut out, &l.rocm_data);
    if l.truncated {
        let _ = writeln!(out, "\nstopped: more objects than the walk loads");
    }
    out
}

/// The table for people: what importing a Python module loads.
pub fn module_table(m: &ModuleLoads) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "module {} ({} {}, environment {})",
        m.module, m.spec.executable, m.spec.version, m.spec.prefix
    );
    if let Some(o) = &m.spec.origin {
        let _ = writeln!(out, "  origin           {o}");
    }
    let _ = writeln!(
        out,
        "  extension modules {}{}",
        m.extensions.len(),
        if m.truncated { " (more not read)" } else { "" }
    );
    out.push('\n');
    let _ = writeln!(out, "{}", libraries(&m.libraries, false));
    missing(
        &mut out,
        &m.missing,
        "the import fails with \"cannot open shared object file\"",
    );
    rocm_data(&mut out, &m.rocm_data);
    out
}

/// The libraries resolved: with their depth for one object, without it for many merged (the
/// object named is then the first that needs each).
fn libraries(libs: &[Library], depth: bool) -> comfy_table::Table {
    let mut head = vec!["name", "path", "rule", "needed by", "ROCm"];
    if depth {
        head.insert(0, "depth");
    } else {
        head[3] = "first needed by";
    }
    let mut t = table(&head);
    for lib in libs {
        let mut row = vec![
            Cell::new(&lib.name),
            Cell::new(&lib.path),
            Cell::new(lib.rule.as_str()),
            Cell::new(base(&lib.needed_by)),
            Cell::new(lib.rocm.unwrap_or("")),
        ];
        if depth {
            row.insert(0, Cell::new(lib.depth));
        }
        t.add_row(row);
    }
    t
}

/// The names not found, each with the places searched and the files passed over.
fn missing(out: &mut String, missing: &[Missing], fails: &str) {
    if missing.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nnot found ({}): {fails}", missing.len());
    for m in missing {
        let _ = writeln!(out, "  {} (needed by {})", m.name, m.needed_by);
        for s in &m.searched {
            let _ = writeln!(out, "    {:<16} {}", s.rule.as_str(), s.place);
        }
        for r in &m.rejected {
            let what = if r.fatal { "stops at" } else { "passed over" };
            let _ = writeln!(out, "    {what:<16} {}: {}", r.path, r.why);
        }
    }
}

/// Where each ROCm library found reads its data.
fn rocm_data(out: &mut String, data: &[DataPath]) {
    if data.is_empty() {
        return;
    }
    let _ = writeln!(out, "\nROCm data, next to the library the loader takes:");
    let mut t = table(&["component", "reads", "from", "set by", "present"]);
    for d in data {
        let var = match (d.variable, d.from_variable) {
            (Some(v), true) => format!("{v} (set)"),
            (Some(v), false) => format!("{v} (unset)"),
            (None, _) => String::new(),
        };
        t.add_row(vec![
            Cell::new(d.component),
            Cell::new(d.what),
            Cell::new(&d.folder),
            Cell::new(var),
            Cell::new(if d.exists { "yes" } else { "no" }),
        ]);
    }
    let _ = writeln!(out, "{t}");
}

/// The table for people: what a running process loaded, beside the prediction.
pub fn process_table(r: &Running) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "process {} {}",
        r.pid,
        r.exe.as_deref().unwrap_or("(program unreadable)")
    );
    if !r.cmdline.is_empty() {
        let _ = writeln!(out, "  command line     {}", r.cmdline.join(" "));
    }
    for (k, v) in &r.env {
        let _ = writeln!(out, "  {k:<16} {v}");
    }
    out.push('\n');
    let mut t = table(&["mapped library", "ROCm", "how"]);
    for m in &r.mapped {
        let how = match (&r.prediction, m.predicted) {
            (None, _) => "mapped",
            (Some(_), true) => "DT_NEEDED (predicted)",
            (Some(_), false) => "opened later by name (dlopen) or preloaded",
        };
        let path = if m.deleted {
            format!("{} (deleted since)", m.path)
        } else {
            m.path.clone()
        };
        t.add_row(vec![
            Cell::new(path),
            Cell::new(m.rocm.unwrap_or("")),
            Cell::new(how),
        ]);
    }
    let _ = writeln!(out, "{t}");
    if !r.predicted_not_mapped.is_empty() {
        let _ = writeln!(
            out,
            "\npredicted for the program but not mapped ({}):",
            r.predicted_not_mapped.len()
        );
        for p in &r.predicted_not_mapped {
            let _ = writeln!(out, "  {p}");
        }
    }
    if !r.open_data.is_empty() {
        let _ = writeln!(out, "\nROCm data files open now ({}):", r.open_data.len());
        for p in &r.open_data {
            let _ = writeln!(out, "  {p}");
        }
    }
    out
}

fn base(p: &str) -> &str {
    p.rsplit('/').next().unwrap_or(p)
}
