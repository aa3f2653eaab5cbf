/* qsort inside differentiated code: the comparison carries no derivative,
 * the permutation does (wrappers/rules/sort.c). Plain doubles, structs
 * sorted by one field with the other carried along, a sort of part of an
 * array, and a heap array sorted then reduced. Full Jacobians: reverse
 * against finite differences, forward against reverse. The inputs are
 * chosen with distinct keys, so the sort order is locally constant. */
#include <math.h>
#include <stdlib.h>
#include "jacobian.h"

static int by_value(const void *a, const void *b) {
  double p = *(const double *)a, q = *(const double *)b;
  return (p > q) - (p < q);
}

struct item {
  double key;
  double weight;
};
static int by_key_descending(const void *a, const void *b) {
  const struct item *p = a, *q = b;
  return (p->key < q->key) - (p->key > q->key);
}

static void sorted(const double *x, double *y) {
  double a[5];
  for (int i = 0; i < 5; i++) a[i] = x[i] * x[i] - x[i];
  qsort(a, 5, sizeof(double), by_value);
  for (int i = 0; i < 5; i++) y[i] = a[i] * (i + 1);
}

static void structs(const double *x, double *y) {
  struct item it[5];
  for (int i = 0; i < 5; i++) {
    it[i].key = sin(3 * x[i]);
    it[i].weight = x[(i + 1) % 5] * x[i];
  }
  qsort(it, 5, sizeof it[0], by_key_descending);
  y[0] = it[0].weight + 2 * it[1].weight;
  y[1] = it[4].key * it[3].weight;
  y[2] = it[2].key;
}

static void part(const double *x, double *y) {
  double a[6];
  for (int i = 0; i < 6; i++) a[i] = exp(x[i % 5]) - i;
  qsort(a + 1, 4, sizeof(double), by_value);  /* a[0] and a[5] stay */
  for (int i = 0; i < 3; i++) y[i] = a[2 * i] * a[2 * i + 1];
}

static void heap(const double *x, double *y) {
  double *a = malloc(5 * sizeof(double));
  for (int i = 0; i < 5; i++) a[i] = x[i] / (1 + x[(i + 2) % 5] * x[(i + 2) % 5]);
  qsort(a, 5, sizeof(double), by_value);
  y[0] = a[0] - a[4];
  y[1] = a[2] * a[2];
  free(a);
}

int main(void) {
  CHECK_JACOBIAN(sorted, 5, 5, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(structs, 5, 3, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(part, 5, 3, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(heap, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  return CHECK_DONE();
}
