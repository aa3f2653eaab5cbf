//! OpenMP parallel regions. clang outlines a region's body into a
//! function (the *microtask*) and runs it on a team of threads with
//! `__kmpc_fork_call(loc, n, microtask, args...)`; each thread calls
//! `microtask(&gtid, &btid, args...)`.
//!
//! Preprocessing turns the fork into a direct call of the microtask (its
//! thread-id arguments a placeholder) marked with `!enzyme_rs.parallel`, so
//! the engine sees an ordinary call that stays a call: forward mode asks
//! for the microtask's derivative, whose parameters are the microtask's with
//! shadows after the duplicated pointers. After generation, every marked
//! call is made a fork again, of whatever function it now calls, so the
//! derivative runs on a team too.
//!
//! Reverse mode (see `parallel_reverse`): the forward sweep forks a wrapper
//! in which each thread runs the forward part of the microtask's split
//! derivative (a coroutine, as for recursion) and leaves its handle in an
//! array; the reverse sweep forks a team of the same size in which each
//! thread resumes one handle, so the reverse of each thread's share of the
//! work runs in parallel, with its barriers and critical sections reversed
//! too. Adjoints go into shared shadow memory with atomic adds.

use llvm_sys::core::*;
use llvm_sys::prelude::*;

use crate::ir::{self, Value};

/// The runtime's entry that runs a microtask on a team.
const FORK: &str = "__kmpc_fork_call";

/// The metadata kind marking a call that was (and will be again) a fork.
const MARK: &str = "enzyme_rs.parallel";

fn mark_kind(v: Value) -> u32 {
    unsafe { LLVMGetMDKindIDInContext(LLVMGetTypeContext(LLVMTypeOf(v)), MARK.as_ptr().cast(), MARK.len() as u32) }
}

/// The fork's source location argument, on a marked call.
pub(crate) fn marked_location(call: Value) -> Option<Value> {
    unsafe {
        let md = LLVMGetMetadata(call, mark_kind(call));
        if md.is_null() {
            return None;
        }
        let mut ops = [std::ptr::null_mut(); 1];
        if LLVMGetMDNodeNumOperands(md) != 1 {
            return None;
        }
        LLVMGetMDNodeOperands(md, ops.as_mut_ptr());
        Some(ops[0])
    }
}

/// Whether `call` stands for a parallel region.
pub(crate) fn is_region(call: Value) -> bool {
    marked_location(call).is_some()
}

/// Copies the mark of region `from` onto the call `to` made for it.
pub(crate) fn carry_mark(from: Value, to: Value) {
    unsafe {
        let md = LLVMGetMetadata(from, mark_kind(from));
        if !md.is_null() {
            LLVMSetMetadata(to, mark_kind(to), md);
        }
    }
}

/// The placeholder thread id a region's call passes (never read: the
/// call becomes a fork again before the program runs).
fn placeholder(module: LLVMModuleRef) -> Value {
    let name = c"enzyme_rs.omp.thread_id";
    unsafe {
        let g = LLVMGetNamedGlobal(module, name.as_ptr());
        if !g.is_null() {
            return g;
        }
        let i32t = LLVMInt32TypeInContext(LLVMGetModuleContext(module));
        let g = LLVMAddGlobal(module, i32t, name.as_ptr());
        LLVMSetInitializer(g, LLVMConstInt(i32t, 0, 0));
        LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        g
    }
}

/// In clone `f`, each fork of a known microtask becomes a marked direct
/// call of it, kept out of line (`noinline` at the call).
pub(crate) fn outline_forks(module: LLVMModuleRef, f: Value) {
    for i in ir::blocks(f).into_iter().flat_map(ir::instructions) {
        if ir::opcode(i) != llvm_sys::LLVMOpcode::LLVMCall
            || ir::called_function(i).is_none_or(|c| ir::name(c) != FORK)
            || ir::call_arg_count(i) < 3
        {
            continue;
        }
        let Some(task) = ir::strip_to_function(ir::operand(i, 2)) else { continue };
        let task = pass_float_bits_by_reference(module, i, task);
        mark_private_parameters(task);
        let tid = placeholder(module);
        let mut args = vec![tid, tid];
        args.extend((3..ir::call_arg_count(i)).map(|k| ir::operand(i, k)));
        let call = call_before(i, task, &mut args);
        unsafe {
            let ctx = LLVMGetModuleContext(module);
            let mut loc = [LLVMValueAsMetadata(ir::operand(i, 0))];
            let node = LLVMMDNodeInContext2(ctx, loc.as_mut_ptr(), 1);
            LLVMSetMetadata(call, mark_kind(call), LLVMMetadataAsValue(ctx, node));
            let noinline = LLVMCreateEnumAttribute(ctx, ir::attr_kind("noinline"), 0);
            LLVMAddCallSiteAttribute(call, llvm_sys::LLVMAttributeFunctionIndex, noinline);
            LLVMInstructionEraseFromParent(i);
        }
    }
}

