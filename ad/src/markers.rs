//! Recognising `__enzyme_autodiff` / `__enzyme_fwddiff` calls and reading
//! their arguments the way Enzyme does: any callee whose name contains the
//! entry point's name; first the function (possibly cast), then one argument
//! per parameter, each optionally preceded by an activity marker (the global
//! `enzyme_dup` etc., passed loaded or by address), duplicated arguments
//! followed by their shadow.

// Errors here are rare and carry a whole diagnostic; their size does not matter.
#![allow(clippy::result_large_err)]

use llvm_sys::core::*;

use crate::diag::Diagnostic;
use crate::ir::{self, Type, Value};
use crate::kind::Elem;
use crate::names::display_name;
use crate::request::Mode;

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
    pub shadow: Option<Value>,
}

/// A parsed marker call, ready to be replaced.
pub(crate) struct MarkerCall {
    pub call: Value,
    pub mode: Mode,
    /// The user's function to differentiate.
    pub function: Value,
    pub args: Vec<ArgPlan>,
    /// Seed of the result in reverse mode, when passed explicitly.
    pub seed: Option<Value>,
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
    /// A split-mode entry point (then `mode` is reverse).
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
}

impl MarkerCall {
    /// The entry point's name, for messages.
    pub fn entry_name(&self) -> &'static str {
        self.split.map(SplitPart::entry_name).unwrap_or(entry_name(self.mode))
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

/// Entry points of Enzyme's C API that this version does not implement.
const UNSUPPORTED_ENTRY_POINTS: &[&str] =
    &["__enzyme_fwdsplit", "__enzyme_batch", "__enzyme_todense", "__enzyme_error_estimate"];

/// The option marker asking that a zero tangent or adjoint times an
/// infinite or NaN partial contribute zero (Enzyme's `checkedMul`); it takes
/// no value and may stand anywhere after the function.
const STRONG_ZERO: &str = "enzyme_strong_zero";

/// The option marker asking for the primal result too (first, before the
/// tangent or the adjoints), and the one saying it is not needed (what
/// happens anyway without the first).
const PRIMAL_RETURN: &str = "enzyme_primal_return";
const NO_RETURN: &str = "enzyme_noret";

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
];

/// Markers of Enzyme's C API that this version does not implement yet.
const UNSUPPORTED_MARKERS: &[&str] = &[
    "enzyme_dupv",
    "enzyme_dupnoneedv",
    "enzyme_width",
    "enzyme_interleave",
    "enzyme_byref",
    "enzyme_runtime_activity",
    "enzyme_scalar",
    "enzyme_vector",
    "enzyme_buffer",
];

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
    activity_of(name).is_some() || OPTIONS.contains(&name) || UNSUPPORTED_MARKERS.contains(&name)
}

/// What kind of entry point a callee name is.
pub(crate) enum EntryPoint {
    Diff(Mode),
    /// Split reverse mode (`__enzyme_augmentfwd`, `__enzyme_reverse`,
    /// `__enzyme_augmentsize`).
    Split(SplitPart),
    /// `__enzyme_virtualreverse(p)`: the shadow of a vtable or function
    /// pointer, for shadow objects.
    VirtualReverse,
    Unsupported(&'static str),
}

/// Which part of split reverse mode a call asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SplitPart {
    /// `__enzyme_augmentfwd`: runs the function, returns the tape.
    Augment,
    /// `__enzyme_reverse`: propagates adjoints with the tape.
    Reverse,
    /// `__enzyme_augmentsize`: the tape's size in bytes.
    Size,
}

impl SplitPart {
    pub(crate) fn entry_name(self) -> &'static str {
        match self {
            SplitPart::Augment => "__enzyme_augmentfwd",
            SplitPart::Reverse => "__enzyme_reverse",
            SplitPart::Size => "__enzyme_augmentsize",
        }
    }
}

/// Classifies a callee name as an Enzyme entry point.
pub(crate) fn entry_point(name: &str) -> Option<EntryPoint> {
    if name.contains("__enzyme_autodiff") {
        return Some(EntryPoint::Diff(Mode::Reverse));
    }
    if name.contains("__enzyme_fwddiff") {
        return Some(EntryPoint::Diff(Mode::Forward));
    }
    if name.contains("__enzyme_virtualreverse") {
        return Some(EntryPoint::VirtualReverse);
    }
    for part in [SplitPart::Augment, SplitPart::Reverse, SplitPart::Size] {
        if name.contains(part.entry_name()) {
            return Some(EntryPoint::Split(part));
        }
    }
    UNSUPPORTED_ENTRY_POINTS.iter().find(|e| name.contains(*e)).map(|e| EntryPoint::Unsupported(e))
}

