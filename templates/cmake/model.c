/* The model, in C, in a static library. */
#include <math.h>

double model(const double *p, double t) { return p[0] * exp(-p[1] * t) * cos(p[2] * t); }
