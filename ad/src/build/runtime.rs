//! Helper functions derivatives call at run time, made once per module:
//! moving the adjoints of copied floats, and the C library
//! functions they use.

use llvm_sys::core::*;
use llvm_sys::prelude::*;

use crate::ir::kind::Elem;
use crate::ir::{self, Value};

const EMPTY: *const std::ffi::c_char = c"".as_ptr();

/// A function of the module by name, if it exists.
pub(crate) fn existing(module: LLVMModuleRef, name: &str) -> Option<Value> {
    let cname = ir::cstring(name);
    let f = unsafe { LLVMGetNamedFunction(module, cname.as_ptr()) };
    (!f.is_null()).then_some(f)
}

/// Declares `name` with the given result and parameter types.
pub(crate) fn add_function(module: LLVMModuleRef, name: &str, result: ir::Type, params: &mut [ir::Type]) -> Value {
    let cname = ir::cstring(name);
    unsafe {
        let fty = LLVMFunctionType(result, params.as_mut_ptr(), params.len() as u32, 0);
        LLVMAddFunction(module, cname.as_ptr(), fty)
    }
}

/// A function of the module by name (a registered deallocation function),
/// or one of the C library's (see [`libc_function`]).
pub(crate) fn function_named(module: LLVMModuleRef, name: &str) -> Value {
    existing(module, name).unwrap_or_else(|| libc_function(module, name))
}

/// `malloc`, `realloc`, `free`, `abort`, `puts`, `fflush` or a C++ `operator
/// delete`, declared in the module if needed.
pub(crate) fn libc_function(module: LLVMModuleRef, name: &str) -> Value {
    if let Some(f) = existing(module, name) {
        return f;
    }
    let (ptr_t, void_t, i64t) = unsafe {
        let ctx = LLVMGetModuleContext(module);
        (LLVMPointerTypeInContext(ctx, 0), LLVMVoidTypeInContext(ctx), LLVMInt64TypeInContext(ctx))
    };
    match name {
        "realloc" => add_function(module, name, ptr_t, &mut [ptr_t, i64t]),
        "malloc" => add_function(module, name, ptr_t, &mut [i64t]),
        "malloc_usable_size" => add_function(module, name, i64t, &mut [ptr_t]),
        "free" | "_ZdlPv" | "_ZdaPv" => add_function(module, name, void_t, &mut [ptr_t]),
        "_ZdlPvSt11align_val_t" | "_ZdaPvSt11align_val_t" => add_function(module, name, void_t, &mut [ptr_t, i64t]),
        "memalign" => add_function(module, name, ptr_t, &mut [i64t, i64t]),
        "strlen" => add_function(module, name, i64t, &mut [ptr_t]),
        "abort" => add_function(module, name, void_t, &mut []),
        "sched_yield" => {
            let i32t = unsafe { LLVMInt32TypeInContext(LLVMGetModuleContext(module)) };
            add_function(module, name, i32t, &mut [])
        }
        "puts" | "fflush" => {
            let i32t = unsafe { LLVMInt32TypeInContext(LLVMGetModuleContext(module)) };
            add_function(module, name, i32t, &mut [ptr_t])
        }
        _ => unreachable!("only the libc functions generated code calls"),
    }
}

