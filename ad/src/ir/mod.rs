//! The IR view: typed helpers over LLVM's C API (`llvm`, re-exported here),
//! the CFG, debug locations and names, what a value's type and kind are, and
//! small analyses that read nothing but the IR (where a pointer comes from,
//! affine addresses, trip counts, undefined values, the data layout's facts).
//! Uses only the rule table (`crate::rules`) and LLVM.

mod llvm;
pub(crate) use llvm::*;

pub(crate) mod affine;
pub(crate) mod attrs;
pub(crate) mod cfg;
pub(crate) mod compared_reads;
pub(crate) mod debug_info;
pub(crate) mod debug_loc;
pub mod diag;
pub(crate) mod edits;
pub(crate) mod int_pointers;
pub(crate) mod kind;
pub(crate) mod layout;
pub(crate) mod names;
pub mod progress;
pub(crate) mod reach;
pub(crate) mod roots;
#[cfg(test)]
pub(crate) mod test_ir;
pub(crate) mod trip;
pub(crate) mod undefined;
