"""mallard.multibody"""
from mallard.common.numba_loading import install as _install_numba_loading

_install_numba_loading()  # numba parses a cached kernel's bitcode on first need (the first simulation loads faster)
