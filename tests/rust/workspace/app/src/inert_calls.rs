//! Calls handing over only integers, of functions reaching outside plain
//! code (an atomic counter, the process id from the system): they run once
//! per derivative call, as they are, and the derivative follows the branch
//! the primal took. Checked in closed form, against central differences and
//! forward against reverse, with the number of calls counted.
use enzyme::{autodiff_forward, autodiff_reverse};
use std::sync::atomic::{AtomicU64, Ordering};

static TICKETS: AtomicU64 = AtomicU64::new(0);

#[inline(never)]
fn ticket() -> u64 {
    TICKETS.fetch_add(1, Ordering::Relaxed) + (std::process::id() as u64 & 0)
}

#[autodiff_reverse(d_by_ticket, Duplicated, Active)]
#[autodiff_forward(t_by_ticket, Dual, Dual)]
fn by_ticket(p: &[f64; 3]) -> f64 {
    let t = ticket();
    p.iter().map(|v| if t % 2 == 0 { v * v } else { v.sin() }).sum()
}

fn want(v: f64, ticket: u64) -> f64 {
    if ticket % 2 == 0 {
        2.0 * v
    } else {
        v.cos()
    }
}

pub fn check_all(check: &mut dyn FnMut(&str, f64, f64, f64)) {
    let p = [0.4, -1.3, 2.2];
    for _ in 0..3 {
        let before = TICKETS.load(Ordering::Relaxed);
        let mut dp = [0.0; 3];
        d_by_ticket(&p, &mut dp, 1.0);
        check("inert calls: reverse takes one ticket", (TICKETS.load(Ordering::Relaxed) - before) as f64, 1.0, 0.0);
        for i in 0..3 {
            check("inert calls: reverse, closed form", dp[i], want(p[i], before), 1e-12);
            let mut dir = [0.0; 3];
            dir[i] = 1.0;
            let b = TICKETS.load(Ordering::Relaxed);
            let (_, t) = t_by_ticket(&p, &dir);
            check("inert calls: forward takes one ticket", (TICKETS.load(Ordering::Relaxed) - b) as f64, 1.0, 0.0);
            check("inert calls: forward, closed form", t, want(p[i], b), 1e-12);
            // The same ticket for both sides of the difference.
            let h = 1e-6;
            let (mut pp, mut pm) = (p, p);
            pp[i] += h;
            pm[i] -= h;
            let b = TICKETS.load(Ordering::Relaxed);
            let fp = by_ticket(&pp);
            TICKETS.store(b, Ordering::Relaxed);
            let fm = by_ticket(&pm);
            check("inert calls: central difference", (fp - fm) / (2.0 * h), want(p[i], b), 1e-6);
        }
    }
}
