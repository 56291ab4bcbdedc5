"""RobotDiagramBuilder / RobotDiagram (pydrake.planning) against pydrake: exported ports, contexts, build rules."""
from __future__ import annotations

import numpy as np
import pytest

from oracles import require_pydrake

from mallard.planning import RobotDiagram, RobotDiagramBuilder, RobotDiagramBuilder_
from mallard.systems.primitives import ConstantVectorSource



@pytest.fixture
def cart_pole(models_dir):
    return str(models_dir / "drake_examples" / "cart_pole.sdf")


def _ports(diagram):
    return ([diagram.get_input_port(i).get_name() for i in range(diagram.num_input_ports())],
            [diagram.get_output_port(i).get_name() for i in range(diagram.num_output_ports())])


def test_build_exports_every_port_as_pydrake_does(cart_pole):
    require_pydrake()
    from pydrake.planning import RobotDiagramBuilder as DrakeRobotDiagramBuilder
    diagrams = []
    for cls in (RobotDiagramBuilder, DrakeRobotDiagramBuilder):
        builder = cls(time_step=0.01)
        builder.parser().AddModels(cart_pole)
        diagrams.append(builder.Build())
    assert _ports(diagrams[0]) == _ports(diagrams[1])
    values = []
    for diagram in diagrams:
        context = diagram.CreateDefaultContext()
        plant = diagram.plant()
        plant.SetPositions(diagram.mutable_plant_context(context), [0.1, 0.4])
        diagram.get_input_port(0).FixValue(context, [2.0])
        values.append((diagram.GetOutputPort("plant_state").Eval(context),
                       diagram.GetOutputPort("plant_generalized_acceleration").Eval(context)))
    np.testing.assert_allclose(values[0][0], values[1][0], rtol=0, atol=1e-14)
    np.testing.assert_allclose(values[0][1], values[1][1], rtol=1e-12, atol=1e-12)


def test_contexts_finalize_and_single_use(cart_pole):
    builder = RobotDiagramBuilder_[float]()
    assert builder.plant().time_step() == 0.001 and not builder.IsDiagramBuilt()
    assert builder.plant().get_name() == "plant" and builder.scene_graph().get_name() == "scene_graph"
    builder.parser().AddModels(cart_pole)
    diagram = builder.Build()
    assert isinstance(diagram, RobotDiagram) and builder.IsDiagramBuilt()
    assert diagram.plant().is_finalized()
    context = diagram.CreateDefaultContext()
    assert diagram.plant_context(context) is diagram.plant().GetMyContextFromRoot(context)
    assert diagram.scene_graph_context(context) is diagram.scene_graph().GetMyContextFromRoot(context)
    with pytest.raises(RuntimeError, match="not a root context"):
        diagram.plant_context(diagram.plant_context(context))
    for method in ("Build", "plant", "builder", "parser", "scene_graph"):
        with pytest.raises(RuntimeError, match="Build\\(\\) has already been called"):
            getattr(builder, method)()


def test_custom_diagrams_export_nothing_by_default(cart_pole):
    builder = RobotDiagramBuilder(time_step=0.0)
    builder.parser().AddModels(cart_pole)
    builder.builder().AddSystem(ConstantVectorSource([0.0]))
    diagram = builder.Build()
    assert diagram.num_input_ports() == 0 and diagram.num_output_ports() == 0
