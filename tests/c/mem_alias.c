/* Aliasing: the same array passed as two arguments, with writes through
 * one visible through the other; shadows alias the same way. */
#include "check.h"

void __enzyme_autodiff_v(void *, ...);
void __enzyme_fwddiff_v(void *, ...);

static void axpy_alias(double *a, const double *b) {
  a[0] = a[0] + 2.0 * b[1];
  a[1] = a[1] * b[0]; /* b[0] is a[0], already updated */
}

int main(void) {
  double x[2] = {1.5, -0.5}, dx[2];
  /* a = b = x: a0' = x0 + 2 x1; a1' = x1 * a0' = x1 (x0 + 2 x1) */
  /* seed on a1' : d/dx0 = x1, d/dx1 = x0 + 4 x1 */
  double x0 = x[0], x1 = x[1];
  dx[0] = 0;
  dx[1] = 1;
  __enzyme_autodiff_v((void *)axpy_alias, enzyme_dup, x, dx, enzyme_dup, x, dx);
  CHECK("alias reverse d a1'/d x0", dx[0], x1, TOL_EXACT);
  CHECK("alias reverse d a1'/d x1", dx[1], x0 + 4 * x1, TOL_EXACT);
  x[0] = x0;
  x[1] = x1;
  double tx[2] = {0, 1};
  __enzyme_fwddiff_v((void *)axpy_alias, enzyme_dup, x, tx, enzyme_dup, x, tx);
  /* tangent along x1: a0' -> 2, a1' -> d/dx1 [x1 (x0 + 2 x1)] = x0 + 4 x1 */
  CHECK("alias forward a0'", tx[0], 2.0, TOL_EXACT);
  CHECK("alias forward a1'", tx[1], x0 + 4 * x1, TOL_EXACT);
  return CHECK_DONE();
}
