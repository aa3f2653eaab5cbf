/* Dynamic programming over 2-D tables: soft dynamic time warping (a smooth
 * minimum over three predecessors), an edit-distance-style hard minimum
 * whose choices are branches, and a Viterbi-like max-product recursion. */
#include "jacobian.h"

#define LA 5
#define LB 4

static double softmin3(double a, double b, double c, double g) {
  double m = fmin(a, fmin(b, c));
  return m - g * log(exp(-(a - m) / g) + exp(-(b - m) / g) + exp(-(c - m) / g));
}

/* cost table: unreachable everywhere except the corner */
static void init_table(double r[LA + 1][LB + 1]) {
  for (int i = 0; i <= LA; i++)
    for (int j = 0; j <= LB; j++) r[i][j] = 1e10;
  r[0][0] = 0;
}

/* x[0..4] is one series, x[5..8] the other */
static void soft_dtw(const double *x, double *y) {
  double r[LA + 1][LB + 1];
  init_table(r);
  for (int i = 1; i <= LA; i++)
    for (int j = 1; j <= LB; j++) {
      double d = x[i - 1] - x[LA + j - 1];
      r[i][j] = d * d + softmin3(r[i - 1][j], r[i][j - 1], r[i - 1][j - 1], 0.5);
    }
  y[0] = r[LA][LB];
}

static void hard_dtw(const double *x, double *y) {
  double r[LA + 1][LB + 1];
  init_table(r);
  for (int i = 1; i <= LA; i++)
    for (int j = 1; j <= LB; j++) {
      double best = r[i - 1][j - 1];
      if (r[i - 1][j] < best) best = r[i - 1][j];
      if (r[i][j - 1] < best) best = r[i][j - 1];
      r[i][j] = fabs(x[i - 1] - x[LA + j - 1]) + best;
    }
  y[0] = r[LA][LB];
}

/* best path probability through a 3-state chain, emissions from x */
static void viterbi(const double *x, double *y) {
  static const double trans[3][3] = {{0.7, 0.2, 0.1}, {0.3, 0.5, 0.2}, {0.2, 0.3, 0.5}};
  double v[3] = {1.0 / 3, 1.0 / 3, 1.0 / 3}, nv[3];
  for (int t = 0; t < 6; t++) {
    for (int s = 0; s < 3; s++) {
      double best = 0;
      for (int p = 0; p < 3; p++) {
        double c = v[p] * trans[p][s];
        if (c > best) best = c;
      }
      double e = exp(-(x[t] - s) * (x[t] - s));
      nv[s] = best * e;
    }
    for (int s = 0; s < 3; s++) v[s] = nv[s];
  }
  y[0] = log(fmax(v[0], fmax(v[1], v[2])));
}

int main(void) {
  CHECK_JACOBIAN(soft_dtw, 9, 1, 0.1, 0.5, 1.2, 0.9, 0.3, 0.2, 1.0, 0.8, 0.4);
  CHECK_JACOBIAN(hard_dtw, 9, 1, 0.1, 0.5, 1.2, 0.9, 0.3, 0.25, 1.05, 0.75, 0.45);
  CHECK_JACOBIAN(viterbi, 6, 1, 0.2, 1.1, 1.9, 0.7, 0.1, 1.4);
  return CHECK_DONE();
}
