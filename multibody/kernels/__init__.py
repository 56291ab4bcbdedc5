"""mallard.multibody.kernels"""
