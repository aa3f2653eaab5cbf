/* Rule `nearbyint`: g(x) = nearbyint(x) * x + x, in double and float, both modes, at 2 points. */
#define _GNU_SOURCE
#include "check.h"

static double g(double x) { return nearbyint(x) * x + x; }
static float gf(float x) { return nearbyintf(x) * x + x; }

int main(void) {
  { double x = 1.3; CHECK_UNARY(g, x, (0.0) * x + nearbyint(x) + 1.0); }
  { double x = 1.3; CHECK_UNARY_F(gf, (float)x, (0.0) * x + nearbyint(x) + 1.0); }
  { double x = -1.6; CHECK_UNARY(g, x, (0.0) * x + nearbyint(x) + 1.0); }
  { double x = -1.6; CHECK_UNARY_F(gf, (float)x, (0.0) * x + nearbyint(x) + 1.0); }
  return CHECK_DONE();
}
