/* One LSTM cell step over a short sequence: sigmoid, tanh, elementwise
 * products, the state carried across steps. */
#include "jacobian.h"

#define H 2
#define T 4
static double sigmoid(double z) { return 1.0 / (1.0 + exp(-z)); }

/* in: 4*H*H weights (row-major per gate), then T inputs; out: final h */
static void lstm(const double *in, double *out) {
  const double *w = in, *xs = in + 4 * H * H;
  double h[H] = {0, 0}, c[H] = {0.1, -0.1};
  for (int t = 0; t < T; t++) {
    double nh[H];
    for (int j = 0; j < H; j++) {
      double g[4];
      for (int q = 0; q < 4; q++) {
        double s = xs[t] * 0.5;
        for (int k = 0; k < H; k++) s += w[(q * H + j) * H + k] * h[k];
        g[q] = s;
      }
      c[j] = sigmoid(g[1]) * c[j] + sigmoid(g[0]) * tanh(g[2]);
      nh[j] = sigmoid(g[3]) * tanh(c[j]);
    }
    for (int j = 0; j < H; j++) h[j] = nh[j];
  }
  for (int j = 0; j < H; j++) out[j] = h[j];
}

int main(void) {
  CHECK_JACOBIAN(lstm, 20, 2, 0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, -0.8, 0.9, 0.1, -0.1, 0.2, 0.3, -0.3, 0.4, 0.5,
                 1.0, -0.5, 0.25, 2.0);
  return CHECK_DONE();
}
