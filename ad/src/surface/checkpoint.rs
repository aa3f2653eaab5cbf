//! Enzyme's checkpointed time loops (`enzyme/checkpoint.h`):
//! `__enzyme_checkpoint_for(step, start, n, enzyme_scheme, &scheme, &config,
//! [enzyme_checkpoint_region, ptr, bytes]..., args...)`, and
//! `__enzyme_checkpoint_while(step, enzyme_scheme, ...)` (its loop function
//! gets start 0 and count -1, and stops when the step returns 0).
//!
//! [`lower`] turns each call, before the module is optimised, into a call of
//! a loop function made for it: `(step, start, n, scheme, config, [region,
//! bytes]..., args...)` whose body is the plain loop `step(i, args...)`. The
//! loop function and its call of `step` stay out of line until
//! differentiation ends ([`finish`]), and the function is weak until then,
//! so the optimiser neither inlines them nor drops the arguments the body
//! does not use (the scheme, the regions) nor changes `step`'s signature
//! (its address is an argument). Run as it is, or in forward mode, the loop
//! is a loop. Reverse mode (`checkpoint_reverse`) runs the scheme's schedule
//! instead, with the derivative of one step at a time.

use llvm_sys::core::*;

use crate::ir::diag::Diagnostic;
use crate::ir::names::display_name;
use crate::ir::{self, Value};
use crate::surface::markers::{at_call, CHECKPOINT_MARKERS};

/// The entry point.
pub(crate) const CHECKPOINT_FOR: &str = "__enzyme_checkpoint_for";
/// The while-loop form: `i = 0; while (step(i++, args...));`.
pub(crate) const CHECKPOINT_WHILE: &str = "__enzyme_checkpoint_while";

/// Function attribute of a loop function: its number of regions.
const REGIONS: &str = "enzyme-rs.checkpoint-regions";
/// Flag on the loop function's call of the step.
const STEP_CALL: &str = "enzyme_rs.checkpoint_step";

/// Parameters of a loop function before its regions: step, start, n, scheme, config.
pub(crate) const FIXED_PARAMS: u32 = 5;

