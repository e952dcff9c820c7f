//! Every document schema rocpath writes, defined once.
//!
//! A schema id reads `rocpath.<name>/<version>`: the name says which command printed it, the
//! version changes when a field changes meaning or shape (a reader of version N never has to
//! guess what a version N+1 field means). When a version changes, the `migrate` module gains the
//! step from the previous one.

/// One document schema: its name, its current version and the command that prints it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Schema {
    /// `inventory`, `explain.gemm`, `ledger.check`, …
    pub name: &'static str,
    /// The version this build writes.
    pub version: u32,
    /// The full id, `rocpath.<name>/<version>`.
    pub id: &'static str,
    /// The command line that prints it (`rocpath explain gemm --json`).
    pub command: &'static str,
}

impl Schema {
    /// Whether `id` names this schema at any version.
    pub fn is_any_version(&self, id: &str) -> bool {
        SchemaId::parse(id).is_some_and(|s| s.name == self.name)
    }
}

impl std::fmt::Display for Schema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.id)
    }
}

macro_rules! schemas {
    ($($(#[$doc:meta])* $konst:ident = $name:literal / $ver:literal by $cmd:literal;)*) => {
        $(
            $(#[$doc])*
            pub const $konst: Schema = Schema {
                name: $name,
                version: $ver,
                id: concat!("rocpath.", $name, "/", $ver),
                command: $cmd,
            };
        )*
        /// Every schema this build writes, in name order.
        pub const ALL: &[Schema] = &[$($konst),*];
    };
}

schemas! {
    /// The instruction-set capabilities of processors.
    ARCH = "arch"/1 by "rocpath arch";
    /// One or more recorded cases read and classified.
    CASE = "case"/1 by "rocpath case read";
    /// A folder of cases as a table.
    CASE_TABLE = "case-table"/1 by "rocpath case table";
    /// Per device, whether the install has code for it.
    CHECK = "check"/1 by "rocpath check";
    /// Shell completions written.
    COMPLETIONS = "completions"/1 by "rocpath completions";
    /// Two inventories compared.
    DIFF = "diff"/1 by "rocpath diff";
    /// Predictions set against what a recording shows.
    EXPLAIN_COMPARE = "explain.compare"/1 by "rocpath explain --compare";
    /// The GEMM kernel a call takes, per shape and device.
    EXPLAIN_GEMM = "explain.gemm"/1 by "rocpath explain gemm";
    /// A recorded kernel name tied to the catalog entries that hold it.
    EXPLAIN_GEMM_ATTRIBUTION = "explain.gemm_attribution"/1 by "rocpath explain gemm --attribute";
    /// One kernel looked up in the catalogs.
    EXPLAIN_GEMM_KERNEL = "explain.gemm_kernel"/1 by "rocpath explain gemm --kernel";
    /// ggml-hip's matrix-multiplication path.
    EXPLAIN_GGML = "explain.ggml"/1 by "rocpath explain ggml";
    /// MIOpen's solver applicability for one problem.
    EXPLAIN_MIOPEN = "explain.miopen"/1 by "rocpath explain miopen";
    /// The MIOpen model derived from source.
    EXPLAIN_MIOPEN_DERIVE = "explain.miopen_derive"/1 by "rocpath explain miopen-derive";
    /// rocBLAS's path for one call.
    EXPLAIN_ROCBLAS = "explain.rocblas"/1 by "rocpath explain rocblas";
    /// Node surveys merged into one drift report.
    FLEET = "fleet"/1 by "rocpath fleet";
    /// A value followed through source.
    FOLLOW = "follow"/1 by "rocpath follow";
    /// The arch gates of source trees.
    GATES = "gates"/1 by "rocpath gates";
    /// One gate through history.
    GATES_TIMELINE = "gates.timeline"/1 by "rocpath gates --timeline";
    /// The code objects an install ships.
    INVENTORY = "inventory"/1 by "rocpath inventory";
    /// What the instructions of kernels do.
    ISA = "isa"/1 by "rocpath isa";
    /// A/B lanes summarised; `errors[]` items are objects since version 2.
    LANES = "lanes"/2 by "rocpath lanes";
    /// `ledger add-claim`.
    LEDGER_ADD_CLAIM = "ledger.add-claim"/1 by "rocpath ledger add-claim";
    /// `ledger check`.
    LEDGER_CHECK = "ledger.check"/1 by "rocpath ledger check";
    /// `ledger claims`.
    LEDGER_CLAIMS = "ledger.claims"/1 by "rocpath ledger claims";
    /// `ledger derive`; `errors[]` items are objects since version 2.
    LEDGER_DERIVE = "ledger.derive"/2 by "rocpath ledger derive";
    /// `ledger import`.
    LEDGER_IMPORT = "ledger.import"/1 by "rocpath ledger import";
    /// `ledger init`.
    LEDGER_INIT = "ledger.init"/1 by "rocpath ledger init";
    /// `ledger set-class`.
    LEDGER_SET_CLASS = "ledger.set-class"/1 by "rocpath ledger set-class";
    /// What a program loads, in order.
    LOADS = "loads"/1 by "rocpath loads";
    /// One Python module's loader view; `errors[]` items are objects since version 2.
    LOADS_MODULE = "loads.module"/2 by "rocpath loads <python module>";
    /// What a running process has mapped; `errors[]` items are objects since version 2.
    LOADS_PROCESS = "loads.process"/2 by "rocpath loads --pid";
    /// Manual pages written.
    MAN = "man"/1 by "rocpath man";
    /// A MIOpen model file.
    MIOPEN_MODEL = "miopen-model"/1 by "rocpath explain miopen-derive --out";
    /// Ollama runs read; `errors[]` items are objects since version 2.
    OLLAMA = "ollama"/2 by "rocpath ollama read";
    /// Who added an arch gate and when.
    PROVENANCE = "provenance"/1 by "rocpath provenance";
    /// `site build`.
    SITE_BUILD = "site.build"/1 by "rocpath site build";
    /// A process tree's file activity.
    STRACE = "strace"/1 by "rocpath strace";
    /// `study build`.
    STUDY_BUILD = "study.build"/1 by "rocpath study build";
    /// A machine's devices, installs and findings.
    SURVEY = "survey"/1 by "rocpath survey";
    /// A kernel trace read; row errors name their `line` since version 2.
    TRACE = "trace"/2 by "rocpath trace";
}

/// A schema id taken apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SchemaId<'a> {
    /// The name (`explain.gemm`).
    pub name: &'a str,
    /// The version.
    pub version: u32,
}

impl<'a> SchemaId<'a> {
    /// Parses `rocpath.<name>/<version>`: a name of lowercase letters, digits, `.`, `_` and
    /// `-` that starts with a letter, a version of digits.
    pub fn parse(id: &'a str) -> Option<Self> {
        let rest = id.strip_prefix("rocpath.")?;
        let (name, version) = rest.rsplit_once('/')?;
        let name_ok = name.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
            && name.bytes().all(|b| {
                b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'-')
            });
        if !name_ok || version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(SchemaId {
            name,
            version: version.parse().ok()?,
        })
    }

    /// The schema of this name that this build writes, if any.
    pub fn current(&self) -> Option<&'static Schema> {
        by_name(self.name)
    }
}

