/* Rule `cbrt`: g(x) = cbrt(x) * x + x, in double and float, both modes, at 2 points. */
#define _GNU_SOURCE
#include "check.h"

static double g(double x) { return cbrt(x) * x + x; }
static float gf(float x) { return cbrtf(x) * x + x; }

int main(void) {
  { double x = 0.7; CHECK_UNARY(g, x, (1.0/(3.0*cbrt(x)*cbrt(x))) * x + cbrt(x) + 1.0); }
  { double x = 0.7; CHECK_UNARY_F(gf, (float)x, (1.0/(3.0*cbrt(x)*cbrt(x))) * x + cbrt(x) + 1.0); }
  { double x = -2.5; CHECK_UNARY(g, x, (1.0/(3.0*cbrt(x)*cbrt(x))) * x + cbrt(x) + 1.0); }
  { double x = -2.5; CHECK_UNARY_F(gf, (float)x, (1.0/(3.0*cbrt(x)*cbrt(x))) * x + cbrt(x) + 1.0); }
  return CHECK_DONE();
}