/// In clone `f`, reductions (`reduction(+ : s)` and the others) combine the
/// threads' private values in a critical section: `__kmpc_reduce[_nowait]`
/// becomes `__kmpc_critical` answering 1 (combine here, not atomically),
/// its end `__kmpc_end_critical` (and a barrier for the blocking form).
/// The runtime's other ways (a tree of calls of the combining function on
/// the private copies, atomics) would combine values without their
/// derivatives; in a critical section both modes differentiate the
/// combination like any code (a `max` sends its derivative to the winner).
pub(crate) fn lower_reductions(module: LLVMModuleRef, f: Value) {
    // Whether the reduction being lowered adds only: its end is marked too
    // (clang lays a reduction's combining code out right after it).
    let mut sums = false;
    for i in ir::blocks(f).into_iter().flat_map(ir::instructions) {
        if ir::opcode(i) != llvm_sys::LLVMOpcode::LLVMCall {
            continue;
        }
        let Some(callee) = ir::called_function(i) else { continue };
        let name = ir::name(callee);
        let (loc, gtid) = (|| ir::operand(i, 0), || ir::operand(i, 1));
        match name.as_str() {
            "__kmpc_reduce_nowait" | "__kmpc_reduce" if ir::call_arg_count(i) == 7 => {
                let lock = ir::operand(i, 6);
                let enter = call_before(i, omp_function(module, "__kmpc_critical"), &mut [loc(), gtid(), lock]);
                sums = ir::strip_to_function(ir::operand(i, 5)).is_some_and(only_sums);
                if sums {
                    ir::set_flag(enter, SUMS);
                }
                unsafe {
                    LLVMReplaceAllUsesWith(i, LLVMConstInt(ir::type_of(i), 1, 0));
                    LLVMInstructionEraseFromParent(i);
                }
            }
            "__kmpc_end_reduce_nowait" | "__kmpc_end_reduce" if ir::call_arg_count(i) == 3 => {
                let lock = ir::operand(i, 2);
                let exit = call_before(i, omp_function(module, "__kmpc_end_critical"), &mut [loc(), gtid(), lock]);
                if sums {
                    ir::set_flag(exit, SUMS);
                }
                if name == "__kmpc_end_reduce" {
                    call_before(i, omp_function(module, "__kmpc_barrier"), &mut [loc(), gtid()]);
                }
                unsafe { LLVMInstructionEraseFromParent(i) };
            }
            _ => {}
        }
    }
}

/// Marks a critical section (entry and exit) that a reduction of sums
/// became: its reverse may run in any order (each thread's adjoint passes
/// through the shared sum unchanged). The reverses of other critical
/// sections run in the reverse of the order the threads left them: see
/// [`ORDERED`].
const SUMS: &str = "enzyme_rs.reduction_of_sums";

/// Whether a reduction's combining function only adds floats.
fn only_sums(combine: Value) -> bool {
    use llvm_sys::LLVMOpcode::*;
    let mut adds = false;
    for i in ir::blocks(combine).into_iter().flat_map(ir::instructions) {
        let t = ir::type_of(i);
        match ir::opcode(i) {
            LLVMFAdd => adds = true,
            LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMFCmp | LLVMFNeg => return false,
            LLVMCall | LLVMSelect | LLVMPHI if ir::is_real(t) => return false,
            LLVMCall if ir::called_function(i).is_none_or(|c| !ir::name(c).starts_with("llvm.lifetime.")) => {
                return false
            }
            LLVMAtomicRMW | LLVMAtomicCmpXchg => return false,
            _ => {}
        }
    }
    adds
}

