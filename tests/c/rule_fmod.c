/* Rule `fmod`: g(x, y) = fmod(x, y) + x * y, in double and float, both modes. */
#include "check.h"

static double g(double x, double y) { return fmod(x, y) + x * y; }
static float gf(float x, float y) { return fmodf(x, y) + x * y; }

int main(void) {
  { double x = 5.3, y = 1.7; CHECK_BINARY(g, x, y, (1.0) + y, (-trunc(x / y)) + x); }
  { double x = 5.3, y = 1.7; CHECK_BINARY_F(gf, (float)x, (float)y, (1.0) + y, (-trunc(x / y)) + x); }
  { double x = -7.1, y = 2.3; CHECK_BINARY(g, x, y, (1.0) + y, (-trunc(x / y)) + x); }
  { double x = -7.1, y = 2.3; CHECK_BINARY_F(gf, (float)x, (float)y, (1.0) + y, (-trunc(x / y)) + x); }
  return CHECK_DONE();
}
