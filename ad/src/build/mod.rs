//! Code building: the emitter every generator writes through (instructions,
//! rule expressions, copies of primal code) and the runtime helpers it
//! declares into the module (shadow allocation, adjoint moves, checks).
//! Uses the IR view and the rule table.

pub(crate) mod emit;
pub(crate) mod runtime;
