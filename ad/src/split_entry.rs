//! Enzyme's split reverse mode at the user's call sites. The function's
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

use llvm_sys::core::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMGetModuleDataLayout};

use crate::body::{struct_type, SplitIo};
use crate::emit::Emitter;
use crate::entry_points::SplitPart;
use crate::ir::{self, Type, Value};
use crate::markers::MarkerCall;
use crate::runtime::libc_function;

/// The tape: `{ coroutine handle, list of kept shadows, the shadows given to
/// the forward part, the split derivative's buffer }`.
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
    let shadows = plan.args.iter().filter(|a| a.shadow.is_some()).count() as u32;
    unsafe {
        let ptr = LLVMPointerTypeInContext(ctx, 0);
        let ty = struct_type(ctx, &[ptr, ptr, LLVMArrayType2(ptr, shadows as u64), io.ty]);
        Tape { ty, io, shadows }
    }
}

/// Replaces a split-mode call: `d` is the function's split derivative (none
/// for `__enzyme_augmentsize`).
pub(crate) fn rewrite(module: llvm_sys::prelude::LLVMModuleRef, plan: &MarkerCall, d: Option<Value>) {
    let e = Emitter::new(module);
    e.before(plan.call);
    let tape = tape_of(e.ctx, plan);
    let value = match plan.split.expect("a split-mode call") {
        SplitPart::Size => Some(unsafe {
            let bytes = LLVMABISizeOfType(LLVMGetModuleDataLayout(module), tape.ty);
            LLVMConstInt(ir::type_of(plan.call), bytes, 0)
        }),
        SplitPart::Augment => augment(&e, plan, &tape, d.expect("the split derivative")),
        SplitPart::Reverse => reverse(&e, plan, &tape),
    };
    crate::keep_invoke_edges(&e, plan.call);
    crate::finish_call(&e, plan, value);
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
                    abort_if(e, small, "enzyme-rs: the buffer given with enzyme_allocated is smaller than the tape (see __enzyme_augmentsize)");
                }
                p
            }
            None => e.call(libc_function(module, "malloc"), &mut [size]),
        };
        e.store(LLVMConstNull(ptr), field(e, tape, t, LIST));
        let io = field(e, tape, t, IO);
        let list = field(e, tape, t, LIST);
        e.store(list, tape.io.field(e, io, tape.io.freed));
        let (mut args, shadows) = crate::derivative_args(e, plan);
        for (j, s) in shadows.iter().enumerate() {
            e.store(*s, shadow_slot(e, tape, t, j as u32));
        }
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
        let fields = crate::results::augment_fields(target).expect("checked when parsing");
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
    let module = e.module;
    unsafe {
        let ptr = LLVMPointerTypeInContext(e.ctx, 0);
        let t = ir::operand(plan.call, plan.tape.expect("parsed"));
        // The reverse sweep uses the shadows the forward part was given.
        let (_, shadows) = crate::derivative_args(e, plan);
        if shadows.len() as u32 == tape.shadows {
            let mut differ = LLVMConstInt(LLVMInt1TypeInContext(e.ctx), 0, 0);
            for (j, s) in shadows.iter().enumerate() {
                let kept = e.load(ptr, shadow_slot(e, tape, t, j as u32));
                let ne = LLVMBuildICmp(e.b, llvm_sys::LLVMIntPredicate::LLVMIntNE, kept, *s, c"".as_ptr());
                differ = LLVMBuildOr(e.b, differ, ne, c"".as_ptr());
            }
            abort_if(
                e,
                differ,
                "enzyme-rs: __enzyme_reverse was given other shadows than __enzyme_augmentfwd (pass the same ones to both)",
            );
        }
        let io = field(e, tape, t, IO);
        if let Some(k) = tape.io.seed {
            e.store(crate::seed_value(e, plan), tape.io.field(e, io, k));
        }
        let h = e.load(ptr, field(e, tape, t, HANDLE));
        e.intrinsic("llvm.coro.resume", &[], &mut [h]);
        let results = crate::returned_adjoints(plan)
            .into_iter()
            .map(|(k, t)| e.load(t, tape.io.field(e, io, tape.io.adjoints + k)))
            .collect();
        let free_list = crate::runtime::free_shadow_list_function(module);
        e.call(free_list, &mut [field(e, tape, t, LIST)]);
        if plan.allocated.is_none() && !is_explicit_tape(plan) && !plan.no_free {
            e.call(libc_function(module, "free"), &mut [t]);
        }
        crate::results_value(e, plan, results)
    }
}

/// Whether the tape came with `enzyme_tape` (the caller's memory) rather
/// than as `__enzyme_reverse`'s last argument (what `__enzyme_augmentfwd`
/// allocated).
fn is_explicit_tape(plan: &MarkerCall) -> bool {
    plan.tape.is_some_and(|k| k + 1 != ir::call_arg_count(plan.call))
}

/// Prints `message` and aborts when `cond` holds at run time.
fn abort_if(e: &Emitter, cond: Value, message: &str) {
    unsafe {
        let msg = ir::cstring(message);
        let s = LLVMBuildGlobalString(e.b, msg.as_ptr(), c"enzyme_rs.message".as_ptr());
        let check = crate::runtime::abort_if_function(e.module);
        e.call(check, &mut [cond, s]);
    }
}
