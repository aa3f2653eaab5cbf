// OpenMP in C++ (enzyme-c++ -fopenmp), both modes: a `parallel for` over a
// std::vector with a sum and a max reduction, a lambda called in the loop,
// an atomic update, and a `critical` section over a member of a struct
// passed by reference. The gradient (reverse) against forward mode and
// central differences of the whole computation, at any number of threads.
#include <enzyme/enzyme>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <vector>

struct Stats {
  double worst;
  double total;
};

static double model(const std::vector<double> &x, Stats &st) {
  const int n = static_cast<int>(x.size());
  auto shape = [](double v, int i) { return std::sin(v) * v + 0.1 * i * v * v; };
  double sum = 0, top = -1e300;
#pragma omp parallel for reduction(+ : sum) reduction(max : top) schedule(dynamic, 4)
  for (int i = 0; i < n; i++) {
    double s = shape(x[i], i);
    sum += s;
    top = std::fmax(top, s * x[(i + 1) % n]);
#pragma omp atomic
    st.total += 0.5 * s;
#pragma omp critical
    {
      if (s > st.worst) st.worst = s;
    }
  }
  return sum * top + st.total + st.worst;
}

static double run(const std::vector<double> &x) {
  Stats st{-1e300, 0};
  return model(x, st);
}

int main() {
  constexpr int N = 50;
  std::vector<double> x(N), dx(N, 0.0), t(N);
  for (int i = 0; i < N; i++) x[i] = 0.3 + 0.02 * i + 0.1 * std::cos(1.7 * i), t[i] = std::sin(0.9 * i);
  enzyme::autodiff<enzyme::Reverse>(run, enzyme::Duplicated<const std::vector<double> &>{x, dx});
  double rev = 0;
  for (int i = 0; i < N; i++) rev += dx[i] * t[i];
  double fwd = enzyme::get<0>(enzyme::autodiff<enzyme::Forward>(run, enzyme::Duplicated<const std::vector<double> &>{x, t}));
  double h = 1e-6;
  std::vector<double> xp(N), xm(N);
  for (int i = 0; i < N; i++) xp[i] = x[i] + h * t[i], xm[i] = x[i] - h * t[i];
  double fd = (run(xp) - run(xm)) / (2 * h);
  int bad = !(std::fabs(rev - fwd) <= 1e-10 * (1 + std::fabs(fwd))) + !(std::fabs(fwd - fd) <= 1e-6 * (1 + std::fabs(fd)));
  std::printf("%sopenmp c++: reverse %.12g, forward %.12g, differences %.12g (%d threads)\n", bad ? "FAIL " : "", rev,
              fwd, fd, omp_get_max_threads());
  return bad != 0;
}
