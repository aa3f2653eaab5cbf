//! Derivatives of the instructions that move floats between vector lanes
//! (`extractelement`, `insertelement`, `shufflevector`) and of the float
//! reductions (`llvm.vector.reduce.*`), for both modes.
//!
//! Vector arithmetic itself needs nothing here: the rule table's partials are
//! evaluated lane by lane when the operands are vectors.

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::build::emit::{Emitter, EMPTY};
use crate::calls::classify::{Kind, Reduction};
use crate::ir::{self, Value};

/// The tangent of a lane-moving instruction or an additive reduction: the
/// same instruction applied to the tangents of its float operands (both
/// operations are linear), with its other operands (indices) as in the primal.
pub(crate) fn linear_tangent(
    e: &Emitter,
    i: Value,
    val: impl Fn(Value) -> Value,
    tan: impl Fn(Value) -> Value,
) -> Value {
    unsafe {
        let x = LLVMInstructionClone(i);
        LLVMInsertIntoBuilder(e.b, x);
        for k in 0..ir::operand_count(i) {
            let o = ir::operand(i, k);
            let n = if ir::is_real(ir::type_of(o)) { tan(o) } else { val(o) };
            LLVMSetOperand(x, k, n);
        }
        x
    }
}

/// The index path of an `extractvalue`/`insertvalue`.
fn indices(i: Value) -> Vec<u32> {
    unsafe {
        let n = LLVMGetNumIndices(i) as usize;
        std::slice::from_raw_parts(LLVMGetIndices(i), n).to_vec()
    }
}

/// `agg` with the field at `path` replaced by `v`.
fn insert_path(e: &Emitter, agg: Value, v: Value, path: &[u32]) -> Value {
    match path {
        [] => v,
        [k, rest @ ..] => {
            let inner = insert_path(e, e.extract(agg, *k), v, rest);
            e.insert(agg, inner, *k)
        }
    }
}

/// The lanes of a float vector, as scalars.
fn lanes(e: &Emitter, v: Value) -> Vec<Value> {
    let n = ir::vector_lanes(ir::type_of(v)).expect("a float vector");
    (0..n).map(|k| unsafe { LLVMBuildExtractElement(e.b, v, lane_index(e, k), EMPTY) }).collect()
}

/// A vector of type `t` from its lanes.
fn from_lanes(e: &Emitter, t: ir::Type, xs: &[Value]) -> Value {
    let mut v = e.zero(t);
    for (k, x) in xs.iter().enumerate() {
        v = unsafe { LLVMBuildInsertElement(e.b, v, *x, lane_index(e, k as u32), EMPTY) };
    }
    v
}

fn lane_index(e: &Emitter, k: u32) -> Value {
    unsafe { LLVMConstInt(LLVMInt32TypeInContext(e.ctx), k as u64, 0) }
}

/// The mask of a `shufflevector`: per result lane, the source lane (lanes of
/// the second operand numbered after the first's), or `None` for poison.
fn shuffle_mask(i: Value) -> Vec<Option<u32>> {
    unsafe {
        let undef = LLVMGetUndefMaskElem();
        (0..LLVMGetNumMaskElements(i))
            .map(|j| {
                let m = LLVMGetMaskValue(i, j);
                (m != undef && m >= 0).then_some(m as u32)
            })
            .collect()
    }
}

/// Per lane `i`, the product of all the other lanes (times `start`), built
/// from prefix and suffix products so no division by a zero lane happens.
fn products_without_each(e: &Emitter, start: Value, xs: &[Value]) -> Vec<Value> {
    let n = xs.len();
    let mut prefix = vec![start; n];
    for k in 1..n {
        prefix[k] = e.fmul(prefix[k - 1], xs[k - 1]);
    }
    let mut out = vec![start; n];
    let mut suffix: Option<Value> = None;
    for k in (0..n).rev() {
        out[k] = match suffix {
            Some(s) => e.fmul(prefix[k], s),
            None => prefix[k],
        };
        suffix = Some(match suffix {
            Some(s) => e.fmul(s, xs[k]),
            None => xs[k],
        });
    }
    out
}

