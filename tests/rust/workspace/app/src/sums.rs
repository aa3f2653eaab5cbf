//! Losses summed over data points, returned through `#[autodiff_reverse]`'s
//! result: the loop over points is reversed a point at a time (the seed is in
//! the result's shadow from the start). A per-point temporary array, the sum
//! subtracted, and a sum that is scaled after the loop (taped as any loop).
//! Checked against forward mode and central differences.
use enzyme::{autodiff_forward, autodiff_reverse};

#[autodiff_reverse(d_points, Duplicated, Active)]
#[autodiff_forward(t_points, Dual, Dual)]
fn points(w: &[f64]) -> f64 {
    let n = w.len();
    let total: f64 = (0..400)
        .map(|p| {
            let mut t = [0.0f64; 3];
            for i in 0..3 {
                t[i] = w[(p + i) % n] * (p as f64 * 0.01 + i as f64);
            }
            (t[0] * t[1]).sin() + t[2] * t[2]
        })
        .sum();
    0.5 * w[0] - total
}

#[autodiff_reverse(d_scaled, Duplicated, Active)]
#[autodiff_forward(t_scaled, Dual, Dual)]
fn scaled(w: &[f64]) -> f64 {
    let total: f64 = (0..200).map(|p| (w[p % w.len()] * p as f64 * 0.02).cos()).sum();
    total * total
}

type Loss = fn(&[f64]) -> f64;
type Gradient = fn(&[f64], &mut [f64], f64) -> f64;
type Tangent = fn(&[f64], &[f64]) -> (f64, f64);

pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    let cases: [(&str, Loss, Gradient, Tangent); 2] =
        [("sum over points", points, d_points, t_points), ("scaled sum", scaled, d_scaled, t_scaled)];
    let w: Vec<f64> = (0..7).map(|k| 0.1 * k as f64 + 0.3).collect();
    for (name, f, d, t) in cases {
        for _ in 0..2 {
            let mut dw = vec![0.0; w.len()];
            d(&w, &mut dw, 1.0);
            for j in 0..w.len() {
                let mut dir = vec![0.0; w.len()];
                dir[j] = 1.0;
                let (_, tan) = t(&w, &dir);
                check(&format!("{name}: forward vs reverse"), tan, dw[j], 1e-12);
                let h = 1e-6;
                let (mut a, mut b) = (w.clone(), w.clone());
                a[j] += h;
                b[j] -= h;
                check(&format!("{name}: central difference"), (f(&a) - f(&b)) / (2.0 * h), dw[j], 1e-6);
            }
        }
    }
}
