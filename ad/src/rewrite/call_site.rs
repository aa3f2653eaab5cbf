//! Rewriting an entry point's call (`__enzyme_autodiff(f, ...)`,
//! `__enzyme_fwddiff`, ...) into a call of the derivative made for it: the
//! arguments in the derivative's order (shadows, lanes, seeds), the shadow
//! globals zeroed, and the results put where the call's declared result or
//! `sret` memory wants them (see `results`).

use std::collections::HashSet;

use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;

use crate::build::emit::Emitter;
use crate::ir::{self, Type, Value};
use crate::surface::markers::{self, Activity, MarkerCall};
use crate::surface::request::Mode;

/// The shadow globals among `shadow_globals` that the derivative `d` can
/// touch: those referred to by its code, by the code of the functions it
/// calls or passes on, and by the initialisers of the globals they refer to
/// (tables of functions). All of them when it makes an indirect call through
/// a pointer the scan cannot follow. Only these are zeroed before a call of
/// `d`: zeroing every shadow of the module at every derivative call cost
/// more than a small derivative itself.
pub(crate) fn shadow_globals_reached(d: Value, shadow_globals: &[Value]) -> Vec<Value> {
    match crate::analysis::read_only_globals::reach(&[d]) {
        Some((_, globals)) => shadow_globals.iter().copied().filter(|s| globals.contains(s)).collect(),
        None => shadow_globals.to_vec(),
    }
}

/// Each derivative call starts with the globals' derivatives at zero (in
/// split mode: the augmented call and the tangent call, see `split_entry`).
pub(crate) fn zero_shadow_globals(e: &Emitter, shadow_globals: &[Value]) {
    for s in shadow_globals {
        unsafe {
            let zero = LLVMConstInt(LLVMInt8TypeInContext(e.ctx), 0, 0);
            LLVMBuildMemSet(e.b, *s, zero, LLVMSizeOf(LLVMGlobalGetValueType(*s)), LLVMGetAlignment(*s));
        }
    }
}

/// Replaces a marker call by a call of its derivative `d`.
pub(crate) fn rewrite(module: LLVMModuleRef, plan: &MarkerCall, d: Value, shadow_globals: &[Value]) {
    let e = Emitter::new(module);
    e.before(plan.call);
    zero_shadow_globals(&e, shadow_globals);
    let f = plan.function;
    let params = ir::params(f);
    let rt = ir::return_type(f);
    let (mut args, _) = derivative_args(&e, plan);
    if plan.mode == Mode::Reverse && ir::is_float(rt) {
        args.extend(seed_values(&e, plan));
    }
    let invoke = ir::opcode(plan.call) == llvm_sys::LLVMOpcode::LLVMInvoke;
    let r = if invoke {
        // Keep the user's unwind edge: an invoke of the derivative, with the
        // result converted where the normal edge lands.
        unsafe {
            let normal = LLVMGetNormalDest(plan.call);
            let r = LLVMBuildInvoke2(
                e.b,
                ir::function_type(d),
                d,
                args.as_mut_ptr(),
                args.len() as u32,
                normal,
                LLVMGetUnwindDest(plan.call),
                c"".as_ptr(),
            );
            let mut first = LLVMGetFirstInstruction(normal);
            while ir::opcode(first) == llvm_sys::LLVMOpcode::LLVMPHI {
                first = LLVMGetNextInstruction(first);
            }
            e.before(first);
            r
        }
    } else {
        e.call(d, &mut args)
    };
    // What the caller gets back: the tangent of the result, or the adjoints of active arguments.
    // With `enzyme_primal_return`, the primal result first (as Enzyme orders them).
    let results: Vec<Value> = match plan.mode {
        Mode::Forward => {
            if ir::is_float(rt) && plan.const_return {
                // No tangent: the primal alone, when asked for.
                if plan.primal_return {
                    vec![e.extract(r, 0)]
                } else {
                    Vec::new()
                }
            } else if ir::is_float(rt) {
                let tangents = e.extract(r, 1);
                let primal = plan.primal_return.then(|| e.extract(r, 0));
                let lanes: Vec<Value> = match plan.width {
                    1 => vec![tangents],
                    w => (0..w).map(|k| e.extract(tangents, k)).collect(),
                };
                primal.into_iter().chain(lanes).collect()
            } else {
                Vec::new()
            }
        }
        Mode::Reverse => {
            let mut out = Vec::new();
            let w = plan.width;
            if plan.primal_return {
                let n = params.iter().filter(|p| ir::is_float(ir::type_of(**p))).count() as u32;
                out.push(e.extract(r, n * w));
            }
            // Lane `l` of the `k`th float parameter's adjoint is at `k * width + l`.
            for (k, _) in returned_adjoints(plan) {
                out.extend((0..w).map(|l| e.extract(r, k * w + l)));
            }
            add_into_byref_shadows(&e, plan, r);
            out
        }
    };
    unsafe {
        if let Some(loc) = Some(llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(plan.call)).filter(|l| !l.is_null()) {
            llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(r, loc);
        }
    }
    let value = results_value(&e, plan, results);
    finish_call(&e, plan, value);
}

