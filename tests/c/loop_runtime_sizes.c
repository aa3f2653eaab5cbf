/* Loops whose sizes are arguments: reductions over caller arrays of n
 * elements (the kind -O3 vectorises and unrolls with remainder loops), with
 * n chosen so that remainders are exercised, against analytic gradients. */
#include "check.h"

static double dot_self(const double *x, const double *w, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += w[i] * x[i] * x[i];
  return s;
}

static double norm2(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return sqrt(s);
}

static double max_abs(const double *x, int n) {
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(x[i]));
  return m;
}

static double product(const double *x, int n) {
  double p = 1;
  for (int i = 0; i < n; i++) p *= x[i];
  return p;
}

#define NMAX 1031

int main(void) {
  static double x[NMAX], w[NMAX], dx[NMAX], tx[NMAX];
  const int sizes[] = {1, 3, 7, 16, 17, 1031};
  for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; s++) {
    int n = sizes[s];
    for (int i = 0; i < n; i++) {
      x[i] = 0.5 + 0.001 * ((i * 37) % 101) - (i == n / 2 ? 1.2 : 0);
      w[i] = 1.0 + 0.01 * (i % 13);
    }
    double nrm = norm2(x, n);
    int imax = 0;
    for (int i = 1; i < n; i++)
      if (fabs(x[i]) > fabs(x[imax])) imax = i;
    double prod = product(x, n);

    for (int i = 0; i < n; i++) dx[i] = 0;
    __enzyme_autodiff((void *)dot_self, enzyme_dup, x, dx, enzyme_const, w, n);
    for (int i = 0; i < n; i++) CHECK("dot_self gradient", dx[i], 2 * w[i] * x[i], TOL_EXACT);

    for (int i = 0; i < n; i++) dx[i] = 0;
    __enzyme_autodiff((void *)norm2, enzyme_dup, x, dx, n);
    for (int i = 0; i < n; i++) CHECK("norm2 gradient", dx[i], x[i] / nrm, TOL_EXACT);

    for (int i = 0; i < n; i++) dx[i] = 0;
    __enzyme_autodiff((void *)max_abs, enzyme_dup, x, dx, n);
    for (int i = 0; i < n; i++)
      CHECK("max_abs gradient", dx[i], i == imax ? (x[i] > 0 ? 1 : -1) : 0, TOL_EXACT);

    for (int i = 0; i < n; i++) dx[i] = 0;
    __enzyme_autodiff((void *)product, enzyme_dup, x, dx, n);
    for (int i = 0; i < n && n < 40; i++) CHECK("product gradient", dx[i], prod / x[i], TOL_EXACT);

    /* forward mode: directional derivatives against the gradients */
    double dir = 0, want = 0;
    for (int i = 0; i < n; i++) {
      tx[i] = 0.1 * (i % 5) - 0.2;
      want += tx[i] * x[i] / nrm;
    }
    dir = __enzyme_fwddiff((void *)norm2, enzyme_dup, x, tx, n);
    CHECK("norm2 forward along a direction", dir, want, TOL_MODES);
    want = 0;
    for (int i = 0; i < n; i++) want += tx[i] * 2 * w[i] * x[i];
    dir = __enzyme_fwddiff((void *)dot_self, enzyme_dup, x, tx, enzyme_const, w, n);
    CHECK("dot_self forward along a direction", dir, want, 1e-11);
  }
  return CHECK_DONE();
}
