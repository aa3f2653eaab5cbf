//! Enzyme's split mode at the user's call sites. The function's
//! split derivative is the coroutine calls that stay calls use (see
//! `split`): `__enzyme_augmentfwd` runs its forward part and returns a tape
//! holding the coroutine's handle; `__enzyme_reverse` writes the result's
//! seed into the tape, resumes the coroutine (the reverse sweep, which then
//! frees its frame) and returns the adjoints; `__enzyme_augmentsize` is the
//! tape's size. The tape is heap memory the reverse call frees, or the
//! caller's buffer (`enzyme_allocated, n, enzyme_tape, p`).
//!
//! The reverse part works on the shadows the forward part was given: the
//! reverse call must pass the same ones, which it checks at run time.
//!
//! `__enzyme_fwdsplit` (split forward mode) resumes the same coroutine for
//! its tangent sweep instead (see `replay`), with shadows of its own.

use llvm_sys::core::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout};

use crate::build::emit::Emitter;
use crate::build::runtime::libc_function;
use crate::generate::body::{struct_type, ReplayIo, SplitIo};
use crate::ir::{self, Type, Value};
use crate::surface::entry_points::SplitPart;
use crate::surface::markers::MarkerCall;

/// The tape: `{ coroutine handle, list of kept shadows, the shadows given to
/// the reverse call (read by the reverse sweep, see `split`), the split
/// derivative's buffer }`.
struct Tape {
    ty: Type,
    io: SplitIo,
    shadows: u32,
}

const HANDLE: u32 = 0;
const LIST: u32 = 1;
const SHADOWS: u32 = 2;
const IO: u32 = 3;

fn tape_of(ctx: llvm_sys::prelude::LLVMContextRef, plan: &MarkerCall) -> Tape {
    let io = SplitIo::of(ctx, plan.function);
    // Pointers' shadows (a float's `shadow` in forward mode is its tangent).
    let shadows = plan.dup_mask().iter().filter(|d| **d).count() as u32;
    unsafe {
        let ptr = LLVMPointerTypeInContext(ctx, 0);
        let ty = struct_type(ctx, &[ptr, ptr, LLVMArrayType2(ptr, shadows as u64), io.ty]);
        Tape { ty, io, shadows }
    }
}

/// Replaces a split-mode call: `d` is the function's split derivative (none
/// for `__enzyme_augmentsize`).
pub(crate) fn rewrite(
    module: llvm_sys::prelude::LLVMModuleRef,
    plan: &MarkerCall,
    d: Option<Value>,
    shadow_globals: &[Value],
) {
    let e = Emitter::new(module);
    e.before(plan.call);
    // The globals' derivatives start at zero where the forward part and the
    // tangent sweep start, as a combined call's do; not at the reverse call:
    // between an augmented call and its reverse they hold nothing, and the
    // adjoint a later call's reverse left for the state an earlier call wrote
    // is what that earlier call's reverse needs (N forward calls, then their
    // reverses in the opposite order).
    if matches!(plan.split, Some(SplitPart::Augment | SplitPart::Tangent)) {
        crate::rewrite::call_site::zero_shadow_globals(&e, shadow_globals);
    }
    let tape = tape_of(e.ctx, plan);
    let value = match plan.split.expect("a split-mode call") {
        SplitPart::Size => Some(unsafe {
            let bytes = LLVMABISizeOfType(LLVMGetModuleDataLayout(module), tape.ty);
            LLVMConstInt(ir::type_of(plan.call), bytes, 0)
        }),
        SplitPart::Augment => augment(&e, plan, &tape, d.expect("the split derivative")),
        SplitPart::Reverse => reverse(&e, plan, &tape),
        SplitPart::Tangent => tangent(&e, plan, &tape),
    };
    crate::build::emit::keep_invoke_edges(&e, plan.call);
    crate::rewrite::call_site::finish_call(&e, plan, value);
}

fn field(e: &Emitter, tape: &Tape, t: Value, k: u32) -> Value {
    unsafe { LLVMBuildStructGEP2(e.b, tape.ty, t, k, c"".as_ptr()) }
}

fn shadow_slot(e: &Emitter, tape: &Tape, t: Value, j: u32) -> Value {
    unsafe {
        let i32t = LLVMInt32TypeInContext(e.ctx);
        let mut idx =
            [LLVMConstInt(i32t, 0, 0), LLVMConstInt(i32t, SHADOWS as u64, 0), LLVMConstInt(i32t, j as u64, 0)];
        LLVMBuildGEP2(e.b, tape.ty, t, idx.as_mut_ptr(), 3, c"".as_ptr())
    }
}

