/* Exits: an early return from inside a loop nest, a break out of the inner
 * loop only, continue in an inner loop, and a goto-based state machine. */
#include "jacobian.h"

static double threshold = 4.0;

static void first_big_product(const double *x, double *y) {
  for (int i = 0; i < 4; i++)
    for (int j = i + 1; j < 4; j++)
      if (x[i] * x[j] > threshold) {
        y[0] = x[i] * x[j] + x[0];
        return;
      }
  y[0] = -x[3];
}

static void inner_break(const double *x, double *y) {
  double s = 0;
  for (int i = 0; i < 4; i++) {
    for (int j = 0; j < 4; j++) {
      if (x[j] > x[i] + 1.0) break;
      if (j == i) continue;
      s += x[i] * sin(x[j]);
    }
  }
  y[0] = s;
}

static void state_machine(const double *x, double *y) {
  double acc = 0;
  int i = 0;
start:
  if (i >= 5) goto done;
  if (x[i] < 0) goto negative;
  acc += x[i] * x[i];
  i++;
  goto start;
negative:
  acc -= x[i];
  i++;
  goto start;
done:
  y[0] = acc;
}

int main(void) {
  for (threshold = 1.0; threshold < 20.0; threshold *= 3)
    CHECK_JACOBIAN(first_big_product, 4, 1, 1.5, 0.5, 2.5, 3.0);
  CHECK_JACOBIAN(inner_break, 4, 1, 0.5, 2.1, 1.0, 1.3);
  CHECK_JACOBIAN(state_machine, 5, 1, 1.0, -2.0, 0.5, -0.25, 3.0);
  return CHECK_DONE();
}