/// `enzyme_rs.check_shadow(ptr primal, ptr shadow, ptr message)`, made once
/// per module: when the shadow is null and the primal is not, writes the
/// message to standard error and aborts (a null shadow would be written
/// through inside the derivative, a segmentation fault with nothing said).
/// Small and inlined by the post-AD pipeline: two comparisons per argument
/// and call.
pub(crate) fn check_shadow_function(module: LLVMModuleRef) -> Value {
    const NAME: &str = "enzyme_rs.check_shadow";
    if let Some(f) = existing(module, NAME) {
        return f;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let (ptr_t, void_t) = (LLVMPointerTypeInContext(ctx, 0), LLVMVoidTypeInContext(ctx));
        let (i32t, i64t) = (LLVMInt32TypeInContext(ctx), LLVMInt64TypeInContext(ctx));
        let f = add_function(module, NAME, void_t, &mut [ptr_t, ptr_t, ptr_t]);
        LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let b = LLVMCreateBuilderInContext(ctx);
        let entry = LLVMAppendBasicBlockInContext(ctx, f, c"entry".as_ptr());
        let fail = LLVMAppendBasicBlockInContext(ctx, f, c"null_shadow".as_ptr());
        let ok = LLVMAppendBasicBlockInContext(ctx, f, c"ok".as_ptr());
        LLVMPositionBuilderAtEnd(b, entry);
        let (primal, shadow, message) = (LLVMGetParam(f, 0), LLVMGetParam(f, 1), LLVMGetParam(f, 2));
        let no_shadow = LLVMBuildIsNull(b, shadow, c"".as_ptr());
        let has_primal = LLVMBuildIsNotNull(b, primal, c"".as_ptr());
        let bad = LLVMBuildAnd(b, no_shadow, has_primal, c"".as_ptr());
        LLVMBuildCondBr(b, bad, fail, ok);
        LLVMPositionBuilderAtEnd(b, fail);
        let write = match existing(module, "write") {
            Some(w) => w,
            None => add_function(module, "write", i64t, &mut [i32t, ptr_t, i64t]),
        };
        let strlen = libc_function(module, "strlen");
        let len = LLVMBuildCall2(b, ir::function_type(strlen), strlen, [message].as_mut_ptr(), 1, c"".as_ptr());
        let mut args = [LLVMConstInt(i32t, 2, 0), message, len];
        LLVMBuildCall2(b, ir::function_type(write), write, args.as_mut_ptr(), 3, c"".as_ptr());
        let abort = libc_function(module, "abort");
        LLVMBuildCall2(b, ir::function_type(abort), abort, std::ptr::null_mut(), 0, c"".as_ptr());
        LLVMBuildUnreachable(b);
        LLVMPositionBuilderAtEnd(b, ok);
        LLVMBuildRetVoid(b);
        LLVMDisposeBuilder(b);
        f
    }
}

/// `enzyme_rs.nop()`: does nothing (an invoke of it keeps an invoke's edges
/// where the call it replaced is gone).
pub(crate) fn nop_function(module: LLVMModuleRef) -> Value {
    const NAME: &str = "enzyme_rs.nop";
    if let Some(f) = existing(module, NAME) {
        return f;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let f = add_function(module, NAME, LLVMVoidTypeInContext(ctx), &mut []);
        LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let b = LLVMCreateBuilderInContext(ctx);
        LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, c"entry".as_ptr()));
        LLVMBuildRetVoid(b);
        LLVMDisposeBuilder(b);
        f
    }
}

/// `enzyme_rs.wait_turn(ptr turn, i64 want)`, made once per module: waits
/// (yielding the processor) until the counter at `turn` holds `want`, with
/// acquire ordering (see `parallel::ORDERED`).
pub(crate) fn wait_turn_function(module: LLVMModuleRef) -> Value {
    const NAME: &str = "enzyme_rs.wait_turn";
    if let Some(f) = existing(module, NAME) {
        return f;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let (ptr, i64t) = (LLVMPointerTypeInContext(ctx, 0), LLVMInt64TypeInContext(ctx));
        let f = add_function(module, NAME, LLVMVoidTypeInContext(ctx), &mut [ptr, i64t]);
        LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let p = ir::params(f);
        let b = LLVMCreateBuilderInContext(ctx);
        let entry = LLVMAppendBasicBlockInContext(ctx, f, c"entry".as_ptr());
        let test = LLVMAppendBasicBlockInContext(ctx, f, c"test".as_ptr());
        let wait = LLVMAppendBasicBlockInContext(ctx, f, c"wait".as_ptr());
        let done = LLVMAppendBasicBlockInContext(ctx, f, c"done".as_ptr());
        LLVMPositionBuilderAtEnd(b, entry);
        LLVMBuildBr(b, test);
        LLVMPositionBuilderAtEnd(b, test);
        let v = LLVMBuildLoad2(b, i64t, p[0], EMPTY);
        LLVMSetOrdering(v, llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingAcquire);
        LLVMSetAlignment(v, 8);
        let ok = LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntEQ, v, p[1], EMPTY);
        LLVMBuildCondBr(b, ok, done, wait);
        LLVMPositionBuilderAtEnd(b, wait);
        let y = libc_function(module, "sched_yield");
        LLVMBuildCall2(b, ir::function_type(y), y, std::ptr::null_mut(), 0, EMPTY);
        LLVMBuildBr(b, test);
        LLVMPositionBuilderAtEnd(b, done);
        LLVMBuildRetVoid(b);
        LLVMDisposeBuilder(b);
        f
    }
}

