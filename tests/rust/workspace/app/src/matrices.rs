//! Containers of containers inside differentiated functions: a matrix as
//! `Vec<Vec<f64>>` built from rows made with `collect()` and grown with
//! `push` (its buffer of row headers reallocated), `vec![vec![0.0; n]; n]`
//! (rows cloned from one) updated in place, rows themselves grown with
//! `push` beside a `Vec<[f64; 3]>`, a `Vec` of structs holding a float and a
//! growing `Vec`, and, in optimised builds, a `HashMap<u32, Vec<f64>>` whose
//! value vectors grow. Gradients against
//! finite differences, forward mode against reverse.
use crate::maps::{check_both, Case};
use enzyme::{autodiff_forward, autodiff_reverse};
#[cfg(not(debug_assertions))]
use std::collections::HashMap;

// Rows collected from the input, pushed into a growing outer vector, read
// back transposed.
#[autodiff_reverse(d_outer, Duplicated, ActiveOnly)]
#[autodiff_forward(t_outer, Dual, DualOnly)]
fn outer(x: &[f64]) -> f64 {
    let n = x.len();
    let mut a: Vec<Vec<f64>> = Vec::new();
    for i in 0..n {
        let row: Vec<f64> = (0..n).map(|j| x[i] * x[j] + (i + j) as f64 * 0.1).collect();
        a.push(row);
    }
    let mut s = 0.0;
    for i in 0..n {
        for j in 0..n {
            s += a[i][j] * a[j][i].sin();
        }
    }
    s
}

// A grid made with `vec![vec![0.0; n]; n]` and smoothed in place.
#[autodiff_reverse(d_smooth, Duplicated, ActiveOnly)]
#[autodiff_forward(t_smooth, Dual, DualOnly)]
fn smooth(x: &[f64]) -> f64 {
    let n = x.len();
    let mut g = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            g[i][j] = x[i] - 0.5 * x[j];
        }
    }
    for _ in 0..3 {
        for i in 1..n.saturating_sub(1) {
            for j in 1..n - 1 {
                let around = g[i - 1][j] + g[i + 1][j] + g[i][j - 1] + g[i][j + 1];
                g[i][j] = 0.25 * around + 0.1 * g[i][j] * g[i][j];
            }
        }
    }
    g.iter().map(|r| r.iter().sum::<f64>()).sum::<f64>()
}

// A triangle of rows, each grown with `push`, and points in a `Vec<[f64; 3]>`.
#[autodiff_reverse(d_triangle, Duplicated, ActiveOnly)]
#[autodiff_forward(t_triangle, Dual, DualOnly)]
fn triangle(x: &[f64]) -> f64 {
    let mut rows: Vec<Vec<f64>> = Vec::new();
    let mut points: Vec<[f64; 3]> = Vec::new();
    for i in 0..x.len() {
        let mut r = Vec::new();
        for j in 0..=i {
            r.push(x[j] * x[i]);
        }
        rows.push(r);
        points.push([x[i], x[i] * x[i], x[i].cos()]);
    }
    let mut s = 0.0;
    for (i, r) in rows.iter().enumerate() {
        s += r.iter().sum::<f64>() * points[i][1] + points[i][2];
    }
    s
}

// Structs holding a float and a growing history, in a growing vector: only
// the floats' adjoints move back when the vector of structs grows.
struct Particle {
    x: f64,
    history: Vec<f64>,
}

#[autodiff_reverse(d_particles, Duplicated, ActiveOnly)]
#[autodiff_forward(t_particles, Dual, DualOnly)]
fn particles(x: &[f64]) -> f64 {
    let mut ps: Vec<Particle> = Vec::new();
    for &v in x {
        ps.push(Particle { x: v, history: vec![v] });
    }
    for _ in 0..5 {
        for p in ps.iter_mut() {
            p.x = p.x * 0.9 + p.x.sin() * 0.1;
            p.history.push(p.x);
        }
    }
    ps.iter().map(|p| p.history.iter().sum::<f64>() * p.x).sum()
}

// Values gathered per key into growing vectors (optimised builds: in
// unoptimised code the table's slots are copied as bytes the analysis does
// not type, and it is refused).
#[cfg(not(debug_assertions))]
#[autodiff_reverse(d_buckets, Duplicated, ActiveOnly)]
#[autodiff_forward(t_buckets, Dual, DualOnly)]
fn buckets(x: &[f64]) -> f64 {
    let mut m: HashMap<u32, Vec<f64>> = HashMap::new();
    for (i, v) in x.iter().enumerate() {
        m.entry((i % 3) as u32).or_default().push(v * v);
    }
    let mut s = 0.0;
    for k in 0..3u32 {
        if let Some(b) = m.get(&k) {
            s += b.iter().enumerate().map(|(j, v)| v * (j as f64 + 1.0)).sum::<f64>() * (k as f64 + 1.0);
        }
    }
    s
}

/// Checks them through `check(what, got, want, tolerance)`.
pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    #[cfg_attr(debug_assertions, allow(unused_mut))]
    let mut cases: Vec<Case> = vec![
        ("Vec<Vec<f64>> pushed rows", outer, |x, dx| d_outer(x, dx, 1.0), t_outer),
        ("vec![vec![0.0; n]; n] smoothed", smooth, |x, dx| d_smooth(x, dx, 1.0), t_smooth),
        ("Vec<Vec<f64>> rows grown by push", triangle, |x, dx| d_triangle(x, dx, 1.0), t_triangle),
        ("Vec of structs with a Vec field", particles, |x, dx| d_particles(x, dx, 1.0), t_particles),
    ];
    #[cfg(not(debug_assertions))]
    cases.push(("HashMap<u32, Vec<f64>>", buckets, |x, dx| d_buckets(x, dx, 1.0), t_buckets));
    for n in [3, 12, 40] {
        let x: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 0.6 + 0.2).collect();
        for &(what, f, grad, tangent) in &cases {
            check_both(check, what, &x, &f, &grad, &tangent);
        }
    }
}
