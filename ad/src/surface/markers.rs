//! Reading the arguments of entry point calls (found by [`crate::surface::entry_points`])
//! the way Enzyme does: first the function (possibly cast), then one argument
//! per parameter, each optionally preceded by an activity marker (the global
//! `enzyme_dup` etc., passed loaded or by address), duplicated arguments
//! followed by their shadow (one per lane in vector mode), and the option
//! markers anywhere after the function.

// Errors here are rare and carry a whole diagnostic; their size does not matter.
#![allow(clippy::result_large_err)]

use llvm_sys::core::*;

use crate::ir::diag::Diagnostic;
use crate::ir::names::display_name;
use crate::ir::{self, Type, Value};
use crate::surface::entry_points::SplitPart;
use crate::surface::request::Mode;
use crate::surface::results;

/// Activity of one argument of a marker call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Activity {
    /// `enzyme_out`: its adjoint is returned (reverse mode).
    Active,
    /// `enzyme_const`: no derivative.
    Const,
    /// `enzyme_dup`: followed by a shadow (forward mode: the tangent).
    Dup,
    /// `enzyme_dupnoneed`: like `Dup`, the primal result is not needed.
    DupNoNeed,
}

/// One parameter's argument(s) at a marker call.
pub(crate) struct ArgPlan {
    pub activity: Activity,
    pub primal: Value,
    /// The shadow (or tangent) of the first lane.
    pub shadow: Option<Value>,
    /// Vector mode: the shadows (or tangents) of the other lanes.
    pub lanes: Vec<Value>,
    /// Vector mode, `enzyme_dupv, stride`: `shadow` is one buffer holding
    /// every lane's shadow, `stride` bytes apart.
    pub stride: Option<Value>,
    /// `enzyme_byref, bytes`: the value (and its tangents) are given by
    /// address, for a parameter taken by value.
    pub byref: bool,
}

/// A parsed marker call, ready to be replaced.
pub(crate) struct MarkerCall {
    pub call: Value,
    pub mode: Mode,
    /// The user's function to differentiate.
    pub function: Value,
    pub args: Vec<ArgPlan>,
    /// Seed of the result in reverse mode, when passed explicitly (of the
    /// first lane in vector mode).
    pub seed: Option<Value>,
    /// Vector reverse mode: the seeds of the other lanes, when passed.
    pub lane_seeds: Vec<Value>,
    /// The `sret` pointer and its type, when the result is returned through memory.
    pub sret: Option<(Value, Type)>,
    /// Loads of marker globals used by this call (erased when unused afterwards).
    pub marker_loads: Vec<Value>,
    /// `enzyme_strong_zero` was given.
    pub strong_zero: bool,
    /// `enzyme_primal_return` was given: the primal result comes first.
    pub primal_return: bool,
    /// `enzyme_const_return`: no derivative flows from the result (reverse:
    /// the seed is zero; forward: no tangent is returned).
    pub const_return: bool,
    /// A split-mode entry point (then `mode` is reverse, or forward for
    /// `__enzyme_fwdsplit`).
    pub split: Option<SplitPart>,
    /// Split mode: the tape's argument index (`enzyme_tape, p`, or
    /// `__enzyme_reverse`'s last argument). Indices, not values: an earlier
    /// rewrite may replace the value (a tape `__enzyme_augmentfwd` returned).
    pub tape: Option<u32>,
    /// Split mode: the argument index of the size of the caller's tape
    /// buffer (`enzyme_allocated, n`).
    pub allocated: Option<u32>,
    /// Split mode (`enzyme_nofree`): the reverse call does not free the tape.
    pub no_free: bool,
    /// Vector mode (`enzyme_width, N`): the number of derivative lanes.
    pub width: u32,
    /// `enzyme_runtime_activity` was given.
    pub runtime_activity: bool,
    /// `__enzyme_error_estimate`: forward mode whose tangents are error
    /// estimates.
    pub error_estimate: bool,
}

impl MarkerCall {
    /// The entry point's name, for messages.
    pub fn entry_name(&self) -> &'static str {
        if self.error_estimate {
            return "__enzyme_error_estimate";
        }
        self.split.map(SplitPart::entry_name).unwrap_or(self.mode.entry_name())
    }
}

impl MarkerCall {
    /// For each parameter: the function passed for it, when one is.
    pub fn known_functions(&self) -> Vec<Option<Value>> {
        self.args.iter().map(|a| if a.shadow.is_none() { ir::strip_to_function(a.primal) } else { None }).collect()
    }

    /// For each parameter: whether it is a pointer with a shadow.
    pub fn dup_mask(&self) -> Vec<bool> {
        ir::params(self.function)
            .iter()
            .zip(&self.args)
            .map(|(p, a)| ir::is_pointer(ir::type_of(*p)) && a.shadow.is_some())
            .collect()
    }
}

