/* Containers of containers: a std::vector<std::vector<double>> whose rows
 * are built with push_back and copied in, and a std::vector of structs
 * holding a double and a std::vector<double> that grows. The rows' copies
 * are typed by what the function's own blocks hold. */
#include <cmath>
#include <vector>
#include "check.h"

static double table(const double *x, int n) {
  std::vector<std::vector<double>> rows;
  for (int i = 0; i < n; i++) {
    std::vector<double> r;
    for (int j = 0; j <= i; j++) r.push_back(x[j] * x[i]);
    rows.push_back(r);
  }
  double s = 0;
  for (auto &r : rows)
    for (double v : r) s += std::sin(v);
  return s;
}

struct particle {
  double x;
  std::vector<double> history;
};

static double particles(const double *x, int n) {
  std::vector<particle> ps;
  for (int i = 0; i < n; i++) ps.push_back({x[i], {x[i]}});
  for (int k = 0; k < 3; k++)
    for (auto &p : ps) {
      p.x = 0.9 * p.x + 0.1 * std::sin(p.x);
      p.history.push_back(p.x);
    }
  double s = 0;
  for (auto &p : ps) {
    double h = 0;
    for (double v : p.history) h += v;
    s += h * p.x;
  }
  return s;
}

template <double (*F)(const double *, int)>
static void check_function(const char *what, const double *x0) {
  enum { N = 6 };
  double x[N], dx[N] = {0}, tx[N];
  for (int i = 0; i < N; i++) x[i] = x0[i];
  __enzyme_autodiff((void *)F, enzyme_dup, x, dx, enzyme_const, N);
  for (int i = 0; i < N; i++) {
    double h = 1e-6, xp[N], xm[N];
    for (int k = 0; k < N; k++) xp[k] = xm[k] = x0[k], tx[k] = k == i;
    xp[i] += h, xm[i] -= h;
    CHECK(what, dx[i], (F(xp, N) - F(xm, N)) / (2 * h), TOL_FD);
    CHECK(what, __enzyme_fwddiff((void *)F, enzyme_dup, x, tx, enzyme_const, N), dx[i], 1e-12);
  }
}

int main() {
  const double x[6] = {0.3, -0.2, 0.5, 0.9, 0.1, -0.7};
  check_function<table>("vector<vector<double>> rows pushed", x);
  check_function<particles>("vector of structs with a growing vector", x);
  return CHECK_DONE();
}
