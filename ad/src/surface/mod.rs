//! Enzyme's surface as a program spells it: the entry points and their
//! argument markers, registrations (inactive functions and globals,
//! function-like and allocation-like functions, custom rules), the result
//! shapes, checkpointing's options, and what a derivative request is (mode,
//! activities). Parsing and lowering of what the program says; no analysis.
//! Uses the IR view and code building.

pub(crate) mod checkpoint;
pub(crate) mod custom;
pub(crate) mod entry_points;
pub(crate) mod inactive_reads;
pub(crate) mod markers;
pub(crate) mod registry;
pub(crate) mod request;
pub(crate) mod results;