/// The option marker asking that a zero tangent or adjoint times an
/// infinite or NaN partial contribute zero (Enzyme's `checkedMul`); it takes
/// no value and may stand anywhere after the function.
const STRONG_ZERO: &str = "enzyme_strong_zero";

/// The option marker asking for the primal result too (first, before the
/// tangent or the adjoints), and the one saying it is not needed (what
/// happens anyway without the first).
const PRIMAL_RETURN: &str = "enzyme_primal_return";
const NO_RETURN: &str = "enzyme_noret";
/// Pointers chosen between shadowed and constant ones get their activity
/// checked at run time (see `memory`).
const RUNTIME_ACTIVITY: &str = "enzyme_runtime_activity";

/// Split mode's markers with a value: the tape's address (`enzyme_tape, p`)
/// and the size of the caller's buffer for it (`enzyme_allocated, n`).
const TAPE: &str = "enzyme_tape";
/// The result's activity: constant (no derivative flows from it: a zero
/// seed in reverse mode, no tangent in forward mode), active (reverse mode's
/// default for floats), duplicated (forward mode's default for floats).
const CONST_RETURN: &str = "enzyme_const_return";
/// Split mode: the reverse call leaves the tape to the caller.
const NO_FREE: &str = "enzyme_nofree";
/// A promise that the memory of the arguments is not overwritten between
/// the two parts of split mode. It only permits keeping less; the engine
/// keeps what it needs either way, so it changes nothing.
const NOT_OVERWRITTEN: &str = "enzyme_not_overwritten";
const ACTIVE_RETURN: &str = "enzyme_active_return";
const DUP_RETURN: &str = "enzyme_dup_return";
const ALLOCATED: &str = "enzyme_allocated";
/// Vector mode: `enzyme_width, N` (a constant), before the arguments.
const WIDTH: &str = "enzyme_width";
/// Vector mode's duplicated pointers whose N shadows are one buffer, lane
/// `k`'s at `k * stride` bytes: `enzyme_dupv, stride, p, shadows`.
const DUP_STRIDED: &str = "enzyme_dupv";
const DUP_NO_NEED_STRIDED: &str = "enzyme_dupnoneedv";
/// The primals first, then `enzyme_interleave`, then the shadows (see
/// `usual_order`).
const INTERLEAVE: &str = "enzyme_interleave";
/// `enzyme_byref, bytes, &x`: a parameter taken by value, given by address.
const BY_REFERENCE: &str = "enzyme_byref";

/// The option markers: anywhere after the function, not tied to a parameter.
const OPTIONS: &[&str] = &[
    STRONG_ZERO,
    PRIMAL_RETURN,
    NO_RETURN,
    TAPE,
    ALLOCATED,
    CONST_RETURN,
    ACTIVE_RETURN,
    DUP_RETURN,
    NO_FREE,
    NOT_OVERWRITTEN,
    WIDTH,
    RUNTIME_ACTIVITY,
];

/// The markers of a checkpointing entry point's arguments (see `checkpoint`).
pub(crate) const CHECKPOINT_MARKERS: &[&str] = &["enzyme_scheme", "enzyme_checkpoint_region"];

/// The markers of `__enzyme_batch`'s arguments (see `batch`), out of place elsewhere.
const BATCH_MARKERS: &[&str] = &["enzyme_scalar", "enzyme_vector", "enzyme_buffer"];

/// The activity an activity marker names.
fn activity_of(name: &str) -> Option<Activity> {
    match name {
        "enzyme_out" => Some(Activity::Active),
        "enzyme_const" => Some(Activity::Const),
        "enzyme_dup" => Some(Activity::Dup),
        "enzyme_dupnoneed" => Some(Activity::DupNoNeed),
        _ => None,
    }
}

/// Whether a global's name is one of Enzyme's markers (implemented or not).
pub(crate) fn is_known_marker(name: &str) -> bool {
    activity_of(name).is_some()
        || name == DUP_STRIDED
        || name == DUP_NO_NEED_STRIDED
        || name == BY_REFERENCE
        || name == INTERLEAVE
        || OPTIONS.contains(&name)
        || BATCH_MARKERS.contains(&name)
        || CHECKPOINT_MARKERS.contains(&name)
}

/// If `v` is an activity marker (`enzyme_xxx` global, loaded or by address),
/// its name and the load instruction if there is one.
pub(crate) fn marker(v: Value) -> Option<(String, Option<Value>)> {
    unsafe {
        if !LLVMIsAGlobalVariable(v).is_null() {
            let n = ir::name(v);
            return n.starts_with("enzyme_").then_some((n, None));
        }
        if !LLVMIsALoadInst(v).is_null() {
            let p = LLVMGetOperand(v, 0);
            if !LLVMIsAGlobalVariable(p).is_null() {
                let n = ir::name(p);
                return n.starts_with("enzyme_").then_some((n, Some(v)));
            }
        }
    }
    None
}

