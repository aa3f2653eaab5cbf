//! Calls through function pointers inside differentiated code: callbacks in
//! structs, tables of functions, virtual calls, `std::function`. The engine
//! differentiates direct calls, so [`devirtualize`] turns an indirect call
//! of a preprocessed clone into a call of a dispatcher made for it: the
//! pointer compared with each function of the program it may reach (its
//! address taken, of the call's type), each match a direct call, which is
//! differentiated (or refused) as any direct call is. A pointer that matches none stops the program with a
//! message: a function whose code is not in this program's bitcode has no
//! derivative here, and a wrong one is never given.

use llvm_sys::core::*;
use llvm_sys::prelude::*;

use crate::ir::{self, Value};

/// The most functions one dispatcher tries; beyond it the call is left
/// indirect (and refused as such).
const MAX_TARGETS: usize = 16;

/// Rewrites the indirect calls of `f` (see the module doc). `is_clone` tells
/// the engine's own clones apart from the program's functions.
pub(crate) fn devirtualize(module: LLVMModuleRef, f: Value, is_clone: &dyn Fn(Value) -> bool) {
    let calls: Vec<Value> = ir::blocks(f)
        .into_iter()
        .flat_map(ir::instructions)
        .filter(|i| ir::is_call_or_invoke(*i) && is_indirect(*i))
        .collect();
    for call in calls {
        let fty = unsafe { LLVMGetCalledFunctionType(call) };
        if unsafe { LLVMIsFunctionVarArg(fty) } != 0 {
            continue;
        }
        let targets: Vec<Value> = ir::functions(module)
            .into_iter()
            .filter(|g| {
                // Declarations too: a libm function has a rule, and any other
                // is refused by name as a call to an external function.
                !is_clone(*g)
                    && unsafe { LLVMGlobalGetValueType(*g) } == fty
                    && !ir::name(*g).starts_with("enzyme_rs.")
                    && !ir::name(*g).starts_with("llvm.")
                    && address_taken(*g)
            })
            .collect();
        if targets.is_empty() {
            // Its target is outside the program (a shared library's virtual
            // function, as `std::endl`'s `widen`): said to `classify`.
            ir::set_flag(call, NO_CANDIDATES);
            continue;
        }
        if targets.len() > MAX_TARGETS {
            continue;
        }
        let where_ = ir::location(call).map(|l| format!(" at {l}")).unwrap_or_default();
        let d = dispatcher(module, fty, &targets, &where_);
        unsafe {
            let n = ir::call_arg_count(call);
            let mut args: Vec<Value> = (0..n).map(|k| ir::operand(call, k)).collect();
            args.push(LLVMGetCalledValue(call)); // the pointer called
            let b = LLVMCreateBuilderInContext(LLVMGetModuleContext(module));
            LLVMPositionBuilderBefore(b, call);
            let (dt, n_args) = (ir::function_type(d), args.len() as u32);
            let new = if ir::opcode(call) == llvm_sys::LLVMOpcode::LLVMInvoke {
                let (normal, unwind) = (LLVMGetNormalDest(call), LLVMGetUnwindDest(call));
                let n = LLVMBuildInvoke2(b, dt, d, args.as_mut_ptr(), n_args, normal, unwind, c"".as_ptr());
                // As the clone's other invokes: no unwind edge in derivative code.
                crate::ir::edits::mark_unwinding_call(n);
                n
            } else {
                LLVMBuildCall2(b, dt, d, args.as_mut_ptr(), n_args, c"".as_ptr())
            };
            ir::copy_debug_location(call, new);
            LLVMDisposeBuilder(b);
            if !ir::is_void(ir::type_of(call)) {
                LLVMReplaceAllUsesWith(call, new);
            }
            LLVMInstructionEraseFromParent(call);
        }
    }
}

/// Metadata on an indirect call no function of the program can be the target of.
const NO_CANDIDATES: &str = "enzyme_rs.no_candidates";

/// Whether an indirect call was found to have no candidate target in the
/// program (see [`devirtualize`]).
pub(crate) fn has_no_candidates(call: Value) -> bool {
    ir::has_flag(call, NO_CANDIDATES)
}

/// A call whose callee is neither a function nor inline assembly.
fn is_indirect(call: Value) -> bool {
    let callee = ir::operand(call, ir::operand_count(call) - 1);
    unsafe {
        LLVMIsAFunction(callee).is_null() && LLVMIsAInlineAsm(callee).is_null() && ir::called_function(call).is_none()
    }
}

