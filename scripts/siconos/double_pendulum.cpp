// A reference run of models/double_pendulum.toml with Siconos (4.4, the Debian packages):
// the double pendulum against a wall of Siconos' mechanics/Pendulum/DoublePendulumTS example,
// written here with Siconos' C++ API (no plugin library: the functions below are handed to
// Siconos as pointers). Built and run by scripts/siconos/double_pendulum.sh.
//
// Usage: double_pendulum [--tol X] [--max-iter N] [--shipped-jacobian] [--every K]
//   --tol X              Siconos' Newton tolerance (TimeStepping::setNewtonTolerance): the
//                        largest 2-norm of the Moreau-Jean residual
//                        M(q)(v - v_k) - h [theta F(q, v) + (1 - theta) F_k] - G(q)^T p
//                        accepted, in N.m.s (default 0.05, the example's)
//   --max-iter N         Newton iterations at most per step (default 20000, the example's)
//   --shipped-jacobian   use the example's derivative of the gyroscopic force with respect
//                        to th1, m2 l2 w1 w2 cos(th1 - th2) (exact: m2 l2 w2^2 cos(th1 - th2));
//                        it changes only the Newton iteration matrix, so only unconverged runs
//   --every K            print every K-th step and every step with a percussion (default 1)
// Output (standard output): CSV, time,th1,w1,th2,w2,p1,p2,iterations,residual with p1, p2
// the percussions of the wall on the first link's end and on the tip over the step
// (Siconos' lambda(1)), iterations the Newton iterations of the step and residual the
// residual's 2-norm at its end.
#include <SiconosKernel.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

const double g = 10.0, m1 = 1.0, m2 = 1.0, l1 = 1.0, l2 = 1.0;
bool shipped_jacobian = false;

// M(q) = [[(m1 + m2) l1^2, m2 l1 l2 cos(q0 - q1)], [m2 l1 l2 cos(q0 - q1), m2 l2^2]]
// (column-major, as every matrix Siconos hands to these functions).
void mass(unsigned int, double* q, double* M, unsigned int, double*) {
  const double c = m2 * l1 * l2 * std::cos(q[0] - q[1]);
  M[0] = (m1 + m2) * l1 * l1;
  M[1] = c;
  M[2] = c;
  M[3] = m2 * l2 * l2;
}

// Siconos' LagrangianDS: M(q) dv/dt + FGyr(q, v) + FInt(q, v, t) = FExt(t) + p.
// FGyr: the centrifugal terms of the Lagrangian of the two point masses.
void fgyr(unsigned int, double* q, double* v, double* f, unsigned int, double*) {
  const double k = m2 * l1 * l2, s = std::sin(q[0] - q[1]);
  f[0] = k * v[1] * v[1] * s;
  f[1] = -k * v[0] * v[0] * s;
}

void fgyr_q(unsigned int, double* q, double* v, double* J, unsigned int, double*) {
  const double k = m2 * l1 * l2, c = std::cos(q[0] - q[1]);
  J[0] = shipped_jacobian ? k * v[1] * v[0] * c : k * v[1] * v[1] * c;  // d f0 / d q0
  J[1] = -k * v[0] * v[0] * c;                                          // d f1 / d q0
  J[2] = -k * v[1] * v[1] * c;                                          // d f0 / d q1
  J[3] = k * v[0] * v[0] * c;                                           // d f1 / d q1
}

void fgyr_v(unsigned int, double* q, double* v, double* J, unsigned int, double*) {
  const double k = m2 * l1 * l2, s = std::sin(q[0] - q[1]);
  J[0] = 0.0;
  J[1] = -2.0 * k * v[0] * s;
  J[2] = 2.0 * k * v[1] * s;
  J[3] = 0.0;
}

// FInt: gravity.
void fint(double, unsigned int, double* q, double*, double* f, unsigned int, double*) {
  f[0] = (m1 + m2) * g * l1 * std::sin(q[0]);
  f[1] = m2 * g * l2 * std::sin(q[1]);
}

void fint_q(double, unsigned int, double* q, double*, double* J, unsigned int, double*) {
  J[0] = (m1 + m2) * g * l1 * std::cos(q[0]);
  J[1] = 0.0;
  J[2] = 0.0;
  J[3] = m2 * g * l2 * std::cos(q[1]);
}

void fint_v(double, unsigned int, double*, double*, double* J, unsigned int, double*) {
  for (int i = 0; i < 4; ++i) J[i] = 0.0;
}