/// A diagnostic located at a marker call.
pub(crate) fn at_call(call: Value, message: String) -> Diagnostic {
    let mut d = Diagnostic::new(message);
    d.location = ir::location(call);
    d.function = Some(display_name(&ir::name(ir::parent_function(call))));
    d
}

/// Gives an `invoke` a normal destination of its own when its block is
/// shared (a loop or a join after the call): a new block that branches on,
/// with the phis of the old destination taking their value for this edge from it.
fn split_shared_normal_edge(invoke: Value) {
    unsafe {
        let normal = LLVMGetNormalDest(invoke);
        let mut preds = 0;
        let mut u = LLVMGetFirstUse(ir::block_value(normal));
        while !u.is_null() {
            preds += 1;
            u = LLVMGetNextUse(u);
        }
        if preds <= 1 {
            return;
        }
        let from = LLVMGetInstructionParent(invoke);
        let f = ir::parent_function(invoke);
        let ctx = LLVMGetTypeContext(LLVMTypeOf(f));
        let edge = LLVMAppendBasicBlockInContext(ctx, f, c"invoke.cont".as_ptr());
        let b = LLVMCreateBuilderInContext(ctx);
        LLVMPositionBuilderAtEnd(b, edge);
        LLVMBuildBr(b, normal);
        LLVMSetNormalDest(invoke, edge);
        // Phis of the old destination: the incoming block `from` becomes `edge`.
        for phi in ir::instructions(normal) {
            if ir::opcode(phi) != llvm_sys::LLVMOpcode::LLVMPHI {
                break;
            }
            let incoming = ir::incoming(phi);
            if !incoming.iter().any(|(_, blk)| *blk == from) {
                continue;
            }
            LLVMPositionBuilderBefore(b, phi);
            let new = LLVMBuildPhi(b, ir::type_of(phi), c"".as_ptr());
            for (v, blk) in incoming {
                let mut v = v;
                let mut blk = if blk == from { edge } else { blk };
                LLVMAddIncoming(new, &mut v, &mut blk, 1);
            }
            LLVMReplaceAllUsesWith(phi, new);
            LLVMInstructionEraseFromParent(phi);
        }
        LLVMDisposeBuilder(b);
    }
}