/// `enzyme_rs.abort_if(i1 cond, ptr message)`, made once per module: when
/// `cond` holds, prints the message and aborts (run-time checks of generated
/// code, in a function so the caller's blocks stay as they are).
pub(crate) fn abort_if_function(module: LLVMModuleRef) -> Value {
    const NAME: &str = "enzyme_rs.abort_if";
    if let Some(f) = existing(module, NAME) {
        return f;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let ptr = LLVMPointerTypeInContext(ctx, 0);
        let i1 = LLVMInt1TypeInContext(ctx);
        let f = add_function(module, NAME, LLVMVoidTypeInContext(ctx), &mut [i1, ptr]);
        LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let p = ir::params(f);
        let b = LLVMCreateBuilderInContext(ctx);
        let entry = LLVMAppendBasicBlockInContext(ctx, f, c"entry".as_ptr());
        let fail = LLVMAppendBasicBlockInContext(ctx, f, c"fail".as_ptr());
        let ok = LLVMAppendBasicBlockInContext(ctx, f, c"ok".as_ptr());
        LLVMPositionBuilderAtEnd(b, entry);
        LLVMBuildCondBr(b, p[0], fail, ok);
        LLVMPositionBuilderAtEnd(b, fail);
        let [puts, fflush, abort] = ["puts", "fflush", "abort"].map(|n| libc_function(module, n));
        LLVMBuildCall2(b, ir::function_type(puts), puts, [p[1]].as_mut_ptr(), 1, EMPTY);
        LLVMBuildCall2(b, ir::function_type(fflush), fflush, [LLVMConstNull(ptr)].as_mut_ptr(), 1, EMPTY);
        LLVMBuildCall2(b, ir::function_type(abort), abort, std::ptr::null_mut(), 0, EMPTY);
        LLVMBuildUnreachable(b);
        LLVMPositionBuilderAtEnd(b, ok);
        LLVMBuildRetVoid(b);
        LLVMDisposeBuilder(b);
        f
    }
}

/// `enzyme_rs.free_shadows(ptr head_slot)`, made once per module: frees
/// every shadow in the list of kept shadows (`freed_shadows`) with its
/// deallocation function, and the list's nodes, leaving the slot null.
/// A node is `{ next, shadow, deallocation function }`.
pub(crate) fn free_shadow_list_function(module: LLVMModuleRef) -> Value {
    const NAME: &str = "enzyme_rs.free_shadows";
    if let Some(f) = existing(module, NAME) {
        return f;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let ptr = LLVMPointerTypeInContext(ctx, 0);
        let i8t = LLVMInt8TypeInContext(ctx);
        let i64t = LLVMInt64TypeInContext(ctx);
        let void = LLVMVoidTypeInContext(ctx);
        let f = add_function(module, NAME, void, &mut [ptr]);
        LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let head = ir::params(f)[0];
        let b = LLVMCreateBuilderInContext(ctx);
        let entry = LLVMAppendBasicBlockInContext(ctx, f, c"entry".as_ptr());
        let test = LLVMAppendBasicBlockInContext(ctx, f, c"test".as_ptr());
        LLVMPositionBuilderAtEnd(b, entry);
        LLVMBuildBr(b, test);
        let body = LLVMAppendBasicBlockInContext(ctx, f, c"free".as_ptr());
        let done = LLVMAppendBasicBlockInContext(ctx, f, c"done".as_ptr());
        LLVMPositionBuilderAtEnd(b, test);
        let node = LLVMBuildLoad2(b, ptr, head, EMPTY);
        let end = LLVMBuildIsNull(b, node, EMPTY);
        LLVMBuildCondBr(b, end, done, body);
        LLVMPositionBuilderAtEnd(b, body);
        let field = |offset: u64| {
            let mut off = [LLVMConstInt(i64t, offset, 0)];
            LLVMBuildGEP2(b, i8t, node, off.as_mut_ptr(), 1, EMPTY)
        };
        let shadow = LLVMBuildLoad2(b, ptr, field(8), EMPTY);
        let dealloc = LLVMBuildLoad2(b, ptr, field(16), EMPTY);
        let fty = LLVMFunctionType(void, [ptr].as_mut_ptr(), 1, 0);
        LLVMBuildCall2(b, fty, dealloc, [shadow].as_mut_ptr(), 1, EMPTY);
        let next = LLVMBuildLoad2(b, ptr, node, EMPTY);
        let free = libc_function(module, "free");
        LLVMBuildCall2(b, ir::function_type(free), free, [node].as_mut_ptr(), 1, EMPTY);
        LLVMBuildStore(b, next, head);
        LLVMBuildBr(b, test);
        LLVMPositionBuilderAtEnd(b, done);
        LLVMBuildRetVoid(b);
        LLVMDisposeBuilder(b);
        f
    }
}

