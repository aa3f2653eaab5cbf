//! Calls that run as they are. A function given and returning no floats and
//! no pointers hands the differentiated code only integers, which carry no
//! derivative; the only memory it can reach is globals', which are constant
//! memory to the engine unless they hold floats (and then have a shadow).
//! When such a function also reaches outside plain code (the system through
//! an external call, thread-locals, atomics, code through pointers), its body
//! is not the engine's business: Rust's `HashMap::new()` seeds its hasher
//! through `getrandom`, a `syscall` and, on failure, the panic and stdout
//! machinery, none of which has or needs a derivative. Such a call is kept
//! out of line by preprocessing and runs once, in the forward sweep, as a
//! library call does (its integer results taped where the reverse sweep
//! needs them: it is not recomputed). Plain integer helpers are inlined and
//! differentiated as before. A library function given and returning only
//! integers (`rand`, `getpid`) runs as it is too, unless the module exports
//! a global with a shadow that the library could write.

use std::collections::{HashMap, HashSet};

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::ir::{self, Value};
use crate::kind::contains_float;

/// The flag preprocessing puts on an inert call (see [`runs_inertly`]).
pub(crate) const INERT: &str = "enzyme_rs.inert_call";

/// How many functions the search below looks through before giving up
/// (and then the call is differentiated as any other).
const SEARCH_LIMIT: usize = 20_000;

/// Whether `call` of the module function `callee` runs as it is (see the
/// module doc). `memo` keeps the answer per callee.
pub(crate) fn runs_inertly(call: Value, callee: Value, memo: &mut HashMap<Value, bool>) -> bool {
    if !hands_over_only_integers(call) {
        return false;
    }
    *memo.entry(callee).or_insert_with(|| {
        if !ir::is_declaration(callee) {
            return reaches_outside_without_shadowed_globals(callee);
        }
        // Code outside the module (`rand`, `getpid`, `clock`) reaches no
        // global of the module's but those it exports.
        let name = ir::name(callee);
        // MPI's calls order processes (a barrier's reverse is a barrier).
        let mpi = crate::classify::is_c_mpi(&name) || crate::classify::is_fortran_mpi(&name);
        !name.starts_with("llvm.")
            && !mpi
            && !crate::registry::is_enzyme_api_name(&name)
            && !module_globals(callee).into_iter().any(|g| {
                crate::memory::shadowable_global(g)
                    && unsafe { LLVMGetLinkage(g) } != llvm_sys::LLVMLinkage::LLVMInternalLinkage
                    && unsafe { LLVMGetLinkage(g) } != llvm_sys::LLVMLinkage::LLVMPrivateLinkage
            })
    })
}

/// No argument or result holds a float or a pointer.
fn hands_over_only_integers(call: Value) -> bool {
    let opaque = |t| contains_float(t) || holds_pointer(t);
    !opaque(ir::type_of(call)) && (0..ir::call_arg_count(call)).all(|k| !opaque(ir::type_of(ir::operand(call, k))))
}

fn holds_pointer(t: ir::Type) -> bool {
    use llvm_sys::LLVMTypeKind::*;
    unsafe {
        match LLVMGetTypeKind(t) {
            LLVMPointerTypeKind => true,
            LLVMVectorTypeKind | LLVMScalableVectorTypeKind | LLVMArrayTypeKind => holds_pointer(LLVMGetElementType(t)),
            LLVMStructTypeKind => {
                let n = LLVMCountStructElementTypes(t);
                (0..n).any(|k| holds_pointer(LLVMStructGetTypeAtIndex(t, k)))
            }
            _ => false,
        }
    }
}

/// Whether `f`, or a function it calls, reaches outside plain code, while no
/// function it may call names a global that has a shadow (whose derivative
/// a store there would change).
fn reaches_outside_without_shadowed_globals(f: Value) -> bool {
    let mut outside = false;
    let mut indirect = false;
    let mut seen: HashSet<Value> = HashSet::from([f]);
    let mut work = vec![f];
    while let Some(g) = work.pop() {
        if seen.len() > SEARCH_LIMIT {
            return false;
        }
        for i in ir::blocks(g).into_iter().flat_map(ir::instructions) {
            match ir::opcode(i) {
                LLVMOpcode::LLVMAtomicCmpXchg | LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMFence => outside = true,
                LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMStore if ir::is_atomic(i) => outside = true,
                LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr => {
                    match ir::called_function(i) {
                        Some(c) if ir::is_declaration(c) => {
                            let name = ir::name(c);
                            if !name.starts_with("llvm.") || name.starts_with("llvm.threadlocal.address") {
                                outside = true;
                            }
                        }
                        Some(c) => {
                            if seen.insert(c) {
                                work.push(c);
                            }
                        }
                        None => {
                            outside = true;
                            indirect = true;
                        }
                    }
                }
                _ => {}
            }
            for k in 0..ir::operand_count(i) {
                if names_shadowed_global(ir::operand(i, k)) {
                    return false;
                }
            }
        }
    }
    // Code reached through a pointer may be any function whose address is
    // taken: none may name a shadowed global.
    if indirect && module_has_shadowed_global(f) {
        return false;
    }
    outside
}

