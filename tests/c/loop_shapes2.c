/* Loop shapes not covered elsewhere: do-while, counting down, strided
 * steps, `continue`, a trip count read from a global at run time, and a
 * loop whose exit test is in the middle of the body. */
#include "jacobian.h"

int run_len = 7; /* read at run time: the optimiser cannot fold the trip count */

static void do_while(const double *x, double *y) {
  double s = 0, p = x[0];
  int i = 0;
  do {
    s += p * x[1];
    p *= 0.9 * x[0];
    i++;
  } while (i < run_len);
  y[0] = s;
}

static void count_down(const double *x, double *y) {
  double acc = 1;
  for (int i = 5; i >= 0; i--) acc = acc * x[i % 3] + sin(x[(i + 1) % 3]);
  y[0] = acc;
}

static void strided(const double *x, double *y) {
  double a = 0, b = 0;
  for (int i = 0; i < 12; i += 3) a += x[i / 3] * x[i / 3] * (i + 1);
  for (int i = 11; i > 0; i -= 4) b += cos(x[i % 4] * a);
  y[0] = a;
  y[1] = b;
}

static void with_continue(const double *x, double *y) {
  double s = 0;
  for (int i = 0; i < 4 * run_len; i++) {
    double v = x[i % 4];
    if (i % 3 == 0) continue;
    if (v * i > 6) continue;
    s += v * v * exp(-0.1 * i);
  }
  y[0] = s;
}

static void mid_exit(const double *x, double *y) {
  double u = x[0];
  int k = 0;
  for (;;) {
    u = u * x[1] + 0.1;
    if (u > 5 || ++k >= 50) break;
    u += 0.01 * x[2];
  }
  y[0] = u;
}

int main(void) {
  CHECK_JACOBIAN(do_while, 2, 1, 0.7, 1.3);
  CHECK_JACOBIAN(count_down, 3, 1, 0.5, 0.8, 1.1);
  CHECK_JACOBIAN(strided, 4, 2, 0.3, 0.6, 0.9, 1.2);
  CHECK_JACOBIAN(with_continue, 4, 1, 0.4, 1.1, 2.3, 0.7);
  CHECK_JACOBIAN(mid_exit, 3, 1, 0.5, 1.2, 0.3);
  return CHECK_DONE();
}