/// Reads a marker call's arguments (`split`: a split-mode entry point, whose
/// mode is reverse).
pub(crate) fn parse(call: Value, mode: Mode, split: Option<SplitPart>) -> Result<MarkerCall, Diagnostic> {
    let entry = split.map(SplitPart::entry_name).unwrap_or(mode.entry_name());
    if ir::opcode(call) == llvm_sys::LLVMOpcode::LLVMInvoke {
        // Rewritten as an invoke of the derivative; the result is converted at
        // the start of the normal destination, which must be entered only from here.
        split_shared_normal_edge(call);
    }
    let n = ir::call_arg_count(call);
    let arg = |k: u32| ir::operand(call, k);
    let mut idx = 0;
    let sret = crate::surface::entry_points::sret_of(call);
    if sret.is_some() {
        idx = 1;
    }
    if idx >= n {
        return Err(at_call(call, format!("`{entry}` needs the function to differentiate as its first argument"))
            .with_help(format!("call it as `{entry}((void*)f, x, ...)`")));
    }
    let Some(function) = ir::strip_to_function(arg(idx)) else {
        return Err(at_call(
            call,
            format!("the first argument of `{entry}` must be a function; found `{}`", ir::print(arg(idx))),
        )
        .with_help("pass the function itself, e.g. `(void*)f`, not a variable holding a pointer"));
    };
    idx += 1;
    let fname = display_name(&ir::name(function));
    if ir::is_declaration(function) {
        return Err(at_call(
            call,
            format!("`{fname}` has no body in the merged module, so it cannot be differentiated"),
        )
        .with_help(format!("compile the source file that defines `{fname}` with enzyme-cc so its bitcode is linked in"))
        .with_missing_body(ir::name(function)));
    }
    if split == Some(SplitPart::Size) {
        return parse_size(call, function, idx);
    }
    // The arguments in Enzyme's usual order (`enzyme_interleave` lists the
    // primals first, then the shadows).
    let ops = usual_order(call, idx, split.is_some())?;
    let n = ops.len() as u32;
    let arg = |k: u32| ops[k as usize];
    let mut marker_loads = Vec::new();
    let (mut strong_zero, mut primal_return, mut runtime_activity) = (false, false, false);
    let mut return_activity = None;
    let mut no_free = false;
    let (mut tape, mut allocated) = (None, None);
    let width = std::cell::Cell::new(None::<u32>);
    // Option markers, anywhere after the function: the number of arguments
    // each takes (with its value: split mode's `enzyme_tape, p` and
    // `enzyme_allocated, n`, kept by argument index).
    let is_option = |m: &str| OPTIONS.contains(&m);
    let mut take_option = |m: &str, idx: u32, params_read: usize| -> Result<u32, Diagnostic> {
        match m {
            WIDTH => {
                let value = (idx + 1 < n).then(|| arg(idx + 1));
                let Some(w) = value.and_then(ir::const_int_value).filter(|w| (1..=64).contains(w)) else {
                    return Err(at_call(
                        call,
                        "`enzyme_width` must be followed by a constant width from 1 to 64".into(),
                    )
                    .with_help("write `enzyme_width, 4` with an integer literal"));
                };
                if width.get().is_some() {
                    return Err(at_call(call, "vector width declared more than once".into())
                        .with_help("give `enzyme_width, N` once, right after the function"));
                }
                if params_read > 0 {
                    return Err(at_call(call, "`enzyme_width` comes after arguments it applies to".into())
                        .with_help("give `enzyme_width, N` right after the function"));
                }
                width.set(Some(w as u32));
                return Ok(2);
            }
            STRONG_ZERO => strong_zero = true,
            RUNTIME_ACTIVITY => runtime_activity = true,
            PRIMAL_RETURN => primal_return = true,
            NO_RETURN | NOT_OVERWRITTEN => {}
            NO_FREE if split.is_some() => no_free = true,
            NO_FREE => {
                return Err(at_call(call, format!("`{m}` is an option of split mode, not of `{entry}`"))
                    .with_help("use it with __enzyme_reverse, to keep the tape"))
            }
            CONST_RETURN | ACTIVE_RETURN | DUP_RETURN => {
                return_activity = Some(if m == CONST_RETURN {
                    CONST_RETURN
                } else if m == ACTIVE_RETURN {
                    ACTIVE_RETURN
                } else {
                    DUP_RETURN
                })
            }
            _ => {
                if split.is_none() {
                    return Err(at_call(call, format!("`{m}` is an option of split mode, not of `{entry}`"))
                        .with_help("use it with __enzyme_augmentfwd / __enzyme_reverse"));
                }
                if idx + 1 >= n {
                    return Err(at_call(call, format!("`{m}` must be followed by its value")));
                }
                *(if m == TAPE { &mut tape } else { &mut allocated }) = Some(idx + 1);
                return Ok(2);
            }
        }
        Ok(1)
    };
    let mut args = Vec::new();
    let params = ir::params(function);
    for (k, p) in params.iter().enumerate() {
        let pty = ir::type_of(*p);
        let pname = match ir::name(*p) {
            s if s.is_empty() => format!("#{}", k + 1),
            s => format!("`{s}`"),
        };
        let mut explicit = None;
        let mut stride = None;
        let mut byref = false;
        loop {
            if idx >= n {
                return Err(at_call(
                    call,
                    format!(
                        "`{entry}` call is missing an argument for parameter {pname} of `{fname}` (type `{}`)",
                        ir::print_type(pty)
                    ),
                )
                .with_help(format!(
                    "`{fname}` takes {} parameters; pass one value per parameter after the function",
                    params.len()
                )));
            }
            match marker(arg(idx)) {
                Some((m, load)) if is_option(&m) => {
                    idx += take_option(&m, idx, args.len())?;
                    marker_loads.extend(load);
                }
                Some((m, load)) if m == BY_REFERENCE => {
                    let bytes = (idx + 1 < n).then(|| ir::const_int_value(arg(idx + 1))).flatten();
                    let size = ir::store_size(function, pty);
                    if bytes.is_none() || byref || ir::is_pointer(pty) || bytes != Some(size as i64) {
                        return Err(at_call(
                            call,
                            format!(
                                "`{m}` before parameter {pname} of `{fname}` must give its size ({size} bytes, type `{}`), once",
                                ir::print_type(pty)
                            ),
                        )
                        .with_help(format!("write `{m}, sizeof(x), &x` for a parameter taken by value")));
                    }
                    byref = true;
                    marker_loads.extend(load);
                    idx += 2;
                }
                Some((m, load)) if m == DUP_STRIDED || m == DUP_NO_NEED_STRIDED => {
                    if explicit.is_some() {
                        return Err(at_call(
                            call,
                            format!("two activity markers in a row before parameter {pname} of `{fname}`"),
                        ));
                    }
                    if idx + 1 >= n || !ir::is_int(ir::type_of(arg(idx + 1))) {
                        return Err(at_call(call, format!("`{m}` must be followed by the byte stride of the shadows"))
                            .with_help(format!(
                                "write `{m}, sizeof(double) * n, x, dx` (lane k's shadow at dx + k * stride)"
                            )));
                    }
                    explicit = Some(if m == DUP_STRIDED { Activity::Dup } else { Activity::DupNoNeed });
                    stride = Some(arg(idx + 1));
                    marker_loads.extend(load);
                    idx += 2;
                }
                Some((m, load)) => {
                    let Some(activity) = activity_of(&m) else { return Err(bad_marker(call, &m)) };
                    if explicit.is_some() {
                        return Err(at_call(
                            call,
                            format!("two activity markers in a row before parameter {pname} of `{fname}`"),
                        ));
                    }
                    explicit = Some(activity);
                    marker_loads.extend(load);
                    idx += 1;
                }
                None => break,
            }
        }
        let primal = arg(idx);
        idx += 1;
        let is_float = ir::is_float(pty);
        let is_ptr = ir::is_pointer(pty);
        let activity = explicit.unwrap_or(match (mode, is_float, is_ptr) {
            (Mode::Reverse, true, _) => Activity::Active,
            (Mode::Forward, true, _) => Activity::Dup,
            // A function passed for a pointer parameter: constant (its calls get differentiated).
            (_, _, true) if ir::strip_to_function(primal).is_some() => Activity::Const,
            // As in Enzyme: pointers are duplicated unless marked constant.
            (_, _, true) => Activity::Dup,
            _ => Activity::Const,
        });
        if !is_float && !ir::is_int(pty) && !is_ptr {
            return Err(at_call(
                call,
                format!("parameter {pname} of `{fname}` has type `{}`, which is not supported yet", ir::print_type(pty)),
            )
            .with_help("this version differentiates functions of `float`/`double`, integer and pointer parameters; aggregates passed by value come later"));
        }
        match (mode, is_float, activity) {
            (_, _, Activity::Const) => {}
            (_, false, Activity::Dup | Activity::DupNoNeed) if is_ptr && ir::strip_to_function(primal).is_some() => {
                return Err(at_call(call, format!("`enzyme_dup` given for function argument {pname} of `{fname}`"))
                    .with_help(
                        "pass functions with `enzyme_const` (the default): calls through them are differentiated",
                    ))
            }
            (_, false, Activity::Dup | Activity::DupNoNeed) if is_ptr => {}
            (_, false, Activity::Active) if is_ptr => {
                return Err(at_call(call, format!("`enzyme_out` given for pointer parameter {pname} of `{fname}`"))
                    .with_help(
                    "a pointer is `enzyme_dup, p, shadow_p` (its shadow accumulates the adjoint) or `enzyme_const, p`",
                ))
            }
            (Mode::Reverse, true, Activity::Active) => {}
            (Mode::Forward, true, Activity::Dup | Activity::DupNoNeed) => {}
            // By address, with a shadow address: the adjoint is added into it.
            (Mode::Reverse, true, Activity::Dup | Activity::DupNoNeed) if byref && split.is_none() => {}
            (Mode::Reverse, true, _) => {
                return Err(at_call(
                    call,
                    format!(
                        "`enzyme_dup` given for by-value floating-point parameter {pname} of `{fname}` in reverse mode"
                    ),
                )
                .with_help(
                    "a by-value float is `enzyme_out` (its adjoint is returned) or `enzyme_const`; given by address \
                     (`enzyme_dup, enzyme_byref, sizeof(x), &x, &dx`), its adjoint is added into `dx`",
                ))
            }
            (Mode::Forward, true, _) => {
                return Err(at_call(
                    call,
                    format!("`enzyme_out` given for parameter {pname} of `{fname}` in forward mode"),
                )
                .with_help("in forward mode pass `enzyme_dup, x, dx` (value and tangent) or `enzyme_const, x`"))
            }
            (_, false, _) => {
                return Err(at_call(call, format!("integer parameter {pname} of `{fname}` cannot be active"))
                    .with_help("integers carry no derivative; pass it with `enzyme_const` or without a marker"))
            }
        }
        // By reference: an address for each value, read as the parameter's type.
        let check = |v: Value| -> Result<(), Diagnostic> {
            if !byref {
                return check_convertible(call, v, pty, &pname, &fname, entry);
            }
            if ir::is_pointer(ir::type_of(v)) {
                return Ok(());
            }
            Err(at_call(call, format!("`{BY_REFERENCE}` given for parameter {pname} of `{fname}`, but not an address"))
                .with_help(format!("pass `&x` after `{BY_REFERENCE}, sizeof(x)` (and the shadows' addresses too)")))
        };
        check(primal)?;
        if stride.is_some() && (!is_ptr || width.get().is_none()) {
            return Err(at_call(
                call,
                format!(
                    "strided shadows given for parameter {pname} of `{fname}`, which is not a pointer in vector mode"
                ),
            )
            .with_help("`enzyme_dupv, stride` is for pointers after `enzyme_width, N`; floats take N tangents"));
        }
        // One shadow per lane (one buffer for all lanes with a stride).
        let count = match (stride, &activity) {
            (None, Activity::Dup | Activity::DupNoNeed) => width.get().unwrap_or(1),
            (Some(_), _) => 1,
            _ => 0,
        };
        let mut shadows = Vec::new();
        for lane in 0..count {
            if idx >= n || marker(arg(idx)).is_some() {
                let which = if count > 1 { format!(" of lane {lane}") } else { String::new() };
                return Err(at_call(
                    call,
                    format!("`{entry}` call is missing the shadow (tangent){which} of parameter {pname} of `{fname}`"),
                )
                .with_help(if count > 1 {
                    "in vector mode a duplicated argument is followed by one shadow per lane: `enzyme_dup, x, dx0, dx1, ...`"
                } else {
                    "a duplicated argument is followed by its shadow: `enzyme_dup, x, dx`"
                }));
            }
            let s = arg(idx);
            idx += 1;
            check(s)?;
            shadows.push(s);
        }
        let mut shadows = shadows.into_iter();
        let shadow = shadows.next();
        args.push(ArgPlan { activity, primal, shadow, lanes: shadows.collect(), stride, byref });
    }
    while idx < n {
        match marker(arg(idx)) {
            Some((m, load)) if is_option(&m) => {
                idx += take_option(&m, idx, args.len())?;
                marker_loads.extend(load);
            }
            _ => break,
        }
    }
    // `__enzyme_reverse` takes the tape last, unless `enzyme_tape` gave it.
    let mut end = n;
    if matches!(split, Some(SplitPart::Reverse | SplitPart::Tangent)) && tape.is_none() {
        if idx >= n {
            return Err(at_call(call, format!("`{entry}` call is missing the tape"))
                .with_help("pass the tape `__enzyme_augmentfwd` returned as the last argument, or `enzyme_tape, p`"));
        }
        tape = Some(n - 1);
        end = n - 1;
    }
    let seeded = matches!(split, None | Some(SplitPart::Reverse));
    let mut seed = None;
    let mut lane_seeds = Vec::new();
    let lanes = width.get().unwrap_or(1);
    if idx < end {
        if let Some((m, _)) = marker(arg(idx)) {
            return Err(bad_marker(call, &m));
        }
        let rt = ir::return_type(function);
        let all_floats = (idx..end).all(|k| ir::is_float(ir::type_of(arg(k))));
        if seeded && mode == Mode::Reverse && idx + lanes == end && ir::is_float(rt) && all_floats {
            // One seed per lane.
            seed = Some(arg(idx));
            lane_seeds = (idx + 1..end).map(arg).collect();
        } else {
            return Err(at_call(call, format!("`{entry}` call has {} more argument(s) than `{fname}` takes", n - idx))
                .with_help(format!(
                    "`{fname}` takes {} parameters; in reverse mode one extra float is the seed of the result \
                     (in vector mode, one per lane)",
                    params.len()
                )));
        }
    }
    let doubles = match mode {
        Mode::Reverse => {
            args.iter().filter(|a| a.activity == Activity::Active).count() as u64 * u64::from(width.get().unwrap_or(1))
        }
        Mode::Forward => u64::from(ir::is_float(ir::return_type(function))) * u64::from(width.get().unwrap_or(1)),
    };
    let sret = sret.map(|(p, t)| (p, results::bytes_as_doubles(t, doubles)));
    if primal_return && !ir::is_float(ir::return_type(function)) {
        return Err(at_call(
            call,
            format!(
                "`enzyme_primal_return` asks for the result of `{fname}`, of type `{}`: only floating-point results \
                 are returned with their derivatives yet",
                ir::print_type(ir::return_type(function))
            ),
        )
        .with_help("call the function itself for its result"));
    }
    let rt = ir::return_type(function);
    let const_return = return_activity == Some(CONST_RETURN);
    match (mode, return_activity) {
        (_, Some(CONST_RETURN)) if seed.is_some() => {
            return Err(at_call(
                call,
                format!("`{entry}` call gives a seed for a result marked `enzyme_const_return`"),
            )
            .with_help("a constant result has no derivative to seed; drop the seed or the marker"));
        }
        (Mode::Reverse, Some(DUP_RETURN)) | (Mode::Forward, Some(ACTIVE_RETURN)) => {
            let m = return_activity.unwrap_or_default();
            return Err(at_call(call, format!("`{m}` is not an activity of the result of `{entry}`")).with_help(
                "in reverse mode a float result is `enzyme_active_return` (the default) or `enzyme_const_return`; in \
                 forward mode `enzyme_dup_return` (the default) or `enzyme_const_return`",
            ));
        }
        (_, Some(ACTIVE_RETURN | DUP_RETURN)) if !ir::is_float(rt) => {
            let m = return_activity.unwrap_or_default();
            return Err(at_call(
                call,
                format!("`{m}` given for the result of `{fname}`, of type `{}`", ir::print_type(rt)),
            )
            .with_help("only floating-point results carry derivatives here; mark it `enzyme_const_return`"));
        }
        _ => {}
    }
    if const_return && mode == Mode::Reverse && ir::is_float(rt) {
        // Nothing flows back from the result.
        seed = Some(ir::const_real(rt, 0.0));
    }
    if split.is_some() && primal_return {
        return Err(at_call(call, format!("`enzyme_primal_return` is not an option of `{entry}`"))
            .with_help("`__enzyme_augmentfwd` returns the primal result when its declared result has room for it"));
    }
    let width = width.get().unwrap_or(1);
    if width > 1 && split.is_some() {
        return Err(at_call(call, format!("vector mode (`enzyme_width`) of `{entry}` is not supported yet"))
            .with_help("vector mode works with __enzyme_fwddiff and __enzyme_autodiff; split mode takes one seed"));
    }
    let active = args.iter().filter(|a| a.activity == Activity::Active).count();
    let produced = results::Produced { mode, active, primal_return, const_return, width };
    let checked = match split {
        None | Some(SplitPart::Reverse | SplitPart::Tangent) => {
            results::check_result_type(call, function, sret, &produced)
        }
        Some(SplitPart::Augment) => results::check_augment_result(call, function, sret),
        Some(SplitPart::Size) => unreachable!("parsed by parse_size"),
    };
    checked.map_err(|(message, help)| at_call(call, message).with_help(help))?;
    Ok(MarkerCall {
        call,
        mode,
        function,
        args,
        seed,
        lane_seeds,
        sret,
        marker_loads,
        strong_zero,
        primal_return,
        const_return,
        split,
        tape,
        allocated,
        no_free,
        width,
        runtime_activity,
        error_estimate: false,
    })
}

