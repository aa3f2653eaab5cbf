#include "objective.h"
#include <cmath>

// softplus with a custom gradient (the logistic function).
double softplus(double t) { return std::log1p(std::exp(t)); }
static double softplus_aug(double t) { return softplus(t); }
static double softplus_rev(double t, double d) { return d / (1 + std::exp(-t)); }
static double softplus_fwd(double t, double dt) { return dt / (1 + std::exp(-t)); }
void *__enzyme_register_gradient_softplus[3] = {(void *)softplus, (void *)softplus_aug, (void *)softplus_rev};
void *__enzyme_register_derivative_softplus[2] = {(void *)softplus, (void *)softplus_fwd};

double objective(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += softplus(x[i] * x[(i + 1) % n]) + 0.5 * x[i] * x[i] * x[i];
  return s;
}

void gradient(const double *x, double *g, int n) {
  for (int i = 0; i < n; i++) g[i] = 0;
  __enzyme_autodiff_normal((void *)objective, enzyme_dup, x, g, enzyme_const, n);
}
