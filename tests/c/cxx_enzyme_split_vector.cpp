// <enzyme/enzyme>'s split and vector forms: enzyme::augmented_forward and
// enzyme::reverse (ReverseSplitNoPrimal / ReverseSplitWithPrimal, a seed,
// plain functions and lambdas, memory overwritten between the halves, many
// tapes alive at once), and BatchDuplicated arguments (vector forward mode:
// N tangents in one call; vector reverse mode: N rows of a Jacobian in one
// call). Each against the combined or width-1 results and finite differences.
#include <enzyme/enzyme>

#include <cmath>
#include <cstdio>

static int failures, checks;
static void check(const char *what, double got, double want, double tol) {
  checks++;
  if (!(std::fabs(got - want) <= tol * (1 + std::fabs(want)))) {
    failures++;
    std::printf("FAIL %s: got %.17g, want %.17g\n", what, got, want);
  }
}

constexpr int N = 5;

static double energy(double k, const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += k * p[i] * p[i] + std::sin(k * p[i]);
  return s;
}

// In place: x[i] <- x[i] * x[i+1] + cos(x[i]) (from the left).
static void step(double *x, int n) {
  for (int i = 0; i + 1 < n; i++) x[i] = x[i] * x[i + 1] + std::cos(x[i]);
}

// Two outputs from three inputs.
static void two_outputs(const double *x, double *y) {
  y[0] = x[0] * std::sin(x[1]) + x[2] * x[2];
  y[1] = std::exp(0.3 * x[0]) * x[1] - x[2] / (1 + x[0] * x[0]);
}

static double scalar3(double a, double b, double c) { return a * std::sin(b) + c * c * a + std::exp(b * c); }

static void split_checks() {
  double p[N], dp[N] = {0}, dp_combined[N] = {0};
  for (int i = 0; i < N; i++) p[i] = 0.3 + 0.2 * i;
  double k = 1.3;
  auto combined = enzyme::autodiff<enzyme::Reverse>(energy, enzyme::Active<double>{k},
                                                    enzyme::Duplicated<const double *>{p, dp_combined}, N);
  double dk_combined = enzyme::get<0>(enzyme::get<0>(combined));

  // The two halves, the memory they read overwritten and restored between them.
  enzyme::tape t = enzyme::augmented_forward(energy, enzyme::Active<double>{k},
                                             enzyme::Duplicated<const double *>{p, dp}, N);
  double saved[N];
  for (int i = 0; i < N; i++) saved[i] = p[i], p[i] = -7;
  for (int i = 0; i < N; i++) p[i] = saved[i];
  auto r = enzyme::reverse(energy, t, enzyme::Active<double>{k}, enzyme::Duplicated<const double *>{p, dp}, N);
  check("split: dk against combined", enzyme::get<0>(enzyme::get<0>(r)), dk_combined, 1e-12);
  for (int i = 0; i < N; i++) check("split: dp against combined", dp[i], dp_combined[i], 1e-12);

  // With the primal, and a seed.
  double dp2[N] = {0};
  auto tp = enzyme::augmented_forward<enzyme::ReverseSplitWithPrimal>(energy, enzyme::Active<double>{k},
                                                                      enzyme::Duplicated<const double *>{p, dp2}, N);
  check("split with primal: the primal", enzyme::get<1>(tp), energy(k, p, N), 1e-12);
  auto r2 = enzyme::reverse(energy, enzyme::get<0>(tp), enzyme::Seed<double>{2.5}, enzyme::Active<double>{k},
                            enzyme::Duplicated<const double *>{p, dp2}, N);
  check("split, seed 2.5: dk", enzyme::get<0>(enzyme::get<0>(r2)), 2.5 * dk_combined, 1e-12);
  for (int i = 0; i < N; i++) check("split, seed 2.5: dp", dp2[i], 2.5 * dp_combined[i], 1e-12);

  // A lambda (a callable object) capturing a scale.
  double scale = 0.7;
  auto scaled = [scale](double a, const double *q) { return scale * energy(a, q, N); };
  double dq[N] = {0};
  enzyme::tape lt = enzyme::augmented_forward(scaled, enzyme::Active<double>{k},
                                              enzyme::Duplicated<const double *>{p, dq});
  auto lr = enzyme::reverse(scaled, lt, enzyme::Active<double>{k}, enzyme::Duplicated<const double *>{p, dq});
  check("split lambda: dk", enzyme::get<0>(enzyme::get<0>(lr)), scale * dk_combined, 1e-12);
  for (int i = 0; i < N; i++) check("split lambda: dp", dq[i], scale * dp_combined[i], 1e-12);

  // An in-place update, four steps forward then four reverses (four tapes alive).
  double x[4][N], dx[4][N];
  enzyme::tape tapes[4];
  double x0[N];
  for (int i = 0; i < N; i++) x0[i] = 0.1 * (i + 1), x[0][i] = x0[i];
  for (int s = 0; s < 4; s++) {
    if (s > 0)
      for (int i = 0; i < N; i++) x[s][i] = x[s - 1][i];
    tapes[s] = enzyme::augmented_forward(step, enzyme::Duplicated<double *>{x[s], dx[s]}, N);
  }
  // Seed: the sum of the final state; each reverse hands its adjoints to the step before.
  double seed[N];
  for (int i = 0; i < N; i++) seed[i] = 1;
  for (int s = 3; s >= 0; s--) {
    for (int i = 0; i < N; i++) dx[s][i] = seed[i];
    enzyme::reverse(step, tapes[s], enzyme::Duplicated<double *>{x[s], dx[s]}, N);
    for (int i = 0; i < N; i++) seed[i] = dx[s][i];
  }
  for (int i = 0; i < N; i++) {
    double h = 1e-6, xp[N], xm[N];
    for (int j = 0; j < N; j++) xp[j] = xm[j] = x0[j];
    xp[i] += h, xm[i] -= h;
    for (int s = 0; s < 4; s++) step(xp, N), step(xm, N);
    double fp = 0, fm = 0;
    for (int j = 0; j < N; j++) fp += xp[j], fm += xm[j];
    check("four split steps against differences", seed[i], (fp - fm) / (2 * h), 1e-6);
  }
}

