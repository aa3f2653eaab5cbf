//! Where a pointer comes from: the base it is computed from through address
//! arithmetic, casts, and phis and selects of one base; and what a load from
//! a constant table may read. IR only.

use llvm_sys::core::*;

use crate::ir::{self, Value};

/// The base a pointer is computed from, through address arithmetic and casts.
pub(crate) fn root_of(p: Value) -> Value {
    root_through(p, &mut Vec::new())
}

/// [`root_of`], also through phis and selects whose inputs all share one
/// base (the optimiser's pointer induction variables and versioned loops).
fn root_through(mut p: Value, seen: &mut Vec<Value>) -> Value {
    unsafe {
        loop {
            if !LLVMIsAGetElementPtrInst(p).is_null()
                || (!LLVMIsABitCastInst(p).is_null())
                || (!LLVMIsAAddrSpaceCastInst(p).is_null())
            {
                p = LLVMGetOperand(p, 0);
                continue;
            }
            let inputs: Vec<Value> = if !LLVMIsAPHINode(p).is_null() {
                ir::incoming(p).into_iter().map(|(v, _)| v).collect()
            } else if !LLVMIsASelectInst(p).is_null() && ir::is_pointer(ir::type_of(p)) {
                vec![LLVMGetOperand(p, 1), LLVMGetOperand(p, 2)]
            } else {
                return p;
            };
            if seen.contains(&p) || seen.len() > 16 {
                return p;
            }
            seen.push(p);
            let mut common: Option<Value> = None;
            for v in inputs {
                let r = root_through(v, seen);
                if seen.contains(&r) {
                    // Back through this phi again: the loop's own update.
                    continue;
                }
                match common {
                    None => common = Some(r),
                    Some(c) if c == r => {}
                    Some(_) => {
                        seen.pop();
                        return p;
                    }
                }
            }
            seen.pop();
            return common.unwrap_or(p);
        }
    }
}

/// What a load may read when it reads an element of a constant array
/// global (a table of functions or of string literals): the elements.
pub(crate) fn constant_table_elements(load: Value) -> Option<Vec<Value>> {
    if ir::opcode(load) != llvm_sys::LLVMOpcode::LLVMLoad {
        return None;
    }
    let p = ir::operand(load, 0);
    let g = root_of(p);
    let g = if unsafe { LLVMIsAGlobalVariable(g).is_null() } { ir::constant_root(p)? } else { g };
    unsafe {
        let init = LLVMGetInitializer(g);
        if LLVMIsGlobalConstant(g) == 0 || init.is_null() || LLVMIsAConstantArray(init).is_null() {
            return None;
        }
        Some((0..ir::operand_count(init)).map(|k| ir::operand(init, k)).collect())
    }
}
