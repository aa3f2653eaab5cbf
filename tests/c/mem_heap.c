/* Heap temporaries: malloc'd and calloc'd buffers inside the differentiated
 * code (their shadows are allocated, zeroed and freed alongside), one of
 * them allocated and freed on every iteration of a loop. */
#include <stdlib.h>
#include "jacobian.h"

static int n = 5;

static void reversed_products(const double *x, double *y) {
  double *tmp = malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) tmp[i] = x[i] * 2.0;
  for (int i = 0; i < n; i++) y[i] = tmp[n - 1 - i] * x[i];
  free(tmp);
}

static void prefix_sums(const double *x, double *y) {
  double *acc = calloc(n + 1, sizeof(double));
  for (int i = 0; i < n; i++) acc[i + 1] = acc[i] + sin(x[i]);
  for (int i = 0; i < n; i++) y[i] = acc[i + 1] * acc[n];
  free(acc);
}

static void per_iteration_buffer(const double *x, double *y) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double *w = malloc(2 * sizeof(double));
    w[0] = x[i] * x[i];
    w[1] = w[0] * x[(i + 1) % n];
    s += w[1];
    free(w);
  }
  y[0] = s;
}

int main(void) {
  CHECK_JACOBIAN(reversed_products, 5, 5, 1, 2, 3, 0.5, -1);
  CHECK_JACOBIAN(prefix_sums, 5, 5, 0.1, 0.7, -0.3, 1.2, 2.0);
  CHECK_JACOBIAN(per_iteration_buffer, 5, 1, 1, 2, 3, 0.5, -1);
  return CHECK_DONE();
}
