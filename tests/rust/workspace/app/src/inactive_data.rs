//! A loss that draws fresh data on every iteration from a function marked
//! `#[enzyme::inactive]` returning a `Vec<f64>` (issue 39, item 5): the
//! release derivative panicked on a bounds check the program passes, as the
//! reverse sweep accumulated adjoints through the null shadow of each
//! vector's buffer (the data has no derivative, and now no shadow is used).
//! Reverse mode against central differences and forward mode.
use enzyme::{autodiff_forward, autodiff_reverse};

/// Data from a seeded generator: no derivative.
#[enzyme::inactive]
fn draw(state: &mut u64, n: usize) -> Vec<f64> {
    (0..n)
        .map(|_| {
            *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((*state >> 11) as f64 / (1u64 << 53) as f64) - 0.5
        })
        .collect()
}

/// Least squares over four fresh samples: `x[..n]` the features, `x[n]` the target.
#[autodiff_reverse(d_fit, Duplicated, Active)]
#[autodiff_forward(t_fit, Dual, Dual)]
fn fit(p: &[f64]) -> f64 {
    let mut state = 42u64;
    let mut s = 0.0;
    for _ in 0..4 {
        let x = draw(&mut state, p.len() + 1);
        let mut dot = 0.0;
        for i in 0..p.len() {
            dot += p[i] * x[i];
        }
        let r = dot - x[p.len()];
        s += r * r;
    }
    s
}

pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    for p in [[0.5, 0.8, 2.5, -0.3, 0.1], [-1.0, 0.0, 0.25, 4.0, -2.0]] {
        let mut dp = [0.0; 5];
        let value = d_fit(&p, &mut dp, 1.0);
        check("inactive data: primal", value, fit(&p), 0.0);
        for i in 0..5 {
            let h = 1e-6;
            let (mut pp, mut pm) = (p, p);
            pp[i] += h;
            pm[i] -= h;
            check("inactive data: reverse vs central difference", dp[i], (fit(&pp) - fit(&pm)) / (2.0 * h), 1e-6);
            let mut dir = [0.0; 5];
            dir[i] = 1.0;
            let (_, t) = t_fit(&p, &dir);
            check("inactive data: forward vs reverse", t, dp[i], 1e-12);
        }
    }
}