/// A global with a shadow, or constant address arithmetic on one.
fn names_shadowed_global(v: Value) -> bool {
    unsafe {
        let mut p = v;
        for _ in 0..8 {
            if !LLVMIsAGlobalVariable(p).is_null() {
                return crate::memory::shadowable_global(p);
            }
            if LLVMIsAConstantExpr(p).is_null() || LLVMGetNumOperands(p) == 0 {
                return false;
            }
            p = LLVMGetOperand(p, 0);
        }
        false
    }
}

fn module_has_shadowed_global(f: Value) -> bool {
    module_globals(f).into_iter().any(crate::memory::shadowable_global)
}

fn module_globals(f: Value) -> Vec<Value> {
    ir::globals(unsafe { LLVMGetGlobalParent(f) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_ir::{calls, with_function};

    /// Whether each call of `@f` (in order) runs as it is.
    fn inert(ir: &str) -> Vec<bool> {
        with_function(ir, |f| {
            let mut memo = HashMap::new();
            calls(f).into_iter().map(|c| runs_inertly(c, ir::called_function(c).unwrap(), &mut memo)).collect()
        })
    }

    const HELPERS: &str = "
@counter = global i64 0
@state = global double 0.0
declare i64 @getpid()
define i64 @ticket(i64 %k) {
  %t = atomicrmw add ptr @counter, i64 1 seq_cst
  %s = add i64 %t, %k
  ret i64 %s
}
define i64 @pid_plus(i64 %k) {
  %p = call i64 @getpid()
  %s = add i64 %p, %k
  ret i64 %s
}
define i64 @outer(i64 %k) {
  %p = call i64 @pid_plus(i64 %k)
  ret i64 %p
}
define i64 @plain(i64 %k) {
  %s = mul i64 %k, 3
  ret i64 %s
}
define i64 @resets(i64 %k) {
  store double 0.0, ptr @state
  %p = call i64 @getpid()
  ret i64 %p
}
define i64 @by_pointer(ptr %p) {
  %v = load i64, ptr %p
  %q = call i64 @getpid()
  ret i64 %q
}
define double @floaty(i64 %k) {
  %q = call i64 @getpid()
  %d = sitofp i64 %q to double
  ret double %d
}
";

    #[test]
    fn integer_calls_reaching_outside_run_as_they_are() {
        let ir = format!(
            "{HELPERS}
define i64 @f(ptr %x) {{
  %a = call i64 @ticket(i64 1)
  %b = call i64 @outer(i64 2)
  %c = call i64 @plain(i64 3)
  %d = call i64 @resets(i64 4)
  %e = call i64 @by_pointer(ptr %x)
  %g = call double @floaty(i64 5)
  ret i64 %a
}}"
        );
        // Atomics and (through another function) the system: inert. Plain
        // arithmetic: inlined as before. A global with a shadow written, a
        // pointer or a float handed over: differentiated.
        assert_eq!(inert(&ir), [true, true, false, false, false, false]);
    }

    #[test]
    fn library_functions_of_integers_run_as_they_are_unless_a_shadowed_global_is_exported() {
        let exported = "@g = global double 0.0\ndeclare i64 @getpid()\ndeclare i32 @MPI_Barrier(i32)\n\
                        define i64 @f() {\n  %a = call i64 @getpid()\n  %b = call i32 @MPI_Barrier(i32 0)\n  ret i64 %a\n}";
        assert_eq!(inert(exported), [false, false]);
        let internal = exported.replace("@g = global", "@g = internal global");
        // MPI orders processes: never run as it is.
        assert_eq!(inert(&internal), [true, false]);
    }
}
