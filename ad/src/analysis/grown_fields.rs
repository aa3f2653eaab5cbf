//! The element layout of a block grown with `realloc` that holds floats
//! beside pointers (a `Vec` of structs with a `Vec` field): every access's
//! address taken apart into the block's start plus an affine offset
//! (`affine`); the element size is what every index steps by, and each
//! access's offset within an element is its constant part modulo that.
//! Trusted only where every address is seen to start at an element
//! boundary and float fields share no bytes with pointers or integers.

use std::collections::{HashMap, HashSet};

use llvm_sys::target::LLVMTargetDataRef;
use llvm_sys::LLVMOpcode;

use crate::calls::classify::{classify, Kind};
use crate::ir::affine::{chain, Affine};
use crate::ir::kind::Elem;
use crate::ir::{self, Value};

/// The element size of the block whose members are `members`, and the
/// offsets and types of the floats in an element, from `accesses`
/// (address, bytes, what). `None` where any of it is unclear.
pub(crate) fn fields(
    accesses: &[(Value, u64, Elem)],
    members: &HashSet<Value>,
    td: LLVMTargetDataRef,
) -> Option<(u64, Vec<(u64, Elem)>)> {
    let placed: Vec<(Value, Affine, u64, Elem)> = accesses
        .iter()
        .map(|(a, bytes, e)| {
            let (top, offset, _) = chain(*a, td).pop().expect("starts with the address");
            (top, offset, *bytes, *e)
        })
        .collect();
    // The element size: what indices and the steps of pointers that walk
    // the block (a phi advanced by a constant) all multiply.
    let mut stride: u64 = 0;
    let tops: HashSet<Value> = placed.iter().map(|(t, ..)| *t).collect();
    for (_, offset, ..) in &placed {
        offset.terms.iter().for_each(|(c, _)| stride = gcd(stride, c.unsigned_abs()));
    }
    let steps = walking_steps(&tops, members, td)?;
    steps.iter().for_each(|s| stride = gcd(stride, *s));
    if stride == 0 {
        return None;
    }
    let mut aligned = HashMap::new();
    if !tops.iter().all(|t| starts_elements(*t, stride, members, td, &mut aligned)) {
        return None;
    }
    // Each access's place in an element, by type.
    let mut floats: Vec<(u64, u64, Elem)> = Vec::new();
    let mut others: Vec<(u64, u64)> = Vec::new();
    for (_, offset, bytes, e) in placed {
        let at = offset.constant.rem_euclid(stride as i64) as u64;
        if at + bytes > stride {
            return None;
        }
        match e {
            Elem::F32 | Elem::F64 => floats.push((at, bytes, e)),
            Elem::Ptr | Elem::Int => others.push((at, bytes)),
        }
    }
    floats.sort_unstable_by_key(|f| f.0);
    floats.dedup();
    let overlap = |a: u64, n: u64, b: u64, m: u64| a < b + m && b < a + n;
    for (k, &(at, bytes, e)) in floats.iter().enumerate() {
        // One float type per place, and no bytes shared with pointers or integers.
        if floats[k + 1..].iter().any(|&(b, m, _)| overlap(at, bytes, b, m))
            || others.iter().any(|&(b, m)| overlap(at, bytes, b, m))
            || bytes != e.size()
        {
            return None;
        }
    }
    Some((stride, floats.into_iter().map(|(at, _, e)| (at, e)).collect()))
}

/// The constant steps by which pointers into the block walk it: for each
/// phi or select among `tops` (and those they come from), the offsets of
/// its incoming values from the phis they are computed from.
fn walking_steps(tops: &HashSet<Value>, members: &HashSet<Value>, td: LLVMTargetDataRef) -> Option<Vec<u64>> {
    let mut steps = Vec::new();
    let (mut seen, mut work): (HashSet<Value>, Vec<Value>) = (HashSet::new(), tops.iter().copied().collect());
    while let Some(t) = work.pop() {
        if !seen.insert(t) || !is_choice(t) {
            continue;
        }
        for x in choices(t) {
            if !ir::is_instruction(x) {
                continue;
            }
            let (top, offset, _) = chain(x, td).pop().expect("starts with the value");
            if !members.contains(&top) {
                return None;
            }
            steps.push(offset.constant.unsigned_abs());
            steps.extend(offset.terms.iter().flat_map(|(c, v)| term_steps(*c, *v)));
            work.push(top);
        }
    }
    Some(steps)
}

