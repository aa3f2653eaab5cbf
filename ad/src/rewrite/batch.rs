//! `__enzyme_batch(f, enzyme_width, N, args...)`: N evaluations of `f` in
//! one call, without derivatives. Each parameter takes `enzyme_vector`
//! (the default) and N values, `enzyme_scalar` and one value shared by the
//! lanes, or `enzyme_buffer, stride` and one pointer whose lane `k` is at
//! `k * stride` bytes. The call returns the N results (an array, struct or
//! vector of N floats) or nothing. Lowered as N calls of `f`; the post-AD
//! pipeline inlines and optimises them together.

// Errors here are rare and carry a whole diagnostic; their size does not matter.
#![allow(clippy::result_large_err)]

use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;

use crate::build::emit::Emitter;
use crate::ir::diag::Diagnostic;
use crate::ir::names::display_name;
use crate::ir::{self, Value};
use crate::surface::markers::{at_call, marker};
use crate::surface::results::count_float_leaves;

/// How one parameter's lanes are given.
enum LaneArgs {
    /// One value per lane.
    Vector(Vec<Value>),
    /// One value for every lane.
    Scalar(Value),
    /// A pointer and the byte stride between lanes.
    Buffer(Value, Value),
}

/// Replaces a `__enzyme_batch` call by the N calls it stands for.
pub(crate) fn rewrite(module: LLVMModuleRef, call: Value) -> Result<(), Diagnostic> {
    let n = ir::call_arg_count(call);
    let arg = |k: u32| ir::operand(call, k);
    let help = "write `__enzyme_batch((void*)f, enzyme_width, N, enzyme_vector, x0, ..., xN-1, enzyme_scalar, a)`";
    // A result returned through memory comes first.
    let sret = crate::surface::entry_points::sret_of(call);
    let first = u32::from(sret.is_some());
    let Some(function) = (n > first).then(|| ir::strip_to_function(arg(first))).flatten() else {
        return Err(at_call(call, "the first argument of `__enzyme_batch` must be a function".into()).with_help(help));
    };
    let fname = display_name(&ir::name(function));
    let mut loads = Vec::new();
    let width = match (n > first + 2).then(|| marker(arg(first + 1))).flatten() {
        Some((m, load)) if m == "enzyme_width" => {
            loads.extend(load);
            ir::const_int_value(arg(first + 2)).filter(|w| (1..=64).contains(w))
        }
        _ => None,
    };
    let Some(width) = width.map(|w| w as u32) else {
        return Err(at_call(call, "`__enzyme_batch` needs `enzyme_width, N` (a constant) after the function".into())
            .with_help(help));
    };
    let mut idx = first + 3;
    let mut plans = Vec::new();
    for (k, p) in ir::params(function).into_iter().enumerate() {
        let pt = ir::type_of(p);
        let missing = || {
            at_call(call, format!("`__enzyme_batch` call is missing values for parameter #{} of `{fname}`", k + 1))
                .with_help(help)
        };
        let kind = match (idx < n).then(|| marker(arg(idx))).flatten() {
            Some((m, load)) if matches!(m.as_str(), "enzyme_vector" | "enzyme_scalar" | "enzyme_buffer") => {
                loads.extend(load);
                idx += 1;
                m
            }
            Some((m, _)) => {
                return Err(at_call(call, format!("`{m}` is not a marker of `__enzyme_batch`"))
                    .with_help("each parameter is `enzyme_vector` (N values), `enzyme_scalar` (one value) or `enzyme_buffer, stride` (one pointer)"))
            }
            None => "enzyme_vector".to_string(),
        };
        let take = |idx: &mut u32| -> Result<Value, Diagnostic> {
            if *idx >= n || marker(arg(*idx)).is_some() {
                return Err(missing());
            }
            *idx += 1;
            Ok(arg(*idx - 1))
        };
        let plan = match kind.as_str() {
            "enzyme_scalar" => LaneArgs::Scalar(take(&mut idx)?),
            "enzyme_buffer" => {
                let stride = take(&mut idx)?;
                if !ir::is_int(ir::type_of(stride)) || !ir::is_pointer(pt) {
                    return Err(at_call(call, format!("`enzyme_buffer` given for parameter #{} of `{fname}`", k + 1))
                        .with_help(
                            "`enzyme_buffer, stride, p` is for pointer parameters: lane k at p + k * stride bytes",
                        ));
                }
                LaneArgs::Buffer(take(&mut idx)?, stride)
            }
            _ => LaneArgs::Vector((0..width).map(|_| take(&mut idx)).collect::<Result<_, _>>()?),
        };
        let values: Vec<Value> = match &plan {
            LaneArgs::Vector(v) => v.clone(),
            LaneArgs::Scalar(v) | LaneArgs::Buffer(v, _) => vec![*v],
        };
        for v in values {
            let from = ir::type_of(v);
            let ok = from == pt || (ir::is_float(from) && ir::is_float(pt)) || (ir::is_int(from) && ir::is_int(pt));
            if !ok {
                return Err(at_call(
                    call,
                    format!(
                        "`__enzyme_batch` passes a `{}` for parameter #{} of `{fname}`, of type `{}`",
                        ir::print_type(from),
                        k + 1,
                        ir::print_type(pt)
                    ),
                )
                .with_help("check the width and the number of values given per parameter"));
            }
        }
        plans.push(plan);
    }
    if idx < n {
        return Err(at_call(
            call,
            format!("`__enzyme_batch` call has {} more argument(s) than `{fname}` takes", n - idx),
        )
        .with_help(help));
    }
    let rt = ir::return_type(function);
    let target = sret.map(|(_, t)| t).unwrap_or_else(|| ir::type_of(call));
    let results = !ir::is_void(target) && !ir::is_void(rt);
    if results && (!ir::is_float(rt) || count_float_leaves(target) != Some(width as usize)) {
        return Err(at_call(
            call,
            format!(
                "`__enzyme_batch` is declared to return `{}`, which cannot hold {width} results of type `{}`",
                ir::print_type(target),
                ir::print_type(rt)
            ),
        )
        .with_help("declare it returning an array or struct of N floats (or `void`); only float results are batched"));
    }

    let e = Emitter::new(module);
    e.before(call);
    crate::build::emit::keep_invoke_edges(&e, call);
    let mut outs = Vec::new();
    for lane in 0..width {
        let mut args: Vec<Value> = ir::params(function)
            .iter()
            .zip(&plans)
            .map(|(p, plan)| {
                let pt = ir::type_of(*p);
                let v = match plan {
                    LaneArgs::Vector(v) => v[lane as usize],
                    LaneArgs::Scalar(v) => *v,
                    LaneArgs::Buffer(base, stride) => e.lane_in_buffer(*base, *stride, lane),
                };
                e.convert_arg(v, pt).expect("checked above")
            })
            .collect();
        outs.push(e.call_user(function, &mut args));
    }
    unsafe {
        if !ir::is_void(target) {
            let v = if results {
                crate::rewrite::call_site::build_aggregate(&e, target, &mut outs.into_iter())
            } else {
                LLVMGetUndef(target)
            };
            match sret {
                Some((p, _)) => {
                    e.store(v, p);
                }
                None => LLVMReplaceAllUsesWith(call, v),
            }
        }
        LLVMInstructionEraseFromParent(call);
    }
    crate::rewrite::call_site::erase_unused_loads(&loads);
    Ok(())
}
