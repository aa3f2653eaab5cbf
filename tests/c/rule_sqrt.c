/* Rule `sqrt`: g(x) = sqrt(x) * x + x, in double and float, both modes, at 2 points. */
#define _GNU_SOURCE
#include "check.h"

static double g(double x) { return sqrt(x) * x + x; }
static float gf(float x) { return sqrtf(x) * x + x; }

int main(void) {
  { double x = 0.7; CHECK_UNARY(g, x, (0.5/sqrt(x)) * x + sqrt(x) + 1.0); }
  { double x = 0.7; CHECK_UNARY_F(gf, (float)x, (0.5/sqrt(x)) * x + sqrt(x) + 1.0); }
  { double x = 2.5; CHECK_UNARY(g, x, (0.5/sqrt(x)) * x + sqrt(x) + 1.0); }
  { double x = 2.5; CHECK_UNARY_F(gf, (float)x, (0.5/sqrt(x)) * x + sqrt(x) + 1.0); }
  return CHECK_DONE();
}
