//! Our own view of a function's control-flow graph: successors, predecessors,
//! a topological order, dominators and post-dominators, and the natural loops
//! that back edges make. The LLVM C API has no dominator tree or loop info,
//! so the small analyses live here.

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
    /// Edges `(inside, outside)` leaving the loop.
    pub exits: Vec<(Block, Block)>,
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
    /// Immediate dominator of each reachable block but the entry.
    pub idom: HashMap<Block, Block>,
    /// Immediate post-dominator of each live block, with every `ret` joined
    /// in one virtual exit: absent for returning blocks and blocks whose
    /// paths to a `ret` share no block.
    // Not consulted by generation yet; kept with the dominators as part of the CFG view.
    #[allow(dead_code)]
    pub ipdom: HashMap<Block, Block>,
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
        let (idom, ipdom) = dominators(&order, &preds, &live);
        let mut cfg = Cfg {
            order,
            preds,
            back_edges,
            loops: Vec::new(),
            innermost: HashMap::new(),
            irreducible: Vec::new(),
            live,
            idom,
            ipdom,
        };
        cfg.find_loops();
        cfg
    }

    /// Whether every path from the entry to `b` passes through `a`.
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        is_ancestor(&self.idom, a, b)
    }

    /// Whether every path from `b` to a `ret` passes through `a`.
    #[allow(dead_code)]
    pub fn post_dominates(&self, a: Block, b: Block) -> bool {
        is_ancestor(&self.ipdom, a, b)
    }

    /// Natural loops from the back edges: the body of a loop is what reaches a
    /// latch backwards without passing the header.
    fn find_loops(&mut self) {
        let mut by_header: Vec<(Block, Vec<Block>)> = Vec::new();
        for (from, to) in &self.back_edges {
            // A cycle whose target does not dominate its source is entered
            // in the middle: no natural loop.
            if !self.dominates(*to, *from) {
                if !self.irreducible.contains(to) {
                    self.irreducible.push(*to);
                }
                continue;
            }
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
            for b in &blocks {
                // Entered other than through the header (a cycle nested oddly).
                if *b != header && self.preds[b].iter().any(|p| !blocks.contains(p)) {
                    self.irreducible.push(*b);
                }
            }
            let mut exits = Vec::new();
            for b in &blocks {
                for s in ir::successors(ir::terminator(*b)) {
                    if !blocks.contains(&s) && !exits.contains(&(*b, s)) {
                        exits.push((*b, s));
                    }
                }
            }
            loops.push(Loop { header, latches, blocks, parent: None, exits });
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

/// Whether `a` is `b` or above it in a tree given by parent links.
fn is_ancestor(parent: &HashMap<Block, Block>, a: Block, mut b: Block) -> bool {
    loop {
        if a == b {
            return true;
        }
        match parent.get(&b) {
            Some(p) => b = *p,
            None => return false,
        }
    }
}

/// Immediate dominators and post-dominators (Cooper, Harvey and Kennedy's
/// iterative algorithm over reverse post-order numbers).
fn dominators(
    order: &[Block],
    preds: &HashMap<Block, Vec<Block>>,
    live: &HashSet<Block>,
) -> (HashMap<Block, Block>, HashMap<Block, Block>) {
    // Forward: node k is order[k]; the entry is the root.
    let index: HashMap<Block, usize> = order.iter().enumerate().map(|(k, b)| (*b, k)).collect();
    let fwd_preds: Vec<Vec<usize>> = order.iter().map(|b| preds[b].iter().map(|p| index[p]).collect()).collect();
    let idom = immediate_dominators(&fwd_preds);
    let idom = (1..order.len()).filter_map(|k| idom[k].map(|d| (order[k], order[d]))).collect();

    // Backward: node 0 is a virtual exit succeeding every `ret`; live blocks
    // in reverse post-order of the reversed graph.
    let mut succs: HashMap<Block, Vec<Block>> = HashMap::new();
    for b in order {
        for p in &preds[b] {
            succs.entry(*p).or_default().push(*b);
        }
    }
    let rets: Vec<Block> =
        order.iter().copied().filter(|b| ir::opcode(ir::terminator(*b)) == llvm_sys::LLVMOpcode::LLVMRet).collect();
    // DFS from the exit over predecessor edges gives the reversed graph's post-order.
    let mut post: Vec<Block> = Vec::new();
    let mut seen: HashSet<Block> = HashSet::new();
    let mut stack: Vec<(Block, usize)> = Vec::new();
    for r in &rets {
        if seen.insert(*r) {
            stack.push((*r, 0));
        }
        while let Some((b, i)) = stack.last_mut() {
            let ps = &preds[b];
            if *i < ps.len() {
                let p = ps[*i];
                *i += 1;
                if live.contains(&p) && seen.insert(p) {
                    stack.push((p, 0));
                }
            } else {
                post.push(*b);
                stack.pop();
            }
        }
    }
    post.reverse();
    let rindex: HashMap<Block, usize> = post.iter().enumerate().map(|(k, b)| (*b, k + 1)).collect();
    let mut rpreds: Vec<Vec<usize>> = vec![Vec::new(); post.len() + 1];
    for (k, b) in post.iter().enumerate() {
        // A node's predecessors in the reversed graph are its successors (and
        // the virtual exit for a `ret`).
        if rets.contains(b) {
            rpreds[k + 1].push(0);
        }
        for s in succs.get(b).into_iter().flatten() {
            if let Some(j) = rindex.get(s) {
                rpreds[k + 1].push(*j);
            }
        }
    }
    let ip = immediate_dominators(&rpreds);
    let ipdom =
        (1..=post.len()).filter_map(|k| ip[k].filter(|d| *d != 0).map(|d| (post[k - 1], post[d - 1]))).collect();
    (idom, ipdom)
}

/// Immediate dominators of a graph whose nodes are numbered in reverse
/// post-order from root 0; `preds[k]` are node `k`'s predecessors.
fn immediate_dominators(preds: &[Vec<usize>]) -> Vec<Option<usize>> {
    let n = preds.len();
    let mut idom: Vec<Option<usize>> = vec![None; n];
    if n == 0 {
        return idom;
    }
    idom[0] = Some(0);
    let intersect = |idom: &[Option<usize>], mut a: usize, mut b: usize| {
        while a != b {
            while a > b {
                a = idom[a].expect("processed");
            }
            while b > a {
                b = idom[b].expect("processed");
            }
        }
        a
    };
    let mut changed = true;
    while changed {
        changed = false;
        for k in 1..n {
            let mut new: Option<usize> = None;
            for p in &preds[k] {
                if idom[*p].is_some() {
                    new = Some(match new {
                        None => *p,
                        Some(d) => intersect(&idom, *p, d),
                    });
                }
            }
            if new.is_some() && idom[k] != new {
                idom[k] = new;
                changed = true;
            }
        }
    }
    idom[0] = None;
    idom
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::test_ir::with_function;

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

    /// The block named `name` (blocks are named by their labels in the test IR).
    fn block(f: Value, name: &str) -> Block {
        ir::blocks(f).into_iter().find(|b| ir::name(ir::block_value(*b)) == name).unwrap()
    }

    #[test]
    fn dominators_and_post_dominators_of_a_diamond_in_a_loop() {
        // entry -> h; h -> a | b; a, b -> j; j -> h (back edge) | x; x: ret
        let ir = "define void @f(i1 %c, i1 %d) {\nentry:\n  br label %h\nh:\n  br i1 %c, label %a, label %b\na:\n  br label %j\nb:\n  br label %j\nj:\n  br i1 %d, label %h, label %x\nx:\n  ret void\n}\n";
        with_function(ir, |f| {
            let cfg = Cfg::new(f);
            let [entry, h, a, b, j, x] = ["entry", "h", "a", "b", "j", "x"].map(|n| block(f, n));
            assert!(cfg.dominates(entry, x) && cfg.dominates(h, j) && cfg.dominates(j, x));
            assert!(!cfg.dominates(a, j) && !cfg.dominates(b, j) && !cfg.dominates(x, h));
            assert_eq!(cfg.idom[&j], h);
            assert!(cfg.post_dominates(j, a) && cfg.post_dominates(j, h) && cfg.post_dominates(x, entry));
            assert!(!cfg.post_dominates(a, h) && !cfg.post_dominates(h, j));
            assert_eq!(cfg.ipdom[&h], j);
            assert!(!cfg.ipdom.contains_key(&x), "a returning block is post-dominated by the exit only");
            assert_eq!(cfg.loops.len(), 1);
            let l = &cfg.loops[0];
            assert_eq!((l.header, l.latches.clone(), l.exits.clone()), (h, vec![j], vec![(j, x)]));
            assert!(cfg.irreducible.is_empty());
        });
    }

    #[test]
    fn a_cycle_entered_in_the_middle_is_irreducible() {
        // entry -> p | q; p <-> q: neither dominates the other.
        let ir = "define void @f(i1 %c, i1 %d) {\nentry:\n  br i1 %c, label %p, label %q\np:\n  br i1 %d, label %q, label %x\nq:\n  br i1 %d, label %p, label %x\nx:\n  ret void\n}\n";
        with_function(ir, |f| {
            let cfg = Cfg::new(f);
            assert!(cfg.loops.is_empty());
            assert_eq!(cfg.irreducible.len(), 1);
            let x = block(f, "x");
            assert!(cfg.post_dominates(x, block(f, "p")) && cfg.dominates(block(f, "entry"), x));
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
