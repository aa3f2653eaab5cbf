/* Data-dependent control flow in loops: insertion sort then a weighted sum,
 * Newton's method until a tolerance, break / continue / early return, and a
 * triangular loop nest. */
#include "jacobian.h"

/* sort a copy of x (5 values), then y = sum_i (i+1) * sorted[i] */
static void sorted_weights(const double *x, double *y) {
  double v[5];
  for (int i = 0; i < 5; i++) v[i] = x[i];
  for (int i = 1; i < 5; i++) {
    double key = v[i];
    int j = i - 1;
    while (j >= 0 && v[j] > key) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = key;
  }
  double s = 0;
  for (int i = 0; i < 5; i++) s += (i + 1) * v[i];
  y[0] = s;
}

/* cube root of x[0] by Newton's iteration with a tolerance test */
static void newton_cbrt(const double *x, double *y) {
  double a = x[0], r = a > 1 ? a : 1;
  int it = 0;
  while (fabs(r * r * r - a) > 1e-13 * a && it++ < 100)
    r = r - (r * r * r - a) / (3 * r * r);
  y[0] = r;
}

/* sum of x[i]^2 skipping negative entries, stopping at the first entry > 10 */
static void skip_and_stop(const double *x, double *y) {
  double s = 0;
  for (int i = 0; i < 6; i++) {
    if (x[i] < 0) continue;
    if (x[i] > 10) break;
    s += x[i] * x[i];
  }
  y[0] = s;
}

static double first_above(const double *x, int n, double t) {
  for (int i = 0; i < n; i++)
    if (x[i] * x[i] > t) return x[i] * 3.0; /* early return from inside the loop */
  return -1.0;
}

/* y = sum_{i} sum_{j <= i} x_i x_j */
static void triangle(const double *x, double *y) {
  double s = 0;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j <= i; j++) s += x[i] * x[j];
  y[0] = s;
}

int main(void) {
  CHECK_JACOBIAN(sorted_weights, 5, 1, 3.0, -1.0, 2.5, 0.5, 4.0);
  CHECK_JACOBIAN(newton_cbrt, 1, 1, 20.0);
  CHECK_JACOBIAN(skip_and_stop, 6, 1, 1.0, -2.0, 3.0, 0.5, 11.0, 2.0);
  CHECK_JACOBIAN(triangle, 4, 1, 1.0, 2.0, -0.5, 0.25);
  double x[4] = {0.5, 1.5, 3.0, 4.0}, dx[4] = {0};
  __enzyme_autodiff((void *)first_above, enzyme_dup, x, dx, 4, 2.0);
  CHECK("early return d/dx1", dx[1], 3.0, TOL_EXACT);
  CHECK("early return d/dx0", dx[0], 0.0, TOL_EXACT);
  double tx[4] = {0, 1, 0, 0};
  CHECK("early return forward", __enzyme_fwddiff((void *)first_above, enzyme_dup, x, tx, 4, enzyme_const, 2.0), 3.0, TOL_EXACT);
  return CHECK_DONE();
}
