/* logsumexp (with the max trick: a data-dependent pick) and softmax. */
#include "jacobian.h"

#define N 6
static void logsumexp(const double *x, double *y) {
  double m = x[0];
  for (int i = 1; i < N; i++)
    if (x[i] > m) m = x[i];
  double s = 0;
  for (int i = 0; i < N; i++) s += exp(x[i] - m);
  y[0] = m + log(s);
}

static void softmax(const double *x, double *y) {
  double m = x[0], s = 0;
  for (int i = 1; i < N; i++) m = fmax(m, x[i]);
  for (int i = 0; i < N; i++) {
    y[i] = exp(x[i] - m);
    s += y[i];
  }
  for (int i = 0; i < N; i++) y[i] /= s;
}

int main(void) {
  CHECK_JACOBIAN(logsumexp, N, 1, 0.5, -1.0, 2.0, 0.25, 1.5, -0.5);
  CHECK_JACOBIAN(softmax, N, N, 0.5, -1.0, 2.0, 0.25, 1.5, -0.5);
  return CHECK_DONE();
}
