"""A PI position controller with velocity feedback, as a Python class that PythonFMU
(`pythonfmu build -f pi_controller.py`) turns into an FMI 2.0 co-simulation FMU.

It is the "other exporter's" FMU of examples/cosim_pi.py: it drives the applied force
F_a of lcsfmu's coulomb_friction to a position set-point,

    F = kp (r - x) + ki z - kd v,        z' = r - x,

sampled at the communication points: F has direct feedthrough (it is computed from the
inputs x, v as they are set, so a master that sets x, v and then reads F gets the force
for the coming step), and do_step integrates z over the step with the input held (the
forward Euler sum that a zero-order hold makes exact). kd = 0 gives a pure PI.
"""
from pythonfmu import Fmi2Causality, Fmi2Slave, Fmi2Variability, Real


class PIController(Fmi2Slave):
    author = "lcsfmu examples"
    description = "PI position controller with velocity feedback (F = kp e + ki z - kd v, z' = e)"

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.r = 1.0
        self.kp = 20.0
        self.ki = 20.0
        self.kd = 6.0
        self.x = 0.0
        self.v = 0.0
        self.z = 0.0
        for name in ("r", "kp", "ki", "kd"):
            self.register_variable(Real(name, causality=Fmi2Causality.parameter,
                                        variability=Fmi2Variability.tunable))
        for name in ("x", "v"):
            self.register_variable(Real(name, causality=Fmi2Causality.input))
        # The integral is the controller's state; exposed as an output so a master can log it.
        self.register_variable(Real("z", causality=Fmi2Causality.output))
        # Feedthrough: F follows the inputs at once instead of waiting for the next step.
        self.register_variable(Real("F", causality=Fmi2Causality.output, getter=self.force))

    def force(self) -> float:
        return self.kp * (self.r - self.x) + self.ki * self.z - self.kd * self.v

    def do_step(self, current_time: float, step_size: float) -> bool:
        self.z = self.z + step_size * (self.r - self.x)
        return True
