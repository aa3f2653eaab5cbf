/* Rule `exp10`: g(x) = exp10(x) * x + x, in double and float, both modes, at 2 points. */
#define _GNU_SOURCE
#include "check.h"

static double g(double x) { return exp10(x) * x + x; }
static float gf(float x) { return exp10f(x) * x + x; }

int main(void) {
  { double x = 0.3; CHECK_UNARY(g, x, (log(10.0)*exp10(x)) * x + exp10(x) + 1.0); }
  { double x = 0.3; CHECK_UNARY_F(gf, (float)x, (log(10.0)*exp10(x)) * x + exp10(x) + 1.0); }
  { double x = -1.6; CHECK_UNARY(g, x, (log(10.0)*exp10(x)) * x + exp10(x) + 1.0); }
  { double x = -1.6; CHECK_UNARY_F(gf, (float)x, (log(10.0)*exp10(x)) * x + exp10(x) + 1.0); }
  return CHECK_DONE();
}
