//! What a derivative is asked for, at the bottom of the engine: one
//! [`Request`] per derivative function (function, mode, activities, form),
//! and the [`Derivatives`] interface through which code generating one
//! derivative asks for the derivatives of the functions it calls. The
//! generator ([`crate::generate::gen`]) answers requests with declarations at once and
//! builds their bodies from a worklist, so inner derivatives are lowered
//! independently of the outer ones that call them.

use std::collections::HashMap;

use llvm_sys::prelude::*;

use crate::ir::Value;

/// Shadow globals made so far, per global and lane (vector mode has one
/// shadow per lane). They are zeroed before each
/// top-level derivative call (not inside derivatives, which also run nested).
pub(crate) type ShadowGlobals = std::rc::Rc<std::cell::RefCell<HashMap<(Value, u32), Value>>>;

/// Differentiation mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Tangents, `__enzyme_fwddiff`.
    Forward,
    /// Adjoints, `__enzyme_autodiff`.
    Reverse,
}

impl Mode {
    /// The entry point asking for this mode.
    pub fn entry_name(self) -> &'static str {
        match self {
            Mode::Reverse => "__enzyme_autodiff",
            Mode::Forward => "__enzyme_fwddiff",
        }
    }
}

/// One derivative function. Float parameters are always differentiated
/// (callers pass zero tangents or drop adjoints for constant ones); a float
/// result is active (reverse: seeded; forward: its tangent returned).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Request {
    /// Forward or reverse.
    pub mode: Mode,
    /// The preprocessed function to differentiate.
    pub function: Value,
    /// Per parameter: whether it is a pointer with a shadow.
    pub dup: Vec<bool>,
    /// Reverse mode only: the split form (augmented forward, then the
    /// reverse on resumption), for calls that stay calls (recursion).
    pub split: bool,
    /// `enzyme_strong_zero`: a zero tangent or adjoint times an infinite or
    /// NaN partial contributes zero, not NaN.
    pub strong_zero: bool,
    /// Reverse mode, outermost derivative only (`enzyme_primal_return`):
    /// the primal result is returned after the adjoints.
    pub primal_return: bool,
    /// Vector mode (`enzyme_width, N`): N derivative lanes share one run of
    /// the primal. Forward mode only.
    pub width: u32,
    /// `enzyme_runtime_activity`: a pointer chosen between one with a shadow
    /// and one without gets the primal as its shadow, and derivative memory
    /// accesses through it are guarded by a run-time test.
    pub runtime_activity: bool,
    /// Split form only (`__enzyme_fwdsplit`): resumed with tangents instead
    /// of a seed, the coroutine runs a tangent sweep over the values its
    /// forward part kept (see `replay`) instead of the reverse sweep.
    pub tangent_replay: bool,
    /// Reverse mode, inside an OpenMP parallel region (see `parallel`):
    /// adjoints are added into shadow memory atomically, since other
    /// threads' reverse sweeps may add to the same places.
    pub atomic_adjoints: bool,
    /// Forward mode, outermost derivative only: per parameter, whether it
    /// was given with `enzyme_dupnoneed` (its memory's primal values are
    /// not wanted; see `unneeded_primal`). Empty when none was.
    pub primal_unneeded: Vec<bool>,
    /// Forward mode (`__enzyme_error_estimate`): tangents are estimates of
    /// floating-point error (see `error_estimate`).
    pub error_estimate: bool,
}

impl Request {
    /// The combined (not split) derivative of `function` in `mode`.
    pub fn new(mode: Mode, function: Value, dup: &[bool]) -> Request {
        Request {
            mode,
            function,
            dup: dup.to_vec(),
            split: false,
            strong_zero: false,
            primal_return: false,
            width: 1,
            runtime_activity: false,
            tangent_replay: false,
            atomic_adjoints: false,
            primal_unneeded: Vec::new(),
            error_estimate: false,
        }
    }