/// Whether `g`'s address is used other than to call it, or than by Enzyme's
/// registrations and LLVM's own lists (`llvm.used`).
fn address_taken(g: Value) -> bool {
    fn taken_by(u: Value, g: Value, depth: u32) -> bool {
        unsafe {
            if !LLVMIsAGlobalVariable(u).is_null() {
                let name = ir::name(u);
                return !(name.starts_with("__enzyme_") || name.starts_with("llvm."));
            }
            if !LLVMIsAInstruction(u).is_null() {
                // A call names its callee last; anywhere else the address escapes,
                // except into a request for its derivative (`__enzyme_autodiff(f, ...)`).
                if ir::is_call_or_invoke(u) {
                    let callee = ir::operand(u, ir::operand_count(u) - 1);
                    let request = !LLVMIsAFunction(callee).is_null() && ir::name(callee).starts_with("__enzyme_");
                    return !request && !(callee == g && (0..ir::call_arg_count(u)).all(|k| ir::operand(u, k) != g));
                }
                return true;
            }
            // A constant (a vtable, a table, a cast): taken if anything using it takes it.
            depth < 8 && ir::users(u).into_iter().any(|w| taken_by(w, u, depth + 1))
        }
    }
    ir::users(g).into_iter().any(|u| taken_by(u, g, 0))
}

/// `ret dispatch(args..., ptr callee)`: calls `callee` if it is one of
/// `targets`, directly; otherwise prints where the call was and aborts.
fn dispatcher(module: LLVMModuleRef, fty: LLVMTypeRef, targets: &[Value], where_: &str) -> Value {
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let ptr_t = LLVMPointerTypeInContext(ctx, 0);
        let mut params: Vec<LLVMTypeRef> = {
            let n = LLVMCountParamTypes(fty) as usize;
            let mut p = vec![std::ptr::null_mut(); n];
            LLVMGetParamTypes(fty, p.as_mut_ptr());
            p
        };
        params.push(ptr_t);
        let ret = LLVMGetReturnType(fty);
        let dty = LLVMFunctionType(ret, params.as_mut_ptr(), params.len() as u32, 0);
        let name = ir::cstring("enzyme_rs.dispatch");
        let d = LLVMAddFunction(module, name.as_ptr(), dty);
        LLVMSetLinkage(d, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        let args = ir::params(d);
        let callee = *args.last().expect("the pointer parameter");
        let b = LLVMCreateBuilderInContext(ctx);
        let mut test = LLVMAppendBasicBlockInContext(ctx, d, c"".as_ptr());
        for t in targets {
            let hit = LLVMAppendBasicBlockInContext(ctx, d, c"".as_ptr());
            let next = LLVMAppendBasicBlockInContext(ctx, d, c"".as_ptr());
            LLVMPositionBuilderAtEnd(b, test);
            let same = LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntEQ, callee, *t, c"".as_ptr());
            LLVMBuildCondBr(b, same, hit, next);
            LLVMPositionBuilderAtEnd(b, hit);
            let mut call_args: Vec<Value> = args[..args.len() - 1].to_vec();
            let r = LLVMBuildCall2(b, fty, *t, call_args.as_mut_ptr(), call_args.len() as u32, c"".as_ptr());
            // Inlined at an invoke, it must not become one (see `prep::drop_unwind_edges`).
            crate::ir::edits::mark_unwinding_call(r);
            if ir::is_void(ret) {
                LLVMBuildRetVoid(b);
            } else {
                LLVMBuildRet(b, r);
            }
            test = next;
        }
        LLVMPositionBuilderAtEnd(b, test);
        let message = format!(
            "enzyme-rs: a call through a function pointer{where_} reached a function whose code was not in the program \
             when it was differentiated; no derivative for it exists"
        );
        let text = ir::cstring(&message);
        let msg = LLVMBuildGlobalString(b, text.as_ptr(), c"enzyme_rs.dispatch.message".as_ptr());
        let [puts, fflush, abort] =
            ["puts", "fflush", "abort"].map(|n| crate::build::runtime::libc_function(module, n));
        LLVMBuildCall2(b, ir::function_type(puts), puts, [msg].as_mut_ptr(), 1, c"".as_ptr());
        LLVMBuildCall2(b, ir::function_type(fflush), fflush, [LLVMConstNull(ptr_t)].as_mut_ptr(), 1, c"".as_ptr());
        LLVMBuildCall2(b, ir::function_type(abort), abort, std::ptr::null_mut(), 0, c"".as_ptr());
        LLVMBuildUnreachable(b);
        LLVMDisposeBuilder(b);
        d
    }
}
