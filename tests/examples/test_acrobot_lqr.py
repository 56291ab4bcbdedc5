"""Example 2: LinearQuadraticRegulator(plant, context, Q, R, input_port_index) balances Acrobot.urdf."""
import runpy
from pathlib import Path

import numpy as np
from oracles import require_pydrake

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "acrobot_lqr.py"


def test_acrobot_ends_upright(tmp_path, models_dir):
    module = runpy.run_path(str(EXAMPLE), run_name="acrobot_lqr")
    summary = module["run"](duration=4.0, out=tmp_path / "a.png")
    assert summary["final_angle_error"] < 1e-3
    assert summary["final_rate"] < 1e-3
    # pydrake 1.51.1 on the same model and weights (pydrake_surface.md §3 item 16).
    np.testing.assert_allclose(summary["K"], [-278.44, -112.29, -119.73, -56.83], atol=0.006)
    png = (tmp_path / "a.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and 10_000 < len(png) < 150_000


def test_acrobot_lqr_and_closed_loop_match_pydrake(models_dir):
    require_pydrake()
    from pydrake.multibody.parsing import Parser as DrakeParser
    from pydrake.multibody.plant import MultibodyPlant as DrakePlant
    from pydrake.systems.analysis import Simulator as DrakeSimulator
    from pydrake.systems.controllers import LinearQuadraticRegulator as DrakeLqr
    from pydrake.systems.framework import DiagramBuilder as DrakeBuilder

    module = runpy.run_path(str(EXAMPLE), run_name="acrobot_lqr")
    upright, Q, R = module["UPRIGHT"], module["Q"], module["R"]
    x0 = upright + np.array([0.05, -0.1, 0.0, 0.0])

    def closed_loop(DiagramBuilder, MultibodyPlant, Parser, Lqr, Simulator):
        builder = DiagramBuilder()
        plant = builder.AddSystem(MultibodyPlant(0.0))
        Parser(plant).AddModels(str(models_dir / "drake_examples" / "Acrobot.urdf"))
        plant.Finalize()
        context = plant.CreateDefaultContext()
        plant.SetPositionsAndVelocities(context, upright)
        plant.get_actuation_input_port().FixValue(context, [0.0])
        lqr = builder.AddSystem(Lqr(plant, context, Q, R,
                                    input_port_index=int(plant.get_actuation_input_port().get_index())))
        builder.Connect(plant.get_state_output_port(), lqr.get_input_port(0))
        builder.Connect(lqr.get_output_port(0), plant.get_actuation_input_port())
        simulator = Simulator(builder.Build())
        simulator.get_mutable_integrator().set_target_accuracy(1e-8)
        root = simulator.get_mutable_context()
        plant.SetPositionsAndVelocities(plant.GetMyContextFromRoot(root), x0)
        simulator.AdvanceTo(1.0)
        return -lqr.D(), plant.GetPositionsAndVelocities(plant.GetMyContextFromRoot(root))

    from mallard.multibody.plant import MultibodyPlant
    from mallard.parsers import Parser
    from mallard.systems.analysis import Simulator
    from mallard.systems.controllers import LinearQuadraticRegulator
    from mallard.systems.framework import DiagramBuilder
    K, x = closed_loop(DiagramBuilder, MultibodyPlant, Parser, LinearQuadraticRegulator, Simulator)
    K_drake, x_drake = closed_loop(DrakeBuilder, DrakePlant, DrakeParser, DrakeLqr, DrakeSimulator)
    np.testing.assert_allclose(K, K_drake, rtol=1e-6)  # finite-difference vs autodiff linearization
    np.testing.assert_allclose(x, x_drake, atol=1e-6)  # both integrated to 1e-8 accuracy