/// Replaces the `__enzyme_checkpoint_for` (`__enzyme_checkpoint_while`, when
/// `while_loop`) call `call` by a call of a loop function.
pub(crate) fn lower(
    module: llvm_sys::prelude::LLVMModuleRef,
    call: Value,
    while_loop: bool,
) -> Result<(), Box<Diagnostic>> {
    let entry_name = if while_loop { CHECKPOINT_WHILE } else { CHECKPOINT_FOR };
    let fail = |what: String| {
        Box::new(at_call(call, what).with_help(if while_loop {
            "call it as __enzyme_checkpoint_while((void *)step, enzyme_scheme, &scheme, &config, \
             [enzyme_checkpoint_region, pointer, bytes,]... arguments of step after i...), with \
             `int step(int64_t i, ...)` returning whether to go on (see enzyme/checkpoint.h)"
        } else {
            "call it as __enzyme_checkpoint_for((void *)step, start, n, enzyme_scheme, &scheme, &config, \
             [enzyme_checkpoint_region, pointer, bytes,]... arguments of step after i...), with \
             `void step(int64_t i, ...)` (see enzyme/checkpoint.h)"
        }))
    };
    let nargs = ir::call_arg_count(call);
    // Where the markers start: after the step (and the start and count).
    let markers_at = if while_loop { 1 } else { 3 };
    if nargs < markers_at + 3 {
        let what = if while_loop { "" } else { ", the start, the number of steps" };
        return Err(fail(format!("`{entry_name}` needs the step{what} and a scheme")));
    }
    let Some(step) = known_function(ir::operand(call, 0)) else {
        return Err(fail(format!("the first argument of `{entry_name}` is not a known function")));
    };
    let step_name = display_name(&ir::name(step));
    let (start, n) = if while_loop {
        // A while loop: the driver learns the count from the step.
        let i64t = unsafe { LLVMInt64TypeInContext(LLVMGetModuleContext(module)) };
        unsafe { (LLVMConstInt(i64t, 0, 0), LLVMConstInt(i64t, u64::MAX, 1)) }
    } else {
        (ir::operand(call, 1), ir::operand(call, 2))
    };
    if !ir::is_int(ir::type_of(start)) || !ir::is_int(ir::type_of(n)) {
        return Err(fail("the start and the number of steps must be integers".into()));
    }
    let is_marker = |k: u32, name: &str| {
        k < nargs && crate::surface::markers::marker(ir::operand(call, k)).is_some_and(|(m, _)| m == name)
    };
    if !is_marker(markers_at, CHECKPOINT_MARKERS[0]) {
        let after = if while_loop { "the step" } else { "the number of steps" };
        return Err(fail(format!("`{entry_name}` needs `enzyme_scheme, &scheme, &config` after {after}")));
    }
    let (scheme, config) = (ir::operand(call, markers_at + 1), ir::operand(call, markers_at + 2));
    let mut k = markers_at + 3;
    let mut regions = Vec::new();
    while is_marker(k, CHECKPOINT_MARKERS[1]) {
        if k + 2 >= nargs {
            return Err(fail("`enzyme_checkpoint_region` must be followed by a pointer and a size in bytes".into()));
        }
        let (p, bytes) = (ir::operand(call, k + 1), ir::operand(call, k + 2));
        if !ir::is_pointer(ir::type_of(p)) || !ir::is_int(ir::type_of(bytes)) {
            return Err(fail("`enzyme_checkpoint_region` must be followed by a pointer and a size in bytes".into()));
        }
        regions.push((p, bytes));
        k += 3;
    }
    let args: Vec<Value> = (k..nargs).map(|j| ir::operand(call, j)).collect();
    if let Some(m) = args.iter().find_map(|a| crate::surface::markers::marker(*a)) {
        return Err(fail(format!(
            "marker `{}` among the arguments of the step (only enzyme_scheme and enzyme_checkpoint_region, before \
             them, are read)",
            m.0
        )));
    }
    // The driver reverse mode calls is defined by enzyme-rs's header.
    let defined = |name: &str| crate::build::runtime::existing(module, name).is_some_and(|f| !ir::is_declaration(f));
    if !defined("enzyme_rs_ckpt_forward") || !defined("enzyme_rs_ckpt_reverse") {
        return Err(Box::new(at_call(call, format!("`{entry_name}` without enzyme-rs's checkpointing driver")).with_help(
            "include <enzyme/checkpoint.h> (the one installed with enzyme-rs) in a file of the program: it defines \
             the driver the derivative calls (enzyme_rs_ckpt_forward and enzyme_rs_ckpt_reverse)",
        )));
    }
    let params = ir::params(step);
    let result = ir::return_type(step);
    if while_loop && !ir::is_int(result) {
        return Err(fail(format!("the step `{step_name}` of a checkpointed while loop must return an integer")));
    }
    if !while_loop && !ir::is_void(result) {
        return Err(fail(format!("the step `{step_name}` of a checkpointed loop must return void")));
    }
    if params.len() != args.len() + 1
        || !ir::is_int(ir::type_of(params[0]))
        || params[1..].iter().zip(&args).any(|(p, a)| ir::type_of(*p) != ir::type_of(*a))
    {
        return Err(fail(format!(
            "the arguments after the markers do not match `{step_name}`'s parameters after the step number ({} \
             given, {} expected; a `float` passed through `...` arrives as a `double`: pass a pointer instead)",
            args.len(),
            params.len().saturating_sub(1)
        )));
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let (i64t, ptr) = (LLVMInt64TypeInContext(ctx), LLVMPointerTypeInContext(ctx, 0));
        let mut tys = vec![ptr, i64t, i64t, ptr, ptr];
        for _ in &regions {
            tys.extend([ptr, i64t]);
        }
        tys.extend(args.iter().map(|a| ir::type_of(*a)));
        let name = format!("enzyme_rs.checkpoint_for.{}", ir::name(step));
        let f = crate::build::runtime::add_function(module, &name, LLVMVoidTypeInContext(ctx), &mut tys);
        crate::ir::attrs::set_fn_attr(f, REGIONS, &regions.len().to_string());
        ir::add_function_attr(f, "noinline");
        // Weak until `finish`: no exact definition, so dead-argument elimination
        // leaves the arguments its body does not use (scheme, regions) alone.
        LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMWeakAnyLinkage);
        let p = ir::params(f);
        let b = LLVMCreateBuilderInContext(ctx);
        let entry = LLVMAppendBasicBlockInContext(ctx, f, c"entry".as_ptr());
        let body = LLVMAppendBasicBlockInContext(ctx, f, c"step".as_ptr());
        let exit = LLVMAppendBasicBlockInContext(ctx, f, c"done".as_ptr());
        LLVMPositionBuilderAtEnd(b, entry);
        let end = LLVMBuildAdd(b, p[1], p[2], c"end".as_ptr());
        if while_loop {
            LLVMBuildBr(b, body);
        } else {
            let zero = LLVMConstInt(i64t, 0, 0);
            let any = LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntSGT, p[2], zero, c"".as_ptr());
            LLVMBuildCondBr(b, any, body, exit);
        }
        LLVMPositionBuilderAtEnd(b, body);
        let i = LLVMBuildPhi(b, i64t, c"i".as_ptr());
        let it = ir::type_of(params[0]);
        let iv = if ir::int_width(it) < 64 { LLVMBuildTrunc(b, i, it, c"".as_ptr()) } else { i };
        let first_arg = (FIXED_PARAMS as usize) + 2 * regions.len();
        let mut step_args = vec![iv];
        step_args.extend_from_slice(&p[first_arg..]);
        let sc = LLVMBuildCall2(
            b,
            ir::function_type(step),
            step,
            step_args.as_mut_ptr(),
            step_args.len() as u32,
            c"".as_ptr(),
        );
        LLVMSetInstructionCallConv(sc, LLVMGetFunctionCallConv(step));
        LLVMAddCallSiteAttribute(
            sc,
            llvm_sys::LLVMAttributeFunctionIndex,
            LLVMCreateEnumAttribute(ctx, ir::attr_kind("noinline"), 0),
        );
        ir::set_flag(sc, STEP_CALL);
        ir::copy_debug_location(call, sc);
        let next = LLVMBuildAdd(b, i, LLVMConstInt(i64t, 1, 0), c"".as_ptr());
        let more = if while_loop {
            let no = LLVMConstInt(result, 0, 0);
            LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntNE, sc, no, c"".as_ptr())
        } else {
            LLVMBuildICmp(b, llvm_sys::LLVMIntPredicate::LLVMIntSLT, next, end, c"".as_ptr())
        };
        LLVMBuildCondBr(b, more, body, exit);
        let (mut vals, mut blocks) = ([p[1], next], [entry, body]);
        LLVMAddIncoming(i, vals.as_mut_ptr(), blocks.as_mut_ptr(), 2);
        LLVMPositionBuilderAtEnd(b, exit);
        LLVMBuildRetVoid(b);
        // The call: integers widened to 64 bits as the loop function takes them.
        LLVMPositionBuilderBefore(b, call);
        let wide = |v: Value| {
            if ir::int_width(ir::type_of(v)) < 64 {
                LLVMBuildSExt(b, v, i64t, c"".as_ptr())
            } else {
                v
            }
        };
        let mut cargs = vec![step, wide(start), wide(n), scheme, config];
        for (r, bytes) in &regions {
            cargs.extend([*r, wide(*bytes)]);
        }
        cargs.extend(args);
        let (ty, n) = (ir::function_type(f), cargs.len() as u32);
        let new = if ir::opcode(call) == llvm_sys::LLVMOpcode::LLVMInvoke {
            // C++ with cleanups pending: the step may throw.
            let (normal, unwind) = (LLVMGetNormalDest(call), LLVMGetUnwindDest(call));
            LLVMBuildInvoke2(b, ty, f, cargs.as_mut_ptr(), n, normal, unwind, c"".as_ptr())
        } else {
            LLVMBuildCall2(b, ty, f, cargs.as_mut_ptr(), n, c"".as_ptr())
        };
        LLVMAddCallSiteAttribute(
            new,
            llvm_sys::LLVMAttributeFunctionIndex,
            LLVMCreateEnumAttribute(ctx, ir::attr_kind("noinline"), 0),
        );
        ir::copy_debug_location(call, new);
        LLVMDisposeBuilder(b);
        LLVMInstructionEraseFromParent(call);
    }
    Ok(())
}

