//! Values that may be undefined on some path: an `undef` or `poison`
//! constant reaching them through phis, selects, `freeze` or the fields of
//! an aggregate. The optimiser leaves them where the program never reads
//! the value: a Rust `Option<f64>` returned as `{ i64, double }` has an
//! `undef` payload when it is `None`, and the code using the payload is
//! speculated (`old * v` computed always, then discarded by a `select`).
//! At run time such a value holds whatever a register held, an infinity or
//! a NaN included; its adjoint is zero there, and zero times it must stay
//! zero in the reverse sweep.

use std::collections::HashSet;

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::ir::{self, Value};

/// How many values the search visits before it answers "maybe".
const MOST_VISITS: usize = 64;

/// Whether `v` may be undefined on some path (see the module's comment).
/// Values loaded from memory, returned by calls or computed otherwise
/// count as defined; a search that runs long answers `true`.
pub(crate) fn may_be_undefined(v: Value) -> bool {
    let mut work = vec![v];
    let mut seen = HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        if seen.len() > MOST_VISITS {
            return true;
        }
        unsafe {
            if !LLVMIsAUndefValue(v).is_null() || !LLVMIsAPoisonValue(v).is_null() {
                return true;
            }
            // Constant aggregates by their elements; other constants are defined.
            if is_aggregate_constant(v) {
                work.extend((0..ir::operand_count(v)).map(|k| ir::operand(v, k)));
                continue;
            }
            if !LLVMIsAConstant(v).is_null() {
                continue;
            }
        }
        if !ir::is_instruction(v) {
            continue;
        }
        match ir::opcode(v) {
            LLVMOpcode::LLVMPHI => work.extend(ir::incoming(v).into_iter().map(|(x, _)| x)),
            LLVMOpcode::LLVMSelect => work.extend([ir::operand(v, 1), ir::operand(v, 2)]),
            LLVMOpcode::LLVMFreeze | LLVMOpcode::LLVMExtractValue | LLVMOpcode::LLVMExtractElement => {
                work.push(ir::operand(v, 0))
            }
            LLVMOpcode::LLVMInsertValue | LLVMOpcode::LLVMInsertElement | LLVMOpcode::LLVMShuffleVector => {
                work.extend([ir::operand(v, 0), ir::operand(v, 1)])
            }
            _ => {}
        }
    }
    false
}

/// A constant struct, array or vector, whose elements may be `undef`.
fn is_aggregate_constant(v: Value) -> bool {
    unsafe {
        !LLVMIsAConstantStruct(v).is_null() || !LLVMIsAConstantArray(v).is_null() || !LLVMIsAConstantVector(v).is_null()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::with_function;

    /// `may_be_undefined` of each named value of `@f`, in order.
    fn verdicts(body: &str, names: &[&str]) -> Vec<bool> {
        let ir = format!("define double @f(i1 %c, double %x, ptr %p) {{\n{body}\n}}\n");
        with_function(&ir, |f| {
            let all: Vec<Value> = ir::blocks(f).into_iter().flat_map(ir::instructions).collect();
            names.iter().map(|n| may_be_undefined(*all.iter().find(|i| ir::name(**i) == *n).expect("named"))).collect()
        })
    }

    #[test]
    fn an_option_payload_is_undefined_and_loads_are_not() {
        let body = "entry:\n  %l = load double, ptr %p\n  br i1 %c, label %a, label %b\n\
                    a:\n  br label %b\n\
                    b:\n  %pay = phi double [ undef, %entry ], [ %l, %a ]\n  \
                    %agg = insertvalue { i64, double } { i64 0, double poison }, double %pay, 1\n  \
                    %out = extractvalue { i64, double } %agg, 1\n  \
                    %some = extractvalue { i64, double } { i64 1, double 2.0 }, 1\n  \
                    %m = fmul double %l, %x\n  \
                    %s = select i1 %c, double %m, double %l\n  ret double %s";
        assert_eq!(
            verdicts(body, &["l", "pay", "agg", "out", "some", "m", "s"]),
            vec![false, true, true, true, false, false, false]
        );
    }
}
