"""mallard.multibody.math"""
