"""Faster loading of numba's on-disk cache: a cached function's LLVM bitcode is parsed when it is needed, not at load.

numba stores a cached function (`@njit(cache=True)`) as its object code plus the LLVM bitcode of its library, and
parses the bitcode at load for two uses only: linking the library into a later compilation that calls the function,
and listing the library's symbols for the JIT engine's symbol checks. For the compiled step (pipeline/forward.py,
multi_step.py: ~7 MB of object code, ~11 MB of bitcode) that parse, and the walk over the module's ~6000 symbols,
are about half of the time a fresh process spends loading it (issue #15's "first simulation" cost). `install()`
makes numba keep the bitcode and parse it on first need: when a compilation links the library, when the engine is
asked whether a symbol is defined (the pending libraries' symbols are listed first, so every answer is the same as
numba's), or when an unknown name is looked up in the library. Looking up the entry a cached function was loaded for
(CPUContext.get_executable: its CPython wrapper, which the library defines by construction) needs neither.

Loading a cached function also no longer builds numba's compiler registries first. numba's Cache.load_overload
refreshes the target context before every load, and the first refresh of a process imports every typing and lowering
module numba has (numpy's array math, linalg, random, typed containers, jitclass: ~150 modules) and, through numba's
BLAS check, scipy.linalg: more than half of a fresh process's first simulation, and none of it is used to load object
code. Only two things the refresh sets up are: the runtime's (NRT) symbols and the hash secret's symbols, which
loaded code may reference; they are set up before each load instead. A compilation still refreshes the contexts
itself (numba's compiler does so before typing), so the registries load when something is first compiled.

Declaring a cached function (`@njit(cache=True)`) checks that its cache folder is writable by creating and
deleting a temporary file there; `import mallard.all` declares ~500 kernels in a few dozen folders, and the ~500
probes were a tenth of the import. A folder that passed the probe once in this process is not probed again (a
folder that fails is probed each time, as before; a folder made read-only later fails when numba writes to it).

The changes are applied only to the numba versions whose loader has the expected shape (checked on the names the
methods they replace use); elsewhere numba loads as usual.
"""
from __future__ import annotations

import sys

from numba.core import caching, codegen, compiler, cpu, environment
from numba.core.registry import cpu_target
from numba.core.runtime import rtsys

__all__ = ["install", "installed", "lazy_refresh", "pending_libraries"]

_state = {"installed": False}


def installed() -> bool:
    """Whether numba's loader parses cached bitcode on first need (install() applied)."""
    return _state["installed"]


def pending_libraries(code_generator=None) -> int:
    """The number of loaded libraries whose bitcode is not parsed yet (for tests and diagnostics)."""
    engine = (code_generator or cpu_target.target_context.codegen())._engine
    return len(getattr(engine, "_mallard_pending", ()))


def _names(function) -> set:
    """The global and attribute names `function`'s code uses (a cheap fingerprint of what it does)."""
    code = getattr(getattr(function, "__func__", function), "__code__", None)
    return set(code.co_names) if code is not None else set()


def _expected_shape(codegen_module, cpu_module) -> bool:
    """Whether numba's loader is the one this module was written against (the names its methods use)."""
    library, engine = codegen_module.CPUCodeLibrary, codegen_module.JitEngine
    try:
        unserialize = _names(library._unserialize)
        linking = _names(library._get_module_for_linking)
        executable = _names(cpu_module.CPUContext.get_executable)
        pointer = _names(codegen_module.JITCodeLibrary.get_pointer_to_function)
    except AttributeError:
        return False
    return ({"parse_bitcode", "_shared_module", "_load_defined_symbols", "_set_compiled_object",
             "_finalize_final_module"} <= unserialize
            and "_shared_module" in linking
            and {"get_pointer_to_function", "llvm_cpython_wrapper_name"} <= executable
            and {"is_symbol_defined", "get_function_address"} <= pointer
            and callable(getattr(engine, "is_symbol_defined", None))
            and callable(getattr(engine, "_load_defined_symbols", None)))


def _parse_pending(library) -> None:
    """Parse `library`'s deferred bitcode into its shared module and list its symbols, as numba's loader does."""
    bitcode = library.__dict__.pop("_mallard_bitcode", None)
    if bitcode is None:
        return
    engine = library._codegen._engine
    library._shared_module = library._mallard_parse(bitcode)
    engine._load_defined_symbols(library._shared_module)
    pending = getattr(engine, "_mallard_pending", None)
    if pending is not None:
        pending.pop(id(library), None)


def _expected_refresh_shape(caching_module, cpu_module, compiler_module) -> bool:
    """Whether a cache load refreshes the context only to initialize it, what the refresh sets up for loaded code is
    the runtime's initialization, and numba's compiler refreshes the contexts itself before compiling."""
    try:
        load = _names(caching_module.Cache.load_overload)
        registries = _names(cpu_module.CPUContext.load_additional_registries)
        compile_setup = _names(compiler_module.CompilerBase.__init__)
    except AttributeError:
        return False
    return (load == {"refresh", "_guard_against_spurious_io_errors", "_load_overload"}
            and {"initialize", "hashing"} <= registries and "refresh" in compile_setup)


