/* A two-layer perceptron with tanh, softmax and cross-entropy over a small
 * batch: the gradient of the loss with respect to every weight, checked
 * entry by entry against central differences and forward mode. */
#include "jacobian.h"

#define IN 3
#define HID 4
#define OUT 3
#define BATCH 4
#define NW (HID * IN + HID + OUT * HID + OUT)

static const double xs[BATCH][IN] = {{0.5, -1.0, 0.25}, {1.5, 0.5, -0.5}, {-0.75, 0.25, 1.0}, {0.1, 0.2, 0.3}};
static const int labels[BATCH] = {0, 2, 1, 2};

static void loss(const double *w, double *out) {
  const double *w1 = w, *b1 = w + HID * IN, *w2 = b1 + HID, *b2 = w2 + OUT * HID;
  double total = 0;
  for (int n = 0; n < BATCH; n++) {
    double h[HID], z[OUT];
    for (int j = 0; j < HID; j++) {
      double s = b1[j];
      for (int k = 0; k < IN; k++) s += w1[j * IN + k] * xs[n][k];
      h[j] = tanh(s);
    }
    double m = -1e300;
    for (int o = 0; o < OUT; o++) {
      double s = b2[o];
      for (int j = 0; j < HID; j++) s += w2[o * HID + j] * h[j];
      z[o] = s;
      if (s > m) m = s;
    }
    double se = 0;
    for (int o = 0; o < OUT; o++) se += exp(z[o] - m);
    total += -(z[labels[n]] - m - log(se));
  }
  out[0] = total / BATCH;
}

int main(void) {
  CHECK_JACOBIAN(loss, NW, 1, 0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, -0.8, 0.9, 0.1, -0.1, 0.2, /* w1 */
                 0.05, -0.05, 0.1, 0.0,                                                      /* b1 */
                 0.3, -0.3, 0.2, 0.1, -0.2, 0.4, 0.5, -0.1, 0.2, 0.2, -0.4, 0.3,             /* w2 */
                 0.01, -0.02, 0.03);                                                         /* b2 */
  return CHECK_DONE();
}
