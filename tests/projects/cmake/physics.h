double spring_energy(double k, double x);
double pendulum_height(double length, double theta);
double total_energy(double x, double theta);