fn augment(e: &Emitter, plan: &MarkerCall, tape: &Tape, d: Value) -> Option<Value> {
    let module = e.module;
    unsafe {
        let ptr = LLVMPointerTypeInContext(e.ctx, 0);
        let size = LLVMSizeOf(tape.ty);
        let t = match plan.tape {
            Some(k) => {
                let p = ir::operand(plan.call, k);
                if let Some(n) = plan.allocated.map(|k| ir::operand(plan.call, k)) {
                    // The caller's buffer must hold the tape.
                    let n = LLVMBuildIntCast2(e.b, n, LLVMInt64TypeInContext(e.ctx), 0, c"".as_ptr());
                    let small = LLVMBuildICmp(e.b, llvm_sys::LLVMIntPredicate::LLVMIntULT, n, size, c"".as_ptr());
                    e.abort_if(small, "enzyme-rs: the buffer given with enzyme_allocated is smaller than the tape (see __enzyme_augmentsize)");
                }
                p
            }
            None => e.call(libc_function(module, "malloc"), &mut [size]),
        };
        e.store(LLVMConstNull(ptr), field(e, tape, t, LIST));
        let io = field(e, tape, t, IO);
        // Resumed by `__enzyme_reverse` unless `__enzyme_fwdsplit` says otherwise.
        e.store(LLVMConstNull(ptr), tape.io.field(e, io, tape.io.replay));
        e.store(LLVMConstNull(ptr), tape.io.field(e, io, tape.io.shadows));
        let list = field(e, tape, t, LIST);
        e.store(list, tape.io.field(e, io, tape.io.freed));
        let (mut args, _) = crate::rewrite::call_site::derivative_args(e, plan);
        args.push(io);
        let h = e.call(d, &mut args);
        e.store(h, field(e, tape, t, HANDLE));
        // What the caller declared: nothing, the tape, or the tape and the result.
        let target = plan.sret.map(|(_, ty)| ty).unwrap_or_else(|| ir::type_of(plan.call));
        if ir::is_void(target) {
            return None;
        }
        if ir::is_pointer(target) {
            return Some(t);
        }
        let mut agg = LLVMGetUndef(target);
        let fields = crate::surface::results::augment_fields(target).expect("checked when parsing");
        for (k, ft) in fields.iter().enumerate() {
            let v = if ir::is_pointer(*ft) {
                t
            } else {
                let r = tape.io.result.expect("a float result");
                e.load(*ft, tape.io.field(e, io, r))
            };
            agg = e.insert(agg, v, k as u32);
        }
        Some(agg)
    }
}

fn reverse(e: &Emitter, plan: &MarkerCall, tape: &Tape) -> Option<Value> {
    unsafe {
        let ptr = LLVMPointerTypeInContext(e.ctx, 0);
        let t = ir::operand(plan.call, plan.tape.expect("parsed"));
        // The reverse sweep is told the shadows given here (it uses them where
        // it can, and stops with a message where it cannot: see `split`).
        let (_, shadows) = crate::rewrite::call_site::derivative_args(e, plan);
        let io = field(e, tape, t, IO);
        if shadows.len() as u32 == tape.shadows && !shadows.is_empty() {
            for (j, s) in shadows.iter().enumerate() {
                e.store(*s, shadow_slot(e, tape, t, j as u32));
            }
            e.store(shadow_slot(e, tape, t, 0), tape.io.field(e, io, tape.io.shadows));
        }
        if let Some(k) = tape.io.seed {
            e.store(crate::rewrite::call_site::seed_value(e, plan), tape.io.field(e, io, k));
        }
        let h = e.load(ptr, field(e, tape, t, HANDLE));
        e.intrinsic("llvm.coro.resume", &[], &mut [h]);
        let results = crate::rewrite::call_site::returned_adjoints(plan)
            .into_iter()
            .map(|(k, t)| e.load(t, tape.io.field(e, io, tape.io.adjoints + k)))
            .collect();
        release_tape(e, plan, tape, t);
        crate::rewrite::call_site::results_value(e, plan, results)
    }
}

/// `__enzyme_fwdsplit`: the tangents and shadows go into a [`ReplayIo`]
/// buffer named in the tape, the coroutine resumes with its tangent sweep
/// (over the primal values its forward part kept, not the arguments given
/// here) and the result's tangent comes back. The shadows may differ from
/// those `__enzyme_augmentfwd` was given (Enzyme's users pass null ones there).
fn tangent(e: &Emitter, plan: &MarkerCall, tape: &Tape) -> Option<Value> {
    unsafe {
        let t = ir::operand(plan.call, plan.tape.expect("parsed"));
        let layout = ReplayIo::of(e.ctx, plan.function, &plan.dup_mask());
        let rio = entry_alloca(e, layout.ty);
        // Forward mode's arguments: each primal, followed by its tangent or shadow.
        let (args, _) = crate::rewrite::call_site::derivative_args(e, plan);
        let mut k = 0;
        for field in &layout.params {
            k += 1;
            if let Some(field) = field {
                e.store(args[k], layout.field(e, rio, *field));
                k += 1;
            }
        }
        let io = field(e, tape, t, IO);
        e.store(rio, tape.io.field(e, io, tape.io.replay));
        let h = e.load(LLVMPointerTypeInContext(e.ctx, 0), field(e, tape, t, HANDLE));
        e.intrinsic("llvm.coro.resume", &[], &mut [h]);
        let results = match layout.result {
            Some(r) => vec![e.load(ir::return_type(plan.function), layout.field(e, rio, r))],
            None => Vec::new(),
        };
        release_tape(e, plan, tape, t);
        crate::rewrite::call_site::results_value(e, plan, results)
    }
}

