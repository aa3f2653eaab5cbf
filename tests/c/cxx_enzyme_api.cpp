// Enzyme's C++ interface (#include <enzyme/enzyme>): enzyme::autodiff with
// Reverse, ReverseWithPrimal and Forward, Active/Duplicated/DuplicatedNoNeed/
// Const arguments (and plain ones, constant; references passed as their
// address), the result's activity given or by default, results read with
// enzyme::get in Enzyme's shapes (reverse: a tuple holding the tuple of
// adjoints, then the primal; forward: the tangent, or the primal and the
// tangent), plain functions, lambdas with captures and function objects.
// Checked against closed forms and forward against reverse, at every -O level.
#include <enzyme/enzyme>
#include <cmath>
#include <cstdio>
#include <vector>

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

static double square(double x) { return x * x; }
static double nine(double a, double b, double c, float d, double e, double f, double g, double h, double i) {
  return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i * i;
}
static float by_ref(const float &x) { return x * x * x; }
static double weighted_sum(const std::vector<double> &v) {
  double s = 0;
  for (std::size_t i = 0; i < v.size(); i++) s += (i + 1.0) * v[i];
  return s;
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
  check("reverse: d/dx (Active)", enzyme::get<0>(enzyme::get<0>(r)), s + x * ds);
  for (int i = 0; i < 3; i++) check("reverse: d/dp (Duplicated)", dp[i], x * x * std::cos(x * p[i]));
  auto t = enzyme::autodiff<enzyme::Forward>(f, enzyme::Duplicated<double>{x, 1.0}, enzyme::Const<const double *>{p}, 3);
  check("forward: tangent vs reverse", enzyme::get<0>(t), enzyme::get<0>(enzyme::get<0>(r)));

  // Two and three active arguments: the results come back in order.
  auto r2 = enzyme::autodiff<enzyme::Reverse>(two, enzyme::Active{0.3}, enzyme::Active{1.1});
  check("two: d/da", enzyme::get<0>(enzyme::get<0>(r2)), 2 * 0.3 * 1.1 + std::exp(0.3 - 1.1));
  check("two: d/db", enzyme::get<1>(enzyme::get<0>(r2)), 0.3 * 0.3 - std::exp(0.3 - 1.1));
  auto r3 = enzyme::autodiff<enzyme::Reverse>(three, enzyme::Active{0.5}, enzyme::Active{2.0f}, enzyme::Active{-1.5});
  check("three: d/da", enzyme::get<0>(enzyme::get<0>(r3)), 2.0 * -1.5 + 2 * 0.5);
  check("three: d/db (float)", enzyme::get<1>(enzyme::get<0>(r3)), 0.5 * -1.5);
  check("three: d/dc", enzyme::get<2>(enzyme::get<0>(r3)), 0.5 * 2.0);

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
  check("lambda: reverse", enzyme::get<0>(enzyme::get<0>(rl)), k * (2 * x * std::sin(x) + x * x * std::cos(x)));
  check("lambda: forward vs reverse", enzyme::get<0>(tl), enzyme::get<0>(enzyme::get<0>(rl)));
  Spring spring{4.0};
  auto rs = enzyme::autodiff<enzyme::Reverse>(spring, enzyme::Active<double>{x});
  check("function object: reverse", enzyme::get<0>(enzyme::get<0>(rs)), 1.5 * 4.0 * x * x);

  // As Enzyme's own tests write it: explicit result types, the primal too,
  // references, and the result's activity.
  enzyme::Active<double> x1{3.1};
  enzyme::tuple<enzyme::tuple<double>> sq = enzyme::autodiff<enzyme::Reverse, enzyme::Active<double>>(square, x1);
  check("explicit type: d/dx", enzyme::get<0>(enzyme::get<0>(sq)), 2 * 3.1);
  enzyme::tuple<enzyme::tuple<double>, double> sqp =
      enzyme::autodiff<enzyme::ReverseWithPrimal, enzyme::Active<double>>(square, x1);
  check("with primal: d/dx", enzyme::get<0>(enzyme::get<0>(sqp)), 2 * 3.1);
  check("with primal: the result", enzyme::get<1>(sqp), 3.1 * 3.1);
  auto rp2 = enzyme::autodiff<enzyme::ReverseWithPrimal>(two, enzyme::Active{0.3}, enzyme::Active{1.1});
  check("with primal: d/db", enzyme::get<1>(enzyme::get<0>(rp2)), 0.3 * 0.3 - std::exp(0.3 - 1.1));
  check("with primal: two(a, b)", enzyme::get<1>(rp2), two(0.3, 1.1));
  auto rpl = enzyme::autodiff<enzyme::ReverseWithPrimal>(lam, enzyme::Active(x));
  check("lambda with primal", enzyme::get<1>(rpl), lam(x));
  check("lambda with primal: d/dx", enzyme::get<0>(enzyme::get<0>(rpl)), enzyme::get<0>(enzyme::get<0>(rl)));
  const float xf = 1.5f;
  float dxf = 0;
  enzyme::autodiff<enzyme::Reverse>(by_ref, enzyme::Duplicated<const float &>{xf, dxf});
  check("reference argument: d/dx", dxf, 3 * 1.5 * 1.5);
  std::vector<double> v{3, 42, 451}, dv(3);
  enzyme::autodiff<enzyme::Reverse>(weighted_sum, enzyme::DuplicatedNoNeed<const std::vector<double> &>{v, dv});
  for (int i = 0; i < 3; i++) check("vector by reference: d/dv", dv[i], i + 1.0);
  auto both = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(square, enzyme::Duplicated<double>{3.0, 1.0});
  check("forward with primal: the result", enzyme::get<0>(both), 9.0);
  check("forward with primal: the tangent", enzyme::get<1>(both), 6.0);
  auto only = enzyme::autodiff<enzyme::Forward, enzyme::Const<double>>(square, enzyme::Duplicated<double>{3.0, 1.0});
  check("forward, Const result: the primal", enzyme::get<0>(only), 9.0);
  auto zero = enzyme::autodiff<enzyme::Reverse, enzyme::Const<double>>(two, enzyme::Active(0.5), enzyme::Active(2.0));
  check("reverse, Const result: no derivative", enzyme::get<0>(enzyme::get<0>(zero)), 0.0);

  // Nine adjoints (a float among them), and `get` on the result itself, as
  // Enzyme's own tests write it.
  auto r9 = enzyme::autodiff<enzyme::Reverse>(nine, enzyme::Active(1.0), enzyme::Active(1.0), enzyme::Active(1.0),
                                              enzyme::Active(1.0f), enzyme::Active(1.0), enzyme::Active(1.0),
                                              enzyme::Active(1.0), enzyme::Active(1.0), enzyme::Active(2.0));
  auto &adj = enzyme::get<0>(r9);
  check("nine: d/da", enzyme::get<0>(adj), 1.0);
  check("nine: d/dd (float)", enzyme::get<3>(adj), 4.0);
  check("nine: d/dh", enzyme::get<7>(adj), 8.0);
  check("nine: d/di", enzyme::get<8>(adj), 9 * 2 * 2.0);
  const double dsq = enzyme::get<0>(enzyme::get<0>(enzyme::autodiff<enzyme::Reverse>(square, enzyme::Active{10.0})));
  check("get on a temporary", dsq, 20.0);

  if (failures)
    std::printf("cxx_enzyme_api.cpp: %d of %d checks failed\n", failures, checks);
  else
    std::printf("cxx_enzyme_api.cpp: %d checks passed\n", checks);
  return failures != 0;
}