/// Per lane, whether it is the first lane equal to `r` (the lane a min/max
/// reduction picked; on ties the derivative goes to one lane only).
fn picked_lanes(e: &Emitter, xs: &[Value], r: Value) -> Vec<Value> {
    unsafe {
        let i1 = LLVMInt1TypeInContext(e.ctx);
        let mut found = LLVMConstInt(i1, 0, 0);
        let mut out = Vec::with_capacity(xs.len());
        for x in xs {
            let eq = LLVMBuildFCmp(e.b, llvm_sys::LLVMRealPredicate::LLVMRealOEQ, *x, r, EMPTY);
            let first = LLVMBuildAnd(e.b, eq, LLVMBuildNot(e.b, found, EMPTY), EMPTY);
            found = LLVMBuildOr(e.b, found, eq, EMPTY);
            out.push(first);
        }
        out
    }
}

/// Forward mode: the tangent of a reduction `i` (result `r` in the
/// derivative), from primal values `val` and tangents `tan` of its operands.
pub(crate) fn reduce_tangent(
    e: &Emitter,
    i: Value,
    op: Reduction,
    r: Value,
    val: impl Fn(Value) -> Value,
    tan: impl Fn(Value) -> Value,
) -> Value {
    let n = ir::call_arg_count(i);
    let v = ir::operand(i, n - 1);
    match op {
        Reduction::Add => linear_tangent(e, i, val, tan),
        Reduction::Mul => {
            let start = val(ir::operand(i, 0));
            let xs = lanes(e, val(v));
            let dxs = lanes(e, tan(v));
            let others = products_without_each(e, start, &xs);
            let whole = xs.iter().fold(None, |p: Option<Value>, x| Some(p.map_or(*x, |p| e.fmul(p, *x))));
            let mut t = e.fmul(tan(ir::operand(i, 0)), whole.expect("at least one lane"));
            for (o, dx) in others.iter().zip(&dxs) {
                let c = e.fmul(*o, *dx);
                t = unsafe { LLVMBuildFAdd(e.b, t, c, EMPTY) };
            }
            t
        }
        Reduction::Pick => {
            let xs = lanes(e, val(v));
            let dxs = lanes(e, tan(v));
            let hits = picked_lanes(e, &xs, r);
            let mut t = e.zero(ir::type_of(i));
            for (h, dx) in hits.iter().zip(&dxs) {
                t = e.select(*h, *dx, t);
            }
            t
        }
    }
}

/// The forward values the reverse of lane instruction or reduction `i`
/// reads (so only those are kept for the reverse sweep).
pub(crate) fn primals_needed(i: Value, kind: &Kind) -> Vec<Value> {
    let last = ir::operand_count(i).saturating_sub(1);
    match kind {
        Kind::Reduce(Reduction::Add) => vec![],
        // `start` and the vector (the callee is the last operand).
        Kind::Reduce(Reduction::Mul) => vec![ir::operand(i, 0), ir::operand(i, last - 1)],
        Kind::Reduce(Reduction::Pick) => vec![i, ir::operand(i, last - 1)],
        _ => match ir::opcode(i) {
            LLVMOpcode::LLVMExtractElement => vec![ir::operand(i, 1)],
            LLVMOpcode::LLVMInsertElement => vec![ir::operand(i, 2)],
            _ => vec![],
        },
    }
}

