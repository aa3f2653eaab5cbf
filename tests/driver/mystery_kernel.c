/* Built into a shared library by run-driver-tests.sh: its body is machine
 * code at the link of the programs that call it. */
#include <math.h>
double mystery_kernel(double x) { return sin(x) * x; }
