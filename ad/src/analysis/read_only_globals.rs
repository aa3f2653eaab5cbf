//! Mutable globals that the differentiated code only reads (a table of
//! coefficients filled in by the program before it asks for derivatives).
//! A global's derivative lives in a shadow global of ours that every
//! derivative call starts at zero, and only a write in the differentiated
//! code can make it anything else; so a global no such code writes has no
//! derivative during the call. Treating it as constant memory spares each
//! call zeroing its shadows and each lane loading zeros from them.

use std::collections::HashSet;

use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;
use llvm_sys::LLVMOpcode;

use crate::ir::{self, Value};

/// Metadata on a global that the round's differentiated code only reads;
/// removed when the round is over (another round may write it).
const READ_ONLY: &str = "enzyme_rs.read_only";

/// The functions code starting at `roots` may run: those it calls or passes
/// on as values (through constants and the initialisers of the globals it
/// refers to), and the globals it refers to. `None` when it makes an
/// indirect call the scan cannot follow.
pub(crate) fn reach(roots: &[Value]) -> Option<(HashSet<Value>, HashSet<Value>)> {
    let mut seen: HashSet<Value> = HashSet::new();
    let (mut functions, mut globals) = (HashSet::new(), HashSet::new());
    let mut work = roots.to_vec();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        unsafe {
            if !LLVMIsAFunction(v).is_null() {
                functions.insert(v);
                for i in ir::blocks(v).into_iter().flat_map(ir::instructions) {
                    if matches!(ir::opcode(i), LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke | LLVMOpcode::LLVMCallBr)
                        && ir::called_function(i).is_none()
                        && LLVMIsAInlineAsm(LLVMGetCalledValue(i)).is_null()
                    {
                        return None;
                    }
                    work.extend((0..ir::operand_count(i)).map(|k| ir::operand(i, k)).filter(|o| is_constant(*o)));
                }
            } else if !LLVMIsAGlobalVariable(v).is_null() {
                globals.insert(v);
                let init = LLVMGetInitializer(v);
                if !init.is_null() {
                    work.push(init);
                }
            } else if !LLVMIsAGlobalAlias(v).is_null() {
                work.push(LLVMAliasGetAliasee(v));
            } else {
                work.extend((0..ir::operand_count(v)).map(|k| ir::operand(v, k)).filter(|o| is_constant(*o)));
            }
        }
    }
    Some((functions, globals))
}

fn is_constant(v: Value) -> bool {
    unsafe { !v.is_null() && !LLVMIsAConstant(v).is_null() }
}

/// Marks the module's mutable globals holding floats that no code reached
/// from `roots` writes (see [`is_read_only`]); the marks go when the guard
/// is dropped.
pub(crate) fn mark(module: LLVMModuleRef, roots: &[Value]) -> Marks {
    let Some((reached, _)) = reach(roots) else {
        return Marks(Vec::new());
    };
    let marked: Vec<Value> = ir::globals(module)
        .into_iter()
        .filter(|g| unsafe {
            LLVMIsGlobalConstant(*g) == 0
                && LLVMIsDeclaration(*g) == 0
                && crate::ir::kind::contains_float(LLVMGlobalGetValueType(*g))
                && crate::surface::registry::user_shadow(*g).is_none()
        })
        .filter(|g| unwritten(*g, &reached))
        .collect();
    for g in &marked {
        ir::set_global_metadata(*g, READ_ONLY, None);
    }
    Marks(marked)
}

/// The globals [`mark`] marked, unmarked when dropped.
pub(crate) struct Marks(Vec<Value>);

impl Drop for Marks {
    fn drop(&mut self) {
        for g in &self.0 {
            ir::erase_global_metadata(*g, READ_ONLY);
        }
    }
}

/// Whether the differentiated code of this round only reads `g`.
pub(crate) fn is_read_only(g: Value) -> bool {
    ir::global_metadata(g, READ_ONLY).is_some()
}

/// Whether every use of `g`'s address reads through it, compares it, or
/// writes through it outside the functions `reached` (the program filling
/// the table in); any other use (stored, passed to code that may keep it,
/// turned into an integer) may let the differentiated code write it.
fn unwritten(g: Value, reached: &HashSet<Value>) -> bool {
    let mut seen = HashSet::new();
    let mut work = vec![g];
    while let Some(p) = work.pop() {
        if !seen.insert(p) {
            continue;
        }
        for u in ir::users(p) {
            if !ok_use(u, p, reached, &mut work) {
                return false;
            }
        }
    }
    true
}