/// The derivative's arguments at an entry point call: each parameter's
/// value, followed by its shadow (pointers with one) or, in forward mode,
/// its tangent (floats); and the shadows alone.
pub(crate) fn derivative_args(e: &Emitter, plan: &MarkerCall) -> (Vec<Value>, Vec<Value>) {
    let (mut args, mut shadows) = (Vec::new(), Vec::new());
    for (k, (p, a)) in ir::params(plan.function).iter().zip(&plan.args).enumerate() {
        let pt = ir::type_of(*p);
        // `enzyme_byref`: values given by address.
        let value =
            |v: Value| if a.byref { e.load(pt, v) } else { e.convert_arg(v, pt).expect("checked when parsing") };
        args.push(value(a.primal));
        if ir::is_pointer(pt) {
            if let Some(s) = a.shadow {
                check_shadow_given(e, plan, k, a.primal, s);
                let lanes = lane_shadows(e, plan.width, a, s);
                for l in lanes.iter().skip(1) {
                    check_shadow_given(e, plan, k, a.primal, *l);
                }
                args.extend(&lanes);
                shadows.extend(lanes);
            }
        } else if plan.mode == Mode::Forward && ir::is_float(pt) {
            for t in a.shadow.iter().chain(&a.lanes) {
                args.push(value(*t));
            }
            if a.shadow.is_none() {
                args.extend((0..plan.width).map(|_| e.zero(pt)));
            }
        }
    }
    (args, shadows)
}

/// What the user is told when the shadow of argument `k` (0-based) of
/// `plan`'s function is null and the argument is not.
fn null_shadow_message(plan: &MarkerCall, k: usize) -> String {
    let entry = plan.entry_name();
    let f = crate::ir::names::display_name(&ir::name(plan.function));
    let at = match ir::location(plan.call) {
        Some(l) => format!("{}:{}", l.file, l.line),
        None => format!("in `{}`", crate::ir::names::display_name(&ir::name(ir::parent_function(plan.call)))),
    };
    format!(
        "enzyme-rs: {at}: `{entry}` of `{f}`: the shadow given for argument {} is NULL, and the argument is not; \
         pass a buffer of the argument's size (zeroed) for the derivative to use\n",
        k + 1
    )
}

/// A duplicated pointer's shadow checked at run time, before the derivative
/// runs: null while the primal is not is a message and an abort (see
/// [`crate::build::runtime::check_shadow_function`]). A constant null is refused
/// at build time instead ([`constant_null_shadows`]).
fn check_shadow_given(e: &Emitter, plan: &MarkerCall, k: usize, primal: Value, shadow: Value) {
    if !ir::is_pointer(ir::type_of(primal)) || !ir::is_pointer(ir::type_of(shadow)) || ir::is_no_address(primal) {
        return;
    }
    // Split mode: Enzyme's idiom gives no shadows to the augmented call (the
    // reverse call gives them).
    if plan.split.is_some() {
        return;
    }
    // `__enzyme_todense`'s pointers are no addresses to compare (its
    // lowering refuses that), and may be the primal here.
    if ir::functions(e.module).into_iter().any(|f| crate::surface::entry_points::is_todense(&ir::name(f))) {
        return;
    }
    if unsafe { !LLVMIsAGlobalValue(shadow).is_null() || !LLVMIsAAllocaInst(shadow).is_null() } {
        // A global or a stack slot is never null.
        return;
    }
    let check = crate::build::runtime::check_shadow_function(e.module);
    let text = ir::cstring(&null_shadow_message(plan, k));
    unsafe {
        let msg = LLVMBuildGlobalString(e.b, text.as_ptr(), c"enzyme_rs.null_shadow".as_ptr());
        e.call(check, &mut [primal, shadow, msg]);
    }
}

