/* `enzyme_dupnoneed` on a pointer in forward mode: only the tangents of
 * that memory are wanted. Where nothing in the derivative reads the
 * primal values it would store, the derivative stores none, so the caller
 * may pass an address that must never be touched (Enzyme's sparse
 * programs pass `(double *)0x1`); where the derivative needs them (a
 * value read back from the output and multiplied), the stores stay and
 * the tangents are still right. Checked against `enzyme_dup` with a real
 * buffer (exact), against reverse mode, and against central differences. */
#include <string.h>
#include "check.h"

#define N 5

/* Writes out[i] from x only (accumulating, as a gradient does): the
 * primal values of out are never read for a tangent. */
static void accumulate(const double *x, double *out, int n) {
  for (int i = 0; i < n; i++) {
    out[i] += sin(x[i]) * x[(i + 1) % n];
    out[(i + 1) % n] += 0.5 * x[i] * x[i];
  }
}

/* Reads out back: out[i] * out[i - 1] needs the primal values stored. */
static void chain(const double *x, double *out, int n) {
  out[0] = x[0];
  for (int i = 1; i < n; i++)
    out[i] = out[i - 1] * x[i] + cos(out[i - 1]);
}

static double accumulate_sum(const double *x) {
  double out[N] = {0};
  accumulate(x, out, N);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += (i + 1) * out[i];
  return s;
}

static double chain_sum(const double *x) {
  double out[N] = {0};
  chain(x, out, N);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += (i + 1) * out[i];
  return s;
}

static double central(double (*f)(const double *), const double *x, int j) {
  double xp[N], xm[N], h = 1e-6;
  memcpy(xp, x, sizeof xp);
  memcpy(xm, x, sizeof xm);
  xp[j] += h;
  xm[j] -= h;
  return (f(xp) - f(xm)) / (2 * h);
}

int main(void) {
  double x[N] = {0.4, -1.1, 0.7, 0.2, 1.3};
  double grad_a[N] = {0}, grad_c[N] = {0};
  __enzyme_autodiff((void *)accumulate_sum, enzyme_dup, x, grad_a);
  __enzyme_autodiff((void *)chain_sum, enzyme_dup, x, grad_c);
  for (int j = 0; j < N; j++) {
    double dx[N] = {0};
    dx[j] = 1;
    /* The output's primal not wanted, and never touched. */
    double t_none[N] = {0};
    __enzyme_fwddiff((void *)accumulate, enzyme_dup, x, dx, enzyme_dupnoneed, (double *)0x1, t_none, enzyme_const,
                     N);
    double out[N] = {0}, t_dup[N] = {0};
    __enzyme_fwddiff((void *)accumulate, enzyme_dup, x, dx, enzyme_dup, out, t_dup, enzyme_const, N);
    double dir = 0;
    for (int i = 0; i < N; i++) {
      CHECK("accumulate: dupnoneed tangent against dup", t_none[i], t_dup[i], TOL_EXACT);
      dir += (i + 1) * t_none[i];
    }
    CHECK("accumulate: directional derivative against reverse", dir, grad_a[j], TOL_MODES);
    CHECK("accumulate: against central differences", dir, central(accumulate_sum, x, j), TOL_FD);

    /* Primal values read back: a real buffer, whose stores must stay. */
    double scratch[N] = {0}, c_none[N] = {0}, out2[N] = {0}, c_dup[N] = {0};
    __enzyme_fwddiff((void *)chain, enzyme_dup, x, dx, enzyme_dupnoneed, scratch, c_none, enzyme_const, N);
    __enzyme_fwddiff((void *)chain, enzyme_dup, x, dx, enzyme_dup, out2, c_dup, enzyme_const, N);
    dir = 0;
    for (int i = 0; i < N; i++) {
      CHECK("chain: dupnoneed tangent against dup", c_none[i], c_dup[i], TOL_EXACT);
      dir += (i + 1) * c_none[i];
    }
    CHECK("chain: directional derivative against reverse", dir, grad_c[j], TOL_MODES);
    CHECK("chain: against central differences", dir, central(chain_sum, x, j), TOL_FD);
  }
  return CHECK_DONE();
}
