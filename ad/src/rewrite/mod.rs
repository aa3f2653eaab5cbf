//! After generation: each entry-point call becomes a call of its
//! derivative (`call_site`, `split_entry` for split mode), and the program-level
//! rewrites `__enzyme_batch` and `__enzyme_todense` ask for.
//! Uses generation and below.

pub(crate) mod batch;
pub(crate) mod call_site;
pub(crate) mod split_entry;
pub(crate) mod todense;
