/* Buffers reused inside loops: memset at each iteration, a heap block per
 * outer iteration of a nest, and a helper with its own loop taking pointers. */
#include <stdlib.h>
#include <string.h>
#include "jacobian.h"

static void accumulate_rows(const double *row, double *acc, int n) {
  for (int j = 0; j < n; j++) acc[j] += row[j] * row[j];
}

static void with_memset(const double *x, double *y) {
  double acc[3];
  y[0] = 0;
  for (int it = 0; it < 3; it++) {
    memset(acc, 0, sizeof acc);
    accumulate_rows(x + it, acc, 3);
    y[0] += acc[0] * acc[2] + acc[1];
  }
}

static void heap_per_row(const double *x, double *y) {
  double total = 0;
  for (int i = 0; i < 3; i++) {
    double *tmp = malloc(3 * sizeof(double));
    for (int j = 0; j < 3; j++) tmp[j] = x[i * 3 + j] * (j + 1);
    for (int j = 0; j < 3; j++) total += tmp[j] * tmp[(j + 1) % 3];
    free(tmp);
  }
  y[0] = total;
}

int main(void) {
  CHECK_JACOBIAN(with_memset, 5, 1, 0.5, -1.0, 2.0, 0.25, 1.5);
  CHECK_JACOBIAN(heap_per_row, 9, 1, 1, 2, 3, 0.5, -1, 0.25, 2, 0.75, -0.5);
  return CHECK_DONE();
}
