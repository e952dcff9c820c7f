//! The bilingual (Japanese/English) evidence site of a rocpath ledger.
//!
//! [`build`] writes a static site: every page in both languages (a switch on every page,
//! remembered in `localStorage`; a visible marker where a translation is missing), evidence
//! classes as the research pages show them (`badge-*` and `callout-*`), relative links only
//! (it works from any sub-path and from `file://`), no external resources (CSS and JS are
//! embedded in rocpath), inline SVG figures, and an offline search index.
//!
//! All text from the ledger — statements, log lines, paths — reaches HTML through one path:
//! the templates, rendered by minijinja with HTML auto-escaping on for every template, and no
//! template marks anything safe. The output depends only on the ledger: no clock is read.
//!
//! [`serve`] previews a built site on 127.0.0.1.

mod chain;
mod findings;
mod follow;
mod pages;
pub mod raw;
pub mod serve;
pub mod svg;
pub mod views;

use minijinja::{Environment, Value, context};
use rocpath_ledger::store::Loaded;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use thiserror::Error;
use views::{Model, TextV, tv};

/// Errors of [`build`].
#[derive(Debug, Error)]
pub enum SiteError {
    /// An I/O error on a path.
    #[error("{path}: {error}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The error.
        error: std::io::Error,
    },
    /// The output folder holds other files.
    #[error("{0}: not empty and not a rocpath site; give an empty or new folder")]
    NotEmpty(PathBuf),
    /// A template failed (a bug in rocpath).
    #[error("template {name}: {message} (a fault in rocpath itself, not in the ledger)")]
    Template {
        /// Template name.
        name: String,
        /// What failed.
        message: String,
    },
}

/// Build options.
#[derive(Debug, Clone)]
pub struct Options {
    /// rocpath's version, shown in the footer.
    pub version: String,
}

/// The `rocpath.site.build` document ([`rocpath_docs::schema::SITE_BUILD`]).
#[derive(Debug, Serialize)]
pub struct BuildDoc {
    /// The ledger folder.
    pub ledger: String,
    /// The site folder.
    pub out: String,
    /// What was written.
    #[serde(flatten)]
    pub report: Report,
    /// The raw data copied beside the site (`--copy-raw`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw: Option<raw::RawReport>,
    /// Evidence: the site was written (at its `index.html`).
    pub evidence: rocpath_evidence::Evidence,
}

impl BuildDoc {
    /// The document of a build of `ledger` into `out`.
    pub fn new(
        ledger: &std::path::Path,
        out: &std::path::Path,
        report: Report,
        raw: Option<raw::RawReport>,
    ) -> Self {
        use rocpath_evidence::{Class, Evidence, Locator, Proof};
        BuildDoc {
            ledger: ledger.display().to_string(),
            out: out.display().to_string(),
            report,
            raw,
            evidence: Evidence::new(
                Class::Confirmed,
                Proof::ShippedArtifactVerified,
                "site.built",
            )
            .at(Locator::file(out.join("index.html").display().to_string())),
        }
    }
}

/// What a build wrote.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    /// Files written.
    pub files: usize,
    /// HTML pages among them.
    pub pages: usize,
    /// Bytes written.
    pub bytes: u64,
}

/// Marker file of a rocpath site folder (a rebuild may replace such a folder).
pub const MARKER: &str = ".rocpath-site";

const TEMPLATES: [(&str, &str); 17] = [
    ("macros.html", include_str!("../templates/macros.html")),
    ("figures.html", include_str!("../templates/figures.html")),
    ("base.html", include_str!("../templates/base.html")),
    ("index.html", include_str!("../templates/index.html")),
    ("world.html", include_str!("../templates/world.html")),
    ("stack.html", include_str!("../templates/stack.html")),
    ("case.html", include_str!("../templates/case.html")),
    ("cases.html", include_str!("../templates/cases.html")),
    ("matrix.html", include_str!("../templates/matrix.html")),
    ("taxonomy.html", include_str!("../templates/taxonomy.html")),
    ("timeline.html", include_str!("../templates/timeline.html")),
    ("coverage.html", include_str!("../templates/coverage.html")),
    ("claims.html", include_str!("../templates/claims.html")),
    ("claim.html", include_str!("../templates/claim.html")),
    (
        "observation.html",
        include_str!("../templates/observation.html"),
    ),
    (
        "observations.html",
        include_str!("../templates/observations.html"),
    ),
    ("search.html", include_str!("../templates/search.html")),
];

const CSS: &str = include_str!("../assets/site.css");
const JS: &str = include_str!("../assets/site.js");

/// The template environment: every template auto-escapes HTML; undefined variables are errors.
pub fn environment() -> Result<Environment<'static>, SiteError> {
    let mut env = Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
    for (name, src) in TEMPLATES.into_iter().chain(follow::TEMPLATES) {
        env.add_template(name, src)
            .map_err(|e| SiteError::Template {
                name: name.to_string(),
                message: format!("{e:#}"),
            })?;
    }
    Ok(env)
}

#[derive(Serialize)]
struct Nav {
    key: &'static str,
    href: &'static str,
    ja: &'static str,
    en: &'static str,
}