/// `enzyme_rs.adjoint.move.f64(ptr dst, ptr src, i64 n)` (or `.f32`): the
/// reverse of copying `n` floats from `src` to `dst`: `src̄ += dst̄`, then
/// `dst̄ = 0`, element by element in the order that stays exact when the
/// ranges overlap (`memmove`): downwards when `dst < src`, upwards otherwise.
pub(crate) fn adjoint_move_function(module: LLVMModuleRef, elem: Elem) -> Value {
    let name = if elem == Elem::F32 { "enzyme_rs.adjoint.move.f32" } else { "enzyme_rs.adjoint.move.f64" };
    if let Some(f) = existing(module, name) {
        return f;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let ptr_t = LLVMPointerTypeInContext(ctx, 0);
        let i64t = LLVMInt64TypeInContext(ctx);
        let ft = if elem == Elem::F32 { LLVMFloatTypeInContext(ctx) } else { LLVMDoubleTypeInContext(ctx) };
        let f = add_function(module, name, LLVMVoidTypeInContext(ctx), &mut [ptr_t, ptr_t, i64t]);
        LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let p = ir::params(f);
        let (dst, src, n) = (p[0], p[1], p[2]);
        let b = LLVMCreateBuilderInContext(ctx);
        let block = |name: &std::ffi::CStr| LLVMAppendBasicBlockInContext(ctx, f, name.as_ptr());
        let (entry, check, down, up, body, done) =
            (block(c"entry"), block(c"check"), block(c"down"), block(c"up"), block(c"body"), block(c"done"));
        let zero = LLVMConstInt(i64t, 0, 0);
        let one = LLVMConstInt(i64t, 1, 0);
        LLVMPositionBuilderAtEnd(b, entry);
        let same = LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntEQ, dst, src, EMPTY);
        let empty = LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntEQ, n, zero, EMPTY);
        let skip = LLVMBuildOr(b, same, empty, EMPTY);
        LLVMBuildCondBr(b, skip, done, check);
        LLVMPositionBuilderAtEnd(b, check);
        let below = LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntULT, dst, src, EMPTY);
        LLVMBuildCondBr(b, below, down, up);
        // Walk k = first, first + step, ... for n elements.
        LLVMPositionBuilderAtEnd(b, down);
        let last = LLVMBuildSub(b, n, one, EMPTY);
        LLVMBuildBr(b, body);
        LLVMPositionBuilderAtEnd(b, up);
        LLVMBuildBr(b, body);
        LLVMPositionBuilderAtEnd(b, body);
        let k = LLVMBuildPhi(b, i64t, c"k".as_ptr());
        let left = LLVMBuildPhi(b, i64t, c"left".as_ptr());
        let step = LLVMBuildPhi(b, i64t, c"step".as_ptr());
        let mut idx = [k];
        let pd = LLVMBuildGEP2(b, ft, dst, idx.as_mut_ptr(), 1, EMPTY);
        let ps = LLVMBuildGEP2(b, ft, src, idx.as_mut_ptr(), 1, EMPTY);
        let t = LLVMBuildLoad2(b, ft, pd, EMPTY);
        LLVMBuildStore(b, LLVMConstNull(ft), pd);
        let old = LLVMBuildLoad2(b, ft, ps, EMPTY);
        let new = LLVMBuildFAdd(b, old, t, EMPTY);
        LLVMBuildStore(b, new, ps);
        let k2 = LLVMBuildAdd(b, k, step, EMPTY);
        let left2 = LLVMBuildSub(b, left, one, EMPTY);
        let more = LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntNE, left2, zero, EMPTY);
        LLVMBuildCondBr(b, more, body, done);
        let minus_one = LLVMConstInt(i64t, u64::MAX, 1);
        let mut kv = [last, zero, k2];
        let mut lv = [n, n, left2];
        let mut sv = [minus_one, one, step];
        let mut from = [down, up, body];
        LLVMAddIncoming(k, kv.as_mut_ptr(), from.as_mut_ptr(), 3);
        LLVMAddIncoming(left, lv.as_mut_ptr(), from.as_mut_ptr(), 3);
        LLVMAddIncoming(step, sv.as_mut_ptr(), from.as_mut_ptr(), 3);
        LLVMPositionBuilderAtEnd(b, done);
        LLVMBuildRetVoid(b);
        LLVMDisposeBuilder(b);
        f
    }
}

