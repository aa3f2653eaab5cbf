/* ADBench's GMM objective (d = 10, k = 5, n = 1000 by default): the
 * negative log-likelihood of n points under k Gaussians whose inverse
 * covariances are parameterised by Cholesky factors (log-diagonal and
 * lower triangle), plus the Wishart prior. Gradient with respect to the
 * weights, means and factors. */
#include "../bench.h"
static const char *NAME = "gmm";
enum { D = 10, K = 5 };
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
  double sum_qs[K], main_term[K], xc[D], qxc[D];
  for (int k = 0; k < K; k++) {
    sum_qs[k] = 0;
    for (int i = 0; i < D; i++) sum_qs[k] += icf[k * ICF + i];
  }
  double slse = 0;
  for (int p = 0; p < n; p++) {
    for (int k = 0; k < K; k++) {
      const double *q = icf + k * ICF;
      for (int i = 0; i < D; i++) xc[i] = x[p * D + i] - means[k * D + i];
      /* Q·xc, Q lower triangular: exp(q[i]) on the diagonal, q[D..] below, by columns */
      for (int i = 0; i < D; i++) qxc[i] = exp(q[i]) * xc[i];
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

static void setup(int n) {
  NPTS = n ? n : 1000;
  XS = malloc((size_t)NPTS * D * sizeof *XS);
  for (int i = 0; i < NPTS * D; i++) XS[i] = sin(0.731 * i) + 0.3 * cos(0.117 * i);
  for (int k = 0; k < K; k++) ALPHA[k] = 0.1 * k - 0.2;
  for (int i = 0; i < K * D; i++) MEANS[i] = 0.5 * sin(1.3 * i);
  for (int i = 0; i < K * ICF; i++) ICFS[i] = 0.1 * cos(0.9 * i);
}
static double primal(void) { return gmm(ALPHA, MEANS, ICFS, XS, NPTS); }
static void gradient(void) {
  memset(DALPHA, 0, sizeof DALPHA);
  memset(DMEANS, 0, sizeof DMEANS);
  memset(DICFS, 0, sizeof DICFS);
  __enzyme_autodiff((void *)gmm, enzyme_dup, ALPHA, DALPHA, enzyme_dup, MEANS, DMEANS, enzyme_dup, ICFS, DICFS,
                    enzyme_const, XS, NPTS);
}
static int check(void) {
  gradient();
  int f = 0;
  for (int k = 0; k < K; k++) f += check_close("d/dalpha", DALPHA[k], fd_of(&ALPHA[k], 1e-6), 1e-5);
  for (int i = 0; i < K * D; i += 7) f += check_close("d/dmean", DMEANS[i], fd_of(&MEANS[i], 1e-6), 1e-5);
  for (int i = 0; i < K * ICF; i += 11) f += check_close("d/dicf", DICFS[i], fd_of(&ICFS[i], 1e-6), 1e-5);
  return f;
}
#include "../harness.h"
