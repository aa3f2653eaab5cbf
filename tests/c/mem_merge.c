/* Merging two sorted arrays with two pointers (data-dependent branches on
 * active values, pointer increments), then a weighted sum of the result. */
#include "jacobian.h"

static void merge_weighted(const double *x, double *y) {
  const double *a = x, *ae = x + 3, *b = x + 3, *be = x + 6;
  double out[6];
  double *o = out;
  while (a < ae && b < be) *o++ = (*a <= *b) ? *a++ : *b++;
  while (a < ae) *o++ = *a++;
  while (b < be) *o++ = *b++;
  double s = 0;
  for (int i = 0; i < 6; i++) s += (i + 1) * out[i] * out[i];
  y[0] = s;
}

int main(void) {
  CHECK_JACOBIAN(merge_weighted, 6, 1, 0.5, 1.5, 3.0, 0.25, 2.0, 2.5);
  return CHECK_DONE();
}
