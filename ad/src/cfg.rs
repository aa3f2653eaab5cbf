//! Our own view of a function's control-flow graph: successors, predecessors,
//! a topological order and the back edges that make loops. The LLVM C API has
//! no dominator tree or loop info, so the small analyses live here.

use std::collections::{HashMap, HashSet};

use crate::ir::{self, Block, Value};

/// A natural loop.
pub struct Loop {
    /// The block every iteration starts in.
    pub header: Block,
    /// Blocks with an edge back to the header.
    pub latches: Vec<Block>,
    /// The blocks of the loop (header included).
    pub blocks: HashSet<Block>,
    /// The enclosing loop, if any (index into [`Cfg::loops`]).
    pub parent: Option<usize>,
}

/// A function's reachable control-flow graph.
pub struct Cfg {
    /// Reachable blocks in reverse post-order (a topological order when acyclic).
    pub order: Vec<Block>,
    /// Unique reachable predecessors of each reachable block, in a stable order.
    pub preds: HashMap<Block, Vec<Block>>,
    /// Edges `(from, to)` that close a cycle (the latch's branch to a loop header).
    pub back_edges: Vec<(Block, Block)>,
    /// Natural loops, outer loops before the loops they contain.
    pub loops: Vec<Loop>,
    /// The innermost loop of each block in a loop.
    pub innermost: HashMap<Block, usize>,
    /// Cycles that are not natural loops (entered other than through one header):
    /// the block where the cycle is entered from outside.
    pub irreducible: Vec<Block>,
    /// Blocks from which a `ret` can be reached. The others end the program
    /// or unwind out of it (`throw`, `abort`): no derivative flows through them.
    pub live: HashSet<Block>,
}