/// Ordered critical sections (any but [`SUMS`]'), in reverse mode: in the
/// forward part, each thread takes a ticket from a counter of the region's
/// derivative as it leaves the section (still inside it); the serial code
/// keeps the counter's value after the region; before the region's reverse
/// it becomes the turn counter, and the reverse of each section waits for
/// the turn `ticket + 1` where the section's exit is reversed and passes the
/// turn on where its entry is. So the sections' reverses run one at a time,
/// in exactly the reverse of the forward order.
pub(crate) const ORDERED: (&str, &str) = (".tickets", ".turn");

/// The entry or exit of an ordered critical section (see [`ORDERED`]).
pub(crate) fn ordered_critical(i: Value) -> bool {
    ir::opcode(i) == llvm_sys::LLVMOpcode::LLVMCall
        && ir::called_function(i).is_some_and(|c| {
            matches!(ir::name(c).as_str(), "__kmpc_critical" | "__kmpc_critical_with_hint" | "__kmpc_end_critical")
        })
        && !ir::has_flag(i, SUMS)
}

/// Whether a region's microtask has ordered critical sections.
pub(crate) fn has_ordered_critical(task: Value) -> bool {
    ir::blocks(task).into_iter().flat_map(ir::instructions).any(ordered_critical)
}

/// The ticket and turn counters of a region's split derivative `d`.
pub(crate) fn ticket_counters(module: LLVMModuleRef, d: Value) -> (Value, Value) {
    let make = |suffix: &str| unsafe {
        let name = ir::cstring(&format!("{}{suffix}", ir::name(d)));
        let g = LLVMGetNamedGlobal(module, name.as_ptr());
        if !g.is_null() {
            return g;
        }
        let i64t = LLVMInt64TypeInContext(LLVMGetModuleContext(module));
        let g = LLVMAddGlobal(module, i64t, name.as_ptr());
        LLVMSetInitializer(g, LLVMConstInt(i64t, 0, 0));
        LLVMSetLinkage(g, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
        g
    };
    (make(ORDERED.0), make(ORDERED.1))
}

/// After generation: every marked call in the module is a fork again, of
/// the function it calls now (the microtask, or its derivative), with the
/// arguments after the two thread ids.
pub(crate) fn restore_forks(module: LLVMModuleRef) {
    let fork = fork_function(module);
    for f in ir::functions(module) {
        for i in ir::blocks(f).into_iter().flat_map(ir::instructions) {
            let Some(loc) = marked_location(i) else { continue };
            unsafe {
                let task = LLVMGetCalledValue(i);
                let ctx = LLVMGetModuleContext(module);
                let n = ir::call_arg_count(i);
                let mut args = vec![loc, LLVMConstInt(LLVMInt32TypeInContext(ctx), u64::from(n - 2), 0), task];
                args.extend((2..n).map(|k| ir::operand(i, k)));
                call_before(i, fork, &mut args);
                LLVMInstructionEraseFromParent(i);
            }
        }
    }
}

/// A call of `f` just before instruction `i`, at its source line.
pub(crate) fn call_before(i: Value, f: Value, args: &mut [Value]) -> Value {
    unsafe {
        let b = LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(i)));
        LLVMPositionBuilderBefore(b, i);
        let ty = LLVMGlobalGetValueType(f);
        let call = LLVMBuildCall2(b, ty, f, args.as_mut_ptr(), args.len() as u32, c"".as_ptr());
        LLVMDisposeBuilder(b);
        ir::copy_debug_location(i, call);
        call
    }
}

fn fork_function(module: LLVMModuleRef) -> Value {
    if let Some(f) = crate::build::runtime::existing(module, FORK) {
        return f;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let ptr = LLVMPointerTypeInContext(ctx, 0);
        let mut params = [ptr, LLVMInt32TypeInContext(ctx), ptr];
        // Variadic: the microtask's arguments follow.
        let ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), params.as_mut_ptr(), 3, 1);
        LLVMAddFunction(module, ir::cstring(FORK).as_ptr(), ty)
    }
}