/// `enzyme_rs.adjoint.move.strided.<f32|f64>(src, dst, count, stride)`:
/// for each of `count` elements `stride` bytes apart, adds the float at
/// `src` to the one at `dst` and clears it (the adjoints of the floats of a
/// block of structs moving back to the block they were copied from; the
/// two blocks do not overlap).
pub(crate) fn strided_adjoint_move_function(module: LLVMModuleRef, elem: Elem) -> Value {
    let name =
        if elem == Elem::F32 { "enzyme_rs.adjoint.move.strided.f32" } else { "enzyme_rs.adjoint.move.strided.f64" };
    if let Some(f) = existing(module, name) {
        return f;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let ptr_t = LLVMPointerTypeInContext(ctx, 0);
        let (i8t, i64t) = (LLVMInt8TypeInContext(ctx), LLVMInt64TypeInContext(ctx));
        let ft = if elem == Elem::F32 { LLVMFloatTypeInContext(ctx) } else { LLVMDoubleTypeInContext(ctx) };
        let f = add_function(module, name, LLVMVoidTypeInContext(ctx), &mut [ptr_t, ptr_t, i64t, i64t]);
        LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let p = ir::params(f);
        let (src, dst, n, stride) = (p[0], p[1], p[2], p[3]);
        let b = LLVMCreateBuilderInContext(ctx);
        let block = |name: &std::ffi::CStr| LLVMAppendBasicBlockInContext(ctx, f, name.as_ptr());
        let (entry, body, done) = (block(c"entry"), block(c"body"), block(c"done"));
        let zero = LLVMConstInt(i64t, 0, 0);
        LLVMPositionBuilderAtEnd(b, entry);
        let empty = LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntEQ, n, zero, EMPTY);
        LLVMBuildCondBr(b, empty, done, body);
        LLVMPositionBuilderAtEnd(b, body);
        let k = LLVMBuildPhi(b, i64t, c"k".as_ptr());
        let mut at = [LLVMBuildMul(b, k, stride, EMPTY)];
        let ps = LLVMBuildGEP2(b, i8t, src, at.as_mut_ptr(), 1, EMPTY);
        let pd = LLVMBuildGEP2(b, i8t, dst, at.as_mut_ptr(), 1, EMPTY);
        let t = LLVMBuildLoad2(b, ft, ps, EMPTY);
        LLVMBuildStore(b, LLVMConstNull(ft), ps);
        let old = LLVMBuildLoad2(b, ft, pd, EMPTY);
        LLVMBuildStore(b, LLVMBuildFAdd(b, old, t, EMPTY), pd);
        let next = LLVMBuildAdd(b, k, LLVMConstInt(i64t, 1, 0), EMPTY);
        let more = LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntULT, next, n, EMPTY);
        LLVMBuildCondBr(b, more, body, done);
        let mut kv = [zero, next];
        let mut from = [entry, body];
        LLVMAddIncoming(k, kv.as_mut_ptr(), from.as_mut_ptr(), 2);
        LLVMPositionBuilderAtEnd(b, done);
        LLVMBuildRetVoid(b);
        LLVMDisposeBuilder(b);
        f
    }
}

