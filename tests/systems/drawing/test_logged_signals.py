"""plot_logged_signals / port_signal_names: a logger's traces carry the logged port's names (pydrake state names,
actuator names, MJCF actuator and sensor names), through ZeroOrderHold and diagram outputs; positions,
velocities and efforts get their own panels; a 55-signal log keeps a 10-entry legend with a note."""
import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from mallard.multibody.plant import AddMultibodyPlantSceneGraph, MultibodyPlant  # noqa: E402
from mallard.parsers import Parser  # noqa: E402
from mallard.systems.analysis import Simulator  # noqa: E402
from mallard.systems.controllers import InverseDynamicsController  # noqa: E402
from mallard.systems.drawing import logged_signal_names, plot_logged_signals, port_signal_names  # noqa: E402
from mallard.systems.framework import DiagramBuilder  # noqa: E402
from mallard.systems.primitives import ConstantVectorSource, LogVectorOutput, Saturation, ZeroOrderHold  # noqa: E402

JOINTS = [f"iiwa_joint_{i}" for i in range(1, 8)]


def _iiwa(plant, models_dir):
    parser = Parser(plant)
    parser.package_map().Remove("drake_models")  # the default map knows it as a remote package, as pydrake's
    parser.package_map().AddPackageXml(str(models_dir / "drake_models" / "package.xml"))
    parser.AddModels(str(models_dir / "drake_models" / "iiwa_description" / "urdf" / "iiwa14_no_collision.urdf"))
    plant.WeldFrames(plant.world_frame(), plant.GetFrameByName("base"))
    plant.Finalize()
    return plant


def _legend(ax) -> tuple[list[str], str]:
    legend = ax.get_legend()
    return [t.get_text() for t in legend.get_texts()], legend.get_title().get_text()


@pytest.mark.filterwarnings("ignore:MultibodyPlant.*joint limits")
def test_iiwa_state_and_held_torques_are_named_and_grouped(models_dir, tmp_path):
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 1e-3)
    _iiwa(plant, models_dir)
    control = _iiwa(MultibodyPlant(0.0), models_dir)
    controller = builder.AddSystem(InverseDynamicsController(control, [100.0] * 7, [0.0] * 7, [20.0] * 7, False))
    target = builder.AddSystem(ConstantVectorSource(np.r_[np.full(7, 0.2), np.zeros(7)]))
    hold = builder.AddSystem(ZeroOrderHold(0.005, 7))
    builder.Connect(plant.get_state_output_port(), controller.get_input_port_estimated_state())
    builder.Connect(target.get_output_port(0), controller.get_input_port_desired_state())
    builder.Connect(controller.get_output_port_control(), hold.get_input_port())
    builder.Connect(hold.get_output_port(), plant.get_actuation_input_port())
    state = LogVectorOutput(plant.get_state_output_port(), builder, 0.01)
    torque = LogVectorOutput(hold.get_output_port(), builder, 0.01)
    forces = LogVectorOutput(controller.get_output_port_generalized_force(), builder, 0.01)
    simulator = Simulator(builder.Build())
    simulator.AdvanceTo(0.3)

    names = logged_signal_names(state)
    assert names.names == tuple([f"{j}_q" for j in JOINTS] + [f"{j}_w" for j in JOINTS])
    assert [(g.label, g.unit, g.indices) for g in names.groups] == [
        ("positions q", "rad", tuple(range(7))), ("velocities v", "rad/s", tuple(range(7, 14)))]
    held = logged_signal_names(torque)  # through the ZeroOrderHold to the controller's actuation output
    assert held.names == tuple(f"iiwa_motor_{i}" for i in range(1, 8))
    assert [(g.label, g.unit) for g in held.groups] == [("efforts (actuation)", "N·m")]
    assert logged_signal_names(forces).names == tuple(f"{j}_tau" for j in JOINTS)
    assert port_signal_names(plant.get_net_actuation_output_port()).names == held.names

    fig = plot_logged_signals([state, torque], simulator.get_context(), title="iiwa")
    axes = fig.axes
    assert [ax.get_title(loc="left") for ax in axes] == ["positions q", "velocities v", "efforts (actuation)"]
    assert [ax.get_ylabel() for ax in axes] == ["rad", "rad/s", "N·m"]
    assert _legend(axes[0]) == ([f"{j}_q" for j in JOINTS], "")
    log = state.FindLog(simulator.get_context())
    np.testing.assert_array_equal(axes[1].get_lines()[2].get_ydata(), log.data()[9])
    np.testing.assert_array_equal(axes[2].get_lines()[0].get_xdata(), torque.FindLog(simulator.get_context()).sample_times())
    fig.savefig(tmp_path / "iiwa.png")
    assert (tmp_path / "iiwa.png").stat().st_size > 20_000


