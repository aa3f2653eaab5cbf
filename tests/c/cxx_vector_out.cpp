/* A caller's std::vector grown by the differentiated function (passed by
 * reference, with a shadow vector of the same length): push_back and
 * emplace_back from empty and onto existing elements (libstdc++ moves the
 * old buffer with an untyped memmove; the new buffer's accesses type it).
 * Forward mode: the tangents the shadow vector ends up holding, against
 * central differences. Reverse mode: a function that grows the vector and
 * returns a sum over all of it, gradient against central differences and
 * against forward mode. */
#include <cmath>
#include <vector>
#include "check.h"

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

static void fill(const double *x, std::vector<double> &out) {
  for (int i = 0; i < 5; i++) out.push_back(x[i] * x[(i + 1) % 5]);
  out.emplace_back(std::sin(x[2]));
}

static double grow_sum(const double *x, std::vector<double> &out) {
  fill(x, out);
  double s = 0;
  for (size_t i = 0; i < out.size(); i++) s += out[i] * out[i] * (i + 1);
  return s;
}

static void values(const double *x, int pre, double *y) {
  std::vector<double> out(pre, 0.5);
  fill(x, out);
  for (int i = 0; i < 6; i++) y[i] = out[pre + i];
}

static double sum_of(const double *x, int pre) {
  std::vector<double> out(pre, 0.5);
  return grow_sum(x, out);
}

int main() {
  const double x0[5] = {0.3, -0.7, 1.1, 0.4, -0.2}, h = 1e-6;
  for (int pre = 0; pre <= 3; pre += 3) {
    double grad[5] = {0};
    {
      double x[5];
      for (int k = 0; k < 5; k++) x[k] = x0[k];
      std::vector<double> out(pre, 0.5), dout(pre, 0.0);
      __enzyme_autodiff((void *)grow_sum, enzyme_dup, x, grad, enzyme_dup, &out, &dout);
      CHECK("reverse: the primal still grows the caller's vector", (double)out.size(), pre + 6.0, 0);
    }
    for (int j = 0; j < 5; j++) {
      double x[5], tx[5] = {0}, yp[6], ym[6];
      for (int k = 0; k < 5; k++) x[k] = x0[k];
      tx[j] = 1;
      std::vector<double> out(pre, 0.5), dout(pre, 0.0);
      __enzyme_fwddiff((void *)fill, enzyme_dup, x, tx, enzyme_dup, &out, &dout);
      CHECK("forward: the shadow vector grows too", (double)dout.size(), pre + 6.0, 0);
      x[j] = x0[j] + h;
      values(x, pre, yp);
      double sp = sum_of(x, pre);
      x[j] = x0[j] - h;
      values(x, pre, ym);
      double sm = sum_of(x, pre);
      for (int i = 0; i < 6; i++) CHECK("forward vs finite differences", dout[pre + i], (yp[i] - ym[i]) / (2 * h), TOL_FD);
      CHECK("reverse vs finite differences", grad[j], (sp - sm) / (2 * h), TOL_FD);
      // Forward mode of the sum, against reverse.
      for (int k = 0; k < 5; k++) x[k] = x0[k];
      std::vector<double> o2(pre, 0.5), d2(pre, 0.0);
      double t = __enzyme_fwddiff((void *)grow_sum, enzyme_dup, x, tx, enzyme_dup, &o2, &d2);
      CHECK("forward vs reverse", t, grad[j], TOL_MODES);
    }
  }
  return CHECK_DONE();
}
