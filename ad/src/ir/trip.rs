//! Trip counts of counted loops, known when the loop is entered: used to
//! size a loop's tapes once on entry instead of growing them as it runs.
//!
//! The count found is an upper bound at best (a loop may still leave early
//! through another exit), and the tapes keep growing on demand, so a bound
//! that is too small costs a reallocation, never correctness.

use llvm_sys::core::*;
use llvm_sys::{LLVMIntPredicate, LLVMOpcode};

use crate::ir::cfg::{Cfg, Loop};
use crate::ir::{self, Block, Value};

/// `for (i = start; i <cmp> bound; i += step)`: an integer header phi
/// stepped by a constant and compared with a value from outside the loop.
pub(crate) struct Counted {
    /// The induction variable's value on entry.
    pub start: Value,
    /// The loop-invariant value it is compared with.
    pub bound: Value,
    /// The constant step (non-zero).
    pub step: i64,
    /// Whether the comparison is unsigned (then values are zero-extended).
    pub unsigned: bool,
    /// The comparison under which the loop goes on, with the tested value
    /// (the variable or its next value) on the left.
    continues: LLVMIntPredicate,
    /// Whether the next value (`start + step` on the first test) is tested.
    tests_next: bool,
}

/// A loop counter's parts: `phi = [start, from outside], [phi + step, from
/// inside]` with one start and a constant, non-zero step.
pub(crate) struct Stepped {
    pub start: Value,
    /// `phi + step`.
    pub next: Value,
    /// The step (a constant integer).
    pub step: Value,
}

/// The parts of a counter `phi`; `inside` says whether an incoming block is
/// in the loop (`None`: not known, then neither is the counter).
pub(crate) fn stepped(phi: Value, inside: impl Fn(Block) -> Option<bool>) -> Option<Stepped> {
    let (mut start, mut next) = (None, None);
    for (v, b) in ir::incoming(phi) {
        let slot = if inside(b)? { &mut next } else { &mut start };
        if slot.replace(v).is_some_and(|before| before != v) {
            return None;
        }
    }
    let (start, next) = (start?, next?);
    if ir::opcode(next) != LLVMOpcode::LLVMAdd {
        return None;
    }
    let step = match (ir::operand(next, 0) == phi, ir::operand(next, 1) == phi) {
        (true, false) => ir::operand(next, 1),
        (false, true) => ir::operand(next, 0),
        _ => return None,
    };
    ir::const_int_value(step).filter(|s| *s != 0)?;
    Some(Stepped { start, next, step })
}

/// The counted-loop shape of `l`, if it has one.
pub(crate) fn counted(cfg: &Cfg, l: &Loop) -> Option<Counted> {
    let inside = |v: Value| ir::is_instruction(v) && l.blocks.contains(&ir::parent_block(v));
    for phi in ir::instructions(l.header) {
        if ir::opcode(phi) != LLVMOpcode::LLVMPHI {
            break;
        }
        if !ir::is_int(ir::type_of(phi)) {
            continue;
        }
        let Some(Stepped { start, next, step }) = stepped(phi, |b| Some(l.blocks.contains(&b))) else { continue };
        let step = ir::const_int_value(step).unwrap_or(0);
        // A conditional exit comparing the variable (or its next value) with an
        // invariant, tested on every iteration (its block dominates the latch).
        for (b, _) in &l.exits {
            let t = ir::terminator(*b);
            if ir::opcode(t) != LLVMOpcode::LLVMBr
                || ir::operand_count(t) != 3
                || !l.latches.iter().all(|latch| cfg.dominates(*b, *latch))
            {
                continue;
            }
            let cond = ir::operand(t, 0);
            if ir::opcode(cond) != LLVMOpcode::LLVMICmp {
                continue;
            }
            let (a, c) = (ir::operand(cond, 0), ir::operand(cond, 1));
            let predicate = unsafe { LLVMGetICmpPredicate(cond) };
            let (bound, tested, predicate) = if (a == phi || a == next) && !inside(c) {
                (c, a, predicate)
            } else if (c == phi || c == next) && !inside(a) {
                (a, c, swapped(predicate))
            } else {
                continue;
            };
            // The branch's first successor is taken when the comparison holds.
            let stays = l.blocks.contains(&ir::successors(t)[0]);
            let continues = if stays { predicate } else { inverse(predicate) };
            use LLVMIntPredicate::*;
            let unsigned = matches!(predicate, LLVMIntULT | LLVMIntULE | LLVMIntUGT | LLVMIntUGE);
            return Some(Counted { start, bound, step, unsigned, continues, tests_next: tested == next });
        }
    }
    None
}

