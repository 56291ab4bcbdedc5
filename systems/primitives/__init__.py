"""mallard.systems.primitives"""
