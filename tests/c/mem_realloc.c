/* realloc inside the differentiated code: a buffer grown by doubling while
 * it is filled (the shadow is reallocated alongside; in reverse mode the
 * adjoints go back to the old block's shadow), and realloc(NULL, n). */
#include <stdlib.h>
#include "jacobian.h"

static void grow_and_fill(const double *x, double *y) {
  int cap = 1, n = 0;
  double *buf = NULL;
  buf = realloc(buf, cap * sizeof(double));
  for (int i = 0; i < 7; i++) {
    if (n == cap) {
      cap *= 2;
      buf = realloc(buf, cap * sizeof(double));
    }
    buf[n++] = x[i % 4] * (i + 1);
  }
  double s = 0;
  for (int i = 0; i < n; i++) s += buf[i] * buf[(i + 3) % n];
  free(buf);
  y[0] = s;
}

int main(void) {
  CHECK_JACOBIAN(grow_and_fill, 4, 1, 0.5, -1.0, 1.5, 2.0);
  return CHECK_DONE();
}
