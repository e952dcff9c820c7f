//! The case report: what one run did, as typed observations, each with its evidence. The
//! types are the `rocpath.case/1` document's, defined in `rocpath-docs` (`case`); this crate
//! reads logs into them.

pub use rocpath_docs::case::*;
