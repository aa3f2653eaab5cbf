// Entry points declared without noexcept in C++ are called with `invoke`;
// with a std::vector in scope and a loop after the call, the call's normal
// destination is shared with other paths. Checked against the closed form.
#include <vector>
#include <cmath>
#include <cstdio>
extern int enzyme_dup;
double __enzyme_fwddiff(void *, ...);   // not noexcept: called with invoke
double __enzyme_autodiff(void *, ...);
static double f(double x) { return std::sin(x) * x; }
int main() {
  std::vector<double> xs = {0.1, 0.5, 0.9};
  double s = 0, r = 0;
  for (double x : xs) {
    s += __enzyme_fwddiff((void *)f, enzyme_dup, x, 1.0);
    r += __enzyme_autodiff((void *)f, x);
  }
  double want = 0;
  for (double x : xs) want += std::cos(x) * x + std::sin(x);
  std::printf("%g %g want %g\n", s, r, want);
  return std::fabs(s - want) > 1e-12 || std::fabs(r - want) > 1e-12;
}
