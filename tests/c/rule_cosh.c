/* Rule `cosh`: g(x) = cosh(x) * x + x, in double and float, both modes, at 2 points. */
#define _GNU_SOURCE
#include "check.h"

static double g(double x) { return cosh(x) * x + x; }
static float gf(float x) { return coshf(x) * x + x; }

int main(void) {
  { double x = 0.3; CHECK_UNARY(g, x, (sinh(x)) * x + cosh(x) + 1.0); }
  { double x = 0.3; CHECK_UNARY_F(gf, (float)x, (sinh(x)) * x + cosh(x) + 1.0); }
  { double x = -1.6; CHECK_UNARY(g, x, (sinh(x)) * x + cosh(x) + 1.0); }
  { double x = -1.6; CHECK_UNARY_F(gf, (float)x, (sinh(x)) * x + cosh(x) + 1.0); }
  return CHECK_DONE();
}
