//! Before generation: `prep` clones and simplifies the functions to
//! differentiate (OpenMP atomics lowered, inert calls kept as calls), and
//! `checks` validates every instruction of the clones, turning anything the
//! engine cannot differentiate into a diagnostic. Uses the analyses and below.

pub(crate) mod checks;
pub(crate) mod inert_calls;
pub(crate) mod omp_atomics;
pub(crate) mod prep;
