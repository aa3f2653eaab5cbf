//! Rust collections as temporaries inside differentiated functions, in
//! release and debug builds: `vec![0.0; n]`, `collect()`, `push` (growing
//! from empty), `extend`, a `Box`, and a `VecDeque` as a sliding window
//! (grown from empty, its ring wrapping around), and a `BTreeMap` with float
//! values (enough keys for its nodes to split, keys removed so they merge,
//! values changed in place).
//! Gradients against finite differences, forward mode against reverse.
use enzyme::{autodiff_forward, autodiff_reverse};
use std::collections::{BTreeMap, VecDeque};

// Temporaries made with vec!, collect and push, read back in a sum.
#[autodiff_reverse(d_temps, Duplicated, ActiveOnly)]
#[autodiff_forward(t_temps, Dual, DualOnly)]
fn temps(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a = vec![0.0; n];
    for i in 0..n {
        a[i] = x[i].sin() * x[(i + 1) % n];
    }
    let b: Vec<f64> = a.iter().zip(x).map(|(p, q)| p * q + 1.0).collect();
    let mut c = Vec::new();
    for v in &b {
        c.push(v * v);
    }
    c.extend(a.iter().map(|v| v.exp()));
    let boxed = Box::new(c.iter().sum::<f64>());
    *boxed * 0.5
}

// A window of the last `w` values, pushed at the back and popped at the
// front, so the ring's start moves and its growth copies wrapped halves.
#[autodiff_reverse(d_window, Duplicated, Const, ActiveOnly)]
#[autodiff_forward(t_window, Dual, Const, DualOnly)]
fn window(x: &[f64], w: usize) -> f64 {
    let mut q: VecDeque<f64> = VecDeque::new();
    let mut total = 0.0;
    for (i, v) in x.iter().enumerate() {
        if i % 3 == 0 {
            q.push_front(v.cos());
        }
        q.push_back(v * v);
        while q.len() > w {
            let old = q.pop_front().unwrap();
            total += old * v;
        }
        total += q.iter().sum::<f64>() * 0.1;
    }
    total + q.back().copied().unwrap_or(0.0)
}

// Values accumulated under scrambled keys (nodes split as it grows), some
// keys removed again (nodes merge), then read in key order with weights.
#[autodiff_reverse(d_table, Duplicated, Const, ActiveOnly)]
#[autodiff_forward(t_table, Dual, Const, DualOnly)]
fn table(x: &[f64], keys: usize) -> f64 {
    let mut m: BTreeMap<usize, f64> = BTreeMap::new();
    for (i, v) in x.iter().enumerate() {
        let k = (i * 7 + 3) % keys;
        *m.entry(k).or_insert(1.0) *= 1.0 + v * 0.3;
        m.insert(keys + i, v.sin());
    }
    for k in (0..keys).step_by(3) {
        if let Some(v) = m.remove(&k) {
            m.insert(2 * keys + k, v * v);
        }
    }
    for k in (1..keys).step_by(4) {
        if let Some(v) = m.get_mut(&k) {
            *v = v.cos();
        }
    }
    let mut total = 0.0;
    for (j, (k, v)) in m.iter().enumerate() {
        total += v * ((j % 5) as f64 + 0.5) + (*k as f64) * 1e-3;
    }
    total
}

/// Checks them through `check(what, got, want, tolerance)`.
pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    let x = [0.3, -0.8, 1.1, 0.45];
    let mut dx = [0.0; 4];
    d_temps(&x, &mut dx, 1.0);
    for i in 0..x.len() {
        let h = 1e-6;
        let (mut xp, mut xm) = (x, x);
        xp[i] += h;
        xm[i] -= h;
        let fd = (temps(&xp) - temps(&xm)) / (2.0 * h);
        check("collections: reverse vs finite differences", dx[i], fd, 1e-6);
        let mut tx = [0.0; 4];
        tx[i] = 1.0;
        check("collections: forward vs reverse", t_temps(&x, &tx), dx[i], 1e-12);
    }
    let x: Vec<f64> = (0..23).map(|i| (i as f64 * 0.37).sin() + 0.2).collect();
    for w in [1, 4, 9, 30] {
        let mut dx = vec![0.0; x.len()];
        d_window(&x, &mut dx, w, 1.0);
        for i in 0..x.len() {
            let h = 1e-6;
            let (mut xp, mut xm) = (x.clone(), x.clone());
            xp[i] += h;
            xm[i] -= h;
            let fd = (window(&xp, w) - window(&xm, w)) / (2.0 * h);
            check("VecDeque window: reverse vs finite differences", dx[i], fd, 1e-6);
            let mut tx = vec![0.0; x.len()];
            tx[i] = 1.0;
            check("VecDeque window: forward vs reverse", t_window(&x, &tx, w), dx[i], 1e-12);
        }
    }
    for (n, keys) in [(3, 2), (20, 7), (60, 40)] {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.61).cos() * 0.8).collect();
        let mut dx = vec![0.0; n];
        d_table(&x, &mut dx, keys, 1.0);
        for i in 0..n {
            let h = 1e-6;
            let (mut xp, mut xm) = (x.clone(), x.clone());
            xp[i] += h;
            xm[i] -= h;
            let fd = (table(&xp, keys) - table(&xm, keys)) / (2.0 * h);
            check("BTreeMap table: reverse vs finite differences", dx[i], fd, 1e-6);
            let mut tx = vec![0.0; n];
            tx[i] = 1.0;
            check("BTreeMap table: forward vs reverse", t_table(&x, &tx, keys), dx[i], 1e-12);
        }
    }
}
