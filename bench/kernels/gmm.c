/* ADBench's GMM objective (d = GMM_D, k = GMM_K, n points; defaults
 * d = 10, k = 5, n = 1000): the
 * negative log-likelihood of n points under k Gaussians whose inverse
 * covariances are parameterised by Cholesky factors (log-diagonal and
 * lower triangle), plus the Wishart prior. Gradient with respect to the
 * weights, means and factors. Written as ADBench's C++ reference is: Q's
 * diagonal exp(q) computed once per component, before the points. */
#include "../bench.h"
static const char *NAME = "gmm";
#ifndef GMM_D
#define GMM_D 10
#endif
#ifndef GMM_K
#define GMM_K 5
#endif
enum { D = GMM_D, K = GMM_K };
enum { ICF = D * (D + 1) / 2 };
static int NPTS;
static double *XS, ALPHA[K], MEANS[K * D], ICFS[K * ICF];
static double DALPHA[K], DMEANS[K * D], DICFS[K * ICF];

static double logsumexp(const double *v, int n) {
  double m = v[0], s = 0;
  for (int i = 1; i < n; i++) m = v[i] > m ? v[i] : m;
  for (int i = 0; i < n; i++) s += exp(v[i] - m);
  return m + log(s);
}

static double gmm(const double *alphas, const double *means, const double *icf, const double *x, int n) {
  const double gamma = 1.0, m_prior = 0.0;
  double sum_qs[K], qdiags[K * D], main_term[K], xc[D], qxc[D];
  /* ADBench's preprocess_qs: each component's log-diagonal summed, and its
   * exponential (Q's diagonal) computed once. */
  for (int k = 0; k < K; k++) {
    sum_qs[k] = 0;
    for (int i = 0; i < D; i++) sum_qs[k] += icf[k * ICF + i], qdiags[k * D + i] = exp(icf[k * ICF + i]);
  }
  double slse = 0;
  for (int p = 0; p < n; p++) {
    for (int k = 0; k < K; k++) {
      const double *q = icf + k * ICF;
      for (int i = 0; i < D; i++) xc[i] = x[p * D + i] - means[k * D + i];
      /* Q·xc, Q lower triangular: exp(q[i]) on the diagonal, q[D..] below, by columns */
      for (int i = 0; i < D; i++) qxc[i] = qdiags[k * D + i] * xc[i];
      int off = D;
      for (int j = 0; j < D; j++)
        for (int i = j + 1; i < D; i++) qxc[i] += q[off++] * xc[j];
      double sq = 0;
      for (int i = 0; i < D; i++) sq += qxc[i] * qxc[i];
      main_term[k] = alphas[k] + sum_qs[k] - 0.5 * sq;
    }
    slse += logsumexp(main_term, K);
  }
  double prior = 0;
  for (int k = 0; k < K; k++) {
    double fro = 0;
    for (int i = 0; i < D; i++) fro += exp(2 * icf[k * ICF + i]);
    for (int i = D; i < ICF; i++) fro += icf[k * ICF + i] * icf[k * ICF + i];
    prior += 0.5 * gamma * gamma * fro - m_prior * sum_qs[k];
  }
  const double constant = -n * D * 0.5 * log(2 * M_PI);
  return constant + slse - n * logsumexp(alphas, K) + prior;
}

static double TALPHA[K], TMEANS[K * D], TICFS[K * ICF];
static void setup(int n) {
  NPTS = n ? n : 1000;
  XS = malloc((size_t)NPTS * D * sizeof *XS);
  for (int i = 0; i < NPTS * D; i++) XS[i] = sin(0.731 * i) + 0.3 * cos(0.117 * i);
  for (int k = 0; k < K; k++) ALPHA[k] = 0.1 * k - 0.2;
  for (int i = 0; i < K * D; i++) MEANS[i] = 0.5 * sin(1.3 * i);
  for (int i = 0; i < K * ICF; i++) ICFS[i] = 0.1 * cos(0.9 * i);
}
static int params(struct param *p) {
  p[0] = (struct param){"alpha", ALPHA, DALPHA, TALPHA, K};
  p[1] = (struct param){"means", MEANS, DMEANS, TMEANS, K * D};
  p[2] = (struct param){"icf", ICFS, DICFS, TICFS, K * ICF};
  return 3;
}
static double primal(void) { return gmm(ALPHA, MEANS, ICFS, XS, NPTS); }
static void reverse(void) {
  __enzyme_autodiff((void *)gmm, enzyme_dup, ALPHA, DALPHA, enzyme_dup, MEANS, DMEANS, enzyme_dup, ICFS, DICFS,
                    enzyme_const, XS, NPTS);
}
static double forward(void) {
  return __enzyme_fwddiff((void *)gmm, enzyme_dup, ALPHA, TALPHA, enzyme_dup, MEANS, TMEANS, enzyme_dup, ICFS,
                          TICFS, enzyme_const, XS, NPTS);
}

/* Hand-written adjoint. Per point, main_term[k] = alpha_k + sum(q_k) - |Q_k xc|^2 / 2
 * enters a logsumexp whose adjoint is the softmax weight w_k; then
 * d main / d(Q xc) = -(Q xc), pushed back through the triangular product. */
static void hand(void) {
  const double gamma = 1.0;
  double eq[K][D], qxc[K][D], xc[K][D], main_term[K], g[D];
  for (int k = 0; k < K; k++)
    for (int i = 0; i < D; i++) eq[k][i] = exp(ICFS[k * ICF + i]);
  for (int p = 0; p < NPTS; p++) {
    const double *x = XS + (size_t)p * D;
    for (int k = 0; k < K; k++) {
      const double *q = ICFS + k * ICF;
      double sum_q = 0, sq = 0;
      for (int i = 0; i < D; i++) xc[k][i] = x[i] - MEANS[k * D + i], qxc[k][i] = eq[k][i] * xc[k][i], sum_q += q[i];
      int off = D;
      for (int j = 0; j < D; j++)
        for (int i = j + 1; i < D; i++) qxc[k][i] += q[off++] * xc[k][j];
      for (int i = 0; i < D; i++) sq += qxc[k][i] * qxc[k][i];
      main_term[k] = ALPHA[k] + sum_q - 0.5 * sq;
    }
    double l = logsumexp(main_term, K);
    for (int k = 0; k < K; k++) {
      const double w = exp(main_term[k] - l), *q = ICFS + k * ICF;
      double *dq = DICFS + k * ICF, *dmu = DMEANS + k * D;
      DALPHA[k] += w;
      for (int i = 0; i < D; i++) g[i] = -w * qxc[k][i], dq[i] += w + g[i] * eq[k][i] * xc[k][i];
      double dxc[D];
      for (int i = 0; i < D; i++) dxc[i] = g[i] * eq[k][i];
      int off = D;
      for (int j = 0; j < D; j++)
        for (int i = j + 1; i < D; i++, off++) dq[off] += g[i] * xc[k][j], dxc[j] += g[i] * q[off];
      for (int i = 0; i < D; i++) dmu[i] -= dxc[i];
    }
  }
  double la = logsumexp(ALPHA, K);
  for (int k = 0; k < K; k++) {
    DALPHA[k] -= NPTS * exp(ALPHA[k] - la);
    for (int i = 0; i < D; i++) DICFS[k * ICF + i] += gamma * gamma * exp(2 * ICFS[k * ICF + i]);
    for (int i = D; i < ICF; i++) DICFS[k * ICF + i] += gamma * gamma * ICFS[k * ICF + i];
  }
}
#define HAVE_FORWARD
#define HAVE_HAND
#include "../harness.h"
