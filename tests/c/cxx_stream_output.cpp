/* Printing with iostreams inside differentiated code: `std::cout << y <<
 * std::endl` (at -O2 `endl` calls the locale's `widen` through a vtable
 * that lives in libstdc++: an indirect call of code outside the program,
 * given no floats and no differentiated memory, run as it is). Full
 * Jacobians: reverse against finite differences, forward against reverse. */
#include <iostream>
#include "jacobian.h"

static void f(const double *x, double *y) {
  double s = std::sin(x[0]) * x[1];
  std::cout << "s = " << s << std::endl;
  std::cout << std::flush;
  y[0] = s * x[2];
  y[1] = std::exp(x[1] - x[2]);
}

int main() {
  CHECK_JACOBIAN(f, 3, 2, 0.3, -0.7, 1.1);
  return CHECK_DONE();
}
