/* Soft k-means: 20 iterations of responsibilities (a softmax over negative
 * squared distances) and centroid updates, 10 points in 2-D, 3 clusters.
 * The loss differentiated is the final soft assignment energy, with
 * respect to the initial centroids and a temperature. */
#include "jacobian.h"

enum { P = 10, K = 3, ITERS = 20 };
static const double PTS[P][2] = {{0.1, 0.2}, {0.3, -0.1}, {0.0, 0.4}, {2.1, 1.9}, {1.8, 2.2},
                                 {2.3, 2.0}, {-1.9, 1.1}, {-2.2, 0.8}, {-1.7, 1.3}, {0.9, 1.0}};

/* x[0..5]: centroids, x[6]: inverse temperature. */
static void kmeans(const double *x, double *y) {
  double c[K][2], r[P][K];
  for (int k = 0; k < K; k++) {
    c[k][0] = x[2 * k];
    c[k][1] = x[2 * k + 1];
  }
  double beta = x[6];
  for (int it = 0; it < ITERS; it++) {
    for (int p = 0; p < P; p++) {
      double m = -1e300, s = 0;
      for (int k = 0; k < K; k++) {
        double dx = PTS[p][0] - c[k][0], dy = PTS[p][1] - c[k][1];
        r[p][k] = -beta * (dx * dx + dy * dy);
        if (r[p][k] > m) m = r[p][k];
      }
      for (int k = 0; k < K; k++) {
        r[p][k] = exp(r[p][k] - m);
        s += r[p][k];
      }
      for (int k = 0; k < K; k++) r[p][k] /= s;
    }
    for (int k = 0; k < K; k++) {
      double w = 1e-3, sx = 1e-3 * c[k][0], sy = 1e-3 * c[k][1];
      for (int p = 0; p < P; p++) {
        w += r[p][k];
        sx += r[p][k] * PTS[p][0];
        sy += r[p][k] * PTS[p][1];
      }
      c[k][0] = sx / w;
      c[k][1] = sy / w;
    }
  }
  double e = 0;
  for (int p = 0; p < P; p++)
    for (int k = 0; k < K; k++) {
      double dx = PTS[p][0] - c[k][0], dy = PTS[p][1] - c[k][1];
      e += r[p][k] * (dx * dx + dy * dy);
    }
  y[0] = e;
  y[1] = c[0][0] + c[1][1] - c[2][0];
}

int main(void) {
  CHECK_JACOBIAN(kmeans, 7, 2, 0.5, 0.5, 1.5, 1.5, -1.0, 1.0, 1.2);
  return CHECK_DONE();
}
