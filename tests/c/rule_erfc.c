/* Rule `erfc`: g(x) = erfc(x) * x + x, in double and float, both modes, at 2 points. */
#define _GNU_SOURCE
#include "check.h"

static double g(double x) { return erfc(x) * x + x; }
static float gf(float x) { return erfcf(x) * x + x; }

int main(void) {
  { double x = 0.3; CHECK_UNARY(g, x, (-2.0/sqrt(M_PI)*exp(-x*x)) * x + erfc(x) + 1.0); }
  { double x = 0.3; CHECK_UNARY_F(gf, (float)x, (-2.0/sqrt(M_PI)*exp(-x*x)) * x + erfc(x) + 1.0); }
  { double x = -1.1; CHECK_UNARY(g, x, (-2.0/sqrt(M_PI)*exp(-x*x)) * x + erfc(x) + 1.0); }
  { double x = -1.1; CHECK_UNARY_F(gf, (float)x, (-2.0/sqrt(M_PI)*exp(-x*x)) * x + erfc(x) + 1.0); }
  return CHECK_DONE();
}
