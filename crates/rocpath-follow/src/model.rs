//! The trail: hops, their kinds and evidence, and the `rocpath.follow/1` document — defined in
//! `rocpath-docs`, where every reader of the document finds them.

pub use rocpath_docs::follow::*;
