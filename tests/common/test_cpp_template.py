"""mallard.common.cpp_template behaves as pydrake.common.cpp_template: the same instantiation lookup, defaults,
deferred instantiations, names and errors (oracle: pydrake, when installed), and `Value` / the scalar templates
are template objects as in pydrake."""
from __future__ import annotations

import sys

import pytest

from mallard.common import cpp_template as ours
from mallard.common.value import Value
from mallard.multibody.plant import MultibodyPlant, MultibodyPlant_


def _exercise(m) -> list:
    """What a user sees of a small template built with module `m` (ours or pydrake's)."""
    seen = []
    template = m.TemplateClass("Holder", scope=sys.modules[__name__])

    class IntHolder:
        pass

    class FloatHolder:
        pass

    template.add_instantiation(int, IntHolder)
    template.add_instantiation(float, FloatHolder)
    seen.append(template[int] is IntHolder and template[None] is IntHolder and template[[float]] is FloatHolder)
    seen.append(IntHolder.__name__.replace("𝓣", "[").replace("𝓤", "]"))  # pydrake mangles the brackets
    seen.append(template.get_module_name())
    seen.append(str(template))
    seen.append(template.is_instantiation(FloatHolder))
    seen.append(template.get_param_set(FloatHolder) == {(float,)})
    seen.append(template.param_list == [(int,), (float,)])
    with pytest.raises(RuntimeError) as e:
        template[str]
    seen.append(str(e.value).replace("𝓣", "[").replace("𝓤", "]"))
    with pytest.raises(RuntimeError):
        template.add_instantiation(int, IntHolder)
    made = []

    @m.TemplateFunction.define("twice", param_list=[(int,), (float,)], scope=sys.modules[__name__])
    def twice(param):
        made.append(param)
        T, = param
        return lambda x: T(2 * x)

    seen.append(made == [])  # deferred until asked for
    seen.append((twice[float](1.5), twice[int](2), made))
    seen.append(type(twice).__name__)
    return seen


def test_templates_behave_as_pydrakes():
    mine = _exercise(ours)
    assert mine[0] and mine[4] and mine[5] and mine[6] and mine[8]
    assert mine[1] == "Holder[int]"
    assert mine[2] == __name__
    assert mine[3] == f"<TemplateClass {__name__}.Holder>"
    assert mine[7] == "Invalid instantiation: Holder[str]"
    assert mine[9] == (3.0, 4, [(float,), (int,)])
    try:
        from pydrake.common import cpp_template as theirs
    except ImportError:
        pytest.skip("pydrake (the oracle, in the dev extra) is not installed")
    assert mine == _exercise(theirs)


def test_value_and_scalar_templates_are_template_objects():
    assert Value.__module__ == "mallard.common.cpp_template"  # as pydrake's Value: an instance of TemplateClass
    assert Value.get_module_name() == "mallard.common.value"
    assert str(Value) == "<TemplateClass mallard.common.value.Value>"
    v = Value(2.0)
    assert type(v) is Value[float] and isinstance(v, Value[float]) and v.get_value() == 2.0
    assert Value.is_instantiation(type(v))
    assert MultibodyPlant_[float] is MultibodyPlant_[None] is MultibodyPlant
    assert MultibodyPlant_.is_subclass_of_instantiation(type("Mine", (MultibodyPlant,), {})) is MultibodyPlant
    with pytest.raises(TypeError, match="double precision only"):
        MultibodyPlant_["AutoDiffXd"]