/// Every call or invoke of an Enzyme entry point in the module, with its mode.
pub(crate) fn find(module: llvm_sys::prelude::LLVMModuleRef) -> Vec<(Value, Option<EntryPoint>)> {
    let mut out = Vec::new();
    unsafe {
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            for b in ir::blocks(f) {
                for i in ir::instructions(b) {
                    let op = ir::opcode(i);
                    if op != llvm_sys::LLVMOpcode::LLVMCall && op != llvm_sys::LLVMOpcode::LLVMInvoke {
                        continue;
                    }
                    if let Some(callee) = ir::called_function(i) {
                        let name = ir::name(callee);
                        if let Some(ep) = entry_point(&name) {
                            out.push((i, Some(ep)));
                        }
                    }
                }
            }
            f = LLVMGetNextFunction(f);
        }
    }
    out
}

/// Uses of an entry point other than as the callee of a direct call: its
/// address stored or passed on (as `-O0` keeps a function pointer in a
/// local). Such calls cannot be recognised, and the link would fail later on
/// an undefined `__enzyme_*` symbol with no hint.
pub(crate) fn address_taken(module: llvm_sys::prelude::LLVMModuleRef) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    unsafe {
        let mut f = LLVMGetFirstFunction(module);
        while !f.is_null() {
            let name = ir::name(f);
            if entry_point(&name).is_some() {
                report_value_uses(f, &display_name(&name), &mut out, 0);
            }
            f = LLVMGetNextFunction(f);
        }
    }
    out
}

