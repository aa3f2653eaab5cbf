// A spring chain with a custom-gradient material law, as an Enzyme client
// writes it: entry points declared by hand, registrations in the source.
#pragma once
#include <vector>

extern int enzyme_dup, enzyme_const, enzyme_out;
extern "C" {
double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
}

struct Chain {
  std::vector<double> rest;  // rest lengths
  double stiffness;
};

double energy(const Chain &c, const double *x, int n);
double law(double stretch);  // has a custom gradient
extern int law_rev_calls;
