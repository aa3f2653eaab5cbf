/* Rule `log`: g(x) = log(x) * x + x, in double and float, both modes, at 2 points. */
#define _GNU_SOURCE
#include "check.h"

static double g(double x) { return log(x) * x + x; }
static float gf(float x) { return logf(x) * x + x; }

int main(void) {
  { double x = 0.3; CHECK_UNARY(g, x, (1.0/x) * x + log(x) + 1.0); }
  { double x = 0.3; CHECK_UNARY_F(gf, (float)x, (1.0/x) * x + log(x) + 1.0); }
  { double x = 4.6; CHECK_UNARY(g, x, (1.0/x) * x + log(x) + 1.0); }
  { double x = 4.6; CHECK_UNARY_F(gf, (float)x, (1.0/x) * x + log(x) + 1.0); }
  return CHECK_DONE();
}
