/* A copy between untyped buffers made differentiable by a type hint, as
 * the error for such copies suggests (Enzyme's __enzyme_double). */
#include <enzyme/enzyme.h>
#include <string.h>
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static void copy_block(void *dst, const void *src, unsigned long bytes) {
  __enzyme_double(dst);
  memcpy(dst, src, bytes);
}

static double use_copy(const double *x) {
  double tmp[3];
  copy_block(tmp, x, sizeof tmp);
  return tmp[0] * tmp[1] + sin(tmp[2]);
}

int main(void) {
  double x[3] = {1.5, -2.0, 0.5}, dx[3] = {0};
  __enzyme_autodiff_v((void *)use_copy, enzyme_dup, x, dx);
  CHECK("d/dx0", dx[0], -2.0, TOL_EXACT);
  CHECK("d/dx1", dx[1], 1.5, TOL_EXACT);
  CHECK("d/dx2", dx[2], cos(0.5), TOL_EXACT);
  double t[3] = {0, 0, 1};
  CHECK("forward d/dx2", __enzyme_fwddiff((void *)use_copy, enzyme_dup, x, t), cos(0.5), TOL_MODES);
  return CHECK_DONE();
}
