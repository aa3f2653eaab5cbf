//! The validation that turns anything the engine cannot differentiate into
//! a diagnostic before any code is generated: each instruction of a
//! prepared function, by what [`crate::calls::classify`] says it is, under the
//! activity the memory analysis finds.

use llvm_sys::core::*;

use crate::analysis::memory;
use crate::calls::classify::{classify, is_c_mpi, is_fortran_mpi, scalar_interface_type, Kind, MEMORY_HELP};
use crate::ir::cfg::Cfg;
use crate::ir::diag::Diagnostic;
use crate::ir::names::display_name;
use crate::ir::{self, Value};
use crate::surface::request::Mode;

/// Checks a preprocessed function under an activity pattern (`dup[k]`: pointer
/// parameter `k` has a shadow); returns its diagnostics and the module
/// functions it calls that stay calls (recursion), which must be checked too.
pub(crate) fn check_function(
    f: Value,
    original_name: &str,
    dup: &[bool],
    mode: Mode,
    rules: crate::surface::custom::RuleUse,
    runtime_activity: bool,
) -> (Vec<Diagnostic>, Vec<(Value, Vec<bool>)>) {
    let mut diags = Vec::new();
    let mut callees = Vec::new();
    let shown = display_name(original_name);
    crate::ir::progress::working_on(|| format!("checking `{shown}`"));
    let cfg = Cfg::new(f);
    let mut fail = |msg: String, help: &str, at: Option<Value>| {
        let mut d = Diagnostic::new(msg).with_help(help);
        d.function = Some(shown.clone());
        if let Some(i) = at {
            d.location = ir::location(i);
            // Code inlined from a library (Rust's core, libstdc++) is located
            // in the library's source: say where the user's code called it
            // (the innermost call site in a file of the user's: one that can
            // be read, outside the system's directories).
            let through = ir::inlined_through(i);
            let users = |l: &&crate::ir::diag::SourceLocation| l.path().exists() && !l.path().starts_with("/usr/");
            if let Some(at) = through.iter().find(users).or(through.last()) {
                d.notes.push(format!("inlined from a call at {at}"));
            }
            d.ir = Some(truncate(ir::print(i)));
            d.missing_body = ir::is_call_or_invoke(i)
                .then(|| ir::called_function(i))
                .flatten()
                .filter(|c| ir::is_declaration(*c) && !ir::name(*c).starts_with("llvm."))
                .map(ir::name)
                // MPI's help says what is differentiated instead.
                .filter(|n| !is_c_mpi(n) && !is_fortran_mpi(n));
        }
        diags.push(d);
    };
    for (k, p) in ir::params(f).into_iter().enumerate() {
        let t = ir::type_of(p);
        // A recursive function may take pointers as long as it only reads
        // memory (checked below): recomputing it then has no side effects.
        let ok = scalar_interface_type(t) || ir::is_pointer(t);
        if !ok {
            let help = MEMORY_HELP;
            fail(
                format!("cannot differentiate `{shown}`: parameter {} has type `{}`", k + 1, ir::print_type(t)),
                help,
                None,
            );
        }
    }
    if unsafe { LLVMIsFunctionVarArg(ir::function_type(f)) } != 0 {
        fail(
            format!("cannot differentiate `{shown}`: it takes a variable number of arguments"),
            "variadic functions are not supported yet; give the function fixed parameters",
            None,
        );
    }
    let rt = ir::return_type(f);
    if !(scalar_interface_type(rt) || ir::is_void(rt) || ir::is_pointer(rt)) {
        fail(format!("cannot differentiate `{shown}`: it returns `{}`", ir::print_type(rt)), MEMORY_HELP, None);
    }
    for b in &cfg.irreducible {
        fail(
            format!(
                "cannot differentiate `{shown}`: it contains a cycle entered in the middle (irreducible control flow)"
            ),
            "loops must be entered through their first block; `goto` into a loop body is not supported",
            Some(ir::terminator(*b)),
        );
    }
    for l in &cfg.loops {
        if l.latches.len() != 1 {
            fail(
                format!("cannot differentiate `{shown}`: a loop has {} back edges", l.latches.len()),
                "this loop shape is not supported yet",
                Some(ir::terminator(l.header)),
            );
        }
    }
    for b in &cfg.order {
        if !cfg.live.contains(b) {
            // Paths that throw or end the program carry no derivative: they run as they are.
            continue;
        }
        for i in ir::instructions(*b) {
            match classify(i) {
                Kind::Unsupported { what, help } => {
                    fail(format!("cannot differentiate {what} in `{shown}`"), &help, Some(i))
                }
                Kind::Call(callee) => callees.push((callee, i)),
                Kind::Custom(callee) => {
                    if let Err(e) =
                        crate::surface::custom::check(callee, rules, &crate::analysis::reread::writes_no_caller_memory)
                    {
                        fail(
                            format!(
                                "cannot use the custom derivative of `{}` in `{shown}`: {e}",
                                display_name(&ir::name(callee))
                            ),
                            "see Enzyme's conventions for custom derivatives (README, \"Custom derivatives\")",
                            Some(i),
                        );
                    }
                }
                _ => {}
            }
        }
    }
    let mem = memory::analyze(f, &cfg, dup, mode, runtime_activity, classify);
    // Which pointer arguments of each nested call have shadows.
    let mut nested = Vec::new();
    for (callee, call) in callees {
        match nested_call_pattern(call, &mem) {
            Ok(mask) => nested.push((callee, mask)),
            Err(why) => fail(
                format!("cannot differentiate a recursive call in `{shown}`: a pointer argument {why}"),
                "pass pointers that come from the arguments or from local variables",
                Some(call),
            ),
        }
    }
    for (i, what, help) in mem.problems {
        fail(format!("cannot differentiate {what} in `{shown}`"), help, Some(i));
    }
    (diags, nested)
}

/// For a call that stays a call (recursion): per argument, whether it is a
/// pointer with a shadow.
pub(crate) fn nested_call_pattern(call: Value, mem: &memory::Memory) -> Result<Vec<bool>, &'static str> {
    (0..ir::call_arg_count(call))
        .map(|k| {
            let a = ir::operand(call, k);
            if !ir::is_pointer(ir::type_of(a)) {
                return Ok(false);
            }
            match mem.status(a) {
                memory::PtrStatus::Shadowed => Ok(true),
                memory::PtrStatus::Constant => Ok(false),
                memory::PtrStatus::Unknown(why) => Err(why),
            }
        })
        .collect()
}

fn truncate(mut s: String) -> String {
    if s.len() > 240 {
        let mut cut = 240;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push_str(" …");
    }
    s
}
