"""Both kinds of MJCF engine plugin in one MultibodyPlant: a DC motor (`mallard.actuator.dcmotor`, with the
winding thermometer that shares its instance) spins a turntable carrying MuJoCo's SDF bowl (`mujoco.sdf.bowl`),
and a ball dropped into the bowl is dragged around by friction. The motor voltage is the plant's MJCF ctrl
input; speed and temperature come from the model's sensordata output port. Prints a summary and saves a plot.

    python examples/plugins_dcmotor_bowl.py [--duration SECONDS] [--out plugins_dcmotor_bowl.png]
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from mallard.multibody.plant import (AddMultibodyPlantSceneGraph, GetMujocoCtrlInputPort, GetMujocoSensorOutputPort,
                                     MultibodyPlant)
from mallard.parsers import Parser
from mallard.systems.analysis import Simulator
from mallard.systems.framework import DiagramBuilder
from mallard.systems.primitives import LogVectorOutput

from gallery import parse_args, save_plot

TIME_STEP = 0.002  # s: the model's <option timestep>
VOLTAGE = 4.0  # V: armature voltage (the motor's ctrl)
GEAR = 10.0  # turntable rad per motor rad (the actuator gear)
MOTOR = dict(resistance=0.5, motorconst=0.05, thermalresistance=2.0, thermalcapacitance=10.0, tempcoef=0.0039,
             ambient=25.0)
BALL_MASS, BALL_RADIUS = 1.0, 0.1  # kg, m
BOWL_Z = 1.0  # m: the turntable (and bowl centre) height

XML = f"""
<mujoco model="motor_bowl">
  <extension>
    <plugin plugin="mallard.actuator.dcmotor"><instance name="motor">
      {"".join(f'<config key="{k}" value="{v}"/>' for k, v in MOTOR.items())}
    </instance></plugin>
    <plugin plugin="mujoco.sdf.bowl"><instance name="bowl">
      <config key="height" value="0.4"/><config key="radius" value="1.0"/><config key="thickness" value="0.02"/>
    </instance></plugin>
  </extension>
  <option timestep="{TIME_STEP}"/>
  <asset><mesh name="bowl"><plugin instance="bowl"/></mesh></asset>
  <worldbody>
    <body name="turntable" pos="0 0 {BOWL_Z}">
      <joint name="spin" type="hinge" axis="0 0 1" damping="0.05"/>
      <inertial pos="0 0 0" mass="5" diaginertia="0.5 0.5 0.5"/>
      <geom type="sdf" name="bowl" mesh="bowl" rgba=".6 .7 .9 1"><plugin instance="bowl"/></geom>
    </body>
    <body name="ball" pos="0.3 0 {BOWL_Z - 0.7}"><freejoint/>
      <geom type="sphere" size="{BALL_RADIUS}" mass="{BALL_MASS}" rgba=".9 .3 .2 1"/></body>
  </worldbody>
  <actuator><plugin name="motor" joint="spin" instance="motor" gear="{GEAR}"/></actuator>
  <sensor>
    <plugin name="winding_temperature" instance="motor"/>
    <jointvel name="spin_rate" joint="spin"/>
    <actuatorfrc name="motor_torque" actuator="motor"/>
  </sensor>
