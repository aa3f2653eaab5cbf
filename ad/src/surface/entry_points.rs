//! Recognising Enzyme's entry points: any callee whose name contains
//! `__enzyme_autodiff`, `__enzyme_fwddiff`, `__enzyme_error_estimate`, split mode's names,
//! `__enzyme_virtualreverse` or `__enzyme_batch` (C++ template
//! instantiations, numbered variants such as `__enzyme_autodiff2`), every
//! call of one in a module, and uses of one that are not calls.

use llvm_sys::core::*;

use crate::ir::diag::Diagnostic;
use crate::ir::names::display_name;
use crate::ir::{self, Value};
use crate::surface::request::Mode;

/// Entry points of Enzyme's C API that this version does not implement.
const UNSUPPORTED_ENTRY_POINTS: &[&str] = &[];

/// What kind of entry point a callee name is.
pub(crate) enum EntryPoint {
    Diff(Mode),
    /// `__enzyme_error_estimate`: forward mode carrying error estimates
    /// (see `error_estimate`).
    ErrorEstimate,
    /// Split mode (`__enzyme_augmentfwd`, `__enzyme_reverse`,
    /// `__enzyme_augmentsize`, `__enzyme_fwdsplit`).
    Split(SplitPart),
    /// `__enzyme_virtualreverse(p)`: the shadow of a vtable or function
    /// pointer, for shadow objects.
    VirtualReverse,
    /// `__enzyme_batch`: N evaluations in one call (see `batch`).
    Batch,
    Unsupported(&'static str),
}

/// Which part of split mode a call asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SplitPart {
    /// `__enzyme_augmentfwd`: runs the function, returns the tape.
    Augment,
    /// `__enzyme_reverse`: propagates adjoints with the tape.
    Reverse,
    /// `__enzyme_augmentsize`: the tape's size in bytes.
    Size,
    /// `__enzyme_fwdsplit`: propagates tangents with the tape (split
    /// forward mode).
    Tangent,
}

impl SplitPart {
    /// The mode of the derivative the call works with.
    pub(crate) fn mode(self) -> Mode {
        match self {
            SplitPart::Tangent => Mode::Forward,
            _ => Mode::Reverse,
        }
    }

