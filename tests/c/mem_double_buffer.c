/* Double buffering: two work arrays whose pointers are swapped every step
 * (pointer phis of shadowed memory in a loop). */
#include "jacobian.h"

#define N 6
static void relax(const double *x, double *y) {
  double a[N], b[N];
  double *cur = a, *next = b;
  for (int i = 0; i < N; i++) cur[i] = x[i];
  for (int step = 0; step < 8; step++) {
    next[0] = cur[0];
    next[N - 1] = cur[N - 1];
    for (int i = 1; i < N - 1; i++) next[i] = 0.5 * cur[i] + 0.25 * (cur[i - 1] + cur[i + 1]) * cur[i];
    double *t = cur;
    cur = next;
    next = t;
  }
  for (int i = 0; i < N; i++) y[i] = cur[i];
}

int main(void) {
  CHECK_JACOBIAN(relax, N, N, 0.5, 0.8, 1.1, 0.9, 0.7, 0.4);
  return CHECK_DONE();
}
