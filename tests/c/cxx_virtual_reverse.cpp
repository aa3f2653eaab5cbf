// __enzyme_virtualreverse as Enzyme's users write it: a shadow object made
// as a copy of the primal, its vtable pointer replaced by the "shadow
// vtable" of the primal's, then passed as the shadow of the object (both
// modes, objects on the heap and on the stack; the shadow object's fields
// receive their adjoints). Checked against closed forms and forward against
// reverse.
#include <cmath>
#include "check.h"

template <typename T> T __enzyme_virtualreverse(T);

class Function {
public:
  virtual double operator()(double x) = 0;
  virtual ~Function() {}
};
class Square : public Function {
public:
  double operator()(double x) override { return x * x; }
};
class Wave : public Function {
public:
  double k;
  explicit Wave(double k) : k(k) {}
  double operator()(double x) override { return std::sin(k * x); }
};

static double apply(double x, Function *func) { return x * (*func)(x); }

int main() {
  Function *func = new Square();
  Function *dfunc = new Square();
  *((void **)dfunc) = __enzyme_virtualreverse(*(void **)dfunc);
  for (double x = 1; x < 5; x++) {
    double d = __enzyme_autodiff((void *)apply, x, enzyme_dup, func, dfunc);
    CHECK("heap object, reverse: d/dx x^3", d, 3 * x * x, TOL_EXACT);
    double t = __enzyme_fwddiff((void *)apply, x, 1.0, enzyme_dup, func, dfunc);
    CHECK("heap object, forward against reverse", t, d, TOL_MODES);
  }
  Wave wave(0.7), dwave(0.0);
  *((void **)&dwave) = __enzyme_virtualreverse(*(void **)&dwave);
  double x = 0.4;
  double d = __enzyme_autodiff((void *)apply, x, enzyme_dup, (Function *)&wave, (Function *)&dwave);
  CHECK("stack object, reverse", d, std::sin(0.7 * x) + x * 0.7 * std::cos(0.7 * x), TOL_EXACT);
  CHECK("stack object: the shadow's field gets k's adjoint", dwave.k, x * x * std::cos(0.7 * x), TOL_EXACT);
  delete func;
  delete dfunc;
  printf("%d checks, %d failures\n", check_count, check_failures);
  return check_failures != 0;
}