/// A loop whose every entry visits its header exactly
/// `((bound - start) * step - (tests_next ? 1 : 0)) + 1` times, the first
/// part computed modulo the counter's width: a counted loop with one exit,
/// its test an `!=` against the bound (the form the optimiser gives counted
/// loops) and a step of one either way. The exit is taken at the first visit
/// whose tested value equals the bound, which this counts exactly.
#[derive(Clone, Copy)]
pub(crate) struct ExactVisits {
    pub start: Value,
    pub bound: Value,
    /// `1` or `-1`.
    pub step: i64,
    pub tests_next: bool,
}

/// [`ExactVisits`] of `l`, if it has that shape.
pub(crate) fn exact_visits(cfg: &Cfg, l: &Loop) -> Option<ExactVisits> {
    // One way out: the exit edge (no `ret` or `resume` inside, where the
    // reverse sweep would start within the loop).
    let returns = |b: &Block| matches!(ir::opcode(ir::terminator(*b)), LLVMOpcode::LLVMRet | LLVMOpcode::LLVMResume);
    if l.exits.len() != 1 || l.blocks.iter().any(returns) {
        return None;
    }
    let c = counted(cfg, l)?;
    if c.continues != LLVMIntPredicate::LLVMIntNE || c.step.abs() != 1 || ir::int_width(ir::type_of(c.start)) > 64 {
        return None;
    }
    // The counted test must be the one exit's.
    let exiting = ir::terminator(l.exits[0].0);
    let cond = ir::operand(exiting, 0);
    let tested_in = |v: Value| (0..2).any(|k| ir::operand(cond, k) == v);
    if ir::opcode(cond) != LLVMOpcode::LLVMICmp || !tested_in(c.bound) {
        return None;
    }
    Some(ExactVisits { start: c.start, bound: c.bound, step: c.step, tests_next: c.tests_next })
}

/// Whether two counted loops run the same number of iterations: the same
/// start and bound (one value, or equal constants; or constants the same
/// distance apart), step and test.
pub(crate) fn same_iterations(a: &Counted, b: &Counted) -> bool {
    let same = |x: Value, y: Value| {
        x == y
            || (ir::type_of(x) == ir::type_of(y)
                && ir::const_int_value(x).is_some()
                && ir::const_int_value(x) == ir::const_int_value(y))
    };
    // Or constants the same distance apart (a loop from 1 to 7 runs as many
    // times as one from 0 to 6), all small and non-negative so that no test
    // wraps around.
    let small = |v: Value| ir::const_int_value(v).filter(|c| (0..1 << 31).contains(c));
    let distance = |c: &Counted| Some(small(c.bound)? - small(c.start)?);
    let same_span =
        (same(a.start, b.start) && same(a.bound, b.bound)) || (distance(a).is_some() && distance(a) == distance(b));
    same_span
        && a.step == b.step
        && a.unsigned == b.unsigned
        && a.continues == b.continues
        && a.tests_next == b.tests_next
}

/// `b <p> a` for `a <swapped(p)> b`.
fn swapped(p: LLVMIntPredicate) -> LLVMIntPredicate {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => LLVMIntEQ,
        LLVMIntNE => LLVMIntNE,
        LLVMIntSLT => LLVMIntSGT,
        LLVMIntSGT => LLVMIntSLT,
        LLVMIntSLE => LLVMIntSGE,
        LLVMIntSGE => LLVMIntSLE,
        LLVMIntULT => LLVMIntUGT,
        LLVMIntUGT => LLVMIntULT,
        LLVMIntULE => LLVMIntUGE,
        LLVMIntUGE => LLVMIntULE,
    }
}

