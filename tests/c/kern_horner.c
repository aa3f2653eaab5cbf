/* Horner's rule: derivatives with respect to the point and to the
 * coefficients (an array argument of its own). */
#include "jacobian.h"

#define DEG 6
static double horner(const double *c, double x) {
  double r = c[DEG];
  for (int k = DEG - 1; k >= 0; k--) r = r * x + c[k];
  return r;
}

static void poly(const double *in, double *out) { out[0] = horner(in, in[DEG + 1]); }

int main(void) {
  CHECK_JACOBIAN(poly, DEG + 2, 1, 1, -2, 0.5, 3, -1, 0.25, 0.125, 0.7);
  double c[DEG + 1] = {1, -2, 0.5, 3, -1, 0.25, 0.125}, x = 0.7;
  double dx = __enzyme_autodiff((void *)horner, enzyme_const, c, x);
  double want = 0;
  for (int k = 1; k <= DEG; k++) want += k * c[k] * pow(x, k - 1);
  CHECK("horner d/dx with constant coefficients", dx, want, TOL_EXACT);
  return CHECK_DONE();
}
