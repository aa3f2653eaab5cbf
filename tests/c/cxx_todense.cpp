/* __enzyme_todense in C++ as Enzyme's sparse programs declare it (a
 * template, noexcept), with function templates for the load and store:
 * the seed e_c computed from the offset, the Hessian's column recorded in a
 * std::vector of triplets by forward over reverse, the primal's output not
 * wanted ((double *)0x1). Each column against the dense Hessian (forward
 * over reverse with plain buffers, exact) and central differences of the
 * gradient. */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;
template <typename T, typename... Tys> extern T __enzyme_fwddiff(void *, Tys...) noexcept;
template <typename T, typename... Tys> extern T __enzyme_autodiff(void *, Tys...) noexcept;
template <typename T, typename... Tys> extern T __enzyme_todense(Tys...) noexcept;

constexpr int N = 5;

static double energy(const double *x) {
  double e = 0;
  for (int i = 0; i < N; i++) {
    double d = x[(i + 1) % N] - x[i];
    e += std::cos(d) + 0.5 * x[i] * x[i] * x[i];
  }
  return e;
}
static void gradient(const double *x, double *dx) { __enzyme_autodiff<void>((void *)energy, enzyme_dup, x, dx); }

template <typename T> static T unit(int64_t offset, size_t col) { return offset / int64_t(sizeof(T)) == int64_t(col) ? T(1) : T(0); }
template <typename T> static void refuse(T, int64_t, size_t) { std::printf("FAIL: a store through the seed\n"); }

struct entry {
  size_t row, col;
  double val;
};
template <typename T> static T look(int64_t offset, size_t row, std::vector<entry> *h) {
  for (auto &e : *h)
    if (e.row == row && e.col == size_t(offset / int64_t(sizeof(T)))) return e.val;
  return T(0);
}
template <typename T> static void put(T v, int64_t offset, size_t row, std::vector<entry> *h) {
  size_t col = size_t(offset / int64_t(sizeof(T)));
  for (auto &e : *h)
    if (e.row == row && e.col == col) {
      e.val = v;
      return;
    }
  if (v != T(0)) h->push_back({row, col, v});
}

int main() {
  double x[N] = {0.2, -0.4, 0.9, 0.1, -0.6};
  std::vector<entry> h;
  for (size_t c = 0; c < N; c++) {
    double *seed = __enzyme_todense<double *>((void *)unit<double>, (void *)refuse<double>, c);
    double *column = __enzyme_todense<double *>((void *)look<double>, (void *)put<double>, c, &h);
    __enzyme_fwddiff<void>((void *)gradient, enzyme_dup, x, seed, enzyme_dupnoneed, (double *)0x1, column);
  }
  int checks = 0, bad = 0;
  double dense[N][N] = {};
  for (auto &e : h) dense[e.row][e.col] = e.val;
  for (int c = 0; c < N; c++) {
    double s[N] = {}, g[N] = {}, hc[N] = {}, xp[N], xm[N], gp[N] = {}, gm[N] = {};
    s[c] = 1;
    __enzyme_fwddiff<void>((void *)gradient, enzyme_dup, x, s, enzyme_dup, g, hc);
    for (int k = 0; k < N; k++) xp[k] = xm[k] = x[k];
    xp[c] += 1e-5, xm[c] -= 1e-5;
    gradient(xp, gp), gradient(xm, gm);
    for (int r = 0; r < N; r++) {
      double fd = (gp[r] - gm[r]) / 2e-5;
      checks += 2;
      if (!(std::fabs(dense[c][r] - hc[r]) <= 1e-12 * (1 + std::fabs(hc[r])))) bad++, std::printf("FAIL H[%d][%d]: %.17g vs %.17g\n", c, r, dense[c][r], hc[r]);
      if (!(std::fabs(dense[c][r] - fd) <= 1e-6 * (1 + std::fabs(fd)))) bad++, std::printf("FAIL H[%d][%d] against differences: %.17g vs %.17g\n", c, r, dense[c][r], fd);
    }
  }
  checks++;
  if (h.size() != 3 * N) bad++, std::printf("FAIL: %zu entries, want %d (a periodic band)\n", h.size(), 3 * N);
  std::printf("cxx_todense: %d of %d checks failed\n", bad, checks);
  return bad != 0;
}
