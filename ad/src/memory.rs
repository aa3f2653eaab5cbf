//! Which pointers have shadows, and which floats vary with the inputs.
//!
//! A pointer is *shadowed* when the derivative code has a shadow pointer for
//! it (a duplicated argument, a stack slot of the function, anything derived
//! from those by address arithmetic or loaded from shadowed memory),
//! *constant* when derivatives never flow through the memory it points to (a
//! `enzyme_const` argument, a global, anything derived from those), and
//! *unknown* otherwise (made from an integer, returned by a call). Memory is
//! only differentiated through shadowed pointers; everything this analysis
//! cannot vouch for becomes an error, never a silently dropped derivative.

use std::collections::{HashMap, HashSet};

use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;

use crate::cfg::Cfg;
use crate::classify::{contains_float, Kind};
use crate::gen::Mode;
use crate::ir::{self, Value};

/// Where a pointer may point, from the derivative's point of view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PtrStatus {
    /// Has a shadow pointer.
    Shadowed,
    /// Points to memory derivatives do not flow through.
    Constant,
    /// Unknown: using it for floating-point memory is an error.
    Unknown(&'static str),
}

/// The analysis of one function under one activity pattern.
#[derive(Default)]
pub(crate) struct Memory {
    ptr: HashMap<Value, PtrStatus>,
    /// Float values that depend on the inputs.
    pub varied: HashSet<Value>,
    /// Constructs the engine cannot differentiate here: (instruction, what, help).
    pub problems: Vec<(Value, String, &'static str)>,
}

/// Whether a constant pointer is null or undefined (compatible with any status).
fn is_null_like(v: Value) -> bool {
    unsafe { !LLVMIsAConstantPointerNull(v).is_null() || !LLVMIsAUndefValue(v).is_null() }
}

impl Memory {
    /// The status of a pointer operand.
    pub fn status(&self, v: Value) -> PtrStatus {
        if let Some(s) = self.ptr.get(&v) {
            return *s;
        }
        if ir::is_instruction(v) || ir::is_argument(v) {
            // Not analysed (defined in a block reached only through a loop back edge).
            return PtrStatus::Unknown("defined later in a loop");
        }
        // Globals, functions, null and constant expressions over them.
        PtrStatus::Constant
    }

    fn merge(&self, vals: impl Iterator<Item = Value>) -> PtrStatus {
        let mut out: Option<PtrStatus> = None;
        for v in vals {
            if is_null_like(v) || ((ir::is_instruction(v) || ir::is_argument(v)) && !self.ptr.contains_key(&v)) {
                // Null fits anything; a value not analysed yet (fed back by a loop)
                // is settled by the fixpoint.
                continue;
            }
            let s = self.status(v);
            out = match (out, s) {
                (None, s) => Some(s),
                (Some(a), b) if a == b => Some(a),
                (Some(PtrStatus::Unknown(r)), _) | (_, PtrStatus::Unknown(r)) => Some(PtrStatus::Unknown(r)),
                _ => Some(PtrStatus::Unknown("may or may not point to differentiated memory")),
            };
        }
        out.unwrap_or(PtrStatus::Constant)
    }