const NAVS: [Nav; 9] = [
    Nav {
        key: "index",
        href: "index.html",
        ja: "トップ",
        en: "Home",
    },
    Nav {
        key: "stack",
        href: "stack.html",
        ja: "スタック地図",
        en: "Stack map",
    },
    Nav {
        key: "matrix",
        href: "matrix.html",
        ja: "判定マトリクス",
        en: "Matrix",
    },
    Nav {
        key: "cases",
        href: "cases.html",
        ja: "ケース",
        en: "Cases",
    },
    Nav {
        key: "taxonomy",
        href: "taxonomy.html",
        ja: "失敗モード",
        en: "Failure modes",
    },
    Nav {
        key: "timeline",
        href: "timeline.html",
        ja: "タイムライン",
        en: "Timeline",
    },
    Nav {
        key: "coverage",
        href: "coverage.html",
        ja: "カバレッジ",
        en: "Coverage",
    },
    Nav {
        key: "claims",
        href: "claims.html",
        ja: "主張",
        en: "Claims",
    },
    Nav {
        key: "search",
        href: "search.html",
        ja: "検索",
        en: "Search",
    },
];

struct Writer<'e> {
    out: PathBuf,
    env: &'e Environment<'static>,
    common: Value,
    files: AtomicUsize,
    pages: AtomicUsize,
    bytes: AtomicU64,
}

impl Writer<'_> {
    fn write(&self, rel: &str, bytes: &[u8]) -> Result<(), SiteError> {
        let p = self.out.join(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).map_err(|error| SiteError::Io {
                path: d.to_path_buf(),
                error,
            })?;
        }
        std::fs::write(&p, bytes).map_err(|error| SiteError::Io { path: p, error })?;
        self.files.fetch_add(1, Ordering::Relaxed);
        self.bytes.fetch_add(bytes.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    /// Renders `template` into `rel` (depth decides the root prefix).
    fn page(
        &self,
        rel: &str,
        template: &str,
        nav: &str,
        title: TextV,
        data: Value,
    ) -> Result<(), SiteError> {
        let root = "../".repeat(rel.matches('/').count());
        let ctx = minijinja::value::merge_maps([
            context! { root => root, nav => nav, page_title => title },
            data,
            self.common.clone(),
        ]);
        let html = self
            .env
            .get_template(template)
            .and_then(|t| t.render(ctx))
            .map_err(|e| SiteError::Template {
                name: template.to_string(),
                message: format!("{e:#}"),
            })?;
        self.write(rel, html.as_bytes())?;
        self.pages.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn report(&self) -> Report {
        Report {
            files: self.files.load(Ordering::Relaxed),
            pages: self.pages.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }
}

fn prepare_out(out: &Path) -> Result<(), SiteError> {
    let io = |error| SiteError::Io {
        path: out.to_path_buf(),
        error,
    };
    match std::fs::read_dir(out) {
        Ok(mut rd) => {
            if out.join(MARKER).is_file() {
                std::fs::remove_dir_all(out).map_err(io)?;
            } else if rd.next().is_some() {
                return Err(SiteError::NotEmpty(out.to_path_buf()));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io(e)),
    }
    std::fs::create_dir_all(out).map_err(io)?;
    std::fs::write(
        out.join(MARKER),
        b"This folder is generated by `rocpath site build`; a rebuild replaces it.\n",
    )
    .map_err(io)
}

/// Builds the publishable site of the ledger at `ledger` (already loaded): paths are shown
/// relative to its data root ([`rocpath_ledger::publish`]); with `copy_raw`, the quoted raw
/// files are copied under `out/raw/`.
pub fn build_published(
    ledger: &Path,
    mut l: Loaded,
    out: &Path,
    opts: &Options,
    copy_raw: bool,
) -> Result<(Report, Option<raw::RawReport>), SiteError> {
    let files = copy_raw.then(|| rocpath_ledger::publish::raw_files(ledger, &l));
    rocpath_ledger::publish::publishable(ledger, &mut l);
    let report = build(&l, out, opts)?;
    let raw = match files {
        Some((f, skipped)) => Some(raw::copy_raw(&f, skipped, out)?),
        None => None,
    };
    Ok((report, raw))
}

/// Builds the site of a loaded ledger into `out` (created; a previous rocpath site there is
/// replaced; any other non-empty folder is refused).
pub fn build(l: &Loaded, out: &Path, opts: &Options) -> Result<Report, SiteError> {
    prepare_out(out)?;
    let env = environment()?;
    let m = Model::new(l);
    let common = context! {
        site_title => tv(&l.meta.title),
        version => opts.version.clone(),
        navs => NAVS,
    };
    let w = Writer {
        out: out.to_path_buf(),
        env: &env,
        common,
        files: AtomicUsize::new(1), // the marker
        pages: AtomicUsize::new(0),
        bytes: AtomicU64::new(0),
    };
    w.write("assets/site.css", CSS.as_bytes())?;
    w.write("assets/site.js", JS.as_bytes())?;
    pages::Site::new(l, &m, &w).write_all()?;
    Ok(w.report())
}
