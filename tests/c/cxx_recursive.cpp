// Recursive C++ that writes memory: quicksort of a std::vector<double> in
// place (std::swap), and a recursive member function refining a grid held
// by the object, then a weighted sum; gradients through both.
#include <cmath>
#include <utility>
#include <vector>
#include "jacobian.h"

enum { N = 6 };

static void quicksort(std::vector<double> &v, int lo, int hi) {
  if (lo >= hi) return;
  double pivot = v[hi];
  int i = lo;
  for (int j = lo; j < hi; j++)
    if (v[j] < pivot) std::swap(v[i++], v[j]);
  std::swap(v[i], v[hi]);
  quicksort(v, lo, i - 1);
  quicksort(v, i + 1, hi);
}

static void sorted(const double *x, double *y) {
  // Filled element by element: a bulk copy into the vector would need its
  // element type said with __enzyme_double (the type analysis is local).
  std::vector<double> v(N);
  for (int i = 0; i < N; i++) v[i] = x[i] * std::exp(0.2 * x[i]);
  quicksort(v, 0, N - 1);
  double s = 0;
  for (int i = 0; i < N; i++) s += v[i] * (i + 1);
  y[0] = s;
}

class Grid {
 public:
  explicit Grid(const double *x) {
    for (int i = 0; i < N; i++) u[i] = x[i];
  }
  // Averages each half, then recurses: the later levels read what the earlier wrote.
  void refine(int lo, int hi, int depth) {
    if (hi - lo < 2 || depth == 0) return;
    int mid = (lo + hi) / 2;
    double m = 0;
    for (int i = lo; i < hi; i++) m += u[i];
    m /= hi - lo;
    for (int i = lo; i < hi; i++) u[i] = 0.7 * u[i] + 0.3 * m * std::tanh(u[i]);
    refine(lo, mid, depth - 1);
    refine(mid, hi, depth - 1);
  }
  double energy() const {
    double e = 0;
    for (int i = 0; i < N; i++) e += u[i] * u[i] * (1 + i);
    return e;
  }

 private:
  double u[N];
};

static void grid(const double *x, double *y) {
  Grid g(x);
  g.refine(0, N, 3);
  y[0] = g.energy();
}

int main() {
  CHECK_JACOBIAN(sorted, N, 1, 0.4, -1.2, 0.9, 2.0, -0.3, 1.1);
  CHECK_JACOBIAN(grid, N, 1, 0.4, -1.2, 0.9, 2.0, -0.3, 1.1);
  return CHECK_DONE();
}