/// `enzyme_interleave` (as MFEM writes its calls): an activity marker holds
/// for every primal after it, the primals come first, then
/// `enzyme_interleave`, then one shadow (one per lane in vector mode) for each
/// duplicated primal in the same order, then markers for the whole call.
/// Returns the call's arguments in the usual order (each primal with its
/// marker and shadows), or as they are without `enzyme_interleave`.
fn usual_order(call: Value, start: u32, split: bool) -> Result<Vec<Value>, Diagnostic> {
    let all: Vec<Value> = (0..ir::call_arg_count(call)).map(|k| ir::operand(call, k)).collect();
    let name = |v: Value| marker(v).map(|(m, _)| m);
    let Some(k) = (start as usize..all.len()).find(|&i| name(all[i]).as_deref() == Some(INTERLEAVE)) else {
        return Ok(all);
    };
    let help = "write the primals (an activity marker holds for the primals after it), then `enzyme_interleave`, \
                then one shadow for each duplicated primal in the same order";
    if split {
        return Err(at_call(call, format!("`{INTERLEAVE}` is not an option of split mode")).with_help(help));
    }
    let mut width = 1;
    for i in start as usize..k {
        if name(all[i]).as_deref() == Some(WIDTH) {
            width = all.get(i + 1).and_then(|v| ir::const_int_value(*v)).unwrap_or(1).max(1) as usize;
        }
    }
    // After `enzyme_interleave`: the shadows, then markers for the whole call.
    let (mut shadows, mut tail) = (std::collections::VecDeque::new(), Vec::new());
    let mut i = k + 1;
    while i < all.len() {
        match name(all[i]) {
            Some(m) => {
                tail.push(all[i]);
                if [WIDTH, TAPE, ALLOCATED].contains(&m.as_str()) && i + 1 < all.len() {
                    tail.push(all[i + 1]);
                    i += 1;
                }
            }
            None if tail.is_empty() => shadows.push_back(all[i]),
            None => {
                return Err(
                    at_call(call, format!("a value after the markers that end an `{INTERLEAVE}` call")).with_help(help)
                )
            }
        }
        i += 1;
    }
    let mut out = all[..start as usize].to_vec();
    let mut sticky: Option<(Value, Activity)> = None;
    let mut i = start as usize;
    while i < k {
        let v = all[i];
        match name(v) {
            Some(m) if activity_of(&m).is_some() => sticky = Some((v, activity_of(&m).expect("checked"))),
            Some(m) if [DUP_STRIDED, DUP_NO_NEED_STRIDED, BY_REFERENCE].contains(&m.as_str()) => {
                return Err(at_call(call, format!("`{m}` cannot be used with `{INTERLEAVE}`")).with_help(help))
            }
            Some(m) => {
                out.push(v);
                if m == WIDTH && i + 1 < k {
                    out.push(all[i + 1]);
                    i += 1;
                }
            }
            None => {
                if let Some((m, _)) = sticky {
                    out.push(m);
                }
                out.push(v);
                if matches!(sticky, Some((_, Activity::Dup | Activity::DupNoNeed))) {
                    for _ in 0..width {
                        let Some(s) = shadows.pop_front() else {
                            return Err(at_call(
                                call,
                                format!("`{INTERLEAVE}` call has fewer shadows than duplicated primals"),
                            )
                            .with_help(help));
                        };
                        out.push(s);
                    }
                }
            }
        }
        i += 1;
    }
    if !shadows.is_empty() {
        return Err(
            at_call(call, format!("`{INTERLEAVE}` call has more shadows than duplicated primals")).with_help(help)
        );
    }
    out.extend(tail);
    Ok(out)
}

