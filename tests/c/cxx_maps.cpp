/* Associative containers built inside the differentiated function:
 * std::map and std::multimap (libstdc++'s red-black tree: inserts, erases,
 * lookups, iteration both ways), std::set and std::multiset of doubles
 * (keys that carry derivatives: sorting by inserting), std::map with struct
 * values, and std::unordered_map growing through rehashes and erasing. Full
 * Jacobians: reverse against finite differences, forward against reverse.
 * Then maps the caller owns: one passed in with a shadow map of the same
 * keys (both modes), and one the function fills, whose shadow map comes back
 * holding the tangents under the same keys (forward mode). */
#include <array>
#include <map>
#include <set>
#include <unordered_map>
#include "jacobian.h"

static volatile int size_n = 6;

static void accumulate(const double *x, double *y) {
  std::map<int, double> m;
  for (int i = 0; i < size_n; i++) m[i % 4] += x[i] * x[(i + 1) % size_n];
  m[7] = std::sin(x[2]);
  y[0] = y[1] = 0;
  for (auto &kv : m) y[0] += (kv.first + 1) * kv.second * kv.second;
  // Backwards: each step is a decrement from the end.
  double w = 1;
  for (auto it = m.rbegin(); it != m.rend(); ++it) {
    y[1] += w * std::exp(0.3 * it->second);
    w *= 0.5;
  }
}

static void erase_and_find(const double *x, double *y) {
  std::map<int, double> m;
  // Enough keys, in a scrambled order, for every rebalancing case.
  for (int k = 0; k < 40; k++) m[(k * 17) % 41] = x[k % size_n] * (1 + 0.01 * k);
  for (int k = 0; k < 41; k += 3) m.erase(k);
  for (auto it = m.begin(); it != m.end();) {
    if (it->first % 5 == 1)
      it = m.erase(it);
    else {
      it->second *= x[it->first % size_n];
      ++it;
    }
  }
  y[0] = 0;
  for (auto &kv : m) y[0] += std::sqrt(1 + kv.second * kv.second);
  auto lo = m.lower_bound(20);
  y[1] = lo->second * m.find(38)->second + m.at(2) - m.count(7);
  y[2] = m.rbegin()->second / (1 + m.begin()->second * m.begin()->second);
}

static void sort_by_set(const double *x, double *y) {
  std::multiset<double> s;
  for (int i = 0; i < size_n; i++) s.insert(x[i] * x[i] - x[(i + 2) % size_n]);
  s.insert(x[1]);
  s.erase(s.begin());
  double w = 1;
  y[0] = 0;
  for (double v : s) {
    y[0] += w * v;
    w += 1;
  }
  std::set<double> t(s.begin(), s.end());
  y[1] = *t.rbegin() * *std::next(t.begin());
}

static void multimap_structs(const double *x, double *y) {
  std::multimap<int, std::array<double, 2>> m;
  for (int i = 0; i < size_n; i++) m.insert({i % 3, {x[i], std::cos(x[i])}});
  auto [first, last] = m.equal_range(1);
  y[0] = 1;
  for (auto it = first; it != last; ++it) y[0] *= it->second[0] + it->second[1];
  m.erase(2);
  y[1] = 0;
  for (auto &kv : m) y[1] += kv.second[0] * kv.second[1];
}

static void hashed(const double *x, double *y) {
  std::unordered_map<int, double> m;
  // Enough keys for several rehashes.
  for (int k = 0; k < 60; k++) m[k * 7] += x[k % size_n] * x[(k + 1) % size_n];
  for (int k = 0; k < 60; k += 4) m.erase(k * 7);
  y[0] = 0;
  for (auto &kv : m) y[0] += kv.second * (1 + kv.first % 3);
  y[1] = m[7] * m.at(14) + (m.find(0) == m.end() ? 1.0 : 0.0) * m[21];
}

// The caller's map and its shadow (same keys): adjoints of the values.
static double weighted(const std::map<int, double> &w, const double *x) {
  double s = 0;
  for (auto &kv : w) s += kv.second * std::sin(x[kv.first]) * x[(kv.first + 1) % 6];
  return s;
}