</mujoco>"""


def add_motor_bowl(builder: DiagramBuilder) -> MultibodyPlant:
    """A discrete plant holding the motor-driven bowl and the ball, finalized."""
    plant, _ = AddMultibodyPlantSceneGraph(builder, TIME_STEP)
    Parser(plant).AddModelsFromString(XML, "xml")
    plant.Finalize()
    return plant


def no_load_speed() -> float:
    """Turntable speed [rad/s] where the back-EMF cancels the voltage (no damping, no load)."""
    return VOLTAGE / (MOTOR["motorconst"] * GEAR)


def run(duration: float = 3.0, out: str | Path = "plugins_dcmotor_bowl.png") -> dict:
    builder = DiagramBuilder()
    plant = add_motor_bowl(builder)
    sensors = LogVectorOutput(GetMujocoSensorOutputPort(plant), builder)
    states = LogVectorOutput(plant.get_state_output_port(), builder)
    diagram = builder.Build()
    simulator = Simulator(diagram)
    context = plant.GetMyMutableContextFromRoot(simulator.get_mutable_context())
    GetMujocoCtrlInputPort(plant).FixValue(context, [VOLTAGE])
    simulator.AdvanceTo(duration)

    root = simulator.get_context()
    data_log, x_log = sensors.FindLog(root), states.FindLog(root)
    t, data = data_log.sample_times(), data_log.data()
    temperature, spin_rate, torque = data[0], data[1], data[2]
    ball = plant.GetBodyByName("ball")
    q_rows = ball.floating_positions_start() + np.arange(4, 7)
    p_ball = x_log.data()[q_rows]
    radius = np.hypot(p_ball[0], p_ball[1])
    angle = np.unwrap(np.arctan2(p_ball[1], p_ball[0]))
    results = plant.get_contact_results_output_port().Eval(context)
    f_contact = sum((results.point_pair_contact_info(i).contact_force()
                     for i in range(results.num_point_pair_contacts())), np.zeros(3))
    summary = {"steps": int(round(duration / TIME_STEP)), "final_spin_rate": float(spin_rate[-1]),
               "no_load_speed": no_load_speed(), "temperature_rise": float(temperature[-1] - MOTOR["ambient"]),
               "max_temperature": float(temperature.max()), "peak_torque": float(np.abs(torque).max() * GEAR),
               "ball_revolutions": float((angle[-1] - angle[0]) / (2 * np.pi)),
               "ball_final_radius": float(radius[-1]), "ball_min_height": float(p_ball[2].min()),
               "final_contact_force": f_contact.tolist(), "num_contacts": int(results.num_point_pair_contacts())}

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, 3, figsize=(11, 3.6))
    ax = axes[0]
    ax.plot(t, spin_rate, color="C0", label="turntable speed (rad/s)")
    ax.axhline(no_load_speed(), color="C0", ls="--", lw=0.8, label="no-load speed V/(K·gear)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("rad/s")
    ax2 = ax.twinx()
    ax2.plot(t, temperature, color="C3", label="winding temperature (°C)")
    ax2.set_ylabel("winding temperature (°C)", color="C3")
    ax.legend(loc="center right", fontsize="small")
    ax.set_title("DC-motor plugin + thermometer sensor", fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax = axes[1]
    ax.plot(t, torque * GEAR, color="C2")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("motor torque on the turntable (N·m)")
    ax.set_title(f"{VOLTAGE:g} V step; torque falls with back-EMF", fontsize="medium")
    ax.grid(True, alpha=0.3)
    ax = axes[2]
    theta = np.linspace(0, 2 * np.pi, 200)
    rim = np.sqrt(1.0 - 0.4**2)
    ax.plot(rim * np.cos(theta), rim * np.sin(theta), color="0.6", lw=1, label="bowl rim")
    sc = ax.scatter(p_ball[0], p_ball[1], c=t, s=3, cmap="viridis")
    fig.colorbar(sc, ax=ax, label="time (s)")
    ax.set_aspect("equal")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    ax.set_title("ball in the SDF bowl (top view)", fontsize="medium")
    ax.legend(loc="upper right", fontsize="small")
    return save_plot(fig, out, summary)


def main() -> None:
    args = parse_args(__doc__, 3.0, "plugins_dcmotor_bowl.png")
    s = run(args.duration, args.out)
    print(f"motor: turntable at {s['final_spin_rate']:.2f} rad/s (no-load {s['no_load_speed']:.1f}), winding "
          f"+{s['temperature_rise']:.2f} K; ball: {s['ball_revolutions']:.2f} revolutions in the bowl, "
          f"{s['num_contacts']} SDF contacts carrying {-s['final_contact_force'][2]:.2f} N at the end "
          f"({s['steps']} steps) -> {s['plot']}")


if __name__ == "__main__":
    main()
