// Enzyme's C++ interface (#include <enzyme/enzyme>): enzyme::autodiff with
// Reverse and Forward, Active/Duplicated/Const arguments (and plain ones,
// constant), results read with enzyme::get, plain functions, lambdas with
// captures and function objects. Checked against closed forms and forward
// against reverse, at every -O level.
#include <enzyme/enzyme>
#include <cmath>
#include <cstdio>

static int failures = 0, checks = 0;
static void check(const char *what, double got, double want) {
  checks++;
  if (!(std::fabs(got - want) <= 1e-12 * (1 + std::fabs(want)))) {
    std::printf("FAIL %s: got %.17g, want %.17g\n", what, got, want);
    failures++;
  }
}

static double f(double x, const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += std::sin(x * p[i]);
  return s * x;
}
static double two(double a, double b) { return a * a * b + std::exp(a - b); }
static double three(double a, float b, double c) { return a * b * c + a * a; }
static void fill(const double *x, double *y) {
  y[0] = x[0] * x[1];
  y[1] = std::log(1 + x[0] * x[0]);
}

struct Spring {
  double k;
  double operator()(double x) const { return 0.5 * k * x * x * x; }
};

int main() {
  double x = 0.8, p[3] = {1.0, 0.5, -2.0}, dp[3] = {0, 0, 0};
  // d/dx and d/dp of f: s(x) x with s = Σ sin(x p_i).
  double s = 0, ds = 0;
  for (double q : p) s += std::sin(x * q), ds += q * std::cos(x * q);
  auto r = enzyme::autodiff<enzyme::Reverse>(f, enzyme::Active<double>{x}, enzyme::Duplicated<const double *>{p, dp}, 3);
  check("reverse: d/dx (Active)", enzyme::get<0>(r), s + x * ds);
  for (int i = 0; i < 3; i++) check("reverse: d/dp (Duplicated)", dp[i], x * x * std::cos(x * p[i]));
  auto t = enzyme::autodiff<enzyme::Forward>(f, enzyme::Duplicated<double>{x, 1.0}, enzyme::Const<const double *>{p}, 3);
  check("forward: tangent vs reverse", enzyme::get<0>(t), enzyme::get<0>(r));

  // Two and three active arguments: the results come back in order.
  auto r2 = enzyme::autodiff<enzyme::Reverse>(two, enzyme::Active{0.3}, enzyme::Active{1.1});
  check("two: d/da", enzyme::get<0>(r2), 2 * 0.3 * 1.1 + std::exp(0.3 - 1.1));
  check("two: d/db", enzyme::get<1>(r2), 0.3 * 0.3 - std::exp(0.3 - 1.1));
  auto r3 = enzyme::autodiff<enzyme::Reverse>(three, enzyme::Active{0.5}, enzyme::Active{2.0f}, enzyme::Active{-1.5});
  check("three: d/da", enzyme::get<0>(r3), 2.0 * -1.5 + 2 * 0.5);
  check("three: d/db (float)", enzyme::get<1>(r3), 0.5 * -1.5);
  check("three: d/dc", enzyme::get<2>(r3), 0.5 * 2.0);

  // A function of pointers only: adjoints go into the shadows.
  double xs[2] = {0.3, 0.4}, dxs[2] = {0, 0}, y[2], dy[2] = {1, 1};
  enzyme::autodiff<enzyme::Reverse>(fill, enzyme::Duplicated<const double *>{xs, dxs}, enzyme::Duplicated<double *>{y, dy});
  check("pointers: dy/dx0", dxs[0], xs[1] + 2 * xs[0] / (1 + xs[0] * xs[0]));
  check("pointers: dy/dx1", dxs[1], xs[0]);

  // A lambda with a capture, and a function object.
  double k = 1.5;
  auto lam = [k](double v) { return k * v * v * std::sin(v); };
  auto rl = enzyme::autodiff<enzyme::Reverse>(lam, enzyme::Active<double>{x});
  auto tl = enzyme::autodiff<enzyme::Forward>(lam, enzyme::Duplicated<double>{x, 1.0});
  check("lambda: reverse", enzyme::get<0>(rl), k * (2 * x * std::sin(x) + x * x * std::cos(x)));
  check("lambda: forward vs reverse", enzyme::get<0>(tl), enzyme::get<0>(rl));
  Spring spring{4.0};
  auto rs = enzyme::autodiff<enzyme::Reverse>(spring, enzyme::Active<double>{x});
  check("function object: reverse", enzyme::get<0>(rs), 1.5 * 4.0 * x * x);

  if (failures)
    std::printf("cxx_enzyme_api.cpp: %d of %d checks failed\n", failures, checks);
  else
    std::printf("cxx_enzyme_api.cpp: %d checks passed\n", checks);
  return failures != 0;
}
