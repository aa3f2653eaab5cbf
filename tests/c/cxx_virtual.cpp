/* Virtual calls and std::function inside differentiated code: objects of
 * a class hierarchy built inside the function (on the stack and with new),
 * an object passed in by reference, and std::function locals. Which class
 * or callable is chosen at run time (a volatile), so the calls stay
 * indirect after optimisation. Full Jacobians: reverse against finite
 * differences, forward against reverse. */
#include <functional>
#include <memory>
#include "jacobian.h"

static volatile int which = 1;

struct Law {
  virtual ~Law() = default;
  virtual double eval(double v) const = 0;
};
struct Cubic : Law {
  double c;
  explicit Cubic(double c) : c(c) {}
  double eval(double v) const override { return c * v * v * v - v; }
};
struct Wave : Law {
  double w;
  explicit Wave(double w) : w(w) {}
  double eval(double v) const override { return std::sin(w * v) + v * v; }
};

static double energy(const Law &law, const double *x) {
  double s = 0;
  for (int i = 0; i < 5; i++) s += law.eval(x[i]) * (i + 1);
  return s;
}

static void virtual_calls(const double *x, double *y) {
  Cubic c(0.5 + x[0]);
  Wave w(x[1]);
  const Law &a = which ? static_cast<const Law &>(w) : static_cast<const Law &>(c);
  std::unique_ptr<Law> b = which ? std::unique_ptr<Law>(new Cubic(x[2])) : std::unique_ptr<Law>(new Wave(x[2]));
  y[0] = energy(a, x);
  y[1] = b->eval(x[3]) * a.eval(x[4]);
}

static void functions(const double *x, double *y) {
  double k = x[4];
  std::function<double(double)> f;
  if (which)
    f = [k](double v) { return std::exp(k * v); };
  else
    f = [](double v) { return v * v; };
  double (*hyp)(double, double) = std::hypot;
  std::function<double(double, double)> g = which ? std::function<double(double, double)>(hyp)
                                                  : std::function<double(double, double)>([](double a, double b) { return a * b; });
  y[0] = f(x[0]) + f(x[1]) * g(x[2], x[3]);
  y[1] = g(f(x[3]), x[0]);
}

int main() {
  CHECK_JACOBIAN(virtual_calls, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(functions, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  return CHECK_DONE();
}
