/* Rule `fabs`: g(x) = fabs(x) * x + x, in double and float, both modes, at 2 points. */
#define _GNU_SOURCE
#include "check.h"

static double g(double x) { return fabs(x) * x + x; }
static float gf(float x) { return fabsf(x) * x + x; }

int main(void) {
  { double x = 0.3; CHECK_UNARY(g, x, ((x < 0 ? -1.0 : 1.0)) * x + fabs(x) + 1.0); }
  { double x = 0.3; CHECK_UNARY_F(gf, (float)x, ((x < 0 ? -1.0 : 1.0)) * x + fabs(x) + 1.0); }
  { double x = -1.6; CHECK_UNARY(g, x, ((x < 0 ? -1.0 : 1.0)) * x + fabs(x) + 1.0); }
  { double x = -1.6; CHECK_UNARY_F(gf, (float)x, ((x < 0 ? -1.0 : 1.0)) * x + fabs(x) + 1.0); }
  return CHECK_DONE();
}
