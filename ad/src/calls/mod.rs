//! What each instruction and call is to differentiation (`classify`, an
//! exhaustive match on opcodes), OpenMP's runtime and how its regions are
//! outlined (`parallel`), and dispatchers for calls through function pointers.
//! Uses the surface (registrations say what a call is) and below.

pub(crate) mod classify;
pub(crate) mod dispatch;
pub(crate) mod parallel;