/// Whether pointer `t` (a member without address arithmetic above it)
/// points at the start of an element of `stride` bytes: an allocation, or
/// a phi or select of such pointers advanced by whole elements. Loads
/// (pointers read from memory) are not known to.
fn starts_elements(
    t: Value,
    stride: u64,
    members: &HashSet<Value>,
    td: LLVMTargetDataRef,
    aligned: &mut HashMap<Value, bool>,
) -> bool {
    if !ir::is_instruction(t) {
        return true;
    }
    if let Some(a) = aligned.get(&t) {
        return *a;
    }
    let answer = if is_choice(t) {
        // Assumed while its inputs are looked at (a walk comes back to itself).
        aligned.insert(t, true);
        choices(t).into_iter().all(|x| {
            if !ir::is_instruction(x) {
                return true;
            }
            let (top, offset, _) = chain(x, td).pop().expect("starts with the value");
            let whole = |c: i64| c.rem_euclid(stride as i64) == 0;
            members.contains(&top)
                && whole(offset.constant)
                && offset.terms.iter().all(|(c, v)| term_steps(*c, *v).into_iter().all(|s| whole(s as i64)))
                && starts_elements(top, stride, members, td, aligned)
        })
    } else {
        ir::is_call_or_invoke(t) && matches!(classify(t), Kind::Alloc(_) | Kind::Realloc)
    };
    aligned.insert(t, answer);
    answer
}

/// The byte steps that term `c * v` of an address may take: `c` times each
/// constant where `v` chooses between constants (an iterator's `next`
/// advances by one element or, at the end, by none), else multiples of `c`.
fn term_steps(c: i64, v: Value) -> Vec<u64> {
    if ir::is_instruction(v) && ir::opcode(v) == LLVMOpcode::LLVMSelect {
        let arms: Option<Vec<u64>> = [1, 2]
            .iter()
            .map(|k| Some(ir::const_int_value(ir::operand(v, *k))?.checked_mul(c)?.unsigned_abs()))
            .collect();
        if let Some(arms) = arms {
            return arms;
        }
    }
    vec![c.unsigned_abs()]
}

fn is_choice(v: Value) -> bool {
    ir::is_instruction(v) && matches!(ir::opcode(v), LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect)
}

/// The values a phi or select chooses between.
fn choices(v: Value) -> Vec<Value> {
    if ir::opcode(v) == LLVMOpcode::LLVMPHI {
        ir::incoming(v).into_iter().map(|(x, _)| x).collect()
    } else {
        vec![ir::operand(v, 1), ir::operand(v, 2)]
    }
}

/// Integer operations whose result is computed from their operands alone
/// (arithmetic, bit operations, width changes, choices).
pub(crate) fn integer_arithmetic(op: LLVMOpcode) -> bool {
    matches!(
        op,
        LLVMOpcode::LLVMAdd
            | LLVMOpcode::LLVMSub
            | LLVMOpcode::LLVMMul
            | LLVMOpcode::LLVMUDiv
            | LLVMOpcode::LLVMSDiv
            | LLVMOpcode::LLVMURem
            | LLVMOpcode::LLVMSRem
            | LLVMOpcode::LLVMAnd
            | LLVMOpcode::LLVMOr
            | LLVMOpcode::LLVMXor
            | LLVMOpcode::LLVMShl
            | LLVMOpcode::LLVMLShr
            | LLVMOpcode::LLVMAShr
            | LLVMOpcode::LLVMTrunc
            | LLVMOpcode::LLVMZExt
            | LLVMOpcode::LLVMSExt
            | LLVMOpcode::LLVMFreeze
            | LLVMOpcode::LLVMPHI
            | LLVMOpcode::LLVMSelect
    )
}

fn gcd(a: u64, b: u64) -> u64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Whether integer `x`, stored into a block whose members are `members`,
/// cannot be a pointer's bits: computed from constants, parameters, values
/// read from the block itself and results of calls, never from an address
/// made an integer or an integer read from other memory.
pub(crate) fn no_pointer_bits(x: Value, members: &HashSet<Value>) -> bool {
    const MOST: usize = 256;
    let (mut seen, mut work) = (HashSet::new(), vec![x]);
    while let Some(v) = work.pop() {
        if !ir::is_instruction(v) || !seen.insert(v) {
            continue;
        }
        if seen.len() > MOST {
            return false;
        }
        match ir::opcode(v) {
            LLVMOpcode::LLVMPtrToInt => return false,
            LLVMOpcode::LLVMLoad if !members.contains(&ir::operand(v, 0)) => return false,
            LLVMOpcode::LLVMLoad => {}
            LLVMOpcode::LLVMCall if !ir::is_pointer(ir::type_of(v)) => {}
            op if integer_arithmetic(op) => work.extend(
                (0..ir::operand_count(v)).map(|k| ir::operand(v, k)).filter(|o| !ir::is_pointer(ir::type_of(*o))),
            ),
            LLVMOpcode::LLVMICmp | LLVMOpcode::LLVMFCmp | LLVMOpcode::LLVMFPToUI | LLVMOpcode::LLVMFPToSI => {}
            _ => return false,
        }
    }
    true
}
