/* Second derivatives of ten functions (loops, local and heap memory, calls,
 * branches, libm) by nested entry points, four ways each (see hessian.h),
 * against differences of the gradient; closed forms for two of them. */
#include <stdlib.h>
#include "hessian.h"

static int n3 = 3, n4 = 4; /* trip counts the optimiser cannot see through at -O0 */

static double quad(const double *x) { return x[0] * x[0] * x[1] + 3 * x[1] * x[1] * x[2] - x[0] * x[2]; }
static double rosen(const double *x) { /* loop */
  double s = 0;
  for (int i = 0; i + 1 < n4; i++) {
    double a = 1 - x[i], b = x[i + 1] - x[i] * x[i];
    s += a * a + 100 * b * b;
  }
  return s;
}
static double trig_sum(const double *x) {
  double s = 0;
  for (int i = 0; i < n3; i++) s += sin(x[i]) * cos(x[(i + 1) % n3]) + exp(0.3 * x[i] * x[(i + 2) % n3]);
  return s;
}
static double helper(double a, double b) { return a * log(1.5 + b * b) + sqrt(1 + a * a * b * b); }
static double with_calls(const double *x) { return helper(x[0], x[1]) * helper(x[1], x[2]) + helper(x[2], x[0]); }
static double local_array(const double *x) { /* memory: a local array updated in place */
  double t[4];
  for (int i = 0; i < n4; i++) t[i] = x[i] * (i + 1);
  for (int i = 1; i < n4; i++) t[i] += t[i - 1] * t[i];
  return t[3] + t[2] * t[1];
}
static double heap_block(const double *x) { /* memory: a heap block of its own */
  double *w = malloc(3 * sizeof(double));
  for (int i = 0; i < n3; i++) w[i] = tanh(x[i] + 0.5 * x[(i + 1) % n3]);
  double r = w[0] * w[1] + w[1] * w[2] * w[0] + w[2];
  free(w);
  return r;
}
static double branchy(const double *x) {
  double s = 0;
  for (int i = 0; i < n3; i++) s += x[i] > 0.2 ? x[i] * x[i] * x[i] : sin(x[i]) * x[(i + 1) % n3];
  return s;
}
static double softplus_norm(const double *x) {
  double s = 0;
  for (int i = 0; i < n4; i++) s += log1p(exp(x[i])) * x[(i + 1) % n4];
  return sqrt(s * s + 1);
}
static double logsumexp(const double *x) {
  double m = x[0];
  for (int i = 1; i < n4; i++) m = x[i] > m ? x[i] : m;
  double s = 0;
  for (int i = 0; i < n4; i++) s += exp(x[i] - m);
  return m + log(s);
}
static double rational(const double *x) {
  return (x[0] * x[1] + pow(x[2], 3)) / (1 + x[0] * x[0] + x[1] * x[1] * x[2] * x[2]);
}

DEFINE_HESSIAN_HELPERS(quad, 3)
DEFINE_HESSIAN_HELPERS(rosen, 4)
DEFINE_HESSIAN_HELPERS(trig_sum, 3)
DEFINE_HESSIAN_HELPERS(with_calls, 3)
DEFINE_HESSIAN_HELPERS(local_array, 4)
DEFINE_HESSIAN_HELPERS(heap_block, 3)
DEFINE_HESSIAN_HELPERS(branchy, 3)
DEFINE_HESSIAN_HELPERS(softplus_norm, 4)
DEFINE_HESSIAN_HELPERS(logsumexp, 4)
DEFINE_HESSIAN_HELPERS(rational, 3)

int main(void) {
  CHECK_HESSIAN(quad, 3, 0.7, -1.2, 0.4);
  CHECK_HESSIAN(rosen, 4, 0.5, 1.3, -0.2, 0.9);
  CHECK_HESSIAN(trig_sum, 3, 0.3, -0.8, 1.1);
  CHECK_HESSIAN(with_calls, 3, 0.6, 0.2, -0.9);
  CHECK_HESSIAN(local_array, 4, 0.5, -0.4, 0.8, 1.2);
  CHECK_HESSIAN(heap_block, 3, 0.1, 0.7, -0.5);
  CHECK_HESSIAN(branchy, 3, 0.6, -0.3, 0.9);
  CHECK_HESSIAN(softplus_norm, 4, 0.2, -0.7, 1.0, 0.4);
  CHECK_HESSIAN(logsumexp, 4, 0.3, 1.2, -0.5, 0.8);
  CHECK_HESSIAN(rational, 3, 0.9, -0.6, 1.3);

  /* Closed forms. quad: H = [[2b, 2a, -1], [2a, 6c, 6b], [-1, 6b, 0]]. */
  double x[3] = {0.7, -1.2, 0.4}, v[3] = {0, 0, 0}, g[3], hv[3] = {0};
  double H[3][3] = {{2 * x[1], 2 * x[0], -1}, {2 * x[0], 6 * x[2], 6 * x[1]}, {-1, 6 * x[1], 0}};
  for (int j = 0; j < 3; j++) {
    for (int k = 0; k < 3; k++) v[k] = k == j, hv[k] = 0;
    __enzyme_fwddiff_v((void *)quad_grad, enzyme_dup, x, v, enzyme_dup, g, hv);
    for (int i = 0; i < 3; i++) CHECK("quad Hessian vs closed form", hv[i], H[i][j], TOL_EXACT);
  }
  /* rosen at its minimum (1, 1, 1, 1): H = tridiag(-400, [802, 1002, 1002, 200], -400). */
  double r[4] = {1, 1, 1, 1}, rv[4], rg[4], rh[4];
  double diag[4] = {802, 1002, 1002, 200};
  for (int j = 0; j < 4; j++) {
    for (int k = 0; k < 4; k++) rv[k] = k == j, rh[k] = 0;
    __enzyme_fwddiff_v((void *)rosen_grad, enzyme_dup, r, rv, enzyme_dup, rg, rh);
    for (int i = 0; i < 4; i++) {
      double want = i == j ? diag[i] : (abs(i - j) == 1 ? -400 : 0);
      CHECK("Rosenbrock Hessian at the minimum vs closed form", rh[i], want, TOL_EXACT);
    }
  }
  return CHECK_DONE();
}
