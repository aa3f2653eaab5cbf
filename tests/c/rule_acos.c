/* Rule `acos`: g(x) = acos(x) * x + x, in double and float, both modes, at 2 points. */
#define _GNU_SOURCE
#include "check.h"

static double g(double x) { return acos(x) * x + x; }
static float gf(float x) { return acosf(x) * x + x; }

int main(void) {
  { double x = 0.3; CHECK_UNARY(g, x, (-1.0/sqrt(1.0-x*x)) * x + acos(x) + 1.0); }
  { double x = 0.3; CHECK_UNARY_F(gf, (float)x, (-1.0/sqrt(1.0-x*x)) * x + acos(x) + 1.0); }
  { double x = -0.6; CHECK_UNARY(g, x, (-1.0/sqrt(1.0-x*x)) * x + acos(x) + 1.0); }
  { double x = -0.6; CHECK_UNARY_F(gf, (float)x, (-1.0/sqrt(1.0-x*x)) * x + acos(x) + 1.0); }
  return CHECK_DONE();
}