    pub(crate) fn entry_name(self) -> &'static str {
        match self {
            SplitPart::Augment => "__enzyme_augmentfwd",
            SplitPart::Reverse => "__enzyme_reverse",
            SplitPart::Size => "__enzyme_augmentsize",
            SplitPart::Tangent => "__enzyme_fwdsplit",
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
    if name.contains("__enzyme_error_estimate") {
        return Some(EntryPoint::ErrorEstimate);
    }
    if name.contains("__enzyme_virtualreverse") {
        return Some(EntryPoint::VirtualReverse);
    }
    if name.contains("__enzyme_batch") {
        return Some(EntryPoint::Batch);
    }
    for part in [SplitPart::Augment, SplitPart::Reverse, SplitPart::Size, SplitPart::Tangent] {
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

/// The functions holding an entry point as a value (not the callee of a
/// direct call): unoptimised code that calls one through a local, such as
/// the `enzyme` crate's derivatives, which call theirs through a function
/// pointer of the shim's types. Simplified, the call becomes direct.
pub(crate) fn functions_using_as_value(module: llvm_sys::prelude::LLVMModuleRef) -> Vec<Value> {
    let mut out = Vec::new();
    for f in entry_point_functions(module) {
        for user in ir::users(f) {
            let direct = unsafe { !LLVMIsACallInst(user).is_null() && LLVMGetCalledValue(user) == f };
            if ir::is_instruction(user) && !direct && !out.contains(&ir::parent_function(user)) {
                out.push(ir::parent_function(user));
            }
        }
    }
    out
}

/// The module's functions that are entry points.
fn entry_point_functions(module: llvm_sys::prelude::LLVMModuleRef) -> impl Iterator<Item = Value> {
    ir::functions(module).into_iter().filter(|f| entry_point(&ir::name(*f)).is_some())
}

/// Uses of an entry point other than as the callee of a direct call: its
/// address stored or passed on (as `-O0` keeps a function pointer in a
/// local). Such calls cannot be recognised, and the link would fail later on
/// an undefined `__enzyme_*` symbol with no hint.
pub(crate) fn address_taken(module: llvm_sys::prelude::LLVMModuleRef) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for f in entry_point_functions(module) {
        report_value_uses(f, &display_name(&ir::name(f)), &mut out, 0);
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

/// The functions an entry point's function argument may be, when it is not
/// one function: a `select` or phi of functions (what the optimiser makes
/// of `if (c) __enzyme_autodiff((void *)f, ...); else
/// __enzyme_autodiff((void *)g, ...);`), an element of a constant table of
/// functions, or a parameter of a local function whose every caller passes
/// one of those. `None` when anything else may flow in.
fn chosen_functions(v: Value, seen: &mut Vec<Value>) -> Option<Vec<Value>> {
    if let Some(f) = ir::strip_to_function(v) {
        return Some(vec![f]);
    }
    if seen.contains(&v) || seen.len() > 32 {
        return None;
    }
    seen.push(v);
    let inputs: Vec<Value> = unsafe {
        if !LLVMIsASelectInst(v).is_null() {
            vec![LLVMGetOperand(v, 1), LLVMGetOperand(v, 2)]
        } else if !LLVMIsAPHINode(v).is_null() {
            ir::incoming(v).into_iter().map(|(x, _)| x).collect()
        } else if !LLVMIsAArgument(v).is_null() {
            // A parameter of a function only called directly here: what every caller passes.
            let f = LLVMGetParamParent(v);
            let k = ir::params(f).iter().position(|p| *p == v)? as u32;
            let local = matches!(
                LLVMGetLinkage(f),
                llvm_sys::LLVMLinkage::LLVMInternalLinkage | llvm_sys::LLVMLinkage::LLVMPrivateLinkage
            );
            let users = ir::users(f);
            let direct = |u: &Value| {
                ir::is_call_or_invoke(*u) && ir::called_function(*u) == Some(f) && k < ir::call_arg_count(*u)
            };
            if !local || users.is_empty() || !users.iter().all(direct) {
                return None;
            }
            users.iter().map(|u| ir::operand(*u, k)).collect()
        } else if !LLVMIsALoadInst(v).is_null() {
            // From a constant table: any of its elements.
            crate::ir::roots::constant_table_elements(v)?
        } else {
            return None;
        }
    };
    let mut out = Vec::new();
    for x in inputs {
        for f in chosen_functions(x, seen)? {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    Some(out)
}

/// Turns each entry-point call whose function argument is one of a few
/// known functions (see `chosen_functions`) into a test of the pointer and
/// one call per function, each naming its function, so every request is
/// read as if the source had made it directly (it did, before the optimiser
/// merged the calls). A pointer that is none of them stops with a message.
pub(crate) fn split_chosen_functions(module: llvm_sys::prelude::LLVMModuleRef) {
    for (call, ep) in find(module) {
        if !matches!(ep, Some(EntryPoint::Diff(_) | EntryPoint::Split(_) | EntryPoint::ErrorEstimate))
            || ir::opcode(call) != llvm_sys::LLVMOpcode::LLVMCall
        {
            continue;
        }
        let k = u32::from(sret_of(call).is_some());
        if k >= ir::call_arg_count(call) {
            continue;
        }
        let p = ir::operand(call, k);
        if ir::strip_to_function(p).is_some() {
            continue;
        }
        let Some(choices) = chosen_functions(p, &mut Vec::new()) else { continue };
        if choices.is_empty() || choices.len() > 16 {
            continue;
        }
        dispatch_call(module, call, k, &choices);
    }
}

fn dispatch_call(module: llvm_sys::prelude::LLVMModuleRef, call: Value, k: u32, choices: &[Value]) {
    let e = crate::build::emit::Emitter::new(module);
    let f = ir::parent_function(call);
    let p = ir::operand(call, k);
    let tail = ir::split_after(call, "chosen.done");
    // A result nobody reads gets no phi (which would read as a use).
    let result = !ir::is_void(ir::type_of(call)) && !ir::users(call).is_empty();
    let mut incoming = Vec::new();
    unsafe {
        e.at_end(LLVMGetInstructionParent(call));
        for (j, target) in choices.iter().enumerate() {
            let (this, next) = (e.append_block(f, "chosen.call"), e.append_block(f, "chosen.test"));
            let same = LLVMBuildICmp(e.b, llvm_sys::LLVMIntPredicate::LLVMIntEQ, p, *target, c"".as_ptr());
            LLVMBuildCondBr(e.b, same, this, next);
            e.at_end(this);
            let c = LLVMInstructionClone(call);
            LLVMInsertIntoBuilder(e.b, c);
            LLVMSetOperand(c, k, *target);
            incoming.push((c, this));
            e.br(tail);
            e.at_end(next);
            if j + 1 == choices.len() {
                let yes = LLVMConstInt(LLVMInt1TypeInContext(e.ctx), 1, 0);
                let entry = display_name(&ir::name(ir::called_function(call).unwrap_or(call)));
                e.abort_if(yes, &format!("enzyme-rs: the function given to {entry} was none of those it could be"));
                LLVMBuildUnreachable(e.b);
            }
        }
        if result {
            LLVMPositionBuilderBefore(e.b, ir::instructions(tail)[0]);
            let phi = LLVMBuildPhi(e.b, ir::type_of(call), c"".as_ptr());
            for (mut v, mut b) in incoming {
                LLVMAddIncoming(phi, &mut v, &mut b, 1);
            }
            LLVMReplaceAllUsesWith(call, phi);
        }
        LLVMInstructionEraseFromParent(call);
    }
}

/// Enzyme's names for `__enzyme_todense` (the second is what its automatic
/// sparsification emits; called by hand it means the same).
pub(crate) const TODENSE_NAMES: [&str; 2] = ["__enzyme_post_sparse_todense", "__enzyme_todense"];

/// Whether `name` is a `__enzyme_todense` callee (lowered by `todense`).
pub(crate) fn is_todense(name: &str) -> bool {
    TODENSE_NAMES.iter().any(|n| name.contains(n))
}

/// A call's result returned through memory: its first argument and the
/// type it points to, when the call site marks it `sret`.
pub(crate) fn sret_of(call: Value) -> Option<(Value, ir::Type)> {
    unsafe {
        let a = LLVMGetCallSiteEnumAttribute(call, 1, ir::attr_kind("sret"));
        (!a.is_null() && ir::call_arg_count(call) > 0).then(|| (ir::operand(call, 0), LLVMGetTypeAttributeValue(a)))
    }
}
