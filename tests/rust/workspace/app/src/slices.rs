//! Copies of an input slice and the standard library's rearrangements of
//! them, as rustc's LTO leaves them (vectorised into integer lanes, moved
//! with `memmove` and integer loads): `to_vec` then `reverse` or
//! `rotate_left`, and a vector built twice from one slice. The derivative
//! follows the elements. Checked in closed form, against central
//! differences, and forward against reverse.
use enzyme::{autodiff_forward, autodiff_reverse};

#[autodiff_reverse(d_reversed, Duplicated, Active)]
#[autodiff_forward(t_reversed, Dual, Dual)]
fn reversed(p: &[f64]) -> f64 {
    let mut v = p.to_vec();
    v.reverse();
    v.iter().enumerate().map(|(i, x)| (i as f64 + 1.0) * x * x).sum()
}

#[autodiff_reverse(d_rotated, Duplicated, Active)]
#[autodiff_forward(t_rotated, Dual, Dual)]
fn rotated(p: &[f64]) -> f64 {
    let mut v = p.to_vec();
    v.rotate_left(1);
    v.iter().enumerate().map(|(i, x)| (i as f64 + 1.0) * x * x).sum()
}

#[autodiff_reverse(d_doubled, Duplicated, Active)]
#[autodiff_forward(t_doubled, Dual, Dual)]
fn doubled(p: &[f64]) -> f64 {
    let mut v = Vec::with_capacity(2 * p.len());
    v.extend_from_slice(p);
    v.extend_from_slice(p);
    v.iter().enumerate().map(|(i, x)| (i as f64 + 1.0) * x).sum::<f64>() * v[0]
}

/// Checks them through `check(what, got, want, tolerance)`.
pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    let p = [0.7, -1.3, 2.1, 0.4, -0.9, 1.6, 0.25, -2.2, 1.05];
    let n = p.len();
    type Rev = fn(&[f64], &mut [f64], f64) -> f64;
    type Fwd = fn(&[f64], &[f64]) -> (f64, f64);
    let cases: [(&str, fn(&[f64]) -> f64, Rev, Fwd); 3] = [
        ("reverse", reversed, d_reversed, t_reversed),
        ("rotate_left", rotated, d_rotated, t_rotated),
        ("extend_from_slice twice", doubled, d_doubled, t_doubled),
    ];
    for (name, f, d, t) in cases {
        let mut dp = vec![0.0; n];
        d(&p, &mut dp, 1.0);
        for i in 0..n {
            // Where p[i] lands: its weight in closed form.
            let want = match name {
                "reverse" => 2.0 * (n - i) as f64 * p[i],
                "rotate_left" => 2.0 * ((i + n - 1) % n + 1) as f64 * p[i],
                _ => {
                    let s: f64 = (0..2 * n).map(|k| (k as f64 + 1.0) * p[k % n]).sum();
                    let own = (i + 1) as f64 + (i + n + 1) as f64;
                    own * p[0] + if i == 0 { s } else { 0.0 }
                }
            };
            check(&format!("slices, {name}: reverse, closed form"), dp[i], want, 1e-12);
            let h = 1e-6;
            let (mut pp, mut pm) = (p, p);
            pp[i] += h;
            pm[i] -= h;
            check(&format!("slices, {name}: central difference"), (f(&pp) - f(&pm)) / (2.0 * h), want, 1e-6);
            let mut dir = vec![0.0; n];
            dir[i] = 1.0;
            let (_, tan) = t(&p, &dir);
            check(&format!("slices, {name}: forward vs reverse"), tan, dp[i], 1e-12);
        }
    }
}