/// Shadows given as a constant null for a pointer argument that is not one:
/// an error at the call, before anything is generated.
pub(crate) fn constant_null_shadows(plan: &MarkerCall) -> Vec<crate::ir::diag::Diagnostic> {
    let params = ir::params(plan.function);
    let mut out = Vec::new();
    if plan.split.is_some() {
        // The augmented call of split mode may be given none (see `check_shadow_given`).
        return out;
    }
    for (k, (p, a)) in params.iter().zip(&plan.args).enumerate() {
        if !ir::is_pointer(ir::type_of(*p)) || ir::is_no_address(a.primal) {
            continue;
        }
        let given: Vec<Value> = a.shadow.iter().chain(&a.lanes).copied().collect();
        if given.iter().any(|s| unsafe { !LLVMIsAConstantPointerNull(*s).is_null() }) {
            let f = crate::ir::names::display_name(&ir::name(plan.function));
            out.push(
                markers::at_call(plan.call, format!("the shadow given for argument {} of `{f}` is NULL", k + 1))
                    .with_help(
                        "the derivative reads and writes a duplicated pointer's shadow: pass a buffer of the \
                     argument's size (zeroed), or mark the argument `enzyme_const` if it needs no derivative",
                    ),
            );
        }
    }
    out
}

/// The shadows of a duplicated pointer, one per lane: as given, or lane `k`
/// at `k * stride` bytes into the one buffer given (`enzyme_dupv`).
pub(crate) fn lane_shadows(e: &Emitter, width: u32, a: &markers::ArgPlan, first: Value) -> Vec<Value> {
    let Some(stride) = a.stride else {
        return std::iter::once(first).chain(a.lanes.iter().copied()).collect();
    };
    (0..width).map(|k| e.lane_in_buffer(first, stride, k)).collect()
}

/// The seed of a float result in reverse mode: the one given, else 1.
pub(crate) fn seed_value(e: &Emitter, plan: &MarkerCall) -> Value {
    let rt = ir::return_type(plan.function);
    match plan.seed {
        Some(s) => e.convert_float(s, rt),
        None => ir::const_real(rt, 1.0),
    }
}

/// Reverse mode: the adjoints of floats given by address with shadow
/// addresses (`enzyme_dup, enzyme_byref, n, &x, &dx`) are added into them.
pub(crate) fn add_into_byref_shadows(e: &Emitter, plan: &MarkerCall, r: Value) {
    let floats = ir::params(plan.function).into_iter().zip(&plan.args).filter(|(p, _)| ir::is_float(ir::type_of(*p)));
    for (k, (p, a)) in floats.enumerate() {
        if !a.byref || a.activity == Activity::Active || a.activity == Activity::Const {
            continue;
        }
        let t = ir::type_of(p);
        for (l, s) in a.shadow.iter().chain(&a.lanes).enumerate() {
            let adjoint = e.extract(r, k as u32 * plan.width + l as u32);
            let sum = e.fadd(e.load(t, *s), adjoint);
            e.store(sum, *s);
        }
    }
}

/// The seeds of a float result in reverse mode, one per lane: the ones
/// given, else 1 in every lane.
pub(crate) fn seed_values(e: &Emitter, plan: &MarkerCall) -> Vec<Value> {
    let rt = ir::return_type(plan.function);
    if plan.lane_seeds.is_empty() {
        let first = seed_value(e, plan);
        return (0..plan.width).map(|_| first).collect();
    }
    std::iter::once(seed_value(e, plan)).chain(plan.lane_seeds.iter().map(|s| e.convert_float(*s, rt))).collect()
}

