#pragma once
// Entry points declared the way C++ users of Enzyme do: C++ linkage, so
// their symbols are mangled (_Z24__enzyme_autodiff_normalPvPKdPdi ...).
extern int enzyme_dup, enzyme_const, enzyme_out;
void __enzyme_autodiff_normal(void *, int, const double *, double *, int, int);
void __enzyme_fwddiff_normal(void *, int, const double *, const double *, int, double *, double *, int, int);
template <typename Ret, typename... Args> Ret __enzyme_fwddiff(Args...);

double objective(const double *x, int n);
void gradient(const double *x, double *g, int n);
