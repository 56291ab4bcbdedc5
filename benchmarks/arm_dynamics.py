"""7-DOF arm: mallard vs pydrake on CalcMassMatrix, CalcBiasTerm, CalcInverseDynamics and a 1 ms
discrete plant simulated for 5 s under a joint PD controller written as a Python LeafSystem.

The same arm (iiwa-like kinematics: alternating z / y revolute axes with link offsets, solid-cylinder
links) is built programmatically in both engines.  Prints per-call times and the ratio
pydrake/mallard (> 1 means mallard is faster).  The machine may be shared, so the two engines are
measured in alternating rounds and every number is the median over the rounds.
The row SetPositions+M+C sets a new q before CalcMassMatrix and CalcBiasTerm, so no cached kinematics survive.
Run: python benchmarks/arm_dynamics.py [rounds]
"""
from __future__ import annotations

import sys
import time
import types

import numpy as np

LINKS = [  # (joint axis, offset of the joint frame in the parent [m], link mass [kg], link length [m])
    ((0, 0, 1), (0, 0, 0.1575), 5.76, 0.20), ((0, 1, 0), (0, 0, 0.2025), 6.35, 0.20),
    ((0, 0, 1), (0, 0, 0.2045), 3.50, 0.20), ((0, -1, 0), (0, 0, 0.2155), 3.50, 0.20),
    ((0, 0, 1), (0, 0, 0.1845), 3.50, 0.20), ((0, 1, 0), (0, 0, 0.2155), 1.80, 0.08),
    ((0, 0, 1), (0, 0, 0.0810), 1.20, 0.05),
]
Q_DESIRED = np.array([0.3, 0.6, -0.2, -1.2, 0.4, 0.8, 0.1])
KP, KD = 200.0, 20.0


def mallard_engine():
    from mallard.multibody.math import RigidTransform
    from mallard.multibody.plant import MultibodyPlant
    from mallard.multibody.tree import MultibodyForces, RevoluteJoint, SpatialInertia
    from mallard.systems.analysis import Simulator
    from mallard.systems.framework import DiagramBuilder, LeafSystem
    return types.SimpleNamespace(RigidTransform=RigidTransform, MultibodyPlant=MultibodyPlant,
                                 MultibodyForces=MultibodyForces, RevoluteJoint=RevoluteJoint,
                                 SpatialInertia=SpatialInertia, Simulator=Simulator, DiagramBuilder=DiagramBuilder,
                                 LeafSystem=LeafSystem)


def drake_engine():
    from pydrake.math import RigidTransform
    from pydrake.multibody.plant import MultibodyPlant
    from pydrake.multibody.tree import MultibodyForces, RevoluteJoint, SpatialInertia
    from pydrake.systems.analysis import Simulator
    from pydrake.systems.framework import DiagramBuilder, LeafSystem
    return types.SimpleNamespace(RigidTransform=RigidTransform, MultibodyPlant=MultibodyPlant,
                                 MultibodyForces=MultibodyForces, RevoluteJoint=RevoluteJoint,
                                 SpatialInertia=SpatialInertia, Simulator=Simulator, DiagramBuilder=DiagramBuilder,
                                 LeafSystem=LeafSystem)


def build_arm(E, time_step: float):
    """The arm in engine E: links welded in series by revolute joints, one actuator per joint."""
    plant = E.MultibodyPlant(time_step)
    parent = plant.world_body()
    for i, (axis, offset, mass, length) in enumerate(LINKS):
        M = E.SpatialInertia.SolidCylinderWithMass(mass, 0.06, length, np.array([0.0, 0.0, 1.0]))
        body = plant.AddRigidBody(f"link{i + 1}", M.Shift(np.array([0.0, 0.0, -length / 2])))
        X_PF = E.RigidTransform(np.array(offset, dtype=float))
        frame = plant.AddFrame(_offset_frame(E, f"joint{i + 1}_parent", parent, X_PF))
        joint = plant.AddJoint(E.RevoluteJoint(f"joint{i + 1}", frame, body.body_frame(),
                                               np.array(axis, dtype=float), 0.5))
        motor = plant.AddJointActuator(f"motor{i + 1}", joint)
        motor.set_default_rotor_inertia(1e-4)  # reflected inertia 1e-4·100² = 1 kg·m² keeps PD stable at 1 ms
        motor.set_default_gear_ratio(100.0)
        parent = body
    plant.Finalize()
    return plant


