//! Recognising Enzyme's entry points: any callee whose name contains
//! `__enzyme_autodiff`, `__enzyme_fwddiff`, split mode's names,
//! `__enzyme_virtualreverse` or `__enzyme_batch` (C++ template
//! instantiations, numbered variants such as `__enzyme_autodiff2`), every
//! call of one in a module, and uses of one that are not calls.

use llvm_sys::core::*;

use crate::diag::Diagnostic;
use crate::ir::{self, Value};
use crate::names::display_name;
use crate::request::Mode;

/// Entry points of Enzyme's C API that this version does not implement.
const UNSUPPORTED_ENTRY_POINTS: &[&str] = &["__enzyme_todense", "__enzyme_error_estimate"];

/// What kind of entry point a callee name is.
pub(crate) enum EntryPoint {
    Diff(Mode),
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
