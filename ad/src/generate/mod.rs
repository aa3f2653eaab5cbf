//! Generation: the derivative functions, forward (`forward`, `tangent`,
//! `lanes` for vector mode) and reverse (`reverse` with its tape, stored
//! values, replay, split mode, checkpointing, parallel regions and sum
//! loops), custom-rule calls, error estimates and gradient logging; `gen`
//! answers derivative requests. Uses the preparation and below.

pub(crate) mod adjoints;
pub(crate) mod body;
pub(crate) mod entry_tables;
pub(crate) mod error_estimate;
pub(crate) mod forward;
pub(crate) mod freed_shadows;
pub(crate) mod gen;
pub(crate) mod grad_log;
pub(crate) mod lanes;
pub(crate) mod reverse;
pub(crate) mod rule_calls;
pub(crate) mod split;
pub(crate) mod tangent;
pub(crate) mod tape_buffer;
pub(crate) mod unneeded_primal;