/// Reverse mode: the adjoint contributions of lane-moving instruction `i`
/// with result adjoint `d`, as (operand, contribution) pairs. `primal` gives
/// the forward values named by [`primals_needed`] at the current point of
/// the reverse sweep.
pub(crate) fn lanes_adjoints(e: &Emitter, i: Value, d: Value, primal: impl Fn(Value) -> Value) -> Vec<(Value, Value)> {
    use LLVMOpcode::*;
    unsafe {
        match ir::opcode(i) {
            LLVMExtractElement => {
                let v = ir::operand(i, 0);
                let idx = primal(ir::operand(i, 1));
                vec![(v, LLVMBuildInsertElement(e.b, e.zero(ir::type_of(v)), d, idx, EMPTY))]
            }
            LLVMInsertElement => {
                let (v, s) = (ir::operand(i, 0), ir::operand(i, 1));
                let idx = primal(ir::operand(i, 2));
                // The inserted lane replaced whatever `v` had there.
                let dv = LLVMBuildInsertElement(e.b, d, e.zero(ir::type_of(s)), idx, EMPTY);
                let ds = LLVMBuildExtractElement(e.b, d, idx, EMPTY);
                vec![(v, dv), (s, ds)]
            }
            LLVMShuffleVector => {
                let (a, b) = (ir::operand(i, 0), ir::operand(i, 1));
                let t = ir::type_of(a);
                let n = ir::vector_lanes(t).expect("a float vector");
                let scalar = ir::scalar_of(t);
                let ds = lanes(e, d);
                // A source lane may appear in several result lanes: its adjoint sums them.
                let mut acc: Vec<Option<Value>> = vec![None; 2 * n as usize];
                for (j, m) in shuffle_mask(i).into_iter().enumerate() {
                    if let Some(m) = m {
                        let slot = &mut acc[m as usize];
                        *slot = Some(match *slot {
                            Some(s) => LLVMBuildFAdd(e.b, s, ds[j], EMPTY),
                            None => ds[j],
                        });
                    }
                }
                let zero = e.zero(scalar);
                let da: Vec<Value> = acc[..n as usize].iter().map(|x| x.unwrap_or(zero)).collect();
                let db: Vec<Value> = acc[n as usize..].iter().map(|x| x.unwrap_or(zero)).collect();
                vec![(a, from_lanes(e, t, &da)), (b, from_lanes(e, t, &db))]
            }
            LLVMExtractValue => {
                let agg = ir::operand(i, 0);
                let path = indices(i);
                vec![(agg, insert_path(e, e.zero(ir::type_of(agg)), d, &path))]
            }
            LLVMInsertValue => {
                let (agg, v) = (ir::operand(i, 0), ir::operand(i, 1));
                let path = indices(i);
                // The inserted field replaced whatever `agg` had there.
                let dagg = insert_path(e, d, e.zero(ir::type_of(v)), &path);
                let dv = path.iter().fold(d, |x, k| e.extract(x, *k));
                vec![(agg, dagg), (v, dv)]
            }
            op => unreachable!("not a lane instruction: {op:?}"),
        }
    }
}

/// Reverse mode: the adjoint contributions of reduction `i` with result
/// adjoint `d`.
pub(crate) fn reduce_adjoints(
    e: &Emitter,
    i: Value,
    op: Reduction,
    d: Value,
    primal: impl Fn(Value) -> Value,
) -> Vec<(Value, Value)> {
    let n = ir::call_arg_count(i);
    let v = ir::operand(i, n - 1);
    let t = ir::type_of(v);
    let width = ir::vector_lanes(t).expect("a float vector") as usize;
    match op {
        Reduction::Add => {
            let splat = from_lanes(e, t, &vec![d; width]);
            vec![(ir::operand(i, 0), d), (v, splat)]
        }
        Reduction::Mul => {
            let start = primal(ir::operand(i, 0));
            let pv = primal(v);
            let xs = lanes(e, pv);
            let others = products_without_each(e, start, &xs);
            let whole = xs.iter().skip(1).fold(xs[0], |p, x| e.fmul(p, *x));
            let dv: Vec<Value> = others.iter().map(|o| e.fmul(*o, d)).collect();
            vec![(ir::operand(i, 0), e.fmul(whole, d)), (v, from_lanes(e, t, &dv))]
        }
        Reduction::Pick => {
            let pv = primal(v);
            let r = primal(i);
            let xs = lanes(e, pv);
            let zero = e.zero(ir::type_of(i));
            let dv: Vec<Value> = picked_lanes(e, &xs, r).into_iter().map(|h| e.select(h, d, zero)).collect();
            vec![(v, from_lanes(e, t, &dv))]
        }
    }
}