/// The adjoints a reverse-mode call returns: for each active float
/// parameter, its place among the float parameters (where the derivative
/// leaves its adjoint) and its type.
pub(crate) fn returned_adjoints(plan: &MarkerCall) -> Vec<(u32, Type)> {
    ir::params(plan.function)
        .into_iter()
        .zip(&plan.args)
        .filter(|(p, _)| ir::is_float(ir::type_of(*p)))
        .enumerate()
        .filter(|(_, (_, a))| a.activity == Activity::Active)
        .map(|(k, (p, _))| (k as u32, ir::type_of(p)))
        .collect()
}

/// The value an entry point call returns, from what it produces in order
/// (the primal result, tangents, adjoints), shaped as the call's declared
/// result or `sret` memory (checked when parsing); zero when nothing was
/// produced; `None` for a `void` result.
pub(crate) fn results_value(e: &Emitter, plan: &MarkerCall, results: Vec<Value>) -> Option<Value> {
    let target_ty = plan.sret.map(|(_, t)| t).unwrap_or_else(|| ir::type_of(plan.call));
    if ir::is_void(target_ty) {
        None
    } else if results.is_empty() {
        Some(e.zero(target_ty))
    } else {
        let mut it = results.into_iter();
        Some(build_aggregate(e, target_ty, &mut it))
    }
}

/// Hands `value` to the call's users (or its `sret` memory) and erases the
/// call and the marker loads nothing else uses.
pub(crate) fn finish_call(e: &Emitter, plan: &MarkerCall, value: Option<Value>) {
    let call_ty = ir::type_of(plan.call);
    let sret_ptr = plan.sret.map(|(p, _)| p);
    unsafe {
        if let (Some(v), Some(p)) = (value, sret_ptr) {
            e.store(v, p);
        }
        if !ir::is_void(call_ty) {
            let v = match (value, sret_ptr) {
                (Some(v), None) => v,
                _ => LLVMGetUndef(call_ty),
            };
            LLVMReplaceAllUsesWith(plan.call, v);
        }
        LLVMInstructionEraseFromParent(plan.call);
    }
    erase_unused_loads(&plan.marker_loads);
}

/// Erases the loads of marker globals an entry point's call used, once
/// nothing else uses them. A load may be listed twice (the optimiser merges
/// the loads of one marker passed twice): each is erased once, never touched after.
pub(crate) fn erase_unused_loads(loads: &[Value]) {
    let mut erased = HashSet::new();
    for l in loads {
        unsafe {
            if !erased.contains(l) && LLVMGetFirstUse(*l).is_null() && !LLVMGetInstructionParent(*l).is_null() {
                LLVMInstructionEraseFromParent(*l);
                erased.insert(*l);
            }
        }
    }
}

/// Builds a value of type `t` from float scalars, converting widths.
pub(crate) fn build_aggregate(e: &Emitter, t: Type, vals: &mut impl Iterator<Item = Value>) -> Value {
    use llvm_sys::LLVMTypeKind::*;
    if ir::is_float(t) {
        let v = vals.next().expect("leaf count checked");
        return e.convert_float(v, t);
    }
    unsafe {
        let mut agg = LLVMGetUndef(t);
        match ir::kind(t) {
            LLVMStructTypeKind => {
                for i in 0..LLVMCountStructElementTypes(t) {
                    let v = build_aggregate(e, LLVMStructGetTypeAtIndex(t, i), vals);
                    agg = e.insert(agg, v, i);
                }
            }
            LLVMArrayTypeKind => {
                for i in 0..LLVMGetArrayLength2(t) as u32 {
                    let v = build_aggregate(e, LLVMGetElementType(t), vals);
                    agg = e.insert(agg, v, i);
                }
            }
            LLVMVectorTypeKind => {
                let i32t = LLVMInt32TypeInContext(e.ctx);
                for i in 0..LLVMGetVectorSize(t) {
                    let v = build_aggregate(e, LLVMGetElementType(t), vals);
                    agg = LLVMBuildInsertElement(e.b, agg, v, LLVMConstInt(i32t, i as u64, 0), c"".as_ptr());
                }
            }
            _ => unreachable!("leaf count checked"),
        }
        agg
    }
}
