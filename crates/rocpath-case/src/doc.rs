//! The documents `rocpath case` prints: `rocpath.case` (case reports, its type in
//! `rocpath-docs`) and
//! `rocpath.case-table` (one row per case), each with the inputs that could not be read
//! ([`rocpath_docs::schema::CASE`], [`rocpath_docs::schema::CASE_TABLE`]).

use crate::table::CaseRow;
use crate::{CaseError, CaseReport};
use rocpath_docs::ErrorItem;
use serde::Serialize;

impl From<&CaseError> for ErrorItem {
    fn from(e: &CaseError) -> ErrorItem {
        let mut item = ErrorItem::at(e.path().display().to_string(), e.message()).line(e.line());
        item.offset = e.offset();
        item
    }
}

pub use rocpath_docs::case::CaseDoc;

/// `rocpath.case`: the document of reports and read errors.
pub fn case_doc(cases: Vec<CaseReport>, errors: &[CaseError]) -> CaseDoc {
    CaseDoc {
        cases,
        errors: errors.iter().map(Into::into).collect(),
    }
}

/// `rocpath.case-table`: one row per case.
#[derive(Debug, Serialize)]
pub struct TableDoc<'a> {
    /// The rows.
    pub rows: &'a [CaseRow],
    /// Inputs that could not be read.
    pub errors: Vec<ErrorItem>,
}

impl<'a> TableDoc<'a> {
    /// The document of rows and read errors.
    pub fn new(rows: &'a [CaseRow], errors: &[CaseError]) -> Self {
        TableDoc {
            rows,
            errors: errors.iter().map(Into::into).collect(),
        }
    }
}