/// The predicate that holds exactly when `p` does not.
fn inverse(p: LLVMIntPredicate) -> LLVMIntPredicate {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => LLVMIntNE,
        LLVMIntNE => LLVMIntEQ,
        LLVMIntSLT => LLVMIntSGE,
        LLVMIntSGE => LLVMIntSLT,
        LLVMIntSGT => LLVMIntSLE,
        LLVMIntSLE => LLVMIntSGT,
        LLVMIntULT => LLVMIntUGE,
        LLVMIntUGE => LLVMIntULT,
        LLVMIntUGT => LLVMIntULE,
        LLVMIntULE => LLVMIntUGT,
    }
}

/// Loops bounded by this many header visits per call at most are sized
/// once per call (see [`visits_per_call`]); larger ones grow as they run.
const MOST_VISITS: u64 = 1 << 24;

/// An upper bound, proven rather than estimated, of how many times the
/// header of counted loop `l` runs per entry, when its start and bound are
/// constants: every iteration passes the exit test, so the back edge is
/// taken at most as many times as the tested value satisfies the loop's
/// condition on its way from the start by the step.
pub(crate) fn visits_per_entry(cfg: &Cfg, l: &Loop) -> Option<u64> {
    use LLVMIntPredicate::*;
    let c = counted(cfg, l)?;
    let constant = |v: Value| unsafe { !LLVMIsAConstantInt(v).is_null() };
    if !constant(c.start) || !constant(c.bound) || ir::int_width(ir::type_of(c.start)) > 64 {
        return None;
    }
    let value = |v: Value| unsafe {
        if c.unsigned {
            i128::from(LLVMConstIntGetZExtValue(v))
        } else {
            i128::from(LLVMConstIntGetSExtValue(v))
        }
    };
    let step = i128::from(c.step);
    let first = value(c.start) + if c.tests_next { step } else { 0 };
    let bound = value(c.bound);
    // No value tested, nor one past the bound, wraps around in the
    // variable's type (then the count would not hold).
    let width = ir::int_width(ir::type_of(c.start));
    let (low, high) =
        if c.unsigned { (0, (1i128 << width) - 1) } else { (-(1i128 << (width - 1)), (1i128 << (width - 1)) - 1) };
    if ![first, bound + step].iter().all(|v| (low..=high).contains(v)) {
        return None;
    }
    // How many of first, first + step, ... satisfy the condition before the
    // first that does not (none when the step leads away from the bound).
    let tests: i128 = match c.continues {
        LLVMIntSLT | LLVMIntULT if step > 0 => (bound - first + step - 1).div_euclid(step).max(0),
        LLVMIntSLE | LLVMIntULE if step > 0 => (bound - first).div_euclid(step).max(-1) + 1,
        LLVMIntSGT | LLVMIntUGT if step < 0 => (first - bound + (-step) - 1).div_euclid(-step).max(0),
        LLVMIntSGE | LLVMIntUGE if step < 0 => (first - bound).div_euclid(-step).max(-1) + 1,
        LLVMIntNE if (bound - first) % step == 0 && (bound - first) / step >= 0 => (bound - first) / step,
        LLVMIntEQ => 1,
        _ => return None,
    };
    u64::try_from(tests + 1).ok()
}