/// After the coroutine's second part: the shadows it kept for later are
/// freed, and the tape too unless it is the caller's.
fn release_tape(e: &Emitter, plan: &MarkerCall, tape: &Tape, t: Value) {
    let free_list = crate::build::runtime::free_shadow_list_function(e.module);
    e.call(free_list, &mut [field(e, tape, t, LIST)]);
    if plan.allocated.is_none() && !is_explicit_tape(plan) && !plan.no_free {
        e.call(libc_function(e.module, "free"), &mut [t]);
    }
}

/// A stack slot of type `t` in the entry block of the function being
/// rewritten (allocated once, even when the call is in a loop).
fn entry_alloca(e: &Emitter, t: Type) -> Value {
    unsafe {
        let f = LLVMGetBasicBlockParent(e.current_block());
        let entry = LLVMGetEntryBasicBlock(f);
        let b = LLVMCreateBuilderInContext(e.ctx);
        LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(entry));
        let a = LLVMBuildAlloca(b, t, c"replay.io".as_ptr());
        LLVMDisposeBuilder(b);
        a
    }
}

/// Whether the tape came with `enzyme_tape` (the caller's memory) rather
/// than as `__enzyme_reverse`'s last argument (what `__enzyme_augmentfwd`
/// allocated).
fn is_explicit_tape(plan: &MarkerCall) -> bool {
    plan.tape.is_some_and(|k| k + 1 != ir::call_arg_count(plan.call))
}

/// Whether the split derivative an `__enzyme_augmentfwd` call runs needs a
/// tangent sweep: some `__enzyme_fwdsplit` call of the same function with
/// the same shadows may be given its tape.
pub(crate) fn tangent_sweep_wanted(augment: &MarkerCall, round: &[MarkerCall]) -> bool {
    round.iter().any(|p| p.split == Some(SplitPart::Tangent) && same_derivative(p, augment))
}

/// Whether two split-mode calls use the same split derivative.
pub(crate) fn same_derivative(a: &MarkerCall, b: &MarkerCall) -> bool {
    a.function == b.function && a.dup_mask() == b.dup_mask()
}

/// What split forward mode cannot do yet, found before anything is
/// generated: its tangent sweep replays the function's own code (and
/// resumes the split derivatives of calls that stay calls, for recursion),
/// so parallel regions and exception edges are refused.
pub(crate) fn tangent_limits(
    plan: &MarkerCall,
    round: &[MarkerCall],
    functions: &[Value],
    is_clone: &dyn Fn(Value) -> bool,
) -> Vec<crate::ir::diag::Diagnostic> {
    use crate::calls::classify::{classify, Kind};
    use crate::ir::names::display_name;
    use crate::surface::markers::at_call;
    let fname = display_name(&ir::name(plan.function));
    let mut diags = Vec::new();
    if !round.iter().any(|p| p.split == Some(SplitPart::Augment) && same_derivative(p, plan)) {
        diags.push(
            at_call(
                plan.call,
                format!("`__enzyme_fwdsplit` of `{fname}` has no `__enzyme_augmentfwd` to take its tape from"),
            )
            .with_help(
                "the tape comes from an `__enzyme_augmentfwd` call of the same function with the same activities \
                     (a shadow for the same pointer arguments)",
            ),
        );
    }
    if plan.runtime_activity {
        diags.push(
            at_call(plan.call, "run-time activity is not supported in split forward mode yet".into())
                .with_help("use __enzyme_fwddiff, or give every pointer argument its shadow"),
        );
    }
    for i in functions.iter().flat_map(|f| ir::blocks(*f)).flat_map(ir::instructions) {
        let what = match classify(i) {
            Kind::Call(c) if is_clone(c) && crate::calls::parallel::is_region(i) => {
                let c = ir::strip_to_function(c).unwrap_or(c);
                Some(format!("an OpenMP parallel region (`{}`)", display_name(&ir::name(c))))
            }
            _ if ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMInvoke => Some("a call that may throw (`invoke`)".into()),
            _ => None,
        };
        if let Some(what) = what {
            let mut d = at_call(
                plan.call,
                format!("`{fname}` makes {what}: not supported in split forward mode (`__enzyme_fwdsplit`) yet"),
            )
            .with_help("use __enzyme_fwddiff, which runs the function again with its tangents");
            if let Some(l) = ir::location(i) {
                d = d.with_note(format!("the call is at {l}"));
            }
            diags.push(d);
        }
    }
    diags
}