/// The schema of a name.
pub fn by_name(name: &str) -> Option<&'static Schema> {
    ALL.iter().find(|s| s.name == name)
}

/// The schema an id names at its current version (`None` for an older or newer version).
pub fn by_id(id: &str) -> Option<&'static Schema> {
    ALL.iter().find(|s| s.id == id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_sorted_and_parse_back() {
        for w in ALL.windows(2) {
            assert!(w[0].name < w[1].name, "{} before {}", w[0].name, w[1].name);
        }
        for s in ALL {
            let p = SchemaId::parse(s.id).unwrap_or_else(|| panic!("{}", s.id));
            assert_eq!((p.name, p.version), (s.name, s.version));
            assert_eq!(p.current(), Some(s));
            assert_eq!(by_id(s.id), Some(s));
            assert!(s.command.starts_with("rocpath "), "{}", s.command);
        }
    }

    #[test]
    fn parse_refuses_other_forms() {
        for bad in [
            "rocpath./1",
            "rocpath.x/",
            "rocpath.x/1a",
            "other.x/1",
            "rocpath.X/1",
            "rocpath.a/b/1",
            "rocpath.1a/1",
            "rocpath.a/99999999999",
        ] {
            assert_eq!(SchemaId::parse(bad), None, "{bad}");
        }
        assert!(LANES.is_any_version("rocpath.lanes/1"));
        assert!(!LANES.is_any_version("rocpath.lanes.x/1"));
        assert_eq!(by_id("rocpath.lanes/1"), None);
    }
}