// The wall at x = 0: gap of the first link's end (tip = false), l1 sin q0, or of the tip,
// l1 sin q0 + l2 sin q1.
class WallR : public LagrangianScleronomousR {
  bool _tip;

 public:
  explicit WallR(bool tip) : LagrangianScleronomousR(), _tip(tip) {}
  void computeh(const BlockVector& q, BlockVector&, SiconosVector& y) override {
    y(0) = l1 * std::sin(q.getValue(0)) + (_tip ? l2 * std::sin(q.getValue(1)) : 0.0);
  }
  void computeJachq(const BlockVector& q, BlockVector&) override {
    _jachq->setValue(0, 0, l1 * std::cos(q.getValue(0)));
    _jachq->setValue(0, 1, _tip ? l2 * std::cos(q.getValue(1)) : 0.0);
  }
};

}  // namespace

int main(int argc, char* argv[]) {
  double tol = 0.05;
  unsigned int max_iter = 20000, every = 1;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--tol") && i + 1 < argc)
      tol = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--max-iter") && i + 1 < argc)
      max_iter = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--every") && i + 1 < argc)
      every = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--shipped-jacobian"))
      shipped_jacobian = true;
    else {
      std::fprintf(stderr, "usage: %s [--tol X] [--max-iter N] [--shipped-jacobian] [--every K]\n",
                   argv[0]);
      return 2;
    }
  }
  const double t0 = 0.0, T = 5.0, h = 5e-4, theta = 0.500001;
  try {
    SP::SiconosVector q0(new SiconosVector(2)), v0(new SiconosVector(2));
    (*q0)(0) = 0.1;
    (*q0)(1) = 0.2;
    v0->zero();
    SP::LagrangianDS ds(new LagrangianDS(q0, v0));
    ds->setComputeMassFunction(mass);
    ds->setComputeFGyrFunction(fgyr);
    ds->setComputeJacobianFGyrqFunction(fgyr_q);
    ds->setComputeJacobianFGyrqDotFunction(fgyr_v);
    ds->setComputeFIntFunction(fint);
    ds->setComputeJacobianFIntqFunction(fint_q);
    ds->setComputeJacobianFIntqDotFunction(fint_v);

    // Restitution 1 for the first link's end, 0 for the tip, as the example.
    SP::Interaction link(new Interaction(SP::NonSmoothLaw(new NewtonImpactNSL(1.0)),
                                         SP::Relation(new WallR(false))));
    SP::Interaction tip(new Interaction(SP::NonSmoothLaw(new NewtonImpactNSL(0.0)),
                                        SP::Relation(new WallR(true))));
    SP::NonSmoothDynamicalSystem nsds(new NonSmoothDynamicalSystem(t0, T));
    nsds->insertDynamicalSystem(ds);
    nsds->link(link, ds);
    nsds->link(tip, ds);

    SP::TimeDiscretisation td(new TimeDiscretisation(t0, h));
    SP::TimeStepping s(new TimeStepping(nsds, td));
    s->setNewtonTolerance(tol);
    s->setNewtonMaxIteration(max_iter);
    s->insertIntegrator(SP::MoreauJeanOSI(new MoreauJeanOSI(theta)));
    s->insertNonSmoothProblem(SP::OneStepNSProblem(new LCP()));  // Lemke, the default

    SP::SiconosVector q = ds->q(), v = ds->velocity();
    std::printf("time,th1,w1,th2,w2,p1,p2,iterations,residual\n");
    std::printf("%.17g,%.17g,%.17g,%.17g,%.17g,0,0,0,0\n", t0, (*q)(0), (*v)(0), (*q)(1),
                (*v)(1));
    unsigned int k = 0, not_converged = 0;
    while (s->hasNextEvent()) {
      ++k;
      s->advanceToEvent();
      if (!s->isNewtonConverge()) ++not_converged;
      if (k % every == 0 || (*link->lambda(1))(0) != 0.0 || (*tip->lambda(1))(0) != 0.0)
        std::printf("%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%u,%.3e\n", s->nextTime(), (*q)(0),
                    (*v)(0), (*q)(1), (*v)(1), (*link->lambda(1))(0), (*tip->lambda(1))(0),
                    s->getNewtonNbIterations(), s->newtonResiduDSMax());
      s->nextStep();
    }
    std::fprintf(stderr, "%u steps, %u Newton iterations, %u steps not converged\n", k,
                 s->getNewtonCumulativeNbIterations(), not_converged);
    return 0;
  } catch (...) {
    Siconos::exception::process();  // prints the message
  }
  return 1;
}