// Filled by the function: its shadow map gets the tangents, under the keys.
static void fill(std::map<int, double> &out, const double *x) {
  for (int i = 5; i >= 0; i--) out[(i * 7) % 11] = std::exp(0.5 * x[i]) * x[(i + 1) % 6];
  out.erase(0);
}

static void check_callers_maps(void) {
  const double x[6] = {0.3, -0.7, 1.1, 0.4, -0.2, 0.9};
  std::map<int, double> w{{0, 2.0}, {2, -1.5}, {5, 0.5}}, dw{{0, 0.0}, {2, 0.0}, {5, 0.0}};
  double dx[6] = {0};
  double (*weighted_p)(const std::map<int, double> &, const double *) = weighted;
  __enzyme_autodiff((void *)weighted_p, enzyme_dup, &w, &dw, enzyme_dup, x, dx);
  for (auto &kv : w) {
    int k = kv.first, n = (k + 1) % 6;
    CHECK("weighted: adjoint of a map value", dw[k], std::sin(x[k]) * x[n], TOL_EXACT);
  }
  CHECK("weighted: adjoint of x[0]", dx[0], 2.0 * std::cos(x[0]) * x[1] + 0.5 * std::sin(x[5]), TOL_EXACT);
  CHECK("weighted: adjoint of x[1]", dx[1], 2.0 * std::sin(x[0]), TOL_EXACT);
  CHECK("weighted: adjoint of x[3]", dx[3], -1.5 * std::sin(x[2]), TOL_EXACT);
  for (int i = 0; i < 6; i++) {
    double tx[6] = {0};
    tx[i] = 1;
    std::map<int, double> tw{{0, 0.0}, {2, 0.0}, {5, 0.0}};
    double t = __enzyme_fwddiff((void *)weighted_p, enzyme_dup, &w, &tw, enzyme_dup, x, tx);
    CHECK("weighted: forward against reverse", t, dx[i], TOL_MODES);
  }
  for (int i = 0; i < 6; i++) {
    double tx[6] = {0};
    tx[i] = 1;
    std::map<int, double> out, tout;
    void (*fill_p)(std::map<int, double> &, const double *) = fill;
    __enzyme_fwddiff((void *)fill_p, enzyme_dup, &out, &tout, enzyme_dup, x, tx);
    // (At -O0 the count is known to be an integer from the struct field clang addressed.)
    CHECK("fill: the shadow map counts its entries", (double)tout.size(), (double)out.size(), 0);
    CHECK("fill: the shadow map has the primal's keys", tout.count(0) == 0 && tout.begin()->first == out.begin()->first, 1, 0);
    for (int j = 0; j < 6; j++) {
      int k = (j * 7) % 11;
      if (k == 0) continue;
      int n = (j + 1) % 6;
      double want = (i == j ? 0.5 * std::exp(0.5 * x[j]) * x[n] : 0) + (i == n ? std::exp(0.5 * x[j]) : 0);
      auto it = tout.find(k);
      CHECK("fill: tangent under its key", it == tout.end() ? NAN : it->second, want, TOL_EXACT);
    }
  }
}

int main(void) {
  check_callers_maps();
  CHECK_JACOBIAN(accumulate, 6, 2, 0.3, -0.7, 1.1, 0.4, -0.2, 0.9);
  CHECK_JACOBIAN(erase_and_find, 6, 3, 0.3, -0.7, 1.1, 0.4, -0.2, 0.9);
  CHECK_JACOBIAN(sort_by_set, 6, 2, 0.3, -0.7, 1.1, 0.4, -0.2, 0.9);
  CHECK_JACOBIAN(multimap_structs, 6, 2, 0.3, -0.7, 1.1, 0.4, -0.2, 0.9);
  CHECK_JACOBIAN(hashed, 6, 2, 0.3, -0.7, 1.1, 0.4, -0.2, 0.9);
  printf("%d checks, %d failures\n", check_count, check_failures);
  return check_failures != 0;
}