/// What parallel regions cannot do yet, found before generation: floats
/// passed by value to the region (clang passes a `firstprivate` double as
/// the integer of its bits, which carries no derivative); in reverse mode,
/// vector mode, run-time activity, regions inside regions, copies of memory
/// and custom rules inside (their adjoints would not be added atomically),
/// critical sections outside the microtask itself (their tickets are the
/// microtask's derivative's).
pub(crate) fn limits(
    plan: &crate::surface::markers::MarkerCall,
    functions: &[Value],
) -> Vec<crate::ir::diag::Diagnostic> {
    use crate::calls::classify::{classify, Kind};
    let fname = crate::ir::names::display_name(&ir::name(plan.function));
    let reverse = plan.mode == crate::surface::request::Mode::Reverse;
    let mut diags = Vec::new();
    let mut report = |i: Value, message: String, help: &str| {
        let mut d = crate::surface::markers::at_call(plan.call, message).with_help(help);
        if let Some(l) = ir::location(i) {
            d = d.with_note(format!("at {l}"));
        }
        diags.push(d);
    };
    for i in functions.iter().flat_map(|f| ir::blocks(*f)).flat_map(ir::instructions) {
        if !is_region(i) {
            continue;
        }
        let Some(task) = ir::called_function(i) else { continue };
        if takes_float_bits(task) {
            report(
                i,
                format!(
                    "`{fname}` passes a floating-point value by value into an OpenMP parallel region (`firstprivate`)"
                ),
                "its derivative would be lost on the way: make the variable shared, or compute it inside the region",
            );
        }
        if !reverse {
            continue;
        }
        let unsupported = if plan.width > 1 {
            Some("vector mode")
        } else if plan.runtime_activity {
            Some("run-time activity")
        } else {
            None
        };
        if let Some(what) = unsupported {
            report(
                i,
                format!("`{fname}` runs an OpenMP parallel region: {what} is not supported there in reverse mode yet"),
                "differentiate it at width 1 without run-time activity, or in forward mode",
            );
        }
        for j in crate::ir::reach::called_from(task).iter().flat_map(|f| ir::blocks(*f)).flat_map(ir::instructions) {
            let what = match classify(j) {
                _ if is_region(j) => Some("a parallel region inside a parallel region"),
                _ if ordered_critical(j) && ir::parent_function(j) != task => {
                    Some("a `critical` section (or a reduction other than a sum) in a function it calls recursively")
                }
                Kind::MemCpy => Some("a copy of memory (`memcpy`/`memmove`)"),
                Kind::Custom(_) => Some("a call of a function with a custom derivative"),
                _ => None,
            };
            if let Some(what) = what {
                report(
                    j,
                    format!("`{fname}` has {what} in an OpenMP parallel region: not supported in reverse mode yet"),
                    "move it out of the region, or use forward mode (__enzyme_fwddiff)",
                );
            }
        }
    }
    diags
}

/// Whether a microtask turns the bits of an integer parameter into a float.
fn takes_float_bits(task: Value) -> bool {
    ir::params(task).into_iter().any(|p| float_of_bits_parameter(p).is_some())
}