/// At most how many times the header of loop `l` runs in one call of the
/// function, when that is proven (a constant-count loop in constant-count
/// loops, see [`visits_per_entry`]) and at most [`MOST_VISITS`]: a loop
/// outside every other is entered once per call at most.
pub(crate) fn visits_per_call(cfg: &Cfg, l: usize) -> Option<u64> {
    let mut total: u64 = 1;
    let mut at = Some(l);
    while let Some(i) = at {
        total = total.checked_mul(visits_per_entry(cfg, &cfg.loops[i])?)?;
        if total > MOST_VISITS {
            return None;
        }
        at = cfg.loops[i].parent;
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::with_function;

    /// The bound of `visits_per_call` for each loop of `@f`, innermost last.
    fn visits(ir: &str) -> Vec<Option<u64>> {
        with_function(ir, visits_in)
    }

    fn visits_in(f: Value) -> Vec<Option<u64>> {
        let cfg = Cfg::new(f);
        let mut out: Vec<(usize, Option<u64>)> = (0..cfg.loops.len())
            .map(|l| {
                let mut depth = 0;
                let mut at = cfg.loops[l].parent;
                while let Some(p) = at {
                    depth += 1;
                    at = cfg.loops[p].parent;
                }
                (depth, visits_per_call(&cfg, l))
            })
            .collect();
        out.sort_by_key(|(d, _)| *d);
        out.into_iter().map(|(_, v)| v).collect()
    }

    /// `for (i = start; i <pred> bound; i += step)`, tested in the header.
    fn header_tested(ty: &str, start: &str, pred: &str, bound: &str, step: &str) -> String {
        format!(
            "define void @f({ty} %n) {{\nentry:\n  br label %h\nh:\n  %i = phi {ty} [ {start}, %entry ], [ %next, %body ]\n  \
             %c = icmp {pred} {ty} %i, {bound}\n  br i1 %c, label %body, label %x\nbody:\n  %next = add {ty} %i, {step}\n  \
             br label %h\nx:\n  ret void\n}}\n"
        )
    }

    #[test]
    fn a_constant_count_loop_tested_in_its_header() {
        // i = 0..9 enter the body; the header runs once more to leave.
        assert_eq!(visits(&header_tested("i32", "0", "slt", "10", "1")), [Some(11)]);
        assert_eq!(visits(&header_tested("i32", "0", "sle", "10", "2")), [Some(7)]);
        assert_eq!(visits(&header_tested("i64", "9", "sgt", "-1", "-1")), [Some(11)]);
        assert_eq!(visits(&header_tested("i32", "0", "ne", "12", "3")), [Some(5)]);
        // A start past the bound: the header runs once.
        assert_eq!(visits(&header_tested("i32", "20", "slt", "10", "1")), [Some(1)]);
    }

    #[test]
    fn loops_without_a_proven_bound() {
        // A bound from outside, a step away from the bound, a `!=` never met,
        // a variable that wraps around in its type before the bound.
        assert_eq!(visits(&header_tested("i32", "0", "slt", "%n", "1")), [None]);
        assert_eq!(visits(&header_tested("i32", "0", "slt", "10", "-1")), [None]);
        assert_eq!(visits(&header_tested("i32", "0", "ne", "10", "3")), [None]);
        assert_eq!(visits(&header_tested("i8", "120", "slt", "127", "10")), [None]);
        assert_eq!(visits(&header_tested("i64", "0", "ult", "1000000000", "1")), [None], "more than MOST_VISITS");
    }

    #[test]
    fn a_rotated_loop_tests_the_next_value() {
        // do { ... } while (++i != 10), as the optimiser leaves a for loop.
        let ir = "define void @f() {\nentry:\n  br label %h\nh:\n  %i = phi i32 [ 0, %entry ], [ %next, %h ]\n  \
                  %next = add nuw nsw i32 %i, 1\n  %c = icmp eq i32 %next, 10\n  br i1 %c, label %x, label %h\nx:\n  ret void\n}\n";
        assert_eq!(visits(ir), [Some(10)]);
    }

    #[test]
    fn a_nest_multiplies_and_needs_every_level_bounded() {
        let nest = |outer: &str| {
            format!(
                "define void @f(i32 %n) {{\nentry:\n  br label %oh\noh:\n  %i = phi i32 [ 0, %entry ], [ %i1, %ol ]\n  \
                 br label %ih\nih:\n  %j = phi i32 [ 0, %oh ], [ %j1, %ih ]\n  %j1 = add i32 %j, 1\n  \
                 %cj = icmp eq i32 %j1, 4\n  br i1 %cj, label %ol, label %ih\nol:\n  %i1 = add i32 %i, 1\n  \
                 %ci = icmp eq i32 %i1, {outer}\n  br i1 %ci, label %x, label %oh\nx:\n  ret void\n}}\n"
            )
        };
        assert_eq!(visits(&nest("3")), [Some(3), Some(12)]);
        assert_eq!(visits(&nest("%n")), [None, None]);
    }
}