def test_thirty_plus_signals_keep_a_short_legend(models_dir):
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.005)
    Parser(plant).AddModels(str(models_dir / "mujoco" / "model" / "humanoid.xml"))
    plant.Finalize()
    state = LogVectorOutput(plant.get_state_output_port(), builder, 0.01)
    simulator = Simulator(builder.Build())
    simulator.AdvanceTo(0.2)
    log = state.FindLog(simulator.get_context())
    names = plant.GetStateNames(add_model_instance_prefix=False)
    assert logged_signal_names(state).names == tuple(names) and len(names) == 55

    fig = plot_logged_signals(state, simulator.get_context(), legend_entries=10)
    q_panel, v_panel = fig.axes
    labels, note = _legend(q_panel)
    assert len(labels) == 10 and note == "+18 more (smaller range, grey)"
    spread = np.ptp(log.data()[:28], axis=1)
    assert set(labels) == {names[i] for i in np.argsort(-spread, kind="stable")[:10]}
    assert len(q_panel.get_lines()) == 28 and _legend(v_panel)[1] == "+17 more (smaller range, grey)"


def test_mjcf_ctrl_and_sensordata_names(tmp_path):
    xml = tmp_path / "arm.xml"
    xml.write_text("""<mujoco model="arm"><worldbody><body name="link"><joint name="hinge" axis="0 1 0"/>
      <geom type="capsule" size="0.05" fromto="0 0 0 0.5 0 0" mass="1"/><site name="tip" pos="0.5 0 0"/>
      </body></worldbody>
      <actuator><motor name="shoulder" joint="hinge"/></actuator>
      <sensor><jointpos name="angle" joint="hinge"/><framepos name="tip_pos" objtype="site" objname="tip"/>
      <framequat name="tip_quat" objtype="site" objname="tip"/><jointvel joint="hinge"/></sensor></mujoco>""")
    builder = DiagramBuilder()
    plant, _ = AddMultibodyPlantSceneGraph(builder, 0.002)
    Parser(plant).AddModels(str(xml))
    plant.Finalize()
    sensors = port_signal_names(plant.GetOutputPort("arm_sensordata"))
    assert sensors.names == ("angle", "tip_pos_x", "tip_pos_y", "tip_pos_z", "tip_quat_w", "tip_quat_x",
                             "tip_quat_y", "tip_quat_z", "jointvel3")
    assert [(g.label, g.indices) for g in sensors.groups] == [
        ("sensors: jointpos", (0,)), ("sensors: framepos", (1, 2, 3)), ("sensors: framequat", (4, 5, 6, 7)),
        ("sensors: jointvel", (8,))]
    assert port_signal_names(plant.GetInputPort("arm_ctrl")).names == ("shoulder",)


def test_unnamed_signals_and_bad_input():
    builder = DiagramBuilder()
    source = builder.AddSystem(ConstantVectorSource([1.0, -2.0, 3.0]))
    clip = builder.AddSystem(Saturation([-1.0] * 3, [1.0] * 3))
    builder.Connect(source.get_output_port(0), clip.get_input_port(0))
    logger = LogVectorOutput(clip.get_output_port(0), builder, 0.1)
    simulator = Simulator(builder.Build())
    simulator.AdvanceTo(0.3)
    assert logged_signal_names(logger) is None  # nothing upstream names a constant
    fig = plot_logged_signals(logger, simulator.get_context())
    assert _legend(fig.axes[0])[0] == ["x[0]", "x[1]", "x[2]"] and fig.axes[0].get_title(loc="left") == "signals"
    fig = plot_logged_signals(logger.FindLog(simulator.get_context()), names=["a", "b", "c"])
    assert _legend(fig.axes[0])[0] == ["a", "b", "c"]
    np.testing.assert_array_equal(fig.axes[0].get_lines()[0].get_ydata(), [1.0] * 3)  # t = 0, 0.1, 0.2 (0.3 is left pending)
    with pytest.raises(ValueError, match="is a logger; pass the root context"):
        plot_logged_signals(logger)
    with pytest.raises(ValueError, match="2 names for a log with 3 rows"):
        plot_logged_signals(logger, simulator.get_context(), names=["a", "b"])
    with pytest.raises(TypeError, match="item 0 is a ndarray"):
        plot_logged_signals(np.zeros((2, 3)))
