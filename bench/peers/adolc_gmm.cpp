/* Peer: the GMM objective of kernels/gmm.c differentiated by ADOL-C
 * (operator overloading with a tape). Same inputs, same formulas.
 *   retape: record the tape and run the reverse sweep (what new inputs need
 *           when control flow may change)
 *   reuse:  the reverse sweep over a tape recorded once at setup
 * `dump` prints the gradient in kernels/gmm.c's order (alphas, means, icf). */
#include <adolc/adolc.h>

#include <cmath>
#include <vector>

#include "peer.h"

#ifndef GMM_D
#define GMM_D 10
#endif
#ifndef GMM_K
#define GMM_K 5
#endif
enum { D = GMM_D, K = GMM_K, ICF = D * (D + 1) / 2, NIN = K + K * D + K * ICF };

template <class T> static T logsumexp(const T *v, int n) {
  T m = v[0], s = 0;
  for (int i = 1; i < n; i++) m = fmax(m, v[i]);
  for (int i = 0; i < n; i++) s += exp(v[i] - m);
  return m + log(s);
}

template <class T> static T gmm(const T *alphas, const T *means, const T *icf, const double *x, int n) {
  T sum_qs[K], qdiags[K * D], main_term[K], xc[D], qxc[D];
  for (int k = 0; k < K; k++) {
    sum_qs[k] = 0;
    for (int i = 0; i < D; i++) sum_qs[k] += icf[k * ICF + i], qdiags[k * D + i] = exp(icf[k * ICF + i]);
  }
  T slse = 0;
  for (int p = 0; p < n; p++) {
    for (int k = 0; k < K; k++) {
      const T *q = icf + k * ICF;
      for (int i = 0; i < D; i++) xc[i] = x[p * D + i] - means[k * D + i];
      for (int i = 0; i < D; i++) qxc[i] = qdiags[k * D + i] * xc[i];
      int off = D;
      for (int j = 0; j < D; j++)
        for (int i = j + 1; i < D; i++) qxc[i] += q[off++] * xc[j];
      T sq = 0;
      for (int i = 0; i < D; i++) sq += qxc[i] * qxc[i];
      main_term[k] = alphas[k] + sum_qs[k] - 0.5 * sq;
    }
    slse += logsumexp(main_term, K);
  }
  T prior = 0;
  for (int k = 0; k < K; k++) {
    T fro = 0;
    for (int i = 0; i < D; i++) fro += exp(2 * icf[k * ICF + i]);
    for (int i = D; i < ICF; i++) fro += icf[k * ICF + i] * icf[k * ICF + i];
    prior += 0.5 * fro;
  }
  const double constant = -n * D * 0.5 * std::log(2 * M_PI);
  return constant + slse - n * logsumexp(alphas, K) + prior;
}

static std::vector<double> XS, IN(NIN), GRAD(NIN);
static int NPTS;

static void record() {
  std::vector<adouble> a(NIN);
  double y;
  trace_on(1);
  for (int i = 0; i < NIN; i++) a[i] <<= IN[i];
  adouble f = gmm(a.data(), a.data() + K, a.data() + K + K * D, XS.data(), NPTS);
  f >>= y;
  trace_off();
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "reuse";
  NPTS = argc > 2 && atoi(argv[2]) ? atoi(argv[2]) : 1000;
  int reps = argc > 3 ? atoi(argv[3]) : 5;
  pin_to_core0();
  XS.resize((size_t)NPTS * D);
  for (int i = 0; i < NPTS * D; i++) XS[i] = sin(0.731 * i) + 0.3 * cos(0.117 * i);
  for (int k = 0; k < K; k++) IN[k] = 0.1 * k - 0.2;
  for (int i = 0; i < K * D; i++) IN[K + i] = 0.5 * sin(1.3 * i);
  for (int i = 0; i < K * ICF; i++) IN[K + K * D + i] = 0.1 * cos(0.9 * i);
  record();
  if (!strcmp(mode, "dump")) {
    gradient(1, NIN, IN.data(), GRAD.data());
    for (double g : GRAD) std::printf("%.17g\n", g);
  } else if (!strcmp(mode, "retape")) {
    time_mode("adolc-gmm", mode, NPTS, reps, [] {
      record();
      gradient(1, NIN, IN.data(), GRAD.data());
    });
  } else if (!strcmp(mode, "reuse")) {
    time_mode("adolc-gmm", mode, NPTS, reps, [] { gradient(1, NIN, IN.data(), GRAD.data()); });
  } else {
    std::fprintf(stderr, "adolc_gmm: unknown mode `%s`\n", mode);
    return 2;
  }
  return 0;
}