/// `firstprivate` floats: clang passes each by value as the integer of its
/// bits, through the fork's variable arguments, which carries no derivative.
/// Here `fork` passes instead the address of a stack slot holding those bits
/// to a wrapper of the microtask that reads them back and calls it: a shared
/// variable each thread reads once, which both modes differentiate (its
/// adjoint summed over the threads). Returns the microtask `fork` now runs.
fn pass_float_bits_by_reference(module: LLVMModuleRef, fork: Value, task: Value) -> Value {
    let params = ir::params(task);
    // The float type each parameter passed by reference decodes to.
    let by_reference: Vec<Option<ir::Type>> = params
        .iter()
        .enumerate()
        .map(|(k, p)| {
            (k >= 2 && (k as u32 + 1) < ir::call_arg_count(fork)).then(|| float_of_bits_parameter(*p)).flatten()
        })
        .collect();
    if by_reference.iter().all(Option::is_none) {
        return task;
    }
    unsafe {
        let ctx = LLVMGetModuleContext(module);
        let ptr = LLVMPointerTypeInContext(ctx, 0);
        let name = format!("{}.enzyme_rs.firstprivate", ir::name(task));
        let wrapper = match crate::build::runtime::existing(module, &name) {
            Some(w) => w,
            None => {
                let mut types: Vec<ir::Type> = params
                    .iter()
                    .zip(&by_reference)
                    .map(|(p, r)| if r.is_some() { ptr } else { ir::type_of(*p) })
                    .collect();
                let ty = LLVMFunctionType(LLVMVoidTypeInContext(ctx), types.as_mut_ptr(), types.len() as u32, 0);
                let w = LLVMAddFunction(module, ir::cstring(&name).as_ptr(), ty);
                LLVMSetLinkage(w, llvm_sys::LLVMLinkage::LLVMInternalLinkage);
                let b = LLVMCreateBuilderInContext(ctx);
                LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, w, c"".as_ptr()));
                // Each float read as its type and turned into the bits the
                // microtask decodes (the two cancel once it is inlined).
                let mut args: Vec<Value> = ir::params(w)
                    .into_iter()
                    .zip(params.iter().zip(&by_reference))
                    .map(|(q, (p, r))| match r {
                        Some(t) => {
                            let v = LLVMBuildLoad2(b, *t, q, c"".as_ptr());
                            let width = llvm_sys::target::LLVMSizeOfTypeInBits(
                                llvm_sys::target::LLVMGetModuleDataLayout(module),
                                *t,
                            );
                            let bits = LLVMIntTypeInContext(ctx, width as u32);
                            let v = LLVMBuildBitCast(b, v, bits, c"".as_ptr());
                            LLVMBuildZExtOrBitCast(b, v, ir::type_of(*p), c"".as_ptr())
                        }
                        None => q,
                    })
                    .collect();
                let call = LLVMBuildCall2(
                    b,
                    ir::function_type(task),
                    task,
                    args.as_mut_ptr(),
                    args.len() as u32,
                    c"".as_ptr(),
                );
                LLVMSetInstructionCallConv(call, LLVMGetFunctionCallConv(task));
                LLVMSetFunctionCallConv(w, LLVMGetFunctionCallConv(task));
                LLVMBuildRetVoid(b);
                LLVMDisposeBuilder(b);
                w
            }
        };
        // The slots, in the forking function's entry block; filled just before the fork.
        let f = ir::parent_function(fork);
        let b = LLVMCreateBuilderInContext(ctx);
        let entry = LLVMGetEntryBasicBlock(f);
        for (k, r) in by_reference.iter().enumerate() {
            let Some(t) = r else { continue };
            let arg = ir::operand(fork, k as u32 + 1);
            LLVMPositionBuilderBefore(b, LLVMGetFirstInstruction(entry));
            let slot = LLVMBuildAlloca(b, ir::type_of(arg), c"firstprivate".as_ptr());
            LLVMPositionBuilderBefore(b, fork);
            // The float itself where it is in sight (else its bits: the
            // wrapper reads the slot as the float either way).
            let value = float_behind_bits(arg, *t).unwrap_or(arg);
            let st = LLVMBuildStore(b, value, slot);
            ir::copy_debug_location(fork, st);
            LLVMSetOperand(fork, k as u32 + 1, slot);
        }
        LLVMDisposeBuilder(b);
        LLVMSetOperand(fork, 2, wrapper);
        wrapper
    }
}

/// The float type whose bits microtask parameter `p`, an integer, carries
/// (`None` if it is an integer).
fn float_of_bits_parameter(p: Value) -> Option<ir::Type> {
    use llvm_sys::LLVMOpcode::*;
    if !ir::is_int(ir::type_of(p)) {
        return None;
    }
    let mut work: Vec<Value> = vec![p];
    let mut seen = std::collections::HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in ir::users(v) {
            if !ir::is_instruction(u) {
                continue;
            }
            match ir::opcode(u) {
                LLVMBitCast if ir::is_float(ir::type_of(u)) => return Some(ir::type_of(u)),
                LLVMBitCast | LLVMTrunc | LLVMZExt | LLVMPHI | LLVMSelect => work.push(u),
                // Kept in a slot and read back: whatever the slot is read as.
                LLVMStore if ir::operand(u, 0) == v => {
                    let slot = ir::operand(u, 1);
                    if let Some(l) = ir::users(slot)
                        .into_iter()
                        .find(|l| ir::is_instruction(*l) && ir::opcode(*l) == LLVMLoad && ir::is_float(ir::type_of(*l)))
                    {
                        return Some(ir::type_of(l));
                    }
                }
                _ => {}
            }
        }
    }
    None
}

