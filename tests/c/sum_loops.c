/* Loops that only add to a sum reaching the result unscaled are reversed an
 * iteration at a time (`sum_loops`): the iteration's term has the result's
 * seed as its adjoint, so its derivative runs right after it and nothing of
 * it is kept. Checked on a Gaussian-mixture-like objective (local arrays
 * per point, a triangular product, a log-sum-exp, the sum subtracted and
 * added with others), on sums the rule must not take (scaled after the loop,
 * written to memory after it, a branch on the data in the body, a value
 * carried from one iteration to the next in memory), each against central
 * differences and forward mode; the sum stored through a parameter whose
 * shadow holds the seed; and the gradient called repeatedly. */
#include <string.h>
#include "check.h"

extern int enzyme_dup, enzyme_const;
enum { D = 4, K = 3, N = 30, TRI = D * (D - 1) / 2, NP = K + K * D + K * TRI };

/* Parameters: alphas[K], means[K * D], lower triangles[K * TRI]. */
static double mixture(const double *w, const double *x, int n) {
  const double *alpha = w, *mean = w + K, *low = w + K + K * D;
  double total = 0, xc[D], lx[D], main_term[K];
  for (int p = 0; p < n; p++) {
    for (int k = 0; k < K; k++) {
      for (int i = 0; i < D; i++) xc[i] = x[p * D + i] - mean[k * D + i];
      for (int i = 0; i < D; i++) lx[i] = xc[i];
      int off = 0;
      for (int j = 0; j < D; j++)
        for (int i = j + 1; i < D; i++) lx[i] += low[k * TRI + off++] * xc[j];
      double sq = 0;
      for (int i = 0; i < D; i++) sq += lx[i] * lx[i];
      main_term[k] = alpha[k] - 0.5 * sq;
    }
    double m = main_term[0], s = 0;
    for (int k = 1; k < K; k++) m = main_term[k] > m ? main_term[k] : m;
    for (int k = 0; k < K; k++) s += exp(main_term[k] - m);
    total += m + log(s);
  }
  double prior = 0;
  for (int k = 0; k < K; k++) prior += alpha[k] * alpha[k];
  return 0.25 * prior - total;
}

/* Scaled after the loop: not taken (the seed of a term is not the result's). */
static double scaled(const double *w, const double *x, int n) {
  double s = 0;
  for (int p = 0; p < n; p++) s += sin(w[p % NP] * x[p * D]);
  return s * s;
}

/* Written to memory after the loop: not taken. */
static double written(const double *w, const double *x, int n) {
  double s = 0;
  for (int p = 0; p < n; p++) s += w[p % NP] * cos(x[p * D] * w[(p + 1) % NP]);
  ((double *)w)[NP - 1] *= 0.5;
  return s + w[NP - 1];
}

/* A value carried between iterations through memory: not taken. */
static double carried(const double *w, const double *x, int n) {
  double s = 0, last[1] = {1.0};
  for (int p = 0; p < n; p++) {
    s += last[0] * w[p % NP];
    last[0] = sin(w[(p + 2) % NP] * x[p * D + 1]);
  }
  return s;
}

/* A branch on the data in the body: not taken. */
static double branchy(const double *w, const double *x, int n) {
  double s = 0, t[2];
  for (int p = 0; p < n; p++) {
    if (x[p * D] * w[p % NP] > 0.1) {
      t[0] = sin(w[p % NP]);
      t[1] = x[p * D];
    } else {
      t[1] = cos(w[p % NP]);
      t[0] = x[p * D + 1];
    }
    s += t[0] * t[1];
  }
  return s;
}

/* The sum stored through a parameter (as Rust's derivatives return): the
 * seed is in that parameter's shadow. */
static void into_result(const double *w, const double *x, int n, double *out) {
  double s = 0;
  for (int p = 0; p < n; p++) s += sin(w[p % NP] * x[p * D]) * w[(p + 1) % NP];
  *out = 2.0 - s;
}
static double into_result_value(const double *w, const double *x, int n) {
  double out;
  into_result(w, x, n, &out);
  return out;
}

static void check_stored(const double *x) {
  double w[NP], dw[NP], tw[NP], wp[NP], wm[NP];
  for (int i = 0; i < NP; i++) w[i] = 0.2 * cos(0.9 * i) + 0.03 * i;
  for (int rep = 0; rep < 2; rep++) {
    double out = 0, dout = 1.5; /* the seed */
    memset(dw, 0, sizeof dw);
    __enzyme_autodiff((void *)into_result, enzyme_dup, w, dw, enzyme_const, x, enzyme_const, N, enzyme_dup, &out,
                      &dout);
    CHECK("stored: primal", out, into_result_value(w, x, N), 0);
    CHECK("stored: the result's shadow taken", dout, 0, 0);
    for (int i = 0; i < NP; i++) tw[i] = sin(0.4 * i + rep);
    double rev = 0;
    for (int i = 0; i < NP; i++) rev += dw[i] * tw[i];
    double o = 0, dout_f = 0;
    __enzyme_fwddiff((void *)into_result, enzyme_dup, w, tw, enzyme_const, x, enzyme_const, N, enzyme_dup, &o, &dout_f);
    CHECK("stored: forward", rev, 1.5 * dout_f, TOL_MODES);
    double h = 1e-6;
    for (int i = 0; i < NP; i++) wp[i] = w[i] + h * tw[i], wm[i] = w[i] - h * tw[i];
    CHECK("stored: central difference", rev, 1.5 * (into_result_value(wp, x, N) - into_result_value(wm, x, N)) / (2 * h),
          TOL_FD);
  }
}

typedef double (*objective)(const double *, const double *, int);

static void check_one(const char *name, objective f, const double *x) {
  double w[NP], dw[NP], tw[NP], wp[NP], wm[NP];
  for (int i = 0; i < NP; i++) w[i] = 0.3 * sin(1.1 * i) + 0.05 * i;
  for (int rep = 0; rep < 3; rep++) {
    memset(dw, 0, sizeof dw);
    double wc[NP];
    memcpy(wc, w, sizeof w);
    __enzyme_autodiff((void *)f, enzyme_dup, wc, dw, enzyme_const, x, enzyme_const, N);
    for (int d = 0; d < 3; d++) {
      for (int i = 0; i < NP; i++) tw[i] = cos(0.7 * i + d + rep);
      double rev = 0;
      for (int i = 0; i < NP; i++) rev += dw[i] * tw[i];
      double twc[NP];
      memcpy(wc, w, sizeof w), memcpy(twc, tw, sizeof tw);
      double fwd = __enzyme_fwddiff((void *)f, enzyme_dup, wc, twc, enzyme_const, x, enzyme_const, N);
      CHECK(name, rev, fwd, TOL_MODES);
      double h = 1e-6;
      for (int i = 0; i < NP; i++) wp[i] = w[i] + h * tw[i], wm[i] = w[i] - h * tw[i];
      CHECK(name, rev, (f(wp, x, N) - f(wm, x, N)) / (2 * h), TOL_FD);
    }
    for (int i = 0; i < NP; i++) w[i] += 0.01 * (i % 3);
  }
}

int main(void) {
  static double x[N * D];
  for (int i = 0; i < N * D; i++) x[i] = sin(0.61 * i) + 0.2 * cos(1.7 * i);
  check_one("mixture", mixture, x);
  check_one("scaled", scaled, x);
  check_one("written", written, x);
  check_one("carried", carried, x);
  check_one("branchy", branchy, x);
  check_stored(x);
  printf("%d checks, %d failed\n", check_count, check_failures);
  return check_failures != 0;
}