    fn problem(&mut self, i: Value, what: String, help: &'static str) {
        self.problems.push((i, what, help));
    }
}

const DUP_HELP: &str = "pass the pointer with `enzyme_dup` (value, then shadow) so its memory is differentiated, \
                        or keep active values out of memory without a shadow";

/// Analyses `f` (preprocessed) when pointer parameter `k` is duplicated iff `dup[k]`.
pub(crate) fn analyze(f: Value, cfg: &Cfg, dup: &[bool], mode: Mode, kind_of: impl Fn(Value) -> Kind) -> Memory {
    // Loop-carried values (phis fed by a latch) need a fixpoint: iterate until
    // nothing changes; only the last pass's problems count.
    let mut prev: Option<Memory> = None;
    for _ in 0..8 {
        let m = analyze_once(f, cfg, dup, mode, &kind_of, prev.as_ref());
        if let Some(p) = &prev {
            if p.ptr == m.ptr && p.varied == m.varied {
                return m;
            }
        }
        prev = Some(m);
    }
    prev.expect("ran at least once")
}

fn analyze_once(
    f: Value,
    cfg: &Cfg,
    dup: &[bool],
    mode: Mode,
    kind_of: &impl Fn(Value) -> Kind,
    prev: Option<&Memory>,
) -> Memory {
    let mut m = Memory::default();
    if let Some(p) = prev {
        // Start from the previous pass so loop-carried values are known.
        m.ptr = p.ptr.clone();
        m.varied = p.varied.clone();
    }
    for (k, p) in ir::params(f).into_iter().enumerate() {
        let t = ir::type_of(p);
        if ir::is_pointer(t) {
            let s = if dup.get(k).copied().unwrap_or(false) { PtrStatus::Shadowed } else { PtrStatus::Constant };
            m.ptr.insert(p, s);
        } else if ir::is_float(t) {
            m.varied.insert(p);
        }
    }
    for b in &cfg.order {
        for i in ir::instructions(*b) {
            let t = ir::type_of(i);
            let kind = kind_of(i);
            let ops: Vec<Value> = (0..ir::operand_count(i)).map(|k| ir::operand(i, k)).collect();
            let any_varied = ops.iter().any(|o| m.varied.contains(o));
            match kind {
                Kind::Load => {
                    let p = ops[0];
                    let s = m.status(p);
                    if ir::is_float(t) {
                        match s {
                            PtrStatus::Shadowed => {
                                m.varied.insert(i);
                            }
                            PtrStatus::Constant => {}
                            PtrStatus::Unknown(why) => m.problem(
                                i,
                                format!("load of a floating-point value through a pointer that {why}"),
                                "the engine cannot tell whether this memory carries derivatives",
                            ),
                        }
                    } else if ir::is_pointer(t) {
                        m.ptr.insert(i, s);
                    } else if contains_float(t) {
                        m.problem(
                            i,
                            "load of a floating-point vector or aggregate".into(),
                            "vector and struct floating-point values are not supported yet",
                        );
                    }
                }
                Kind::Store => {
                    let (v, p) = (ops[0], ops[1]);
                    let vt = ir::type_of(v);
                    let s = m.status(p);
                    if ir::is_float(vt) {
                        match s {
                            PtrStatus::Shadowed => {}
                            PtrStatus::Constant if !m.varied.contains(&v) => {}
                            PtrStatus::Constant => m.problem(
                                i,
                                "store of a differentiated value into memory that has no shadow".into(),
                                DUP_HELP,
                            ),
                            PtrStatus::Unknown(why) => m.problem(
                                i,
                                format!("store of a floating-point value through a pointer that {why}"),
                                "the engine cannot tell whether this memory carries derivatives",
                            ),
                        }
                    } else if ir::is_pointer(vt) {
                        let sv = if is_null_like(v) { PtrStatus::Constant } else { m.status(v) };
                        match (s, sv) {
                            (PtrStatus::Shadowed, PtrStatus::Shadowed) => {}
                            (PtrStatus::Shadowed, _) if is_null_like(v) => {}
                            (PtrStatus::Constant, PtrStatus::Constant) => {}
                            (PtrStatus::Unknown(_), PtrStatus::Constant) => {}
                            (PtrStatus::Shadowed, _) => m.problem(
                                i,
                                "store of a pointer without shadow into differentiated memory".into(),
                                "mixing shadowed and unshadowed pointers in one data structure is not supported yet",
                            ),
                            _ => m.problem(
                                i,
                                "store of a pointer to differentiated memory into memory that has no shadow".into(),
                                DUP_HELP,
                            ),
                        }
                    } else if contains_float(vt) {
                        m.problem(
                            i,
                            "store of a floating-point vector or aggregate".into(),
                            "vector and struct floating-point values are not supported yet",
                        );
                    }
                }
                Kind::Gep | Kind::PtrCast => {
                    let s = m.status(ops[0]);
                    m.ptr.insert(i, s);
                }
                Kind::Alloca => {
                    let count = ops[0];
                    let fixed = unsafe { !LLVMIsAConstantInt(count).is_null() };
                    m.ptr.insert(
                        i,
                        if fixed {
                            PtrStatus::Shadowed
                        } else {
                            PtrStatus::Unknown("is a variable-size stack allocation")
                        },
                    );
                    if !fixed {
                        m.problem(
                            i,
                            "variable-size stack allocation (`alloca` with a run-time size)".into(),
                            "variable-length arrays are not supported yet",
                        );
                    }
                }
                Kind::MemSet => {
                    if let PtrStatus::Unknown(why) = m.status(ops[0]) {
                        m.problem(
                            i,
                            format!("memset through a pointer that {why}"),
                            "the engine cannot tell whether this memory carries derivatives",
                        );
                    }
                }
                Kind::MemCpy => {
                    let (d, s) = (m.status(ops[0]), m.status(ops[1]));
                    match (d, s, mode) {
                        (PtrStatus::Constant, PtrStatus::Constant, _) => {}
                        (PtrStatus::Shadowed, PtrStatus::Shadowed, Mode::Forward) => {}
                        (PtrStatus::Shadowed, PtrStatus::Shadowed, Mode::Reverse) => m.problem(
                            i,
                            "memory copy (`memcpy`/`memmove`) of differentiated memory in reverse mode".into(),
                            "copying memory in reverse mode needs type analysis, which is not implemented yet; \
                             copy the fields one by one",
                        ),
                        _ => m.problem(i, "memory copy between memory with and without a shadow".into(), DUP_HELP),
                    }
                }
                Kind::Phi | Kind::Select if ir::is_pointer(t) => {
                    let vals: Vec<Value> = if ir::opcode(i) == LLVMOpcode::LLVMPHI {
                        ir::incoming(i).into_iter().filter(|(_, b)| cfg.reachable(*b)).map(|(v, _)| v).collect()
                    } else {
                        vec![ops[1], ops[2]]
                    };
                    let s = m.merge(vals.into_iter());
                    if let PtrStatus::Unknown(why) = s {
                        if why == "may or may not point to differentiated memory" {
                            m.problem(
                                i,
                                "pointer that may or may not point to differentiated memory".into(),
                                "choose between pointers of the same activity (both `enzyme_dup` or both `enzyme_const`)",
                            );
                        }
                    }
                    m.ptr.insert(i, s);
                }
                Kind::Call(_) => {
                    if ir::is_float(t) && (any_varied || ops.iter().any(|o| m.ptr.get(o) == Some(&PtrStatus::Shadowed)))
                    {
                        m.varied.insert(i);
                    }
                    if ir::is_pointer(t) {
                        m.ptr.insert(i, PtrStatus::Unknown("is returned by a call"));
                    }
                }
                _ => {
                    if ir::is_pointer(t) {
                        let why = if ir::opcode(i) == LLVMOpcode::LLVMIntToPtr {
                            "is made from an integer"
                        } else {
                            "comes from an operation the engine does not track"
                        };
                        m.ptr.insert(i, PtrStatus::Unknown(why));
                    } else if ir::is_float(t) && any_varied {
                        m.varied.insert(i);
                    }
                }
            }
        }
    }
    m
}