/// The float of type `t` whose bits integer `arg` carries, where it is
/// visibly made from one: `zext (bitcast float x)`, `bitcast double x`, or
/// (at -O0) a load of a stack slot the float was just stored into.
fn float_behind_bits(mut arg: Value, t: ir::Type) -> Option<Value> {
    use llvm_sys::LLVMOpcode::*;
    for _ in 0..8 {
        if ir::type_of(arg) == t {
            return Some(arg);
        }
        if !ir::is_instruction(arg) {
            return None;
        }
        arg = match ir::opcode(arg) {
            LLVMZExt | LLVMBitCast => ir::operand(arg, 0),
            LLVMLoad => ir::operand(crate::ir::int_pointers::store_before(arg)?, 0),
            _ => return None,
        };
    }
    None
}

/// Barriers and critical sections: reversed in reverse mode (a barrier is
/// a barrier again; a critical section's exit is its entry).
pub(crate) fn is_synchronisation(call: Value) -> bool {
    ir::called_function(call).is_some_and(|c| {
        matches!(
            ir::name(c).as_str(),
            "__kmpc_barrier" | "__kmpc_critical" | "__kmpc_critical_with_hint" | "__kmpc_end_critical"
        )
    })
}

/// The reverse of synchronisation call `call`, given its operands' primal
/// values: the same barrier, or the critical section entered at its exit
/// and left at its entry (with the thread's own global id).
pub(crate) fn reverse_synchronisation(e: &crate::build::emit::Emitter, call: Value, ops: &[Value]) {
    let module = e.module;
    let name = ir::called_function(call).map(ir::name).unwrap_or_default();
    let loc = ops[0];
    let gtid = e.call(omp_function(module, "__kmpc_global_thread_num"), &mut [loc]);
    match name.as_str() {
        "__kmpc_barrier" => {
            e.call(omp_function(module, "__kmpc_barrier"), &mut [loc, gtid]);
        }
        "__kmpc_end_critical" => {
            e.call(omp_function(module, "__kmpc_critical"), &mut [loc, gtid, ops[2]]);
        }
        _ => {
            e.call(omp_function(module, "__kmpc_end_critical"), &mut [loc, gtid, ops[2]]);
        }
    }
}

/// `*p += d`, atomically (lane by lane for a vector).
pub(crate) fn atomic_add(e: &crate::build::emit::Emitter, p: Value, d: Value) {
    use llvm_sys::{LLVMAtomicOrdering, LLVMAtomicRMWBinOp};
    let t = ir::type_of(d);
    unsafe {
        let one = |p: Value, v: Value| {
            let rmw = LLVMBuildAtomicRMW(
                e.b,
                LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd,
                p,
                v,
                LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
                0,
            );
            let layout = llvm_sys::target::LLVMGetModuleDataLayout(e.module);
            LLVMSetAlignment(rmw, llvm_sys::target::LLVMABIAlignmentOfType(layout, ir::type_of(v)));
        };
        if LLVMGetTypeKind(t) == llvm_sys::LLVMTypeKind::LLVMVectorTypeKind {
            let elem = LLVMGetElementType(t);
            let i32t = LLVMInt32TypeInContext(e.ctx);
            for k in 0..LLVMGetVectorSize(t) {
                let v = LLVMBuildExtractElement(e.b, d, LLVMConstInt(i32t, u64::from(k), 0), c"".as_ptr());
                let mut idx = [LLVMConstInt(i32t, u64::from(k), 0)];
                let q = LLVMBuildGEP2(e.b, elem, p, idx.as_mut_ptr(), 1, c"".as_ptr());
                one(q, v);
            }
        } else {
            one(p, d);
        }
    }
}

/// An OpenMP runtime function the generated code calls, declared if needed.
pub(crate) fn omp_function(module: LLVMModuleRef, name: &str) -> Value {
    if let Some(f) = crate::build::runtime::existing(module, name) {
        return f;
    }
    let (ptr, i32t, void) = unsafe {
        let ctx = LLVMGetModuleContext(module);
        (LLVMPointerTypeInContext(ctx, 0), LLVMInt32TypeInContext(ctx), LLVMVoidTypeInContext(ctx))
    };
    let (ret, mut params): (_, Vec<_>) = match name {
        "omp_get_thread_num" | "omp_get_num_threads" | "omp_get_max_threads" | "omp_in_parallel" => (i32t, vec![]),
        "__kmpc_global_thread_num" => (i32t, vec![ptr]),
        "__kmpc_barrier" => (void, vec![ptr, i32t]),
        "__kmpc_push_num_threads" => (void, vec![ptr, i32t, i32t]),
        "__kmpc_critical" | "__kmpc_end_critical" => (void, vec![ptr, i32t, ptr]),
        _ => unreachable!("only the OpenMP entries generated code calls"),
    };
    crate::build::runtime::add_function(module, name, ret, &mut params)
}

