//! Where a pointer comes from: the base it is computed from through address
//! arithmetic, casts, and phis and selects of one base; and what a load from
//! a constant table may read, whether it is its own shadow (constant memory
//! without floats) or the differentiated code's own memory. IR only.

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::ir::kind::Kind;
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

/// Whether a constant pointer is null or undefined (compatible with any status).
/// A function, or an address in constant memory that holds no floats (a
/// vtable, type information), or a choice (select, phi) among such: nothing
/// derivative is ever read or written through it, so it is its own shadow
/// (stored as it is into shadow memory, as a C++ object's vtable pointer is).
pub(crate) fn is_inert_constant(v: Value) -> bool {
    is_inert_within(v, 0)
}

fn is_inert_within(v: Value, depth: u32) -> bool {
    if depth > 4 {
        return false;
    }
    if ir::is_instruction(v) {
        return match ir::opcode(v) {
            LLVMOpcode::LLVMSelect if ir::is_pointer(ir::type_of(v)) => {
                is_inert_within(ir::operand(v, 1), depth + 1) && is_inert_within(ir::operand(v, 2), depth + 1)
            }
            LLVMOpcode::LLVMPHI if ir::is_pointer(ir::type_of(v)) => {
                ir::incoming(v).into_iter().all(|(x, _)| x != v && is_inert_within(x, depth + 1))
            }
            _ => false,
        };
    }
    unsafe {
        let mut p = v;
        while !LLVMIsAConstantExpr(p).is_null()
            && matches!(
                LLVMGetConstOpcode(p),
                LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast
            )
        {
            p = LLVMGetOperand(p, 0);
        }
        if !LLVMIsAFunction(p).is_null() {
            return true;
        }
        !LLVMIsAGlobalVariable(p).is_null()
            && LLVMIsGlobalConstant(p) != 0
            && !crate::ir::kind::contains_float(LLVMGlobalGetValueType(p))
    }
}

/// Whether a pointer base is memory of the differentiated code itself (a
/// stack slot or a heap allocation), which the caller cannot see.
pub(crate) fn is_local(root: Value, kind_of: &impl Fn(Value) -> Kind) -> bool {
    ir::is_instruction(root) && matches!(kind_of(root), Kind::Alloc(_) | Kind::Realloc | Kind::Alloca)
}
