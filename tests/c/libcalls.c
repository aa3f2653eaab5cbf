/* Library calls with no effect on derivatives inside differentiated code:
 * printing (which must happen once per primal execution), string functions. */
#include <string.h>
#include "check.h"

static int printed;
static double traced(double x, const char *label) {
  double y = x * x * (double)strlen(label);
  if (y > 1000.0) fprintf(stderr, "large value %f for %s\n", y, label);
  printed += printf("%s", "") >= 0; /* counts executions of the printing path */
  return y + sin(x);
}

int main(void) {
  double x = 1.3;
  const char *label = "abc";
  double d = __enzyme_autodiff((void *)traced, x, enzyme_const, label);
  CHECK("derivative through code that prints", d, 2 * x * 3 + cos(x), TOL_EXACT);
  CHECK("printing ran once for one reverse call", printed, 1, 0);
  double t = __enzyme_fwddiff((void *)traced, x, 1.0, enzyme_const, label);
  CHECK("forward vs reverse", t, d, TOL_MODES);
  CHECK("printing ran once more for one forward call", printed, 2, 0);
  return CHECK_DONE();
}
