"""pipeline/structs.py: a struct type's name in compiled symbols is short (its class and a digest of its fields), and
still tells struct types apart, so the step's libraries do not carry every field type in every symbol."""
from numba import njit
from numba.core import types
from numba.core.itanium_mangler import mangle_type_or_value
from numba.experimental import structref

from mallard.multibody.pipeline.data import DATA, new_data
from mallard.multibody.pipeline.model import MODEL
from mallard.multibody.pipeline.passive import PASSIVE_MODEL
from mallard.multibody.pipeline.structs import F1, I1, declare


class _ProbeType(types.StructRef):
    pass


class _Probe(structref.StructRefProxy):
    pass


def test_struct_types_mangle_to_short_names_that_differ_with_their_fields():
    names = [mangle_type_or_value(t) for t in (DATA, MODEL, PASSIVE_MODEL)]
    assert len(DATA.name) > 2000 and len(MODEL.name) > 2000  # numba's own names spell every field's type
    assert all(len(n) < 64 for n in names) and len(set(names)) == 3
    a = declare(_ProbeType, _Probe, [("x", F1)])
    b = _ProbeType([("x", I1)])
    assert a.mangling_args[0].startswith("_ProbeType_") and b.mangling_args[0].startswith("_ProbeType_")
    assert mangle_type_or_value(a) != mangle_type_or_value(b)


def test_a_function_of_the_data_compiles_with_a_short_symbol_and_reads_it():
    d = new_data()  # every array of size 0, the error fields -1

    @njit
    def fields(d):
        return d.q.shape[0] + 10 * d.M.shape[1], d.bad_index

    assert fields(d) == (0, -1)
    (cres,) = fields.overloads.values()
    symbol = cres.fndesc.mangled_name
    assert symbol.endswith(mangle_type_or_value(DATA)) and len(symbol) < 400  # numba's own: > 2000 characters
    assert len(cres.fndesc.env_name) < 400