static void vector_checks() {
  // Forward, three lanes: the gradient of scalar3 in one call.
  double a = 0.4, b = -0.3, c = 0.9;
  auto g = enzyme::autodiff<enzyme::Forward>(scalar3, enzyme::BatchDuplicated<double, 3>{a, {1, 0, 0}},
                                             enzyme::BatchDuplicated<double, 3>{b, {0, 1, 0}},
                                             enzyme::BatchDuplicated<double, 3>{c, {0, 0, 1}});
  auto lanes = enzyme::get<0>(g);
  auto w1 = enzyme::autodiff<enzyme::Reverse>(scalar3, enzyme::Active<double>{a}, enzyme::Active<double>{b},
                                              enzyme::Active<double>{c});
  auto adj = enzyme::get<0>(w1);
  check("vector forward lane 0 against reverse", enzyme::get<0>(lanes), enzyme::get<0>(adj), 1e-12);
  check("vector forward lane 1 against reverse", enzyme::get<1>(lanes), enzyme::get<1>(adj), 1e-12);
  check("vector forward lane 2 against reverse", enzyme::get<2>(lanes), enzyme::get<2>(adj), 1e-12);

  // Forward, the primal too, two lanes through a pointer.
  double p[N], t0[N], t1[N];
  for (int i = 0; i < N; i++) p[i] = 0.2 * i - 0.3, t0[i] = 1, t1[i] = i == 2;
  auto pt = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(
      energy, 1.1, enzyme::BatchDuplicated<const double *, 2>{p, {t0, t1}}, N);
  check("vector forward with primal: the primal", enzyme::get<0>(pt), energy(1.1, p, N), 1e-12);
  for (int lane = 0; lane < 2; lane++) {
    const double *t = lane ? t1 : t0;
    double d = enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(energy, 1.1,
                                                                enzyme::Duplicated<const double *>{p, t}, N));
    double got = lane ? enzyme::get<1>(enzyme::get<1>(pt)) : enzyme::get<0>(enzyme::get<1>(pt));
    check("vector forward with primal: a lane against width 1", got, d, 1e-12);
  }

  // Reverse, two lanes: both rows of two_outputs' Jacobian in one call.
  double x[3] = {0.5, -0.8, 1.2}, dx0[3] = {0}, dx1[3] = {0}, y[2], dy0[2] = {1, 0}, dy1[2] = {0, 1};
  enzyme::autodiff<enzyme::Reverse>(two_outputs, enzyme::BatchDuplicated<const double *, 2>{x, {dx0, dx1}},
                                    enzyme::BatchDuplicated<double *, 2>{y, {dy0, dy1}});
  for (int row = 0; row < 2; row++)
    for (int i = 0; i < 3; i++) {
      double h = 1e-6, xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]}, yp[2], ym[2];
      xp[i] += h, xm[i] -= h;
      two_outputs(xp, yp), two_outputs(xm, ym);
      check("vector reverse: a Jacobian row against differences", row ? dx1[i] : dx0[i],
            (yp[row] - ym[row]) / (2 * h), 1e-6);
    }
}

int main() {
  split_checks();
  vector_checks();
  std::printf("cxx_enzyme_split_vector.cpp: %d checks passed\n", checks - failures);
  return failures != 0;
}
