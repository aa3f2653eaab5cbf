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
//! integers (`rand`, `getpid`) runs as it is too, where no global of the
//! module has a shadow (the library could write one it was told of).

use std::collections::{HashMap, HashSet};

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::ir::kind::{contains_float, contains_scalar};
use crate::ir::{self, Value};

pub(crate) use crate::ir::kind::INERT;

/// How many functions the search below looks through before giving up
/// (and then the call is differentiated as any other).
const SEARCH_LIMIT: usize = 20_000;

/// What is known so far: answers per callee, and what each function's own
/// body does (read once, whatever callee's search reaches it).
#[derive(Default)]
pub(crate) struct Memo {
    answers: HashMap<Value, bool>,
    bodies: HashMap<Value, Body>,
}

/// What one function's own instructions do.
struct Body {
    /// External calls, thread-locals, atomics, calls through pointers.
    outside: bool,
    /// A call through a pointer.
    indirect: bool,
    /// A global with a shadow named.
    shadowed: bool,
    /// Module functions it calls or takes the address of.
    reaches: Vec<Value>,
}

/// Whether `call` of the module function `callee` runs as it is (see the
/// module doc).
pub(crate) fn runs_inertly(call: Value, callee: Value, memo: &mut Memo) -> bool {
    if !hands_over_only_integers(call) {
        return false;
    }
    if let Some(a) = memo.answers.get(&callee) {
        return *a;
    }
    let answer = if ir::is_declaration(callee) {
        // Code outside the module (`rand`, `getpid`, `clock`) may write the
        // module's globals it is told of (exported ones, or through callbacks
        // handed to it earlier): only where no global has a shadow.
        let name = ir::name(callee);
        // MPI's calls order processes (a barrier's reverse is a barrier).
        let mpi = crate::calls::classify::is_c_mpi(&name) || crate::calls::classify::is_fortran_mpi(&name);
        !name.starts_with("llvm.")
            && !mpi
            && !crate::surface::registry::is_enzyme_api_name(&name)
            && !module_has_shadowed_global(callee)
    } else {
        reaches_outside_without_shadowed_globals(callee, &mut memo.bodies)
    };
    memo.answers.insert(callee, answer);
    answer
}

/// No argument or result holds a float or a pointer.
fn hands_over_only_integers(call: Value) -> bool {
    let opaque = |t| contains_float(t) || contains_scalar(t, &ir::is_pointer);
    !opaque(ir::type_of(call)) && (0..ir::call_arg_count(call)).all(|k| !opaque(ir::type_of(ir::operand(call, k))))
}

/// Whether `f`, or a function it calls, reaches outside plain code, while no
/// function it may call names a global that has a shadow (whose derivative
/// a store there would change).
fn reaches_outside_without_shadowed_globals(f: Value, bodies: &mut HashMap<Value, Body>) -> bool {
    let (mut outside, mut indirect) = (false, false);
    let mut seen: HashSet<Value> = HashSet::from([f]);
    let mut work = vec![f];
    while let Some(g) = work.pop() {
        if seen.len() > SEARCH_LIMIT {
            return false;
        }
        let body = bodies.entry(g).or_insert_with(|| body_of(g));
        if body.shadowed {
            return false;
        }
        outside |= body.outside;
        indirect |= body.indirect;
        for c in &body.reaches {
            if seen.insert(*c) {
                work.push(*c);
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

fn body_of(g: Value) -> Body {
    let mut b = Body { outside: false, indirect: false, shadowed: false, reaches: Vec::new() };
    for i in ir::blocks(g).into_iter().flat_map(ir::instructions) {
        match ir::opcode(i) {
            LLVMOpcode::LLVMAtomicCmpXchg | LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMFence => b.outside = true,
            LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMStore if ir::is_atomic(i) => b.outside = true,
            LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr => match ir::called_function(i) {
                Some(c) if ir::is_declaration(c) => {
                    let name = ir::name(c);
                    if !name.starts_with("llvm.") || name.starts_with("llvm.threadlocal.address") {
                        b.outside = true;
                    }
                }
                Some(_) => {}
                None => {
                    b.outside = true;
                    b.indirect = true;
                }
            },
            _ => {}
        }
        for k in 0..ir::operand_count(i) {
            let o = ir::operand(i, k);
            if names_shadowed_global(o) {
                b.shadowed = true;
            }
            // Called, or its address handed on (a callback): it may run.
            if let Some(c) = ir::strip_to_function(o).filter(|c| !ir::is_declaration(*c)) {
                if !b.reaches.contains(&c) {
                    b.reaches.push(c);
                }
            }
        }
    }
    b
}

/// A global with a shadow, or any constant expression on one: not only
/// address arithmetic (`ir::constant_root`), since a body not validated may
/// turn `ptrtoint @g` back into an address.
fn names_shadowed_global(v: Value) -> bool {
    unsafe {
        let mut p = v;
        for _ in 0..8 {
            if !LLVMIsAGlobalVariable(p).is_null() {
                return crate::analysis::memory::shadowable_global(p);
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
    ir::globals(unsafe { LLVMGetGlobalParent(f) }).into_iter().any(crate::analysis::memory::shadowable_global)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::{calls, with_function};

    /// Whether each call of `@f` (in order) runs as it is.
    fn inert(ir: &str) -> Vec<bool> {
        with_function(ir, |f| {
            let mut memo = Memo::default();
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
declare void @register(ptr)
define void @writer() {
  store double 1.0, ptr @state
  ret void
}
define i64 @hands_on_a_writer(i64 %k) {
  call void @register(ptr @writer)
  ret i64 %k
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
  %h = call i64 @hands_on_a_writer(i64 6)
  ret i64 %a
}}"
        );
        // Atomics and (through another function) the system: inert. Plain
        // arithmetic: inlined as before. A global with a shadow written
        // (also by a function whose address is handed on), a pointer or a
        // float handed over: differentiated.
        assert_eq!(inert(&ir), [true, true, false, false, false, false, false]);
    }

    #[test]
    fn library_functions_of_integers_run_as_they_are_unless_a_global_has_a_shadow() {
        let shadowed = "@g = internal global double 0.0\ndeclare i64 @getpid()\ndeclare i32 @MPI_Barrier(i32)\n\
                        define i64 @f() {\n  %a = call i64 @getpid()\n  %b = call i32 @MPI_Barrier(i32 0)\n  ret i64 %a\n}";
        assert_eq!(inert(shadowed), [false, false]);
        let integers = shadowed.replace("@g = internal global double 0.0", "@g = internal global i64 0");
        // MPI orders processes: never run as it is.
        assert_eq!(inert(&integers), [true, false]);
    }
}
