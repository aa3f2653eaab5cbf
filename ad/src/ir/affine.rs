//! Addresses as a base pointer plus an affine offset: a constant and
//! integer values times constant coefficients, read through `add`, `sub`,
//! `shl`, `mul` by a constant, `xor -1`, disjoint `or`, extensions and the
//! index arithmetic of `getelementptr` (typed or bytewise). What
//! [`crate::libraries::swiss_tables`] reads a hash table's slot offsets with.

use llvm_sys::core::*;
use llvm_sys::target::{LLVMABISizeOfType, LLVMOffsetOfElement, LLVMTargetDataRef};
use llvm_sys::LLVMOpcode;

use crate::ir::{self, Value};

/// How deep integer arithmetic is taken apart.
const MOST_DEPTH: u32 = 8;

/// `constant + Σ coefficient · leaf` (wrapping, as addresses are).
#[derive(Clone, Debug, Default)]
pub(crate) struct Affine {
    pub constant: i64,
    pub terms: Vec<(i64, Value)>,
}

impl Affine {
    pub(crate) fn add(mut self, other: Affine, sign: i64) -> Affine {
        self.constant = self.constant.wrapping_add(other.constant.wrapping_mul(sign));
        self.terms.extend(other.terms.into_iter().map(|(c, v)| (c.wrapping_mul(sign), v)));
        self
    }

    fn scale(mut self, k: i64) -> Affine {
        self.constant = self.constant.wrapping_mul(k);
        for t in &mut self.terms {
            t.0 = t.0.wrapping_mul(k);
        }
        self
    }

    fn leaf(v: Value) -> Affine {
        Affine { constant: 0, terms: vec![(1, v)] }
    }
}

/// Integer `v` as an affine form of the values it is computed from.
fn int_affine(v: Value, depth: u32) -> Affine {
    if let Some(c) = ir::const_int_value(v) {
        return Affine { constant: c, terms: Vec::new() };
    }
    if depth == 0 || !ir::is_instruction(v) {
        return Affine::leaf(v);
    }
    let op = |k| int_affine(ir::operand(v, k), depth - 1);
    let constant_operand = |k| ir::const_int_value(ir::operand(v, k));
    match ir::opcode(v) {
        LLVMOpcode::LLVMAdd => op(0).add(op(1), 1),
        LLVMOpcode::LLVMOr if unsafe { LLVMGetIsDisjoint(v) } != 0 => op(0).add(op(1), 1),
        LLVMOpcode::LLVMSub => op(0).add(op(1), -1),
        LLVMOpcode::LLVMShl => match constant_operand(1) {
            Some(s) if (0..63).contains(&s) => op(0).scale(1 << s),
            _ => Affine::leaf(v),
        },
        LLVMOpcode::LLVMMul => match (constant_operand(0), constant_operand(1)) {
            (_, Some(k)) => op(0).scale(k),
            (Some(k), _) => op(1).scale(k),
            _ => Affine::leaf(v),
        },
        // `!x` is `-x - 1`.
        LLVMOpcode::LLVMXor if constant_operand(1) == Some(-1) => {
            op(0).scale(-1).add(Affine { constant: -1, terms: Vec::new() }, 1)
        }
        LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMZExt => op(0),
        _ => Affine::leaf(v),
    }
}

/// The byte offset a `getelementptr` adds to its base.
pub(crate) fn gep_affine(g: Value, td: LLVMTargetDataRef) -> Option<Affine> {
    use llvm_sys::LLVMTypeKind::*;
    unsafe {
        let mut t = LLVMGetGEPSourceElementType(g);
        let mut total = Affine::default();
        for k in 1..ir::operand_count(g) {
            let idx = ir::operand(g, k);
            if ir::vector_lanes(ir::type_of(idx)).is_some() {
                return None;
            }
            if k > 1 {
                match ir::kind(t) {
                    LLVMStructTypeKind => {
                        let n = ir::const_int_value(idx)? as u32;
                        total.constant = total.constant.wrapping_add(LLVMOffsetOfElement(td, t, n) as i64);
                        t = LLVMStructGetTypeAtIndex(t, n);
                        continue;
                    }
                    LLVMArrayTypeKind | LLVMVectorTypeKind => t = LLVMGetElementType(t),
                    _ => return None,
                }
            }
            let size = LLVMABISizeOfType(td, t) as i64;
            total = total.add(int_affine(idx, MOST_DEPTH).scale(size), 1);
        }
        Some(total)
    }
}

/// The bases `p` is computed from by address arithmetic, nearest first,
/// each with the offset from it to `p` and whether every step on the way
/// is `nuw` (an offset that cannot be negative).
pub(crate) fn chain(p: Value, td: LLVMTargetDataRef) -> Vec<(Value, Affine, bool)> {
    let mut out = vec![(p, Affine::default(), true)];
    let mut q = p;
    while unsafe { !LLVMIsAGetElementPtrInst(q).is_null() } {
        let Some(step) = gep_affine(q, td) else { break };
        let nuw = unsafe { LLVMGEPGetNoWrapFlags(q) } & llvm_sys::LLVMGEPFlagNUW != 0;
        let (_, so_far, all_nuw) = out.last().cloned().expect("starts with p");
        q = ir::operand(q, 0);
        out.push((q, so_far.add(step, 1), all_nuw && nuw));
    }
    out
}
