/* Float arithmetic, including float remainder (frem) and mixed widths. */
#include "check.h"

static float f(float x) { return x * x * 0.5f - x / 3.0f + fmodf(x, 0.75f); }
static float g(float x, float y) { return (x - y) * (x + 2.0f * y) / y; }

int main(void) {
  float x = 1.9f;
  CHECK_UNARY_F(f, x, (double)x - 1.0 / 3.0 + 1.0);
  double a = 1.25, b = 0.5;
  CHECK_BINARY_F(g, (float)a, (float)b, ((a + 2 * b) + (a - b)) / b,
                 ((-(a + 2 * b) + 2 * (a - b)) * b - (a - b) * (a + 2 * b)) / (b * b));
  return CHECK_DONE();
}
