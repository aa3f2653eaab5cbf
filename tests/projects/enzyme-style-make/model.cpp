#include "model.h"
#include <cmath>
#include <cstdio>

static int evaluations = 0;

// Logging that must not carry a derivative.
[[enzyme::inactive]] static void note(double e) {
  if (++evaluations % 1000 == 0)
    std::printf("energy %g\n", e);
}

// A material law whose user gives its own (cheaper) derivatives; the
// reverse rule counts its calls so the test can see it was used.
int law_rev_calls = 0;
double law(double s) { return std::log(std::cosh(s)); }
static double law_aug(double s) { return law(s); }
static double law_rev(double s, double d) {
  law_rev_calls++;
  return d * std::tanh(s);
}
static double law_fwd(double s, double ds) { return ds * std::tanh(s); }
void *__enzyme_register_gradient_law[3] = {(void *)law, (void *)law_aug, (void *)law_rev};
void *__enzyme_register_derivative_law[2] = {(void *)law, (void *)law_fwd};

double energy(const Chain &c, const double *x, int n) {
  std::vector<double> stretch(n - 1);  // a std::vector temporary
  for (int i = 0; i + 1 < n; i++) stretch[i] = x[i + 1] - x[i] - c.rest[i];
  double e = 0;
  for (double s : stretch) e += c.stiffness * law(s);
  note(e);
  return e;
}