/// The string attribute on a microtask's parameter that points to a slot of
/// the forking function that nothing else can reach (see
/// [`mark_private_parameters`]).
const PRIVATE: &str = "enzyme_rs.region_private";

/// Marks the microtask's parameters that point to a stack slot of the
/// forking function whose address goes nowhere but into the fork (a shared
/// scalar): inside the region that memory is reached only through the
/// parameter, in every thread. Only when every use of the microtask is such
/// a fork.
fn mark_private_parameters(task: Value) {
    let forks: Vec<Value> = ir::users(task);
    let is_fork = |u: &Value| {
        ir::is_instruction(*u)
            && ir::opcode(*u) == llvm_sys::LLVMOpcode::LLVMCall
            && ir::called_function(*u).is_some_and(|c| ir::name(c) == FORK)
            && ir::operand(*u, 2) == task
    };
    if forks.is_empty() || !forks.iter().all(is_fork) {
        return;
    }
    let n = ir::params(task).len() as u32;
    for k in 2..n {
        let private = forks.iter().all(|f| k + 1 < ir::call_arg_count(*f) && private_slot(ir::operand(*f, k + 1), *f));
        if private {
            unsafe {
                let ctx = LLVMGetModuleContext(LLVMGetGlobalParent(task));
                let a = LLVMCreateStringAttribute(ctx, PRIVATE.as_ptr().cast(), PRIVATE.len() as u32, c"".as_ptr(), 0);
                LLVMAddAttributeAtIndex(task, k + 1, a);
            }
        }
    }
}

/// A stack slot only loaded, stored into and handed once to `fork`.
fn private_slot(a: Value, fork: Value) -> bool {
    use llvm_sys::LLVMOpcode::*;
    if !ir::is_instruction(a) || ir::opcode(a) != LLVMAlloca {
        return false;
    }
    ir::users(a).into_iter().all(|u| match ir::opcode(u) {
        LLVMLoad => true,
        LLVMStore => ir::operand(u, 0) != a,
        LLVMCall if u == fork => (0..ir::call_arg_count(u)).filter(|k| ir::operand(u, *k) == a).count() == 1,
        LLVMCall => ir::called_function(u).is_some_and(|c| ir::name(c).starts_with("llvm.lifetime.")),
        _ => false,
    })
}

/// Whether parameter `p` of a microtask was marked private to the region.
pub(crate) fn is_private_parameter(p: Value) -> bool {
    unsafe {
        let f = LLVMGetParamParent(p);
        let k = ir::params(f).iter().position(|q| *q == p).expect("a parameter of its function") as u32;
        !LLVMGetStringAttributeAtIndex(f, k + 1, PRIVATE.as_ptr().cast(), PRIVATE.len() as u32).is_null()
    }
}

/// A stack slot through which a constant pointer is handed to an OpenMP
/// parallel region (clang passes shared variables by address): only
/// pointers of constant memory stored into it (`constant` says which
/// pointers are), only loaded otherwise, and passed to a region's call. `memory`
/// gives it no shadow.
pub(crate) fn captures_constant_pointers(a: Value, constant: &dyn Fn(Value) -> bool) -> bool {
    use llvm_sys::LLVMOpcode::*;
    let users = ir::users(a);
    let mut stored = false;
    let mut forked = false;
    let fits = users.iter().all(|u| match ir::opcode(*u) {
        LLVMLoad => true,
        LLVMStore => {
            let v = ir::operand(*u, 0);
            stored = true;
            ir::operand(*u, 1) == a && ir::is_pointer(ir::type_of(v)) && constant(v)
        }
        LLVMCall if is_region(*u) => {
            forked = true;
            true
        }
        LLVMCall => ir::called_function(*u).is_some_and(|c| ir::name(c).starts_with("llvm.lifetime.")),
        _ => false,
    });
    fits && stored && forked
}
