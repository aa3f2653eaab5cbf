/* Rule `log2`: g(x) = log2(x) * x + x, in double and float, both modes, at 2 points. */
#define _GNU_SOURCE
#include "check.h"

static double g(double x) { return log2(x) * x + x; }
static float gf(float x) { return log2f(x) * x + x; }

int main(void) {
  { double x = 0.3; CHECK_UNARY(g, x, (1.0/(x*log(2.0))) * x + log2(x) + 1.0); }
  { double x = 0.3; CHECK_UNARY_F(gf, (float)x, (1.0/(x*log(2.0))) * x + log2(x) + 1.0); }
  { double x = 4.6; CHECK_UNARY(g, x, (1.0/(x*log(2.0))) * x + log2(x) + 1.0); }
  { double x = 4.6; CHECK_UNARY_F(gf, (float)x, (1.0/(x*log(2.0))) * x + log2(x) + 1.0); }
  return CHECK_DONE();
}
