// Loops written the C++ way: range-for over std::array, a templated
// fixed-point solver taking a functor, std::inner_product in a time loop,
// and a small class whose member function steps its state in place.
#include <array>
#include <numeric>
#include "jacobian.h"

template <typename F>
static double fixed_point(F f, double start, double tol) {
  double u = start;
  for (int it = 0; it < 500; it++) {
    double next = f(u);
    bool done = std::fabs(next - u) < tol;
    u = next;
    if (done) break;
  }
  return u;
}

/* u = cos(a u) + b, solved to 1e-15 */
static void kepler_like(const double *x, double *y) {
  const double a = x[0], b = x[1];
  y[0] = fixed_point([=](double u) { return 0.5 * std::cos(a * u) + b; }, 0.0, 1e-15);
}

static void range_for(const double *x, double *y) {
  std::array<double, 6> v{};
  for (int i = 0; i < 6; i++) v[i] = x[i % 3] * (i + 1);
  for (int step = 0; step < 20; step++)
    for (double &e : v) e = e - 0.05 * std::sin(e);
  double s = 0;
  for (double e : v) s += e * e;
  y[0] = s;
}

class Oscillators {
 public:
  explicit Oscillators(const double *x) {
    for (int i = 0; i < 4; i++) {
      pos_[i] = x[i];
      vel_[i] = 0;
    }
  }
  void step(double dt) {
    for (int i = 0; i < 4; i++) {
      double left = pos_[(i + 3) % 4], right = pos_[(i + 1) % 4];
      vel_[i] += dt * (left + right - 2 * pos_[i] - 0.1 * pos_[i] * pos_[i] * pos_[i]);
    }
    for (int i = 0; i < 4; i++) pos_[i] += dt * vel_[i];
  }
  double energy() const {
    return std::inner_product(vel_.begin(), vel_.end(), vel_.begin(), 0.0) +
           std::inner_product(pos_.begin(), pos_.end(), pos_.begin(), 0.0);
  }
  double at(int i) const { return pos_[i]; }

 private:
  std::array<double, 4> pos_, vel_;
};

static void oscillators(const double *x, double *y) {
  Oscillators o(x);
  for (int t = 0; t < 500; t++) o.step(0.01);
  y[0] = o.energy();
  y[1] = o.at(2);
}

int main() {
  CHECK_JACOBIAN(kepler_like, 2, 1, 0.8, 0.3);
  CHECK_JACOBIAN(range_for, 3, 1, 0.4, -0.9, 1.3);
  CHECK_JACOBIAN(oscillators, 4, 2, 0.3, -0.2, 0.5, 0.1);
  return CHECK_DONE();
}
