// C++: a class holding std::vector<double> members, const member functions,
// differentiated through `this` with a shadow object of the same shape.
#include <cmath>
#include <cstdio>
#include <vector>
#include <enzyme/enzyme.h>

class Chain {
public:
  Chain(std::vector<double> pos, double k) : pos_(std::move(pos)), k_(k) {}
  double energy() const {
    double e = 0;
    for (std::size_t i = 0; i + 1 < pos_.size(); i++) {
      double d = pos_[i + 1] - pos_[i] - 1.0;
      e += 0.5 * k_ * d * d;
    }
    return e + gravity();
  }
  std::vector<double> pos_;
  double k_;

private:
  double gravity() const {
    double g = 0;
    for (double p : pos_) g += 0.1 * p;
    return g;
  }
};

static double chain_energy(const Chain *c) { return c->energy(); }

int main() {
  Chain c({0.0, 1.5, 2.0, 3.5}, 4.0), dc({0, 0, 0, 0}, 0.0);
  __enzyme_autodiff<void>((void *)chain_energy, enzyme_dup, &c, &dc);
  int bad = 0, checks = 0;
  for (int i = 0; i < 4; i++) {
    double h = 1e-6;
    Chain p = c, m = c;
    p.pos_[i] += h;
    m.pos_[i] -= h;
    double fd = (p.energy() - m.energy()) / (2 * h);
    checks++;
    if (!(std::fabs(dc.pos_[i] - fd) <= 1e-6 * (1 + std::fabs(fd)))) {
      std::printf("FAIL d/dpos%d: %.15g, finite difference %.15g\n", i, dc.pos_[i], fd);
      bad = 1;
    }
  }
  double dk_want = 0;
  for (int i = 0; i < 3; i++) {
    double d = c.pos_[i + 1] - c.pos_[i] - 1.0;
    dk_want += 0.5 * d * d;
  }
  checks++;
  if (!(std::fabs(dc.k_ - dk_want) <= 1e-12)) {
    std::printf("FAIL d/dk: %.15g want %.15g\n", dc.k_, dk_want);
    bad = 1;
  }
  if (bad) return 1;
  std::printf("cxx_class_vector: %d checks passed\n", checks);
  return 0;
}
