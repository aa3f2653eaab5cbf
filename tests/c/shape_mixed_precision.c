/* Mixed precision in loops: float data accumulated in double, double
 * results stored as float, and long double accumulators. */
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double dot_f_d(const float *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += (double)a[i] * b[i];
  return s;
}

static void scale_to_float(const double *x, float *y, int n) {
  for (int i = 0; i < n; i++) y[i] = (float)(x[i] * x[i]);
}

static double long_sum(const double *x, int n) {
  long double s = 0;
  for (int i = 0; i < n; i++) s += (long double)x[i] * x[i];
  return (double)s;
}

int main(void) {
  float a[4] = {1, 2, 3, 4}, da[4] = {0};
  double b[4] = {0.5, -1, 0.25, 2}, db[4] = {0};
  __enzyme_autodiff_v((void *)dot_f_d, enzyme_dup, a, da, enzyme_dup, b, db, 4);
  for (int i = 0; i < 4; i++) {
    CHECK("float input adjoint", da[i], b[i], TOL_FLOAT);
    CHECK("double input adjoint", db[i], a[i], TOL_EXACT);
  }
  double x[3] = {0.5, 1.5, -2.0}, dx[3] = {0};
  float y[3], dy[3] = {1, 1, 1};
  __enzyme_autodiff_v((void *)scale_to_float, enzyme_dup, x, dx, enzyme_dup, y, dy, 3);
  for (int i = 0; i < 3; i++) CHECK("adjoint through a float store", dx[i], 2 * x[i], TOL_FLOAT);
  double dl[3] = {0};
  __enzyme_autodiff_v((void *)long_sum, enzyme_dup, x, dl, 3);
  for (int i = 0; i < 3; i++) CHECK("long double accumulator", dl[i], 2 * x[i], TOL_EXACT);
  return CHECK_DONE();
}