def _offset_frame(E, name, body, X_PF):
    if E.MultibodyPlant.__module__.startswith("pydrake"):
        from pydrake.multibody.tree import FixedOffsetFrame
    else:
        from mallard.multibody.tree import FixedOffsetFrame
    return FixedOffsetFrame(name, body.body_frame(), X_PF)


def make_pd_controller(E):
    class JointPd(E.LeafSystem):
        """u = Kp·(q_d − q) − Kd·v from the plant state [q; v]."""

        def __init__(self):
            super().__init__()
            self.DeclareVectorInputPort("state", 14)
            self.DeclareVectorOutputPort("torque", 7, self.CalcTorque)

        def CalcTorque(self, context, output):
            x = self.get_input_port(0).Eval(context)
            output.SetFromVector(KP * (Q_DESIRED - x[:7]) - KD * x[7:])

    return JointPd()


def time_per_call(fn, seconds: float = 0.2) -> float:
    """Mean wall time of fn() [s], over about `seconds` of calls (after one warm-up call)."""
    fn()
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        for _ in range(200):
            fn()
        n += 200
    return (time.perf_counter() - t0) / n


def kernel_calls(E, rng_seed: int = 0) -> dict:
    """{query name: zero-argument callable} on the arm at a random state (the same state in both engines)."""
    plant = build_arm(E, 0.0)
    context = plant.CreateDefaultContext()
    rng = np.random.default_rng(rng_seed)
    plant.SetPositions(context, rng.uniform(-1, 1, 7))
    plant.SetVelocities(context, rng.uniform(-1, 1, 7))
    forces = E.MultibodyForces(plant)
    vdot = rng.uniform(-1, 1, 7)
    q_pair = [rng.uniform(-1, 1, 7), rng.uniform(-1, 1, 7)]
    flip = [0]

    def set_then_dynamics():  # a new state each call: nothing cached survives (the measure)
        flip[0] ^= 1
        plant.SetPositions(context, q_pair[flip[0]])
        plant.CalcMassMatrix(context)
        plant.CalcBiasTerm(context)
    return {"CalcMassMatrix": lambda: plant.CalcMassMatrix(context),
            "CalcBiasTerm": lambda: plant.CalcBiasTerm(context),
            "CalcInverseDynamics": lambda: plant.CalcInverseDynamics(context, vdot, forces),
            "SetPositions+M+C": set_then_dynamics}


def simulation_rate(E, t_final: float = 5.0) -> tuple[float, np.ndarray]:
    builder = E.DiagramBuilder()
    plant = builder.AddSystem(build_arm(E, 1e-3))
    controller = builder.AddSystem(make_pd_controller(E))
    builder.Connect(plant.get_state_output_port(), controller.get_input_port(0))
    builder.Connect(controller.get_output_port(0), plant.get_actuation_input_port())
    diagram = builder.Build()
    simulator = E.Simulator(diagram)
    warmup = 0.01  # the first steps load compiled kernels; time the steady state only
    simulator.AdvanceTo(warmup)
    t0 = time.perf_counter()
    simulator.AdvanceTo(t_final)
    wall = time.perf_counter() - t0
    plant_context = plant.GetMyContextFromRoot(simulator.get_context())
    return round((t_final - warmup) / 1e-3) / wall, np.array(plant.GetPositions(plant_context))


def main(rounds: int = 5) -> None:
    m, d = mallard_engine(), drake_engine()
    cm, cd = kernel_calls(m), kernel_calls(d)
    times = {name: ([], []) for name in cm}
    rates: tuple[list, list] = ([], [])
    for _ in range(rounds):  # alternate the engines so load changes on a shared machine hit both alike
        for name in cm:
            times[name][0].append(time_per_call(cm[name]))
            times[name][1].append(time_per_call(cd[name]))
        rate_m, qm = simulation_rate(m)
        rate_d, qd = simulation_rate(d)
        rates[0].append(rate_m)
        rates[1].append(rate_d)
    print(f"{'7-DOF arm (median of ' + str(rounds) + ')':<28}{'mallard':>12}{'pydrake':>12}{'pydrake/mallard':>18}")
    for name, (tm, td) in times.items():
        tm, td = np.median(tm), np.median(td)
        print(f"{name + ' [us]':<28}{tm * 1e6:>12.2f}{td * 1e6:>12.2f}{td / tm:>18.2f}")
    rate_m, rate_d = np.median(rates[0]), np.median(rates[1])
    print(f"{'1 ms PD sim [steps/s]':<28}{rate_m:>12.0f}{rate_d:>12.0f}{rate_m / rate_d:>18.2f}")
    print(f"final joint positions agree to {np.abs(qm - qd).max():.2e} rad")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 5)
