//! Memory and type analysis: what each copy moves (`typed_copies`,
//! `copies`), blocks grown with `realloc`, integer bytes and accesses, float
//! bits moved through integers, and `memory`, which decides for every pointer
//! whether it has a shadow and for every value whether it is active.
//! Uses the library recognisers and below.

pub(crate) mod bits;
pub(crate) mod copies;
pub(crate) mod element_steps;
pub(crate) mod grown_blocks;
pub(crate) mod grown_fields;
pub(crate) mod inactive_results;
pub(crate) mod int_accesses;
pub(crate) mod int_bytes;
pub(crate) mod memory;
pub(crate) mod object_classes;
pub(crate) mod read_only_globals;
pub(crate) mod reread;
pub(crate) mod typed_copies;