/// One use `u` of an address `p` derived from the global: fine, or its
/// result (an address again) pushed onto `work`.
fn ok_use(u: Value, p: Value, reached: &HashSet<Value>, work: &mut Vec<Value>) -> bool {
    use LLVMOpcode::*;
    unsafe {
        if !LLVMIsAConstantExpr(u).is_null() {
            let address = matches!(LLVMGetConstOpcode(u), LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast)
                && LLVMGetOperand(u, 0) == p;
            if address {
                work.push(u);
            }
            return address;
        }
        if !ir::is_instruction(u) {
            // An initialiser of another global, metadata, ...
            return false;
        }
        let outside = !reached.contains(&ir::parent_function(u));
        match ir::opcode(u) {
            LLVMLoad | LLVMICmp => true,
            LLVMStore => ir::operand(u, 0) != p && outside,
            LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMPHI | LLVMSelect => {
                work.push(u);
                true
            }
            LLVMCall | LLVMInvoke => {
                let Some(callee) = ir::called_function(u) else { return false };
                let name = ir::name(callee);
                let args: Vec<u32> = (0..ir::call_arg_count(u)).filter(|k| ir::operand(u, *k) == p).collect();
                if args.is_empty() {
                    // The callee itself, or an operand bundle.
                    return false;
                }
                if name.starts_with("llvm.lifetime.") || name.starts_with("llvm.prefetch") {
                    return true;
                }
                if ["llvm.memcpy.", "llvm.memmove.", "llvm.memset."].iter().any(|m| name.starts_with(m)) {
                    // Written as the destination, read as the source.
                    return args.iter().all(|k| *k == 1 && !name.starts_with("llvm.memset.")) || outside;
                }
                if ir::is_declaration(callee) {
                    // Code we cannot see, run by the program outside the derivatives.
                    return outside && !reached.contains(&callee);
                }
                // Followed into the callee's parameters.
                let params = ir::params(callee);
                args.iter().all(|k| {
                    params.get(*k as usize).is_some_and(|a| {
                        work.push(*a);
                        true
                    })
                })
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::with_module;

    const IR: &str = r#"
@table = internal global [4 x double] zeroinitializer
@slot = internal global double 0.0
@kept = internal global double 0.0
@where = global ptr null

define void @setup() {
  store double 2.0, ptr getelementptr inbounds ([4 x double], ptr @table, i64 0, i64 1)
  call void @llvm.memset.p0.i64(ptr @table, i8 0, i64 8, i1 false)
  store ptr @kept, ptr @where
  ret void
}

define internal void @put(ptr %p, double %v) {
  store double %v, ptr %p
  ret void
}

define double @f(double %x, i64 %i) {
  %e = getelementptr inbounds [4 x double], ptr @table, i64 0, i64 %i
  %t = load double, ptr %e
  %m = fmul double %t, %x
  call void @put(ptr @slot, double %m)
  %s = load double, ptr @slot
  %k = load double, ptr @kept
  %r = fadd double %s, %k
  ret double %r
}

declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)
"#;

    #[test]
    fn only_globals_the_reached_code_never_writes_are_read_only() {
        with_module(IR, |function| {
            let f = function("f");
            let module = unsafe { LLVMGetGlobalParent(f) };
            let global = |name: &str| {
                let n = ir::cstring(name);
                unsafe { LLVMGetNamedGlobal(module, n.as_ptr()) }
            };
            {
                let _marks = mark(module, &[f]);
                // Written by `setup` only, which `f` never runs.
                assert!(is_read_only(global("table")));
                // Written by `put`, which `f` calls with its address.
                assert!(!is_read_only(global("slot")));
                // Its address is kept in memory, where `f`'s code may find it.
                assert!(!is_read_only(global("kept")));
            }
            assert!(!is_read_only(global("table")), "the marks go with the guard");
            // From `setup`, which writes the table itself, nothing is read-only.
            let _marks = mark(module, &[function("setup")]);
            assert!(!is_read_only(global("table")));
        })
    }
}
