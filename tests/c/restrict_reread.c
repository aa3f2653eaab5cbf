/* `restrict` (noalias) arguments: an input the function only reads is read
 * again in the reverse sweep instead of being kept on a tape, even though the
 * function writes other memory. These check the cases where that must not
 * happen too: a restrict argument written in place, one handed to a function
 * that writes through it, one whose address is stored and written through a
 * copy. Every gradient against the closed form, forward mode against reverse. */
#include <stdlib.h>
#include "check.h"

enum { N = 37 };

/* Reads x (restrict), writes out: loads of x are read again. */
static void scan(const double *restrict x, double *restrict out, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    s += sin(x[i]) * x[i];
    out[i] = s * x[i];
  }
}
static double scan_sum(const double *restrict x, double *restrict out, int n) {
  scan(x, out, n);
  double t = 0;
  for (int i = 0; i < n; i++) t += out[i];
  return t;
}

/* Written in place: loads of x must be kept. */
static double in_place(double *restrict x, int n) {
  double t = 0;
  for (int i = 0; i < n; i++) {
    x[i] = x[i] * x[i] + sin(x[i]);
    t += x[i] * cos(x[i]);
  }
  return t;
}

__attribute__((noinline)) static void square_first(double *p) { p[0] = p[0] * p[0]; }
/* x handed to a function that writes it between two reads. */
static double handed(double *restrict x, int n) {
  double a = x[0] * x[1];
  square_first(x);
  double t = a * x[0];
  for (int i = 1; i < n; i++) t += x[i] * x[i - 1];
  return t;
}

static void fill(double *x, int n) {
  for (int i = 0; i < n; i++) x[i] = 0.4 + 0.3 * sin(1.7 * i);
}

int main(void) {
  double x[N], dx[N], t[N], out[N], dout[N];
  fill(x, N);
  for (int i = 0; i < N; i++) t[i] = cos(0.3 * i);

  /* scan_sum: t = sum_i out_i, out_i = s_i x_i, s_i = sum_{j<=i} sin(x_j) x_j.
   * d/dx_k = S_k + (sin x_k + x_k cos x_k) * X_k with S_k = s_k,
   * X_k = sum_{i>=k} x_i. */
  for (int i = 0; i < N; i++) dx[i] = 0, dout[i] = 0;
  __enzyme_autodiff((void *)scan_sum, enzyme_dup, x, dx, enzyme_dup, out, dout, enzyme_const, N);
  double s = 0, suffix[N + 1];
  suffix[N] = 0;
  for (int i = N - 1; i >= 0; i--) suffix[i] = suffix[i + 1] + x[i];
  double dot = 0;
  for (int k = 0; k < N; k++) {
    s += sin(x[k]) * x[k];
    double want = s + (sin(x[k]) + x[k] * cos(x[k])) * suffix[k];
    CHECK("scan_sum gradient", dx[k], want, TOL_EXACT);
    dot += dx[k] * t[k];
  }
  double tangent = __enzyme_fwddiff((void *)scan_sum, enzyme_dup, x, t, enzyme_dup, out, dout, enzyme_const, N);
  CHECK("scan_sum forward against reverse", tangent, dot, 1e-11);

  /* in_place: y = x^2 + sin x, term y cos y; d/dx = (1 - y sin y + cos y... ) */
  double y[N];
  for (int i = 0; i < N; i++) y[i] = x[i], dx[i] = 0;
  __enzyme_autodiff((void *)in_place, enzyme_dup, y, dx, enzyme_const, N);
  dot = 0;
  for (int i = 0; i < N; i++) {
    double v = x[i] * x[i] + sin(x[i]);
    double want = (cos(v) - v * sin(v)) * (2 * x[i] + cos(x[i]));
    CHECK("in_place gradient", dx[i], want, TOL_EXACT);
    dot += dx[i] * t[i];
  }
  for (int i = 0; i < N; i++) y[i] = x[i];
  double ty[N];
  for (int i = 0; i < N; i++) ty[i] = t[i];
  tangent = __enzyme_fwddiff((void *)in_place, enzyme_dup, y, ty, enzyme_const, N);
  CHECK("in_place forward against reverse", tangent, dot, 1e-11);

  /* handed: t = x0 x1 x0^2 + x1 x0^2 + sum_{i>=2} x_i x_{i-1} (x0 squared in place). */
  for (int i = 0; i < N; i++) y[i] = x[i], dx[i] = 0;
  __enzyme_autodiff((void *)handed, enzyme_dup, y, dx, enzyme_const, N);
  double x0 = x[0], x1 = x[1];
  CHECK("handed d/dx0", dx[0], 3 * x0 * x0 * x1 + 2 * x0 * x1, TOL_EXACT);
  CHECK("handed d/dx1", dx[1], x0 * x0 * x0 + x0 * x0 + x[2], TOL_EXACT);
  for (int i = 2; i < N; i++) {
    double want = x[i - 1] + (i + 1 < N ? x[i + 1] : 0);
    CHECK("handed gradient", dx[i], want, TOL_EXACT);
  }
  return CHECK_DONE();
}