/// `__enzyme_augmentsize(f, markers...)`: one activity marker per parameter
/// (or none: the default), no values; only which pointers are duplicated
/// matters (the tape records their shadows).
fn parse_size(call: Value, function: Value, mut idx: u32) -> Result<MarkerCall, Diagnostic> {
    let n = ir::call_arg_count(call);
    let mut args = Vec::new();
    let mut marker_loads = Vec::new();
    for p in ir::params(function) {
        let m = (idx < n).then(|| marker(ir::operand(call, idx))).flatten();
        let activity = match m.as_ref().map(|(m, _)| m.as_str()) {
            Some(name) => activity_of(name).ok_or_else(|| bad_marker(call, name))?,
            None if ir::is_pointer(ir::type_of(p)) => Activity::Dup,
            None => Activity::Const,
        };
        if let Some((_, load)) = m {
            marker_loads.extend(load);
            idx += 1;
        }
        let dup = ir::is_pointer(ir::type_of(p)) && matches!(activity, Activity::Dup | Activity::DupNoNeed);
        // No values are given: the parameter stands for itself.
        args.push(ArgPlan {
            activity,
            primal: p,
            shadow: dup.then_some(p),
            lanes: Vec::new(),
            stride: None,
            byref: false,
        });
    }
    if idx < n {
        return Err(at_call(
            call,
            "`__enzyme_augmentsize` takes one activity marker per parameter, and no values".into(),
        )
        .with_help(
            "pass the markers the `__enzyme_augmentfwd` call uses, e.g. `__enzyme_augmentsize((void*)f, enzyme_dup)`",
        ));
    }
    if !ir::is_int(ir::type_of(call)) {
        return Err(at_call(call, "`__enzyme_augmentsize` is declared to return a non-integer".into())
            .with_help("declare it `int __enzyme_augmentsize(void *, ...);`"));
    }
    Ok(MarkerCall {
        call,
        mode: Mode::Reverse,
        function,
        args,
        seed: None,
        lane_seeds: Vec::new(),
        sret: None,
        marker_loads,
        strong_zero: false,
        primal_return: false,
        const_return: false,
        split: Some(SplitPart::Size),
        tape: None,
        allocated: None,
        no_free: false,
        width: 1,
        runtime_activity: false,
        error_estimate: false,
    })
}

fn bad_marker(call: Value, name: &str) -> Diagnostic {
    if BATCH_MARKERS.contains(&name) {
        at_call(call, format!("`{name}` is a marker of `__enzyme_batch`, not of derivatives"))
            .with_help("activity markers: enzyme_out, enzyme_const, enzyme_dup, enzyme_dupnoneed, enzyme_dupv")
    } else {
        at_call(call, format!("unknown activity marker `{name}`"))
            .with_help("supported markers: enzyme_out, enzyme_const, enzyme_dup, enzyme_dupnoneed")
    }
}

fn check_convertible(call: Value, v: Value, to: Type, pname: &str, fname: &str, entry: &str) -> Result<(), Diagnostic> {
    let from = ir::type_of(v);
    let ok = from == to || (ir::is_float(from) && ir::is_float(to)) || (ir::is_int(from) && ir::is_int(to));
    if ok {
        Ok(())
    } else {
        Err(at_call(
            call,
            format!(
                "`{entry}` passes a value of type `{}` for parameter {pname} of `{fname}`, which has type `{}`",
                ir::print_type(from),
                ir::print_type(to)
            ),
        )
        .with_help("check the order of arguments and markers"))
    }
}