impl Cfg {
    /// Builds the CFG of a function with a body.
    pub fn new(f: Value) -> Cfg {
        let blocks = ir::blocks(f);
        let entry = blocks[0];
        // Iterative DFS keeping an explicit on-stack set, so back edges are found.
        let mut state: HashMap<Block, u8> = HashMap::new(); // 1 = on stack, 2 = done
        let mut post = Vec::new();
        let mut back_edges = Vec::new();
        let mut stack: Vec<(Block, Vec<Block>, usize)> = Vec::new();
        state.insert(entry, 1);
        stack.push((entry, ir::successors(ir::terminator(entry)), 0));
        while let Some((b, succs, i)) = stack.last_mut() {
            if *i < succs.len() {
                let s = succs[*i];
                *i += 1;
                let from = *b;
                match state.get(&s) {
                    None => {
                        state.insert(s, 1);
                        let ss = ir::successors(ir::terminator(s));
                        stack.push((s, ss, 0));
                    }
                    Some(1) => back_edges.push((from, s)),
                    _ => {}
                }
            } else {
                let b = *b;
                state.insert(b, 2);
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        let order = post;
        let mut preds: HashMap<Block, Vec<Block>> = order.iter().map(|b| (*b, Vec::new())).collect();
        for b in &order {
            for s in ir::successors(ir::terminator(*b)) {
                let list = preds.get_mut(&s).expect("successor of a reachable block is reachable");
                if !list.contains(b) {
                    list.push(*b);
                }
            }
        }
        let mut live = HashSet::new();
        let mut work: Vec<Block> =
            order.iter().copied().filter(|b| ir::opcode(ir::terminator(*b)) == llvm_sys::LLVMOpcode::LLVMRet).collect();
        while let Some(b) = work.pop() {
            if live.insert(b) {
                work.extend(preds[&b].iter().copied());
            }
        }
        let mut cfg = Cfg {
            order,
            preds,
            back_edges,
            loops: Vec::new(),
            innermost: HashMap::new(),
            irreducible: Vec::new(),
            live,
        };
        cfg.find_loops();
        cfg
    }

    /// Natural loops from the back edges: the body of a loop is what reaches a
    /// latch backwards without passing the header.
    fn find_loops(&mut self) {
        let mut by_header: Vec<(Block, Vec<Block>)> = Vec::new();
        for (from, to) in &self.back_edges {
            match by_header.iter_mut().find(|(h, _)| h == to) {
                Some((_, l)) => l.push(*from),
                None => by_header.push((*to, vec![*from])),
            }
        }
        let mut loops = Vec::new();
        for (header, latches) in by_header {
            let mut blocks: HashSet<Block> = HashSet::from([header]);
            let mut work: Vec<Block> = latches.clone();
            while let Some(b) = work.pop() {
                if blocks.insert(b) {
                    work.extend(self.preds[&b].iter().copied());
                }
            }
            // A natural loop is entered only through its header: its header
            // dominates the latch, so walking back from the latch never
            // reaches the function's entry.
            if header != self.order[0] && blocks.contains(&self.order[0]) {
                self.irreducible.push(header);
                continue;
            }
            for b in &blocks {
                if *b != header && self.preds[b].iter().any(|p| !blocks.contains(p)) {
                    self.irreducible.push(*b);
                }
            }
            loops.push(Loop { header, latches, blocks, parent: None });
        }
        // Outer loops first: a loop containing another is larger.
        loops.sort_by_key(|l| std::cmp::Reverse(l.blocks.len()));
        for i in 0..loops.len() {
            let parent =
                (0..i).filter(|&j| loops[j].blocks.contains(&loops[i].header)).min_by_key(|&j| loops[j].blocks.len());
            loops[i].parent = parent;
        }
        for (i, l) in loops.iter().enumerate() {
            for b in &l.blocks {
                // Later loops are inner ones: they overwrite.
                self.innermost.insert(*b, i);
            }
        }
        self.loops = loops;
    }

    /// The entry block.
    pub fn entry(&self) -> Block {
        self.order[0]
    }

    /// Whether a block is reachable from the entry.
    pub fn reachable(&self, b: Block) -> bool {
        self.preds.contains_key(&b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use inkwell::context::Context;
    use inkwell::memory_buffer::MemoryBuffer;

    fn with_function(ir: &str, check: impl FnOnce(Value)) {
        let ctx = Context::create();
        let buf = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "t.ll");
        let m = ctx.create_module_from_ir(buf).unwrap();
        let f = m.get_function("f").unwrap();
        check(inkwell::values::AsValueRef::as_value_ref(&f));
    }

    #[test]
    fn diamond_is_ordered_and_acyclic() {
        let ir = "define i32 @f(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\na:\n  br label %j\nb:\n  br label %j\nj:\n  ret i32 0\n}\n";
        with_function(ir, |f| {
            let cfg = Cfg::new(f);
            assert_eq!(cfg.order.len(), 4);
            assert!(cfg.back_edges.is_empty());
            let j = *cfg.order.last().unwrap();
            assert_eq!(cfg.preds[&j].len(), 2);
            assert_eq!(cfg.entry(), cfg.order[0]);
        });
    }

    #[test]
    fn loops_give_back_edges_and_unreachable_blocks_are_dropped() {
        let ir = "define void @f(i1 %c) {\nentry:\n  br label %h\nh:\n  br i1 %c, label %h, label %x\nx:\n  ret void\ndead:\n  br label %x\n}\n";
        with_function(ir, |f| {
            let cfg = Cfg::new(f);
            assert_eq!(cfg.back_edges.len(), 1);
            let (from, to) = cfg.back_edges[0];
            assert_eq!(from, to, "self loop on the header");
            assert_eq!(cfg.order.len(), 3, "the dead block is not part of the CFG");
            let x = *cfg.order.last().unwrap();
            assert_eq!(cfg.preds[&x].len(), 1, "the dead predecessor is not counted");
        });
    }

    #[test]
    fn switch_with_duplicate_edges_has_unique_predecessors() {
        let ir = "define i32 @f(i32 %k) {\nentry:\n  switch i32 %k, label %d [ i32 1, label %t\n i32 2, label %t ]\nt:\n  ret i32 1\nd:\n  ret i32 0\n}\n";
        with_function(ir, |f| {
            let cfg = Cfg::new(f);
            let t = cfg.order.iter().copied().find(|b| cfg.preds[b].len() == 1 && *b != cfg.entry()).unwrap();
            assert_eq!(cfg.preds[&t], vec![cfg.entry()]);
        });
    }
}