def _expected_environment_shape(environment_module) -> bool:
    """Whether numba rebuilds an unpickled Environment from its module's globals, its constants and its name."""
    rebuild = getattr(environment_module, "_rebuild_env", None)
    return rebuild is not None and {"lookup_environment", "import_module", "Environment", "consts", "env_name",
                                    "_memo"} <= _names(rebuild)


def _rebuild_environment(original):
    """numba's _rebuild_env, except that an Environment of numba's own modules not imported yet and without
    constants gets a globals dict naming its module (see the module docstring). It keeps numba's name, so that
    pickles of Environments (numba's cache files) refer to numba's function as before."""

    def _rebuild_env(modname, consts, env_name):
        env = environment.lookup_environment(env_name)
        if env is not None:
            return env
        if consts or not isinstance(modname, str) or not modname.startswith("numba.") or modname in sys.modules:
            return original(modname, consts, env_name)
        env = environment.Environment({"__name__": modname})
        env.env_name = env_name
        environment.Environment._memo[env_name] = env
        return env

    _rebuild_env.__module__, _rebuild_env.__qualname__ = original.__module__, original.__qualname__
    return _rebuild_env


def _ready_to_load(target_context) -> None:
    """What loaded code needs from numba's first refresh: the runtime's symbols and the hash secret's."""
    rtsys.initialize(target_context)
    from numba.cpython import hashing  # noqa: F401  (its import registers the `_numba_hashsecret_*` symbols)


def _install_probe_once() -> None:
    """Probe each cache folder for writability once per process (see the module docstring)."""
    locator = caching._CacheLocator
    if not {"get_cache_path", "makedirs", "TemporaryFile"} <= _names(locator.ensure_cache_path):
        return
    original = locator.ensure_cache_path
    writable: set = set()

    def ensure_cache_path(self):
        path = self.get_cache_path()
        if path not in writable:
            original(self)
            writable.add(path)

    locator.ensure_cache_path = ensure_cache_path


def _install_lazy_refresh() -> None:
    """Make a cache load skip the context refresh (see the module docstring); compilations refresh as before."""
    if not _expected_refresh_shape(caching, cpu, compiler):
        return

    def load_overload(self, sig, target_context):
        _ready_to_load(target_context)
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)

    caching.Cache.load_overload = load_overload
    if _expected_environment_shape(environment):
        environment._rebuild_env = _rebuild_environment(environment._rebuild_env)
    _state["lazy_refresh"] = True


def lazy_refresh() -> bool:
    """Whether a cache load skips numba's registries (for tests and diagnostics)."""
    return _state.get("lazy_refresh", False)


def install() -> bool:
    """Make numba parse a cached library's bitcode on first need (idempotent). Returns whether it applies."""
    if _state["installed"]:
        return True
    _install_lazy_refresh()
    _install_probe_once()
    if not _expected_shape(codegen, cpu):
        return False
    ll = codegen.ll
    library_class = codegen.CPUCodeLibrary
    original_unserialize = library_class._unserialize.__func__
    original_linking = library_class._get_module_for_linking
    original_defined = codegen.JitEngine.is_symbol_defined
    original_pointer = codegen.JITCodeLibrary.get_pointer_to_function
    original_executable = cpu.CPUContext.get_executable

    def _unserialize(cls, codegen_, state):
        name, kind, data = state
        if kind != "object":
            return original_unserialize(cls, codegen_, state)
        object_code, shared_bitcode = data
        self = codegen_.create_library(name)
        assert isinstance(self, cls)
        self.enable_object_caching()
        self._set_compiled_object(object_code)
        self._mallard_bitcode = shared_bitcode  # parsed by _parse_pending on first need
        self._mallard_parse = ll.parse_bitcode
        self._mallard_known = set()  # names this library defines by construction (its entry's wrapper)
        self._finalize_final_module()
        engine = self._codegen._engine
        pending = engine.__dict__.setdefault("_mallard_pending", {})
        pending[id(self)] = self
        return self

    def _get_module_for_linking(self):
        _parse_pending(self)
        return original_linking(self)

    def is_symbol_defined(self, name):
        if name in self._defined_symbols:
            return True
        pending = self.__dict__.get("_mallard_pending")
        if pending:
            for library in list(pending.values()):
                _parse_pending(library)
        return original_defined(self, name)

    def get_pointer_to_function(self, name):
        if "_mallard_bitcode" in self.__dict__:
            if name in self._mallard_known:
                self._ensure_finalized()
                return self._codegen._engine.get_function_address(name)
            _parse_pending(self)
        return original_pointer(self, name)

    def get_executable(self, library, fndesc, env):
        known = library.__dict__.get("_mallard_known")
        if known is not None:
            known.add(fndesc.llvm_cpython_wrapper_name)
        return original_executable(self, library, fndesc, env)

    library_class._unserialize = classmethod(_unserialize)
    library_class._get_module_for_linking = _get_module_for_linking
    codegen.JitEngine.is_symbol_defined = is_symbol_defined
    codegen.JITCodeLibrary.get_pointer_to_function = get_pointer_to_function
    cpu.CPUContext.get_executable = get_executable
    _state["installed"] = True
    return True
