/* A small Gaussian-mixture negative log-likelihood (1-D, K components):
 * log-sum-exp over components for every data point. */
#include "jacobian.h"

#define K 3
#define M 8
static const double data[M] = {-1.2, 0.3, 0.8, 2.5, -0.4, 1.1, 3.0, -2.0};

/* in: K means, K log-sigmas, K logits */
static void nll(const double *in, double *out) {
  const double *mu = in, *ls = in + K, *al = in + 2 * K;
  double amax = al[0], asum = 0;
  for (int k = 1; k < K; k++) amax = fmax(amax, al[k]);
  for (int k = 0; k < K; k++) asum += exp(al[k] - amax);
  double lognorm = amax + log(asum);
  double total = 0;
  for (int i = 0; i < M; i++) {
    double t[K], m = -INFINITY, s = 0;
    for (int k = 0; k < K; k++) {
      double z = (data[i] - mu[k]) * exp(-ls[k]);
      t[k] = al[k] - ls[k] - 0.5 * z * z;
      if (t[k] > m) m = t[k];
    }
    for (int k = 0; k < K; k++) s += exp(t[k] - m);
    total += m + log(s) - lognorm;
  }
  out[0] = -total;
}

int main(void) {
  CHECK_JACOBIAN(nll, 9, 1, -1.0, 0.5, 2.0, 0.1, -0.2, 0.3, 0.5, 0.0, -0.5);
  return CHECK_DONE();
}