/// The function `v` is: a function (through casts); at -O0 the one stored
/// once into the stack slot `v` is loaded from (a local `void *step =
/// (void *)f;`, a C++ lambda's function pointer); the one a call returns
/// (the lambda's conversion to a function pointer).
fn known_function(v: Value) -> Option<Value> {
    known_function_within(v, 4)
}

fn known_function_within(v: Value, depth: u32) -> Option<Value> {
    if let Some(f) = ir::strip_to_function(v) {
        return Some(f);
    }
    if !ir::is_instruction(v) || depth == 0 {
        return None;
    }
    if ir::opcode(v) == llvm_sys::LLVMOpcode::LLVMCall {
        // A C++ lambda's conversion to a function pointer, not inlined at -O1:
        // a function returning one function.
        let callee = ir::called_function(v).filter(|c| !ir::is_declaration(*c))?;
        let mut returned = None;
        for i in ir::blocks(callee).into_iter().flat_map(ir::instructions) {
            if ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMRet {
                let f = ir::strip_to_function(ir::operand(i, 0))?;
                if returned.is_some_and(|g| g != f) {
                    return None;
                }
                returned = Some(f);
            }
        }
        return returned;
    }
    if ir::opcode(v) != llvm_sys::LLVMOpcode::LLVMLoad {
        return None;
    }
    let slot = ir::operand(v, 0);
    if unsafe { LLVMIsAAllocaInst(slot).is_null() } {
        return None;
    }
    let mut stored = None;
    for u in ir::users(slot) {
        match ir::opcode(u) {
            llvm_sys::LLVMOpcode::LLVMLoad => {}
            _ if ir::is_lifetime_marker(u) => {}
            llvm_sys::LLVMOpcode::LLVMStore if ir::operand(u, 1) == slot && stored.is_none() => {
                stored = Some(known_function_within(ir::operand(u, 0), depth - 1)?);
            }
            // Passed on, stored twice, or its address stored: not one known function.
            _ => return None,
        }
    }
    stored
}

