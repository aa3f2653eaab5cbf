/* Rule `tan`: g(x) = tan(x) * x + x, in double and float, both modes, at 2 points. */
#define _GNU_SOURCE
#include "check.h"

static double g(double x) { return tan(x) * x + x; }
static float gf(float x) { return tanf(x) * x + x; }

int main(void) {
  { double x = 0.4; CHECK_UNARY(g, x, (1.0/(cos(x)*cos(x))) * x + tan(x) + 1.0); }
  { double x = 0.4; CHECK_UNARY_F(gf, (float)x, (1.0/(cos(x)*cos(x))) * x + tan(x) + 1.0); }
  { double x = -1.1; CHECK_UNARY(g, x, (1.0/(cos(x)*cos(x))) * x + tan(x) + 1.0); }
  { double x = -1.1; CHECK_UNARY_F(gf, (float)x, (1.0/(cos(x)*cos(x))) * x + tan(x) + 1.0); }
  return CHECK_DONE();
}
