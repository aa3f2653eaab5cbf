//! Sorting a copy of an input slice with the standard library's stable sort
//! (`sort_by` with `partial_cmp`, both orders) and its unstable sort
//! (`sort_unstable_by`), also ordered by `total_cmp`: the comparisons carry no
//! derivative, the permutation does. Four elements (a small-sort network),
//! fifty (quicksort with a scratch buffer on the stack) and three thousand
//! (a scratch buffer on the heap). Each element's derivative is the weight of
//! the rank it lands at: checked in closed form, forward against reverse,
//! and against central differences (up to fifty elements).
use enzyme::{autodiff_forward, autodiff_reverse};

#[autodiff_reverse(d_ascending, Duplicated, Active)]
#[autodiff_forward(t_ascending, Dual, Dual)]
fn ascending(p: &[f64]) -> f64 {
    let mut v = p.to_vec();
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v.iter().enumerate().map(|(i, x)| (i as f64 + 1.0) * x * x).sum()
}

#[autodiff_reverse(d_descending, Duplicated, Active)]
#[autodiff_forward(t_descending, Dual, Dual)]
fn descending(p: &[f64]) -> f64 {
    let mut v = p.to_vec();
    v.sort_by(|a, b| b.partial_cmp(a).unwrap());
    v.iter().enumerate().map(|(i, x)| (i as f64 + 1.0) * x * x).sum()
}

// The unstable sort (pattern-defeating quicksort, heapsort as its fallback).
#[autodiff_reverse(d_unstable, Duplicated, Active)]
#[autodiff_forward(t_unstable, Dual, Dual)]
fn unstable(p: &[f64]) -> f64 {
    let mut v = p.to_vec();
    v.sort_unstable_by(|a, b| a.partial_cmp(b).unwrap());
    v.iter().enumerate().map(|(i, x)| (i as f64 + 1.0) * x * x).sum()
}

// Ordered by `total_cmp` (the floats' bits made an integer key): the bits
// compared carry no derivative, the moves do.
#[autodiff_reverse(d_total_unstable, Duplicated, Active)]
#[autodiff_forward(t_total_unstable, Dual, Dual)]
fn total_unstable(p: &[f64]) -> f64 {
    let mut v = p.to_vec();
    v.sort_unstable_by(f64::total_cmp);
    v.iter().enumerate().map(|(i, x)| (i as f64 + 1.0) * x * x).sum()
}

#[autodiff_reverse(d_total_stable, Duplicated, Active)]
#[autodiff_forward(t_total_stable, Dual, Dual)]
fn total_stable(p: &[f64]) -> f64 {
    let mut v = p.to_vec();
    v.sort_by(|a, b| b.total_cmp(a));
    v.iter().enumerate().map(|(i, x)| (i as f64 + 1.0) * x * x).sum()
}

/// Checks them through `check(what, got, want, tolerance)`.
pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    type Rev = fn(&[f64], &mut [f64], f64) -> f64;
    type Fwd = fn(&[f64], &[f64]) -> (f64, f64);
    let cases: [(&str, fn(&[f64]) -> f64, Rev, Fwd, bool); 5] = [
        ("sort_by ascending", ascending, d_ascending, t_ascending, false),
        ("sort_by descending", descending, d_descending, t_descending, true),
        ("sort_unstable_by", unstable, d_unstable, t_unstable, false),
        ("sort_unstable_by(f64::total_cmp)", total_unstable, d_total_unstable, t_total_unstable, false),
        ("sort_by total_cmp descending", total_stable, d_total_stable, t_total_stable, true),
    ];
    for n in [4usize, 50, 3000] {
        // Distinct values in a scrambled order.
        let p: Vec<f64> = (0..n).map(|k| ((k * 7919) % 1000) as f64 / 100.0 - 5.0 + 1e-4 * k as f64).collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&a, &b| p[a].partial_cmp(&p[b]).unwrap());
        let mut rank = vec![0; n];
        for (r, &j) in order.iter().enumerate() {
            rank[j] = r;
        }
        for &(name, f, d, t, desc) in &cases {
            let mut dp = vec![0.0; n];
            d(&p, &mut dp, 1.0);
            let weight = |j: usize| (if desc { n - 1 - rank[j] } else { rank[j] }) as f64 + 1.0;
            for j in 0..n {
                check(&format!("sorting, {name}, n={n}: closed form"), dp[j], 2.0 * weight(j) * p[j], 1e-12);
            }
            for j in [0, n / 3, n - 1] {
                let mut dir = vec![0.0; n];
                dir[j] = 1.0;
                let (_, tan) = t(&p, &dir);
                check(&format!("sorting, {name}, n={n}: forward vs reverse"), tan, dp[j], 1e-12);
                if n > 50 {
                    // (The sum of thousands of squares leaves a difference quotient mostly rounding.)
                    continue;
                }
                let h = 1e-7;
                let (mut pp, mut pm) = (p.clone(), p.clone());
                pp[j] += h;
                pm[j] -= h;
                let fd = (f(&pp) - f(&pm)) / (2.0 * h);
                check(&format!("sorting, {name}, n={n}: central difference"), fd, dp[j], 1e-5);
            }
        }
    }
}