fn report_value_uses(used: Value, name: &str, out: &mut Vec<Diagnostic>, depth: u32) {
    unsafe {
        let mut u = LLVMGetFirstUse(used);
        while !u.is_null() {
            let user = LLVMGetUser(u);
            u = LLVMGetNextUse(u);
            if !LLVMIsAInstruction(user).is_null() {
                let op = ir::opcode(user);
                let is_call = op == llvm_sys::LLVMOpcode::LLVMCall || op == llvm_sys::LLVMOpcode::LLVMInvoke;
                if is_call && LLVMGetCalledValue(user) == used {
                    continue;
                }
                let mut d = Diagnostic::new(format!("`{name}` is used as a value here, not called directly"));
                d.location = ir::location(user);
                d.function = Some(display_name(&ir::name(ir::parent_function(user))));
                out.push(d.with_help(format!(
                    "call `{name}(...)` directly; a call through a function pointer cannot be recognised as a \
                     request for a derivative"
                )));
            } else if LLVMIsAGlobalValue(user).is_null() {
                // a constant expression or aggregate: look at where it goes
                if depth < 8 {
                    report_value_uses(user, name, out, depth + 1);
                }
            } else {
                let global = display_name(&ir::name(user));
                out.push(
                    Diagnostic::new(format!("the address of `{name}` is stored in the global `{global}`")).with_help(
                        format!(
                            "call `{name}(...)` directly; a call through a function pointer cannot be recognised as a \
                     request for a derivative"
                        ),
                    ),
                );
            }
        }
    }
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

fn entry_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Reverse => "__enzyme_autodiff",
        Mode::Forward => "__enzyme_fwddiff",
    }
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
    let entry = split.map(SplitPart::entry_name).unwrap_or(entry_name(mode));
    if ir::opcode(call) == llvm_sys::LLVMOpcode::LLVMInvoke {
        // Rewritten as an invoke of the derivative; the result is converted at
        // the start of the normal destination, which must be entered only from here.
        split_shared_normal_edge(call);
    }
    let n = ir::call_arg_count(call);
    let arg = |k: u32| ir::operand(call, k);
    let mut idx = 0;
    let sret = unsafe {
        let a = LLVMGetCallSiteEnumAttribute(call, 1, ir::attr_kind("sret"));
        (!a.is_null() && n > 0).then(|| (arg(0), llvm_sys::core::LLVMGetTypeAttributeValue(a)))
    };
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
    let mut marker_loads = Vec::new();
    let (mut strong_zero, mut primal_return) = (false, false);
    let mut return_activity = None;
    let mut no_free = false;
    let (mut tape, mut allocated) = (None, None);
    // Option markers, anywhere after the function: the number of arguments
    // each takes (with its value: split mode's `enzyme_tape, p` and
    // `enzyme_allocated, n`, kept by argument index).
    let is_option = |m: &str| OPTIONS.contains(&m);
    let mut take_option = |m: &str, idx: u32| -> Result<u32, Diagnostic> {
        match m {
            STRONG_ZERO => strong_zero = true,
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
                    idx += take_option(&m, idx)?;
                    marker_loads.extend(load);
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
            (Mode::Reverse, true, _) => {
                return Err(at_call(
                    call,
                    format!(
                        "`enzyme_dup` given for by-value floating-point parameter {pname} of `{fname}` in reverse mode"
                    ),
                )
                .with_help("a by-value float is `enzyme_out` (its adjoint is returned) or `enzyme_const`"))
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
        check_convertible(call, primal, pty, &pname, &fname, entry)?;
        let shadow = if matches!(activity, Activity::Dup | Activity::DupNoNeed) {
            if idx >= n || marker(arg(idx)).is_some() {
                return Err(at_call(
                    call,
                    format!("`{entry}` call is missing the shadow (tangent) of parameter {pname} of `{fname}`"),
                )
                .with_help("a duplicated argument is followed by its shadow: `enzyme_dup, x, dx`"));
            }
            let s = arg(idx);
            idx += 1;
            check_convertible(call, s, pty, &pname, &fname, entry)?;
            Some(s)
        } else {
            None
        };
        args.push(ArgPlan { activity, primal, shadow });
    }
    while idx < n {
        match marker(arg(idx)) {
            Some((m, load)) if is_option(&m) => {
                idx += take_option(&m, idx)?;
                marker_loads.extend(load);
            }
            _ => break,
        }
    }
    // `__enzyme_reverse` takes the tape last, unless `enzyme_tape` gave it.
    let mut end = n;
    if split == Some(SplitPart::Reverse) && tape.is_none() {
        if idx >= n {
            return Err(at_call(call, format!("`{entry}` call is missing the tape"))
                .with_help("pass the tape `__enzyme_augmentfwd` returned as the last argument, or `enzyme_tape, p`"));
        }
        tape = Some(n - 1);
        end = n - 1;
    }
    let seeded = matches!(split, None | Some(SplitPart::Reverse));
    let mut seed = None;
    if idx < end {
        if let Some((m, _)) = marker(arg(idx)) {
            return Err(bad_marker(call, &m));
        }
        let rt = ir::return_type(function);
        if seeded && mode == Mode::Reverse && idx + 1 == end && ir::is_float(rt) && ir::is_float(ir::type_of(arg(idx)))
        {
            seed = Some(arg(idx));
        } else {
            return Err(at_call(call, format!("`{entry}` call has {} more argument(s) than `{fname}` takes", n - idx))
                .with_help(format!(
                    "`{fname}` takes {} parameters; in reverse mode one extra float is the seed of the result",
                    params.len()
                )));
        }
    }
    let sret = sret.map(|(p, t)| (p, bytes_as_doubles(t, mode, &args)));
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
    match split {
        None | Some(SplitPart::Reverse) => {
            check_result_type(call, mode, function, &args, sret, primal_return, const_return)?
        }
        Some(SplitPart::Augment) => check_augment_result(call, function, sret)?,
        Some(SplitPart::Size) => {
            if !ir::is_int(ir::type_of(call)) {
                return Err(at_call(call, format!("`{entry}` is declared to return a non-integer"))
                    .with_help("declare it `int __enzyme_augmentsize(void *, ...);`"));
            }
        }
    }
    Ok(MarkerCall {
        call,
        mode,
        function,
        args,
        seed,
        sret,
        marker_loads,
        strong_zero,
        primal_return,
        const_return,
        split,
        tape,
        allocated,
        no_free,
    })
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
        args.push(ArgPlan { activity, primal: p, shadow: dup.then_some(p) });
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
        sret: None,
        marker_loads,
        strong_zero: false,
        primal_return: false,
        const_return: false,
        split: Some(SplitPart::Size),
        tape: None,
        allocated: None,
        no_free: false,
    })
}