/// Whether `f` is a loop function made by [`lower`] (or a clone of one).
pub(crate) fn is_loop(f: Value) -> bool {
    region_count(f).is_some()
}

/// The number of regions of loop function `f`.
pub(crate) fn region_count(f: Value) -> Option<u32> {
    crate::ir::attrs::fn_attr_value(f, REGIONS).and_then(|v| v.parse().ok())
}

/// The loop function's call of its step.
pub(crate) fn step_call(f: Value) -> Option<Value> {
    ir::blocks(f).into_iter().flat_map(ir::instructions).find(|i| ir::has_flag(*i, STEP_CALL))
}

/// Calls that stay calls in preprocessing: of a loop function, and its call of the step.
pub(crate) fn stays_call(call: Value) -> bool {
    ir::has_flag(call, STEP_CALL) || ir::called_function(call).is_some_and(is_loop)
}

/// After differentiation: the loop functions become ordinary internal
/// functions the optimiser may inline, and their steps too.
pub(crate) fn finish(module: llvm_sys::prelude::LLVMModuleRef) {
    let noinline = ir::attr_kind("noinline");
    for f in ir::functions(module) {
        if !is_loop(f) || ir::is_declaration(f) {
            continue;
        }
        unsafe {
            LLVMRemoveEnumAttributeAtIndex(f, llvm_sys::LLVMAttributeFunctionIndex, noinline);
            LLVMSetLinkage(f, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
            if let Some(c) = step_call(f) {
                LLVMRemoveCallSiteEnumAttribute(c, llvm_sys::LLVMAttributeFunctionIndex, noinline);
            }
            for u in ir::users(f) {
                if ir::is_call_or_invoke(u) {
                    LLVMRemoveCallSiteEnumAttribute(u, llvm_sys::LLVMAttributeFunctionIndex, noinline);
                }
            }
        }
    }
}