    /// The split reverse-mode derivative of `function`.
    pub fn split(function: Value, dup: &[bool]) -> Request {
        Request {
            mode: Mode::Reverse,
            function,
            dup: dup.to_vec(),
            split: true,
            strong_zero: false,
            primal_return: false,
            width: 1,
            runtime_activity: false,
            tangent_replay: false,
            atomic_adjoints: false,
            primal_unneeded: Vec::new(),
            error_estimate: false,
        }
    }

    /// The same request, with strong-zero products or not (callees get
    /// their caller's).
    pub fn strong_zero(self, strong_zero: bool) -> Request {
        Request { strong_zero, ..self }
    }

    /// The same request, with run-time activity or not (callees get their
    /// caller's).
    pub fn runtime_activity(self, runtime_activity: bool) -> Request {
        Request { runtime_activity, ..self }
    }

    /// The same request, with atomic adjoint accumulation into shadow
    /// memory or not (callees get their caller's).
    pub fn atomic_adjoints(self, atomic_adjoints: bool) -> Request {
        Request { atomic_adjoints, ..self }
    }

    /// The same split request, able to run a tangent sweep too.
    pub fn tangent_replay(self, tangent_replay: bool) -> Request {
        Request { tangent_replay, ..self }
    }

    /// The same request, estimating errors or not (callees get their
    /// caller's).
    pub fn error_estimate(self, error_estimate: bool) -> Request {
        Request { error_estimate, ..self }
    }

    /// The same request with `width` derivative lanes.
    pub fn width(self, width: u32) -> Request {
        Request { width, ..self }
    }
}

/// What code generating one derivative needs from the generator.
pub(crate) trait Derivatives {
    /// The module being differentiated.
    fn module(&self) -> LLVMModuleRef;
    /// The derivative function for `r`: declared now, its body made later.
    fn request(&mut self, r: Request) -> Value;
    /// The user's function a preprocessed clone was made from (identity
    /// for other values).
    fn original(&self, v: Value) -> Value;
    /// Shadow globals made so far (shared by every derivative).
    fn shadow_globals(&self) -> ShadowGlobals;
    /// Records a line for the `-v` summary (how a derivative was built).
    fn note(&mut self, line: String);
    /// The speed levers switched off.
    fn ablation(&self) -> Ablation;
}

/// Levers of the derivatives' speed that can be switched off one by one, to
/// measure what each buys (the driver's `ENZYME_ABLATE`, `bench/`). The
/// derivatives are the same either way; all levers are on by default.
#[derive(Debug, Default, Clone, Copy)]
pub struct Ablation {
    /// Tapes start at the capacity they reached in the last call, and large
    /// tape buffers are kept for the next call instead of freed.
    pub no_tape_reuse: bool,
    /// Tapes of loops with a proven bound on their iterations are made once
    /// per call (on the stack when small) instead of growing as they run.
    pub no_bounded_tapes: bool,
    /// The tapes' records are an alias scope of their own, which every other
    /// memory access of a derivative is known not to alias.
    pub no_tape_scope: bool,
    /// Loads of a local array that an earlier loop filled are computed again
    /// from the stored value instead of taped (see `stored_values`).
    pub no_store_forwarding: bool,
    /// Loads of a local array that no write can follow are read again in
    /// the reverse sweep instead of taped (see `analysis::reread::settled_slots`).
    pub no_settled_slots: bool,
    /// Loops whose entries' iterations are known exactly get each entry's
    /// first instance computed in the reverse sweep instead of taped (see
    /// `ir::trip::exact_visits`).
    pub no_exact_visits: bool,
    /// Integer values of a loop that repeat from one entry to the next are
    /// kept once per iteration number instead of once per instance (see
    /// `entry_tables`).
    pub no_entry_tables: bool,
    /// Loops that only add to a sum reaching the result unscaled have each
    /// iteration reversed right after it runs (see `sum_loops`).
    pub no_sum_steps: bool,
}
