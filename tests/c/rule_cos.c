/* Rule `cos`: g(x) = cos(x) * x + x, in double and float, both modes, at 2 points. */
#define _GNU_SOURCE
#include "check.h"

static double g(double x) { return cos(x) * x + x; }
static float gf(float x) { return cosf(x) * x + x; }

int main(void) {
  { double x = 0.4; CHECK_UNARY(g, x, (-sin(x)) * x + cos(x) + 1.0); }
  { double x = 0.4; CHECK_UNARY_F(gf, (float)x, (-sin(x)) * x + cos(x) + 1.0); }
  { double x = -2.1; CHECK_UNARY(g, x, (-sin(x)) * x + cos(x) + 1.0); }
  { double x = -2.1; CHECK_UNARY_F(gf, (float)x, (-sin(x)) * x + cos(x) + 1.0); }
  return CHECK_DONE();
}