/// rustc describes memory returned through `sret` as bytes (`[24 x i8]`); the
/// `enzyme` crate declares its gradient structs with one `f64` per adjoint,
/// so bytes for exactly one double per adjoint are read as doubles.
fn bytes_as_doubles(t: Type, mode: Mode, args: &[ArgPlan]) -> Type {
    let active = args.iter().filter(|a| a.activity == Activity::Active).count() as u64;
    unsafe {
        let bytes = ir::kind(t) == llvm_sys::LLVMTypeKind::LLVMArrayTypeKind
            && ir::is_int(LLVMGetElementType(t))
            && ir::int_width(LLVMGetElementType(t)) == 8;
        if mode == Mode::Reverse && bytes && active > 0 && LLVMGetArrayLength2(t) == 8 * active {
            return LLVMArrayType2(LLVMDoubleTypeInContext(LLVMGetTypeContext(t)), active);
        }
    }
    t
}

/// `__enzyme_augmentfwd`'s declared result: nothing, the tape (`void *`), or
/// a struct of the tape and, for a function with a float result, that result
/// (in either order, as Enzyme's examples declare it).
fn check_augment_result(call: Value, function: Value, sret: Option<(Value, Type)>) -> Result<(), Diagnostic> {
    let target = sret.map(|(_, t)| t).unwrap_or_else(|| ir::type_of(call));
    let fields = augment_fields(target);
    let rt = ir::return_type(function);
    let ok = ir::is_void(target)
        || ir::is_pointer(target)
        || fields.as_ref().is_some_and(|f| {
            let ptrs = f.iter().filter(|t| ir::is_pointer(**t)).count();
            let floats = f.iter().filter(|t| ir::is_float(**t)).count();
            ptrs == 1 && floats == usize::from(ir::is_float(rt)) && (floats == 0 || f.contains(&rt))
        });
    if ok {
        return Ok(());
    }
    Err(at_call(
        call,
        format!("`__enzyme_augmentfwd` is declared to return `{}`, which cannot hold its tape", ir::print_type(target)),
    )
    .with_help(if ir::is_float(rt) {
        "declare it returning `void *` (the tape) or a struct of the tape and the result, e.g. \
         `struct { double y; void *tape; }`"
    } else {
        "declare it returning `void *` (the tape)"
    }))
}

/// The fields of a struct result (one level), if it is a struct.
pub(crate) fn augment_fields(t: Type) -> Option<Vec<Type>> {
    unsafe {
        (ir::kind(t) == llvm_sys::LLVMTypeKind::LLVMStructTypeKind)
            .then(|| (0..LLVMCountStructElementTypes(t)).map(|k| LLVMStructGetTypeAtIndex(t, k)).collect())
    }
}

/// The entry point's declared result (or `sret` memory) must hold what the
/// derivative produces: the tangent of the result, or one float per active
/// argument.
fn check_result_type(
    call: Value,
    mode: Mode,
    function: Value,
    args: &[ArgPlan],
    sret: Option<(Value, Type)>,
    primal_return: bool,
    const_return: bool,
) -> Result<(), Diagnostic> {
    let entry = entry_name(mode);
    let produced = usize::from(primal_return)
        + match mode {
            Mode::Forward => usize::from(ir::is_float(ir::return_type(function)) && !const_return),
            Mode::Reverse => args.iter().filter(|a| a.activity == Activity::Active).count(),
        };
    let what = match (mode, primal_return) {
        (Mode::Forward, false) => "the tangent of the result".to_string(),
        (Mode::Forward, true) => "the result and its tangent".to_string(),
        (Mode::Reverse, false) => format!("{produced} adjoint(s) of active arguments"),
        (Mode::Reverse, true) => format!("the result and {} adjoint(s) of active arguments", produced - 1),
    };
    let target = sret.map(|(_, t)| t).unwrap_or_else(|| ir::type_of(call));
    // Called for its effect on the shadows only: a `double`-returning
    // declaration is fine when nobody reads the result (as in reverse mode).
    if mode == Mode::Forward && produced == 0 && !ir::is_void(target) && (sret.is_some() || result_really_used(call)) {
        let fname = display_name(&ir::name(function));
        return Err(at_call(
            call,
            format!(
                "`{fname}` returns `{}`, which has no derivative: forward mode has no tangent to return",
                ir::print_type(ir::return_type(function))
            ),
        )
        .with_help(
            "read the tangents from the shadow arguments and ignore the call's result, or declare the entry point \
             returning `void`",
        ));
    }
    if ir::is_void(target) {
        if produced > 0 && mode == Mode::Reverse {
            return Err(at_call(call, format!("`{entry}` call is declared to return `void`, but it produces {what}"))
                .with_help(
                    "declare the entry point returning `double` (one active argument) or a struct of doubles (several)",
                ));
        }
        return Ok(());
    }
    if produced == 0 && sret.is_none() && !result_really_used(call) {
        // `double __enzyme_autodiff(void*, ...)` called for its effect on shadows only.
        return Ok(());
    }
    if produced == 0 && mode == Mode::Reverse {
        return Err(at_call(
            call,
            format!("the result of this `{entry}` call is used, but there is no derivative to return"),
        )
        .with_help(
            "no argument is an active float (`enzyme_out`): derivatives with respect to pointer arguments \
             are added into their shadows; do not use the call's result",
        ));
    }
    if count_float_leaves(target) != Some(produced) {
        return Err(at_call(
            call,
            format!("`{entry}` call is declared to return `{}`, which cannot hold {what}", ir::print_type(target)),
        )
        .with_help("declare the entry point returning `double` for one derivative, or a struct with one `double` per active argument"));
    }
    Ok(())
}

