// Entry points declared without noexcept in C++ are called with `invoke`;
// with a std::vector in scope and a loop right after the call, the call's
// normal destination is the loop header, shared with the back edge.
// Checked against the closed form, both modes.
#include <cmath>
#include <cstdio>
#include <vector>
extern int enzyme_dup;
double __enzyme_fwddiff(void *, ...);  // not noexcept: called with invoke
double __enzyme_autodiff(void *, ...);
static double f(double x) { return std::sin(x) * x; }
int main() {
  std::vector<double> v(3, 0.5);
  double d = __enzyme_fwddiff((void *)f, enzyme_dup, v[0], 1.0);
  for (int i = 0; i < 3; i++) v[i] += d;
  double r = __enzyme_autodiff((void *)f, v[1]);
  for (int i = 0; i < 3; i++) v[i] *= r;
  double want_d = std::cos(0.5) * 0.5 + std::sin(0.5), x1 = 0.5 + want_d;
  double want_r = std::cos(x1) * x1 + std::sin(x1);
  std::printf("cxx_invoke_entry: forward %.15g (want %.15g), reverse %.15g (want %.15g)\n", d, want_d, r, want_r);
  return !(std::fabs(d - want_d) <= 1e-12) || !(std::fabs(r - want_r) <= 1e-12) || !(std::fabs(v[2] - x1 * want_r) <= 1e-12);
}
