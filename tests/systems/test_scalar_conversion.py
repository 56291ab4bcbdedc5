"""pydrake's scalar-templated system pattern (`@TemplateSystem.define` + `LeafSystem_[T]`) runs on mallard with
swapped imports, and Linearize gives pydrake's (AutoDiffXd) answer by finite differences."""
import numpy as np
import pytest

from oracles import require_pydrake

SCRIPT = '''
import numpy as np
from {pkg}.systems.framework import BasicVector_, LeafSystem_
from {pkg}.systems.scalar_conversion import TemplateSystem
from {pkg}.systems.primitives import Linearize

@TemplateSystem.define("Pendulum_")
def Pendulum_(T):
    class Impl(LeafSystem_[T]):
        def _construct(self, converter=None, damping=0.1):
            LeafSystem_[T].__init__(self, converter)
            self.damping = damping
            self.DeclareVectorInputPort("tau", 1)
            self.DeclareContinuousState(1, 1, 0)
            self.DeclareVectorOutputPort("x", 2, self.CalcOutput, prerequisites_of_calc={{self.xc_ticket()}})

        def _construct_copy(self, other, converter=None):
            Impl._construct(self, converter=converter, damping=other.damping)

        def DoCalcTimeDerivatives(self, context, derivatives):
            x = context.get_continuous_state_vector().CopyToVector()
            tau = self.get_input_port(0).Eval(context)[0]
            derivatives.get_mutable_vector().SetFromVector(
                [x[1], -9.81 * np.sin(x[0]) - self.damping * x[1] + tau])

        def CalcOutput(self, context, output):
            output.SetFromVector(context.get_continuous_state_vector().CopyToVector())
    return Impl

Pendulum = Pendulum_[None]
pendulum = Pendulum(damping=0.2)
context = pendulum.CreateDefaultContext()
context.SetContinuousState([np.pi, 0.0])
pendulum.get_input_port(0).FixValue(context, [0.0])
lin = Linearize(pendulum, context)
result = (lin.A(), lin.B(), lin.C(), lin.D())
'''


def run(pkg: str):
    namespace: dict = {}
    exec(compile(SCRIPT.format(pkg=pkg), f"<{pkg} template script>", "exec"), namespace)
    return namespace["result"], namespace


def test_template_system_linearizes_like_pydrake():
    require_pydrake()
    (A, B, C, D), _ = run("mallard")
    (A_d, B_d, C_d, D_d), _ = run("pydrake")
    np.testing.assert_allclose(A, A_d, atol=1e-8)
    np.testing.assert_allclose(B, B_d, atol=1e-8)
    np.testing.assert_allclose(C, C_d, atol=1e-12)
    np.testing.assert_allclose(D, D_d, atol=1e-12)
    np.testing.assert_allclose(A, [[0.0, 1.0], [9.81, -0.2]], atol=1e-8)


def test_other_scalar_types_are_a_clear_error():
    from mallard.systems.framework import LeafSystem_
    _, namespace = run("mallard")

    class AutoDiffXd:
        pass

    with pytest.raises(TypeError, match=r"Pendulum_\[AutoDiffXd\]: mallard computes in double precision only"):
        namespace["Pendulum_"][AutoDiffXd]
    with pytest.raises(TypeError, match="LeafSystem_"):
        LeafSystem_[AutoDiffXd]
    assert namespace["Pendulum_"][float] is namespace["Pendulum"]
