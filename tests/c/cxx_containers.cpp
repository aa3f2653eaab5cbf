/* Local C++ containers filled inside the differentiated function: a
 * std::vector grown by push_back from empty (libstdc++ moves the old buffer
 * into the new one with an untyped memmove), reserve then push_back,
 * resize then indexing, emplace_back, insert, and std::array. Full
 * Jacobians: reverse against finite differences, forward against reverse. */
#include <array>
#include <vector>
#include "jacobian.h"

static volatile int size_n = 5;

static void grown(const double *x, double *y) {
  std::vector<double> v;
  for (int i = 0; i < size_n; i++) v.push_back(std::sin(x[i]) * x[(i + 1) % size_n]);
  for (int i = 0; i < size_n; i++) v.push_back(v[i] * v[size_n - 1 - i]);
  double s = 0, p = 1;
  for (double a : v) {
    s += a * a;
    p *= 1 + 0.1 * a;
  }
  y[0] = s;
  y[1] = p;
}

static void reserved(const double *x, double *y) {
  std::vector<double> v;
  v.reserve(size_n);
  for (int i = 0; i < size_n; i++) v.push_back(std::exp(0.3 * x[i]));
  v.emplace_back(v.front() * v.back());
  v.insert(v.end(), x[0] * x[1]);
  y[0] = 0;
  for (size_t i = 0; i < v.size(); i++) y[0] += v[i] * (i + 1);
  y[1] = v[v.size() - 1] / (1 + v[0]);
}

static void resized(const double *x, double *y) {
  std::vector<double> v;
  v.resize(size_n);
  for (int i = 0; i < size_n; i++) v[i] = x[i] * x[i];
  v.resize(2 * size_n, 0.5);
  for (int i = size_n; i < 2 * size_n; i++) v[i] += v[i - size_n] * x[i - size_n];
  double s = 0;
  for (double a : v) s += std::sqrt(1 + a);
  y[0] = s;
  y[1] = v[2 * size_n - 1] * v[0];
}

static void array(const double *x, double *y) {
  std::array<double, 5> a{};
  for (int i = 0; i < 5; i++) a[i] = std::cos(x[i]) + x[(i + 2) % 5];
  double s = 0;
  for (double v : a) s += v * v * v;
  y[0] = s;
  y[1] = a[0] * a[4] - a[2];
}

int main(void) {
  CHECK_JACOBIAN(grown, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(reserved, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(resized, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  CHECK_JACOBIAN(array, 5, 2, 0.3, -0.7, 1.1, 0.4, -0.2);
  return CHECK_DONE();
}
