// expect: compiled into libstdc++.so
// expect: literals of up to 15 characters
// expect: inlined from a call at cxx_string_runtime_length.cpp:13:
/* A map keyed by strings built at run time: their buffers are allocated
 * inside libstdc++.so (`_M_create`), where the engine cannot follow them. */
#include <map>
#include <string>
extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);

static double f(const double *x, const char *name) {
  std::map<std::string, double> m;
  m[name] = x[0] * x[0];
  return m[name];
}

int main() {
  double x[1] = {2}, dx[1] = {0};
  static const char *name = "a_parameter_with_a_long_name";
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, name);
  return 0;
}