/// Whether a call's result is used for more than being parked in a stack
/// slot (what `-O0` makes of `double unused = f(...);`).
fn result_really_used(call: Value) -> bool {
    let mut u = unsafe { LLVMGetFirstUse(call) };
    while !u.is_null() {
        unsafe {
            let user = LLVMGetUser(u);
            // Stored into a local that is never read back (as at -O0).
            let parked = !LLVMIsAStoreInst(user).is_null()
                && LLVMGetOperand(user, 0) == call
                && !LLVMIsAAllocaInst(LLVMGetOperand(user, 1)).is_null()
                && !slot_is_read(LLVMGetOperand(user, 1));
            if !parked {
                return true;
            }
            u = LLVMGetNextUse(u);
        }
    }
    false
}

/// Whether a stack slot is read: anything but stores into it, intrinsics
/// (lifetime markers, debug info) and loads whose value goes unused counts.
fn slot_is_read(slot: Value) -> bool {
    let mut u = unsafe { LLVMGetFirstUse(slot) };
    while !u.is_null() {
        unsafe {
            let user = LLVMGetUser(u);
            let store_into = !LLVMIsAStoreInst(user).is_null() && LLVMGetOperand(user, 1) == slot;
            let intrinsic = !LLVMIsAIntrinsicInst(user).is_null();
            // `(void)r;` at -O0 loads the slot and drops the value.
            let dropped = !LLVMIsALoadInst(user).is_null() && LLVMGetFirstUse(user).is_null();
            if !store_into && !intrinsic && !dropped {
                return true;
            }
            u = LLVMGetNextUse(u);
        }
    }
    false
}

/// Number of float scalars in a type made of floats, structs, arrays and vectors.
pub(crate) fn count_float_leaves(t: Type) -> Option<usize> {
    use llvm_sys::LLVMTypeKind::*;
    if ir::is_float(t) {
        return Some(1);
    }
    unsafe {
        match ir::kind(t) {
            LLVMStructTypeKind => {
                let n = LLVMCountStructElementTypes(t);
                (0..n).map(|i| count_float_leaves(LLVMStructGetTypeAtIndex(t, i))).sum()
            }
            LLVMArrayTypeKind => Some(count_float_leaves(LLVMGetElementType(t))? * LLVMGetArrayLength2(t) as usize),
            LLVMVectorTypeKind => Some(count_float_leaves(LLVMGetElementType(t))? * LLVMGetVectorSize(t) as usize),
            _ => None,
        }
    }
}

fn bad_marker(call: Value, name: &str) -> Diagnostic {
    if UNSUPPORTED_MARKERS.contains(&name) {
        at_call(call, format!("activity marker `{name}` is not supported yet"))
            .with_help("supported markers: enzyme_out, enzyme_const, enzyme_dup, enzyme_dupnoneed")
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

/// The type-hint functions of Enzyme's C API and what they declare.
pub(crate) fn type_hint(name: &str) -> Option<Elem> {
    Some(match name {
        "__enzyme_double" => Elem::F64,
        "__enzyme_float" => Elem::F32,
        "__enzyme_integer" => Elem::Int,
        "__enzyme_pointer" => Elem::Ptr,
        _ => return None,
    })
}