/// ψ(x) = d/dx log Γ(x) in the float type `t`, made once per module and
/// type (`lgamma` and `tgamma` have derivatives in terms of it). Negative
/// arguments use the reflection ψ(x) = ψ(1 − x) − π / tan(πx); then the
/// recurrence ψ(x) = ψ(x + 1) − 1/x lifts x to at least 6, where the
/// asymptotic series is accurate to the last bits of a double.
pub(crate) fn digamma_function(module: LLVMModuleRef, t: ir::Type) -> Value {
    let name = format!("enzyme_rs.digamma.{}", ir::print_type(t));
    if let Some(f) = existing(module, &name) {
        return f;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let f = add_function(module, &name, t, &mut [t]);
        LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let b = LLVMCreateBuilderInContext(ctx);
        let block = |n: &std::ffi::CStr| LLVMAppendBasicBlockInContext(ctx, f, n.as_ptr());
        let (entry, reflect, start, head, step, tail) =
            (block(c"entry"), block(c"reflect"), block(c"start"), block(c"head"), block(c"step"), block(c"tail"));
        let c = |v: f64| LLVMConstReal(t, v);
        let x = LLVMGetParam(f, 0);
        let pi = std::f64::consts::PI;
        let intrinsic = |name: &str, args: &mut [Value]| {
            let id = LLVMLookupIntrinsicID(name.as_ptr() as *const _, name.len());
            let mut tys = [t];
            let decl = LLVMGetIntrinsicDeclaration(module, id, tys.as_mut_ptr(), 1);
            let fty = LLVMIntrinsicGetType(ctx, id, tys.as_mut_ptr(), 1);
            LLVMBuildCall2(b, fty, decl, args.as_mut_ptr(), args.len() as u32, EMPTY)
        };

        LLVMPositionBuilderAtEnd(b, entry);
        let negative = LLVMBuildFCmp(b, llvm_sys::LLVMRealPredicate::LLVMRealOLT, x, c(0.0), EMPTY);
        LLVMBuildCondBr(b, negative, reflect, start);

        LLVMPositionBuilderAtEnd(b, reflect);
        let pix = LLVMBuildFMul(b, c(pi), x, EMPTY);
        let tan = intrinsic("llvm.tan", &mut [pix]);
        let shift = LLVMBuildFDiv(b, c(-pi), tan, EMPTY);
        let mirrored = LLVMBuildFSub(b, c(1.0), x, EMPTY);
        LLVMBuildBr(b, start);

        LLVMPositionBuilderAtEnd(b, start);
        let x0 = LLVMBuildPhi(b, t, EMPTY);
        let acc0 = LLVMBuildPhi(b, t, EMPTY);
        LLVMAddIncoming(x0, [x, mirrored].as_mut_ptr(), [entry, reflect].as_mut_ptr(), 2);
        LLVMAddIncoming(acc0, [c(0.0), shift].as_mut_ptr(), [entry, reflect].as_mut_ptr(), 2);
        LLVMBuildBr(b, head);

        LLVMPositionBuilderAtEnd(b, head);
        let xv = LLVMBuildPhi(b, t, EMPTY);
        let acc = LLVMBuildPhi(b, t, EMPTY);
        let small = LLVMBuildFCmp(b, llvm_sys::LLVMRealPredicate::LLVMRealOLT, xv, c(6.0), EMPTY);
        LLVMBuildCondBr(b, small, step, tail);

        LLVMPositionBuilderAtEnd(b, step);
        let inv = LLVMBuildFDiv(b, c(1.0), xv, EMPTY);
        let acc_next = LLVMBuildFSub(b, acc, inv, EMPTY);
        let x_next = LLVMBuildFAdd(b, xv, c(1.0), EMPTY);
        LLVMBuildBr(b, head);
        LLVMAddIncoming(xv, [x0, x_next].as_mut_ptr(), [start, step].as_mut_ptr(), 2);
        LLVMAddIncoming(acc, [acc0, acc_next].as_mut_ptr(), [start, step].as_mut_ptr(), 2);

        // ψ(x) ≈ log x − 1/(2x) − Σ B₂ₖ/(2k x²ᵏ), k = 1..6.
        LLVMPositionBuilderAtEnd(b, tail);
        let x2 = LLVMBuildFMul(b, xv, xv, EMPTY);
        let f2 = LLVMBuildFDiv(b, c(1.0), x2, EMPTY);
        let coefficients = [1.0 / 12.0, -1.0 / 120.0, 1.0 / 252.0, -1.0 / 240.0, 1.0 / 132.0, -691.0 / 32760.0];
        let mut series = c(0.0);
        for k in coefficients.iter().rev() {
            // series = f2 * (k + series)
            let s = LLVMBuildFAdd(b, c(*k), series, EMPTY);
            series = LLVMBuildFMul(b, f2, s, EMPTY);
        }
        let log = intrinsic("llvm.log", &mut [xv]);
        let half = LLVMBuildFDiv(b, c(0.5), xv, EMPTY);
        let r = LLVMBuildFSub(b, log, half, EMPTY);
        let r = LLVMBuildFSub(b, r, series, EMPTY);
        let r = LLVMBuildFAdd(b, r, acc, EMPTY);
        LLVMBuildRet(b, r);
        LLVMDisposeBuilder(b);
        f
    }
}
